"""A name the home does not hold is bad usage, exit 2, in every command.

README: errors exit 2 "for bad usage"; a path that does not exist is bad usage (exit 2), and an
`--reader` or `--grantee` naming no principal is refused as a typo (exit 2). Yet `atc show
it_typo`, `atc receipt r_typo`, `atc forget it_typo`, `atc grant revoke g_typo`, `atc grant
add nobody` and `atc receipt ../../etc/passwd` exited 1, and `atc remember ''` exited 1 where
every other bad argument is 2: a script could not tell a typo from a failure of the home. Each
is now one line, exit 2, and the journal unchanged."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("names") / "home"
    runner = CliRunner()
    for command in (["remember", "the deploy moved to Fridays", "--no-curate"],
                    ["principal", "add", "alice", "--owner"], ["principal", "add", "bob"]):
        out = runner.invoke(main, [*command, "--home", str(home)])
        assert out.exit_code == 0, out.output
    return home


@pytest.mark.parametrize("command,says", [
    (["show", "it_0000000000000000"], "it_0000000000000000: no such item"),
    (["show", "it_0000000000000000", "--as", "bob"], "it_0000000000000000: no such item"),
    (["receipt", "r_0000000000000000"], "r_0000000000000000: no such receipt"),
    (["receipt", "../../etc/passwd"], "../../etc/passwd: not a receipt id"),
    # an id past a file name's length was a traceback (OSError: File name too long)
    (["receipt", "r_" + "0" * 300], "r_" + "0" * 58 + "…: not a receipt id"),
    (["receipt", "r_" + "é" * 200], "r_" + "é" * 58 + "…: not a receipt id"),
    (["forget", "it_0000000000000000", "--yes"], "it_0000000000000000: no such item"),
    # a session no item has exited 1, where a handle no item has exits 2
    (["forget", "--session", "no-such-session", "--yes"], "no-such-session: no items in"),
    (["forget", "--session", "no-such-session", "--dry-run"], "no-such-session: no items in"),
    (["grant", "revoke", "g_nope"], "g_nope: no such grant"),
    (["grant", "add", "nobody"], "nobody: no such principal"),
    (["grant", "list", "--grantee", "nobody"], "nobody: no such principal"),
    (["audit", "--reader", "nobody"], "nobody: no such principal"),
    (["principal", "remove", "nobody"], "nobody: no such principal"),
    (["remember", ""], "nothing to remember: the text is empty"),
])
def test_a_name_the_home_does_not_hold_is_exit_2(home: Path, command: list[str],
                                                 says: str) -> None:
    before = (home / "journal.pl").read_bytes()
    out = CliRunner().invoke(main, [*command, "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert out.stderr.startswith(f"atc: {says}") and out.stderr.count("\n") == 1, out.stderr
    assert (home / "journal.pl").read_bytes() == before
