"""Memory embedded in a real program: calls from several threads, a process forked after
Memory.open (a web server's preloaded app), a Memory sent to another process, and wrong
argument types, which must come back as the library's own errors."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from attention_cloud import AtcError, Memory, UsageError
from attention_cloud.home import write_config

SAMPLES = Path(__file__).resolve().parent.parent / "host" / "attention_cloud" / "samples"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    return home


def _notes(home: Path) -> list[str]:
    with Memory.open(home) as mem:
        rows = mem.query("item_kind(H, note), item_text(H, T)", limit=1000).rows
    return sorted(row["T"] for row in rows)


def _commits(home: Path) -> list[str]:
    return [line for line in (home / "journal.pl").read_text(encoding="utf-8").splitlines()
            if line.startswith("commit(")]


def test_threads_writing_and_reading_one_memory_at_once(tmp_path):
    """A server's thread pool: threads remembering, ingesting, hydrating and querying one
    Memory at once. Before, a second thread's write found the home's lock taken by the first
    ("another process is writing"), or two threads opened the vector store at once, renamed
    each other's index files, and a note could be lost."""
    home = _home(tmp_path)
    errors: list[BaseException] = []
    mem = Memory.open(home)

    def run(work) -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - collected and shown by the assert
            errors.append(exc)

    def remember(tag: str) -> None:
        for i in range(6):
            assert mem.remember(f"note {tag} {i}", curate=i % 2 == 0).new

    def hydrate() -> None:
        for _ in range(6):
            assert mem.hydrate("retry policy", budget=400).text

    def query() -> None:
        for _ in range(6):
            mem.query("item_kind(H, K)", limit=20)

    def ingest() -> None:
        mem.ingest([SAMPLES])

    works = [lambda: remember("a"), lambda: remember("b"), lambda: remember("c"),
             hydrate, hydrate, query, ingest]
    threads = [threading.Thread(target=run, args=(w,)) for w in works]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        mem.close()
    assert not errors, [f"{type(e).__name__}: {e}" for e in errors]
    assert _notes(home) == sorted(f"note {t} {i}" for t in "abc" for i in range(6))
    commits = _commits(home)
    assert len(commits) == len(set(commits))


def test_close_from_another_thread_waits_for_the_call_in_progress(tmp_path):
    """close() called while another thread is inside a call lets that call finish; the next
    call gets the documented UsageError, not an error from half-closed indexes."""
    home = _home(tmp_path)
    mem = Memory.open(home)
    mem.ingest([SAMPLES])
    outcome: list[object] = []

    def work() -> None:
        try:
            for _ in range(30):
                mem.hydrate("webhook idempotency", budget=600)
            outcome.append("finished")
        except UsageError:
            outcome.append("closed")
        except BaseException as exc:  # noqa: BLE001
            outcome.append(exc)

    t = threading.Thread(target=work)
    t.start()
    mem.close()
    t.join(120)
    assert outcome in (["finished"], ["closed"]), outcome


_FORKED = textwrap.dedent("""
    import os, sys, time
    from attention_cloud import Memory
    mem = Memory.open(sys.argv[1])
    mem.remember("before the fork")
    mem.hydrate("before the fork", budget=300)   # the indexes open in the parent
    pid = os.fork()
    who = "child" if pid == 0 else "parent"
    status = 0
    try:
        for i in range(4):
            mem.remember(f"{who} turn {i}", curate=False)
            mem.release()
            time.sleep(0.1)
        mem.hydrate(f"{who} turn", budget=300)
        mem.close()
    except BaseException as exc:
        print(who, type(exc).__name__, exc, flush=True)
        status = 3
    if pid == 0:
        os._exit(status)
    _, child = os.waitpid(pid, 0)
    sys.exit(status or os.waitstatus_to_exitcode(child))
""")


def test_a_forked_worker_writes_beside_its_parent_without_corrupting_the_home(tmp_path):
    """gunicorn --preload: memory opened, then the process forks, and both write. The child's
    copy of the lock named the parent's (flock belongs to the shared open file), so both wrote
    as the writer, into one journal from two stale views (two batches with one number), and a
    child's close() released the parent's lock. Now each takes the lock for itself, waits for
    the other's turn (ATC_LOCK_WAIT), and catches up first."""
    home = _home(tmp_path)
    run = subprocess.run([sys.executable, "-c", _FORKED, str(home)], capture_output=True,
                         text=True, timeout=180, env={**os.environ, "ATC_LOCK_WAIT": "20"})
    assert run.returncode == 0, run.stdout + run.stderr
    commits = _commits(home)
    assert len(commits) == len(set(commits)), commits
    assert _notes(home) == sorted(["before the fork"] + [f"{who} turn {i}" for who in
                                                         ("child", "parent") for i in range(4)])


def test_a_forked_child_that_closes_leaves_the_parents_lock_held(tmp_path):
    """A child that closes its inherited Memory must not unlock the parent's write lock."""
    home = _home(tmp_path)
    script = textwrap.dedent("""
        import os, sys
        from attention_cloud import Memory
        from attention_cloud.home import WriteLock
        mem = Memory.open(sys.argv[1])
        mem.remember("the parent writes")
        pid = os.fork()
        if pid == 0:
            mem.close()
            os._exit(0)
        os.waitpid(pid, 0)
        print("free" if WriteLock(mem.home).try_acquire() else "held")
        mem.close()
    """)
    run = subprocess.run([sys.executable, "-c", script, str(home)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "held"


def test_a_memory_sent_to_another_process_is_refused_in_words(memory):
    """multiprocessing with spawn pickles the arguments: the error says what to do instead
    of "Can't pickle local object 'CDLL.__init__.<locals>._FuncPtr'"."""
    with pytest.raises(UsageError, match="open the home there with Memory.open"):
        pickle.dumps(memory)
