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


def test_the_recall_servers_socket_admits_its_owner_only(tmp_path: Path) -> None:
    """The prompt hook's warm server answers whoever connects to its socket with frames of
    the home: the socket is mode 0600, so no other user can connect, whatever the umask."""
    import subprocess
    import sys
    import time

    from attention_cloud.agents.recall_server import ask, socket_path

    home = tmp_path / "home"
    home.mkdir()
    old = os.umask(0o000)     # the most permissive: the server must not inherit it
    try:
        server = subprocess.Popen([sys.executable, "-m", "attention_cloud.agents.recall_server",
                                   str(home)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
    finally:
        os.umask(old)
    try:
        deadline = time.monotonic() + 60
        while not socket_path(home).exists():
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        mode = stat.S_IMODE(socket_path(home).stat().st_mode)
    finally:
        ask(home, {"stop": True})
        server.wait(timeout=30)
    assert mode == 0o600, oct(mode)


def test_doctor_says_when_other_users_can_read_the_home(tmp_path: Path) -> None:
    """A home an older atc made under umask 022 stays readable by every user: doctor says so
    and how to close it, and says nothing of a home that is its owner's alone."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    out = CliRunner().invoke(main, ["doctor", "--home", str(home)])
    assert f"  mode: 755, other users can read this memory (chmod 700 {home} makes it yours " \
           "alone)" in out.output
    home.chmod(0o700)
    assert "other users can read" not in CliRunner().invoke(main, ["doctor", "--home",
                                                                   str(home)]).output
