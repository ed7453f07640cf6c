"""`atc label HANDLE --reader alice --reader bob` (the option says repeatable) always failed on
a record with no readers yet: the readers were added one at a time, and the second widened
the list the first had just made (`atc: bob: the record already names its readers`). The
readers given together now become the record's list together; naming a reader beyond a list
already set is still refused (only `atc declassify` widens)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, str]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                "--no-curate", "--format", "json", "--home", str(home)])
    handle = json.loads(done.stdout)["handle"]
    for args in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"],
                 ["principal", "add", "carol"], ["principal", "add", "dan"]):
        assert runner.invoke(main, [*args, "--home", str(home)]).exit_code == 0
    return home, handle


def _label(home: Path, *args: str):
    return CliRunner().invoke(main, ["label", *args, "--format", "json", "--home", str(home)])


def test_readers_given_together_are_the_list(home) -> None:
    home, handle = home
    out = _label(home, handle, "--reader", "carol", "--reader", "bob")
    assert out.exit_code == 0, out.output
    found = json.loads(out.stdout)
    assert found["set"] == 2
    assert sorted(found["records"][0]["readers"]) == ["bob", "carol"]
    again = _label(home, handle, "--reader", "bob")      # already a reader: nothing widens
    assert again.exit_code == 0, again.output


def test_a_reader_beyond_the_list_is_still_refused(home) -> None:
    home, handle = home
    assert _label(home, handle, "--reader", "bob").exit_code == 0
    journal = (home / "journal.pl").read_bytes()
    out = _label(home, handle, "--reader", "bob", "--reader", "dan")
    assert out.exit_code == 2
    assert out.stderr.startswith("atc: dan: the record already names its readers")
    assert (home / "journal.pl").read_bytes() == journal
