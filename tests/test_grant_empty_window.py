"""`atc grant add bob --since 2026-01-01 --until 2025-01-01` made a grant whose window holds no
moment: it reached nothing, and said nothing (a swapped pair of dates is the likely typo).
It is refused now in one line naming both times, exit 2, and no grant is added."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main


def test_since_after_until_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runner = CliRunner()
    for args in (["principal", "add", "alice", "--owner"], ["principal", "add", "bob"]):
        assert runner.invoke(main, [*args, "--home", str(home)]).exit_code == 0
    journal = (home / "journal.pl").read_bytes()
    out = runner.invoke(main, ["grant", "add", "bob", "--since", "2026-01-01",
                               "--until", "2025-01-01", "--home", str(home)])
    assert out.exit_code == 2, out.output
    assert out.stderr == ("atc: since 2026-01-01T00:00:00Z is after until "
                          "2025-01-01T00:00:00Z: the grant would reach no item (swap them?)\n")
    assert (home / "journal.pl").read_bytes() == journal
    same = runner.invoke(main, ["grant", "add", "bob", "--since", "2025-01-01",
                                "--until", "2025-01-01", "--home", str(home)])
    assert same.exit_code == 0, same.output      # one moment is a window
