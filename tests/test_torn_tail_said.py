"""A torn journal tail (a batch a killed writer never committed) is said, in one line on
stderr, by whichever process cuts it, and never cut while a live writer holds the home.

A reopen always said it (``atc: warning: …/journal.pl: N bytes past its last commit …``), but
a writer held open (``atc watch``, ``atc serve``, a script's ``Memory``) cuts such a tail when
it takes the lock again, catching up with what others wrote, and cut it without a word: from
the journal alone a torn batch cannot be told from a file cut short by a copy or a restore,
so the user must be told either way."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "ATC_LOCK_WAIT": "0"}

_LONG_OPEN = """
import sys
from attention_cloud import Memory

mem = Memory.open(sys.argv[1])
mem.remember("the staging cluster rotates its keys on Mondays")
mem.release()                       # between turns: other writers may write
print("released", flush=True)
sys.stdin.readline()                # meanwhile another writer is killed mid-batch
mem.remember("the deploy window closes at five")
mem.close()
print("done", flush=True)
"""


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args, "--home",
                           str(home)], capture_output=True, text=True, timeout=120, env=ENV)


def _torn_batch(home: Path, scratch: Path) -> bytes:
    """The bytes a writer killed before its commit marker leaves: a batch of ``atc remember``
    (made in a copy of ``home``), its ``commit(N).`` line left out."""
    scratch.mkdir()
    before = (home / "journal.pl").read_bytes()
    (scratch / "journal.pl").write_bytes(before)
    (scratch / "config.json").write_bytes((home / "config.json").read_bytes())
    done = _atc(scratch, "remember", "a note whose writer was killed", "--no-curate")
    assert done.returncode == 0, done.stderr
    batch = (scratch / "journal.pl").read_bytes()[len(before):]
    body, _, marker = batch.rstrip(b"\n").rpartition(b"\n")
    assert marker.startswith(b"commit("), batch[-200:]
    return body + b"\n"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    assert _atc(home, "remember", "the first note", "--no-curate").returncode == 0
    return home


def test_a_long_open_writer_says_the_torn_tail_it_cuts(tmp_path: Path) -> None:
    home = _home(tmp_path)
    writer = subprocess.Popen([sys.executable, "-c", _LONG_OPEN, str(home)], env=ENV,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip() == "released"
        committed = (home / "journal.pl").stat().st_size
        torn = _torn_batch(home, tmp_path / "scratch")
        with open(home / "journal.pl", "ab") as journal:
            journal.write(torn)
        out, err = writer.communicate("go\n", timeout=120)
    finally:
        writer.kill()
    assert writer.returncode == 0 and out.strip() == "done", err
    said = [line for line in err.splitlines() if line.startswith("atc: warning: ")]
    assert said == [f"atc: warning: {home / 'journal.pl'}: {len(torn)} bytes past its last "
                    f"commit (byte {committed}) cut: a batch a writer never finished (killed "
                    "mid-write), or, if no writer was stopped, the file was cut short (restore "
                    "it from a copy)"], err
    listed = _atc(home, "query", "item_text(_, T)", "--format", "json")
    assert "killed" not in listed.stdout and "deploy window" in listed.stdout


_HOLDS_A_BATCH = """
import sys
from pathlib import Path
from attention_cloud import Memory

home = Path(sys.argv[1])
mem = Memory.open(home)
mem.acquire()
with open(home / "journal.pl", "ab") as journal:   # a batch on its way, not committed yet
    journal.write(Path(sys.argv[2]).read_bytes())
print("writing", flush=True)
sys.stdin.readline()
mem.close()
"""


def test_bytes_past_the_last_commit_are_never_cut_while_their_writer_lives(
        tmp_path: Path) -> None:
    """Property: while the process that holds the write lock is alive, what it wrote past the
    last commit stays, whoever opens the home: a reader, a writer refused the lock, a writer
    held open that takes the lock again."""
    home = _home(tmp_path)
    torn = _torn_batch(home, tmp_path / "scratch")
    (tmp_path / "batch").write_bytes(torn)
    holder = subprocess.Popen([sys.executable, "-c", _HOLDS_A_BATCH, str(home),
                               str(tmp_path / "batch")], env=ENV, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"writing"
        in_flight = (home / "journal.pl").read_bytes()
        assert in_flight.endswith(torn)
        read = _atc(home, "query", "item(H)", "--format", "json")
        refused = _atc(home, "remember", "another note", "--no-curate")
        long_open = subprocess.run(
            [sys.executable, "-c", "import sys\nfrom attention_cloud import Memory\n"
             "mem = Memory.open(sys.argv[1])\ntry:\n    mem.remember('a third note')\n"
             "except Exception as exc:\n    print(type(exc).__name__)\nmem.close()", str(home)],
            capture_output=True, text=True, timeout=120, env=ENV)
        assert (home / "journal.pl").read_bytes() == in_flight
    finally:
        holder.communicate(b"\n", timeout=60)
    assert read.returncode == 0 and "warning" not in read.stderr, read.stderr
    assert refused.returncode != 0 and "another process is writing" in refused.stderr
    assert long_open.stdout.strip() == "WriterBusy", long_open
