"""A long-open writer (a script's Memory that wrote and keeps the home open) against the
commands a user runs meanwhile: the command is refused in one line naming the holder's pid and
saying how to wait for it, the journal unchanged; with ATC_LOCK_WAIT it waits, and its write
lands once the holder lets go. Real processes; waits are on conditions with a deadline."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.home import write_config

ROOT = Path(__file__).resolve().parent.parent
ATC = str(ROOT / ".venv" / "bin" / "atc")

HOLDER = """
import sys, time
from pathlib import Path
from attention_cloud import Memory
home, go = sys.argv[1], Path(sys.argv[2])
mem = Memory.open(home)
mem.remember("The deploy key rotates on Fridays.")   # holds the write lock from here
print("held", flush=True)
deadline = time.monotonic() + 120
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.02)
mem.close()
"""


def _texts(home: Path) -> set[str]:
    with Memory.open(home, create=False) as mem:
        return {str(r["T"]) for r in mem.query("item_text(_, T)", limit=1000).rows}


def _start_holder(home, go) -> subprocess.Popen:
    """HOLDER on a new home (``hash`` embedder), holding its write lock until ``go`` exists."""
    write_config(home, {"embedder": "hash"})
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(home), str(go)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    return holder


def test_a_command_meeting_a_long_open_writer_names_it_and_waits_when_asked(home, tmp_path):
    go = tmp_path / "go"
    holder = _start_holder(home, go)
    try:
        journal = (home / "journal.pl").read_bytes()
        env = {k: v for k, v in os.environ.items() if k != "ATC_LOCK_WAIT"}
        refused = subprocess.run([ATC, "remember", "Invoices are numbered per year.",
                                  "--home", str(home)], capture_output=True, text=True,
                                 timeout=120, env=env)
        assert refused.returncode == 1
        assert refused.stderr == (
            f"atc: {home}: another process is writing to this memory home (pid {holder.pid}); "
            "run this again once it is done (a script's Memory gives the lock back at release() "
            "or close()), or set ATC_LOCK_WAIT to the seconds to wait for it\n")
        assert (home / "journal.pl").read_bytes() == journal
        waiting = subprocess.Popen([ATC, "remember", "Invoices are numbered per year.",
                                    "--home", str(home)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env={**env, "ATC_LOCK_WAIT": "120"})
        go.touch()
        out, err = waiting.communicate(timeout=180)
        assert waiting.returncode == 0, err
    finally:
        go.touch()
        holder.wait(timeout=120)
    assert {"The deploy key rotates on Fridays.", "Invoices are numbered per year."} <= _texts(home)


def test_the_api_names_a_busy_writer_with_its_own_error_type(home, tmp_path):
    """A program that meets another writer can tell that apart from every other HomeError
    (and wait, retry or report it) without matching the message: WriterBusy, with the
    holder's pid."""
    import pytest

    from attention_cloud import HomeError, WriterBusy

    go = tmp_path / "go"
    holder = _start_holder(home, go)
    try:
        with Memory.open(home) as mem:
            with pytest.raises(WriterBusy) as busy:
                mem.acquire(wait=0)
    finally:
        go.touch()
        holder.wait(timeout=120)
    assert isinstance(busy.value, HomeError) and busy.value.holder == holder.pid
