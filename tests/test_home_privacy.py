"""A memory home is its owner's: the directory atc creates is readable by no other user."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main


def test_a_new_home_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    """Under the usual umask (022) a new home was mode 0755 and every file in it 0644: any
    user of the machine read the whole memory, the audit log's handles and the principals'
    token hashes. The home directory atc makes is now 0700; folders above it are not its."""
    old = os.umask(0o022)
    try:
        home = tmp_path / "deep" / "home"
        out = CliRunner().invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                        "--no-curate", "--home", str(home)])
    finally:
        os.umask(old)
    assert out.exit_code == 0, out.output
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE(home.parent.stat().st_mode) == 0o755


def test_an_existing_home_keeps_the_mode_its_owner_gave_it(tmp_path: Path) -> None:
    home = tmp_path / "shared-home"
    home.mkdir()
    home.chmod(0o750)
    out = CliRunner().invoke(main, ["remember", "a note for the group", "--no-curate",
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert stat.S_IMODE(home.stat().st_mode) == 0o750
