"""`atc team join PERSON TEAM` where TEAM is a person, or PERSON a team, answered in Prolog's
words (`atc: Type error: `team' expected, found `alice' (an atom)`, `No permission to join
team `ops'`). Each now says what is wrong in one line, exit 2 (bad usage), nothing written."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("teams") / "home"
    runner = CliRunner()
    for args in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"],
                 ["team", "add", "ops"], ["team", "add", "infra"]):
        done = runner.invoke(main, [*args, "--home", str(home)])
        assert done.exit_code == 0, done.output
    return home


@pytest.mark.parametrize("person,team,said", [
    ("bob", "alice", "alice is a person, not a team (atc team add NAME makes a team)"),
    ("ops", "infra", "ops is a team, and a team holds persons only (no team in a team)"),
])
def test_joining_what_is_no_team_says_so(home: Path, person: str, team: str, said: str) -> None:
    journal = (home / "journal.pl").read_bytes()
    out = CliRunner().invoke(main, ["team", "join", person, team, "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert out.stderr == f"atc: {said}\n"
    assert (home / "journal.pl").read_bytes() == journal
