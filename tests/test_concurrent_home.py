"""Several processes on one home: a writer refused the lock names the process that holds it,
also while the lock changes hands (a writer taking it, one giving it back, one SIGKILLed with
its pid left in the lock file), and a short run of scripts/bench/concurrent_home.py (command
line and Python API users at once, one SIGKILLed) loses, doubles and leaks nothing.

Real processes; the helper that holds the lock stands still in the moment a real writer passes
through in microseconds (after its ``flock``, before its pid; after its release's truncate,
before its unlock), so that the refusal meets it every time."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attention_cloud.errors import WriterBusy
from attention_cloud.home import WriteLock

ROOT = Path(__file__).resolve().parent.parent

#: Holds home/.lock (flock) without writing its pid, says "locked", then after PAUSE seconds
#: either writes its pid and holds on until GO exists ("pid"), or lets go ("release").
HOLDER = """
import fcntl, os, sys, time
from pathlib import Path
lock, then, pause, go = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3]), Path(sys.argv[4])
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(pause)
if then == "release":
    fcntl.flock(fd, fcntl.LOCK_UN)
    sys.exit(0)
os.ftruncate(fd, 0)
os.pwrite(fd, f"{os.getpid()}\\n".encode(), 0)
deadline = time.monotonic() + 60
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.02)
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty folder for the lock alone (WriteLock needs no memory in it)."""
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def _killed_writer(home: Path) -> int:
    """The pid of a writer SIGKILLed while it held the lock: its pid stays in the lock file."""
    proc = subprocess.Popen([sys.executable, "-c",
                             "import sys, time; from pathlib import Path\n"
                             "from attention_cloud.home import WriteLock\n"
                             "WriteLock(Path(sys.argv[1])).acquire(wait=0)\n"
                             "print('held', flush=True); time.sleep(60)", str(home)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert (home / ".lock").read_text().strip() == str(proc.pid)
    return proc.pid


def _holder(home: Path, then: str, pause: float, go: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(home / ".lock"), then,
                             str(pause), str(go)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_a_writer_refused_after_a_killed_writer_names_the_new_holder_not_the_dead_one(home, tmp_path):
    dead = _killed_writer(home)
    go = tmp_path / "go"
    holder = _holder(home, "pid", 0.5, go)   # took the lock; its pid not written yet
    try:
        with pytest.raises(WriterBusy) as refused:
            WriteLock(home).acquire(wait=0)
        # before: "(pid <the killed writer>)", a process that no longer exists
        assert refused.value.holder == holder.pid, str(refused.value)
        assert f"(pid {holder.pid})" in str(refused.value)
        assert str(dead) not in str(refused.value)
        assert "ATC_LOCK_WAIT" in str(refused.value)
    finally:
        go.touch()
        holder.wait(timeout=60)


def test_a_lock_given_back_while_a_writer_is_refused_is_taken_instead(home, tmp_path):
    holder = _holder(home, "release", 0.3, tmp_path / "go")   # emptied, about to let go
    lock = WriteLock(home)
    try:
        lock.acquire(wait=0)    # before: WriterBusy naming no one, for a lock then free
        assert lock.held and (home / ".lock").read_text().strip() == str(os.getpid())
    finally:
        lock.release()
        holder.wait(timeout=60)


def test_a_lock_still_held_for_a_dead_writer_says_a_process_it_started_holds_it(home, tmp_path):
    dead = _killed_writer(home)
    go = tmp_path / "go"
    # the lock's open file inherited by a process the writer forked: held, the pid dead
    holder = _holder(home, "release", 30, go)
    try:
        began = time.monotonic()
        with pytest.raises(WriterBusy) as refused:
            WriteLock(home).acquire(wait=0)
        assert time.monotonic() - began < 10
        assert f"pid {dead} took the lock and has ended" in str(refused.value)
        assert refused.value.holder is None
    finally:
        holder.kill()
        holder.wait(timeout=60)


@pytest.mark.slow
def test_a_short_concurrent_run_with_a_kill_loses_doubles_and_leaks_nothing(tmp_path):
    out = tmp_path / "run.json"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "concurrent_home.py"),
                           "--workers", "4", "--seconds", "25", "--seed", "5", "--keep",
                           str(tmp_path / "work"), "--json", str(out)],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["killed"], "no process was killed mid-run"
    done = {e["op"] for e in result["entries"] if e.get("outcome") == "ok"}
    assert "hydrate" in done and done & {"ingest", "remember", "curate"}, done  # it ran
    assert all(passed for _, passed, _ in result["checks"]), result["checks"]


def test_a_reader_meeting_an_interrupted_erasure_does_not_wait_to_name_the_writer(
        tmp_path, monkeypatch):
    """A reader finishes an erasure a killed process left only when no one writes; one at
    work is not waited for, also while the lock file names a dead process (the killed
    forget's pid) and the live holder has not written its own yet."""
    from attention_cloud import Memory
    from attention_cloud import home as home_module
    from attention_cloud.home import ERASURE_PLAN_FILE

    home = tmp_path / "home"
    with Memory.open(home) as mem:
        mem.remember("the staging database is read-only on Fridays", curate=False)
    _killed_writer(home)
    (home / ERASURE_PLAN_FILE).write_text("{}", encoding="utf-8")   # never read: a writer works
    monkeypatch.setattr(home_module, "HANDOVER_WAIT", 30.0)   # a writer's look again, long
    go = tmp_path / "go"
    holder = _holder(home, "release", 60, go)
    try:
        began = time.monotonic()
        with Memory.open(home) as mem:
            assert len(mem.query("item(H)").rows) == 1
        assert time.monotonic() - began < 20      # before: 30 s looking for a holder's pid
    finally:
        holder.kill()
        holder.wait(timeout=60)


CHURN = """
import os, sys, time
from pathlib import Path
folder = Path(sys.argv[1]); folder.mkdir(exist_ok=True)
deadline = time.monotonic() + float(sys.argv[2])
print("churning", flush=True)
while time.monotonic() < deadline:       # what a writer's index swap or receipt pruning does
    names = [folder / f"part-{i}.tmp" for i in range(40)]
    for name in names:
        name.write_bytes(b"x")
    for name in names:
        name.unlink()
"""


def test_stats_beside_a_writer_removing_files_counts_what_is_there(tmp_path):
    """``stats`` sums the home's file sizes; a file a writer removed between the listing and
    its size (a BM25 snapshot replaced, a receipt pruned) made it fail, FileNotFoundError
    (the soak: ``lexical/snap-17/inv_counts.npy``), in a reader that takes no lock."""
    from attention_cloud import Memory

    home = tmp_path / "home"
    with Memory.open(home) as mem:
        mem.remember("the staging database is read-only on Fridays", curate=False)
    churn = subprocess.Popen([sys.executable, "-c", CHURN, str(home / "lexical" / "snap-x"),
                              "60"], stdout=subprocess.PIPE, text=True)
    try:
        assert churn.stdout.readline().strip() == "churning"
        with Memory.open(home) as mem:
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline:
                assert mem.stats()["disk_bytes"] > 0
    finally:
        churn.kill()
        churn.wait(timeout=60)
