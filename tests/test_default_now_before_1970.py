"""A frame's default `now` is the newest item's time, before 1970 too.

A memory whose items were all written before 1970 (a digitised archive, a letters corpus) gave
every frame `"now": null` and no window for "yesterday" or "last week", as an empty memory
does, though `--now 1965-03-05` read the same goal against that day: the newest item's stamp,
negative, was taken for "no time"."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

CHAT = """[1965-03-04 10:00] Priya: we moved the tape archive to the basement today
[1965-03-04 10:05] Omar: good, the basement is cooler for the tapes anyway
[1965-03-05 09:00] Priya: the basement flooded last night and the tapes are wet
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("before1970")
    (root / "archive.txt").write_text(CHAT, encoding="utf-8")
    home = root / "home"
    out = CliRunner().invoke(main, ["ingest", str(root / "archive.txt"), "--home", str(home)])
    assert out.exit_code == 0, out.output
    return home


def _receipt(home: Path, goal: str, *extra: str) -> dict:
    out = CliRunner().invoke(main, ["hydrate", goal, "--format", "json", *extra,
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)["receipt"]


def test_the_default_now_is_the_newest_item_s_time(home: Path) -> None:
    receipt = _receipt(home, "what happened to the tapes yesterday")
    assert receipt["now"] == "1965-03-05T09:00:00Z"
    assert receipt["anchor"]["phrase"] == "yesterday"
    assert receipt["anchor"]["to"] == "1965-03-05T09:00:00Z"


def test_the_default_is_the_now_given_as_that_time(home: Path) -> None:
    goal = "what did we do with the tapes last week"
    given = _receipt(home, goal, "--now", "1965-03-05T09:00:00Z")
    default = _receipt(home, goal)
    assert default["now"] == given["now"] and default["anchor"] == given["anchor"]


def test_a_grantee_who_sees_no_dated_item_has_no_now(home: Path) -> None:
    # the grantee's now is the newest item they see; seeing none, it was 0, read as
    # 1970-01-01T00:00:00Z (their "last week" a window of 1969) rather than no time
    runner = CliRunner()
    for args in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"],
                 ["grant", "add", "bob", "--segment", "elsewhere", "--ceiling", "L2"]):
        out = runner.invoke(main, [*args, "--home", str(home)])
        assert out.exit_code == 0, out.output
    receipt = _receipt(home, "what happened to the tapes last week", "--as", "bob")
    assert receipt["facts"] == [] and receipt["now"] is None and receipt["anchor"] is None
