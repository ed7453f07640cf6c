"""`atc audit --reader NAME` for a name the home never knew printed nothing and exited 0, as if
the principal existed and had read nothing: a typo looked like a clean ledger. It is refused now
as `atc grant list --grantee` refuses one (one line, exit 2); a principal of the home with no
reads, and a removed one whose reads the ledger keeps, are still answered."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.audit import append_event
from attention_cloud.cli import main


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("audit-home")
    runner = CliRunner()
    for args in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"],
                 ["principal", "add", "carol"]):
        assert runner.invoke(main, [*args, "--home", str(home)]).exit_code == 0
    append_event(home, {"event": "read", "reader": "carol", "op": "hydrate", "goal": "g",
                        "facts": []})
    assert runner.invoke(main, ["principal", "remove", "carol", "--home", str(home)]).exit_code == 0
    return home


def test_an_unknown_reader_is_refused_in_one_line(home: Path) -> None:
    before = (home / "journal.pl").read_bytes()
    out = CliRunner().invoke(main, ["audit", "--reader", "nobody", "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert out.stdout == ""
    assert out.stderr == "atc: nobody: no such principal in this home, and no event of the " \
                         "audit log names it (atc principal list)\n"
    assert (home / "journal.pl").read_bytes() == before


def test_a_principal_with_no_reads_gets_an_empty_answer(home: Path) -> None:
    out = CliRunner().invoke(main, ["audit", "--reader", "bob", "--format", "json",
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout) == []


def test_a_removed_principal_keeps_its_reads(home: Path) -> None:
    out = CliRunner().invoke(main, ["audit", "--reader", "carol", "--format", "json",
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert [e["reader"] for e in json.loads(out.stdout)] == ["carol"]
