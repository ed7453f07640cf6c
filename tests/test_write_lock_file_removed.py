"""Two writers never both hold a home's write lock, even when ``.lock`` vanishes (a user's
``rm`` of what looks like a stale lock, a cleanup script, a refused command taking back the
home it made). ``flock`` locks a file, not a path: before, a writer holding the lock went on
writing after the file was removed while the next writer locked the new file the path named,
and both appended to one journal (each on a view that missed the other's writes); and a
writer that opened the file before it was replaced got its lock once the old holder let go,
beside the holder of the new one."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.errors import HomeError
from attention_cloud.home import WriteLock, write_config

REMOVED = "the write lock file .lock was removed or replaced while this process held it"


def test_a_holder_whose_lock_file_was_removed_is_refused_its_next_write(tmp_path: Path):
    first, second = WriteLock(tmp_path), WriteLock(tmp_path)
    first.acquire(wait=0)
    (tmp_path / ".lock").unlink()
    second.acquire(wait=0)          # the path names a new file, which no one held
    with pytest.raises(HomeError, match=REMOVED):
        first.acquire(wait=0)
    assert not first.held and second.held
    with pytest.raises(HomeError, match="another process is writing"):
        first.acquire(wait=0)       # the lock the path names now is the other's
    second.release()
    first.acquire(wait=0)           # given back: taken as any other time
    assert first.held
    first.release()


def test_a_holder_whose_lock_file_was_removed_and_no_one_took_it_is_refused_once(tmp_path):
    lock = WriteLock(tmp_path)
    lock.acquire(wait=0)
    (tmp_path / ".lock").unlink()
    with pytest.raises(HomeError, match=REMOVED):
        lock.acquire(wait=0)        # another process may have written meanwhile: not assumed
    lock.acquire(wait=0)
    assert lock.held and (tmp_path / ".lock").read_text().strip() == str(os.getpid())
    lock.release()


def test_a_waiter_that_opened_the_replaced_file_does_not_lock_beside_the_new_holder(tmp_path):
    holder, waiter, newcomer = WriteLock(tmp_path), WriteLock(tmp_path), WriteLock(tmp_path)
    holder.acquire(wait=0)
    outcome: list[object] = []

    def wait_for_it() -> None:
        try:
            waiter.acquire(wait=10)   # opens the file the path names now, and waits on it
            outcome.append("held")
        except HomeError as error:
            outcome.append(error)

    thread = threading.Thread(target=wait_for_it)
    thread.start()
    time.sleep(0.3)
    (tmp_path / ".lock").unlink()
    newcomer.acquire(wait=0)        # the new file's lock
    holder.release()                # the waiter's file comes free: it is no longer the lock
    time.sleep(0.5)
    assert outcome == [] and not waiter.held, "two writers held the lock at once"
    newcomer.release()
    thread.join(10)
    assert outcome == ["held"]
    waiter.release()


def _shell(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home),
                           *args], capture_output=True, text=True, timeout=300)


def test_a_long_open_memory_does_not_write_beside_a_shell_after_the_lock_file_went(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "none"})
    mem = Memory.open(home)
    try:
        mem.remember("the long-open writer's first note", curate=False)
        assert mem.lock.held
        (home / ".lock").unlink()
        done = _shell(home, "remember", "--no-curate", "a note from a shell meanwhile")
        assert done.returncode == 0, done.stderr
        with pytest.raises(HomeError, match=REMOVED):
            mem.remember("the long-open writer's second note", curate=False)
        mem.remember("the long-open writer's second note", curate=False)  # run again: taken
        texts = [r["T"] for r in mem.query("item(H), rung(H, l0, T)").rows]
    finally:
        mem.close()
    assert sorted(texts) == sorted(["the long-open writer's first note",
                                    "a note from a shell meanwhile",
                                    "the long-open writer's second note"])
    with Memory.open(home, create=False) as again:
        reread = [r["T"] for r in again.query("item(H), rung(H, l0, T)").rows]
    assert sorted(reread) == sorted(texts)
