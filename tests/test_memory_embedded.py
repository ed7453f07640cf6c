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


@pytest.fixture(scope="module")
def typed_home(tmp_path_factory):
    home = _home(tmp_path_factory.mktemp("typed"))
    with Memory.open(home) as mem:
        mem.remember("the retry policy stops at five attempts")
    return home


_WRONG_TYPES = [
    ("hydrate budget text", lambda m: m.hydrate("retry", budget="500")),
    ("hydrate budget None", lambda m: m.hydrate("retry", budget=None)),
    ("hydrate budget float", lambda m: m.hydrate("retry", budget=100.5)),
    ("hydrate budget bool", lambda m: m.hydrate("retry", budget=True)),
    ("hydrate goal None", lambda m: m.hydrate(None)),
    ("hydrate goal bytes", lambda m: m.hydrate(b"retry")),
    ("hydrate plane None", lambda m: m.hydrate("retry", plane=None)),
    ("hydrate ceiling None", lambda m: m.hydrate("retry", ceiling=None)),
    ("hydrate segments list", lambda m: m.hydrate("retry", segments=["default"])),
    ("hydrate segments text budget", lambda m: m.hydrate("retry", segments={"default": "a"})),
    ("hydrate segments negative", lambda m: m.hydrate("retry", segments={"default": -1})),
    ("hydrate mount int", lambda m: m.hydrate("retry", mount=5)),
    # an empty list of cells (a filter that matched none) is not the whole memory
    ("hydrate mount empty", lambda m: m.hydrate("retry", mount=[])),
    ("hydrate walk int", lambda m: m.hydrate("retry", walk=3)),
    ("hydrate rules int", lambda m: m.hydrate("retry", rules=5)),
    ("query goal None", lambda m: m.query(None)),
    ("query goal empty", lambda m: m.query("  ")),
    ("query limit text", lambda m: m.query("true", limit="5")),
    ("query limit None", lambda m: m.query("true", limit=None)),
    ("query time_limit text", lambda m: m.query("true", time_limit="5")),
    ("item None", lambda m: m.item(None)),
    ("item list", lambda m: m.item(["it_x"])),
    ("remember goal int", lambda m: m.remember("a new note", goal=3)),
    ("ingest None", lambda m: m.ingest(None)),
    ("ingest [None]", lambda m: m.ingest([None])),
    ("ingest max_file_bytes text", lambda m: m.ingest([SAMPLES], max_file_bytes="5")),
    ("ingest source int", lambda m: m.ingest([SAMPLES / "2026-01-12-processor-retries.jsonl"],
                                             source=5)),
    ("ingest unfinished size text", lambda m: m.ingest([SAMPLES], unfinished={"a.jsonl": "x"})),
    ("forget None", lambda m: m.forget(None)),
    ("forget reason None", lambda m: m.forget(["it_x"], reason=None)),
    ("rules_add None", lambda m: m.rules_add(None, "fixes")),
    ("reembed int", lambda m: m.reembed(5)),
    ("set_limits text", lambda m: m.set_limits(time_limit="x")),
    ("set_limits nan", lambda m: m.set_limits(time_limit=float("nan"))),
    ("set_limits stack_limit huge", lambda m: m.set_limits(stack_limit=10**30)),
    ("set_limits stack_limit tiny", lambda m: m.set_limits(stack_limit=1000)),
    ("acquire wait text", lambda m: m.acquire(wait="x")),
    ("open int", lambda m: Memory.open(5)),
    # a flag from a query string or a config file: "false" and "no" are true, 0 is false
    ("hydrate bridge text", lambda m: m.hydrate("retry", bridge="false")),
    ("hydrate excerpt None", lambda m: m.hydrate("retry", excerpt=None)),
    ("hydrate cells text", lambda m: m.hydrate("retry", cells="no")),
    ("ingest strict text", lambda m: m.ingest([SAMPLES], strict="no")),
    ("ingest progress int", lambda m: m.ingest([SAMPLES], progress=3)),
    ("curate progress text", lambda m: m.curate(progress="log")),
    ("remember curate text", lambda m: m.remember("a note to curate later", curate="no")),
    ("forget dry_run text", lambda m: m.forget(["it_x"], dry_run="no")),
    ("release keep_indexes int", lambda m: m.release(keep_indexes=0)),
    ("open create text", lambda m: Memory.open(m.home, create="no")),
]


@pytest.mark.parametrize("call", [c for _, c in _WRONG_TYPES], ids=[n for n, _ in _WRONG_TYPES])
def test_a_wrong_argument_type_is_a_usage_error_and_changes_nothing(typed_home, call):
    """Before, these raised TypeError, AttributeError or ValueError from deep inside (or a
    Prolog type error about the atom 'None'), and set_limits took a NaN time limit."""
    journal = (typed_home / "journal.pl").read_bytes()
    mem = Memory.open(typed_home)
    try:
        with pytest.raises(UsageError) as caught:
            call(mem)
        assert "\n" not in str(caught.value)
    finally:
        mem.close()
    assert (typed_home / "journal.pl").read_bytes() == journal


@pytest.mark.parametrize("call", [
    lambda m: m.hydrate("retry", walk=""),        # ran the plane's own walk, as walk=None
    lambda m: m.hydrate("retry", walk="  "),
    lambda m: m.hydrate("retry", rules=""),       # said ".: rules file not found"
    lambda m: m.query("true", rules=" "),
], ids=["hydrate walk empty", "hydrate walk blank", "hydrate rules empty", "query rules blank"])
def test_an_empty_name_is_refused_not_read_as_none(typed_home, call):
    """README: an empty value of what names something is never read as no value (the CLI's
    `--walk ""`); the API says so in the same words, None being how it leaves one out."""
    mem = Memory.open(typed_home)
    try:
        with pytest.raises(UsageError, match=r"^(walk|rules) must not be empty \(None leaves "
                                             r"it out\)$"):
            call(mem)
    finally:
        mem.close()


def test_ingest_takes_one_path_given_alone(tmp_path):
    """``mem.ingest("session.jsonl")`` ingests that file; it was read as a list of
    one-letter paths ("/: ..." or "s: no such file or directory")."""
    home = _home(tmp_path)
    with Memory.open(home) as mem:
        report = mem.ingest(str(SAMPLES / "2026-01-12-processor-retries.jsonl"))
        assert report.files == 1 and report.new > 0
        assert mem.ingest(SAMPLES / "2026-01-13-pan-logging-audit.jsonl").new > 0


def test_a_closed_memory_refuses_calls_that_need_no_prolog_too(tmp_path):
    """README: a closed Memory refuses every call with a UsageError. rules_remove deleted
    the saved rule, and saved_rule_texts, release and finish_erasure answered."""
    home = _home(tmp_path)
    mem = Memory.open(home)
    mem.rules_add("my_error(H) :- item_kind(H, error).\n", "fixes")
    mem.close()
    for call in (lambda: mem.rules_remove("fixes"), mem.saved_rule_texts, mem.release,
                 mem.finish_erasure, mem.rules_list):
        # closed by its own close(): it said "opening another home closes the one open
        # before", which no call here did
        with pytest.raises(UsageError, match=r"this Memory is closed \(by close\(\) or the end "
                                             r"of its with block\); open it"):
            call()
    assert (home / "rules" / "fixes.pl").is_file()
    mem.close()  # closing again is fine


def test_grantee_reads_from_two_threads_audit_each_read_as_its_own(tmp_path):
    """A server thread per request: bob's query reads every L2 rung he is granted while carol,
    granted nothing, asks a goal that reads no record. The sharing functions ran outside the
    API lock, so carol's read could be logged with the records bob's read had just noted
    (the owner's ledger said carol read them) and bob's with none."""
    from attention_cloud.audit import read_events
    from attention_cloud.sharing import add_grant, add_principal, reader_query

    home = _home(tmp_path)
    with Memory.open(home) as mem:
        mem.ingest([SAMPLES], segment="payments")
        mem.curate()
        add_principal(mem, "alice", owner=True)
        add_principal(mem, "bob")
        add_principal(mem, "carol")
        add_grant(mem, "bob", segments=["payments"], ceiling="L2")
        failures: list[BaseException] = []

        def reads(reader: str, goal: str) -> None:
            try:
                for _ in range(40):
                    reader_query(mem, reader, goal)
            except BaseException as exc:  # noqa: BLE001
                failures.append(exc)

        threads = [threading.Thread(target=reads, args=("bob", "findall(T, rung(_, l2, T), Ts)")),
                   threading.Thread(target=reads, args=("carol", "X = 1"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert not failures, failures
    events = list(read_events(home))  # the log's reads, each with its facts (audit_index.py)
    carol = [e for e in events if e.get("reader") == "carol"]
    bob = {len(e["facts"]) for e in events if e.get("reader") == "bob"}
    assert len(carol) == 40 and all(e["facts"] == [] for e in carol)
    assert len(bob) == 1 and bob != {0}


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory):
    from attention_cloud.sharing import add_principal

    home = _home(tmp_path_factory.mktemp("shared"))
    with Memory.open(home) as mem:
        mem.ingest([SAMPLES], segment="payments")
        add_principal(mem, "alice", owner=True)
        add_principal(mem, "bob")
    return home


def test_a_grant_of_one_segment_given_as_a_string_grants_that_segment(shared_home):
    """``add_grant(mem, "bob", segments="payments")`` granted the segments p, a, y, m, e, n,
    t and s (the string read letter by letter): bob read nothing, and nothing said why."""
    from attention_cloud.sharing import add_grant, grants_for, reader_query, revoke_grant

    with Memory.open(shared_home) as mem:
        grant = add_grant(mem, "bob", segments="payments", tags=["retries"])
        try:
            (found,) = [g for g in grants_for(mem, "bob") if g.id == grant]
            assert sorted(found.filter) == ["segment(payments)", "tag(retries)"], found.filter
        finally:
            revoke_grant(mem, grant)


_WRONG_SHARING_TYPES = [
    ("reader_query limit text", lambda m, s: s.reader_query(m, "bob", "true", limit="5")),
    ("reader_query limit None", lambda m, s: s.reader_query(m, "bob", "true", limit=None)),
    ("reader_query time_limit text", lambda m, s: s.reader_query(m, "bob", "true",
                                                                  time_limit="5")),
    ("reader_query time_limit inf", lambda m, s: s.reader_query(m, "bob", "true",
                                                                 time_limit=float("inf"))),
    ("reader_query goal None", lambda m, s: s.reader_query(m, "bob", None)),
    ("reader_query reader int", lambda m, s: s.reader_query(m, 5, "true")),
    ("reader_hydrate mount int", lambda m, s: s.reader_hydrate(m, "bob", "retry", mount=5)),
    ("reader_hydrate depth text", lambda m, s: s.reader_hydrate(m, "bob", "retry",
                                                                mount=["cell_x"], depth="2")),
    ("reader_hydrate rules_text int", lambda m, s: s.reader_hydrate(m, "bob", "retry",
                                                                    rules_text=5)),
    ("reader_hydrate reader None", lambda m, s: s.reader_hydrate(m, None, "retry")),
    ("reader_show level int", lambda m, s: s.reader_show(m, "bob", "it_x", level=2)),
    ("reader_show handle None", lambda m, s: s.reader_show(m, "bob", None)),
    ("reader_receipt None", lambda m, s: s.reader_receipt(m, "bob", None)),
    ("add_grant segments [None]", lambda m, s: s.add_grant(m, "bob", segments=[None])),
    ("add_grant segments int", lambda m, s: s.add_grant(m, "bob", segments=5)),
    ("add_grant expires int", lambda m, s: s.add_grant(m, "bob", expires=5)),
    ("revoke_grant None", lambda m, s: s.revoke_grant(m, None)),
    ("label handles None", lambda m, s: s.label(m, None, restrictions=["pii"])),
    ("label restrictions None", lambda m, s: s.label(m, ["it_x"], restrictions=None)),
    ("declassify why None", lambda m, s: s.declassify(m, ["it_x"], why=None)),
    ("authenticate int", lambda m, s: s.authenticate(m, 5)),
    ("grants_for None", lambda m, s: s.grants_for(m, None)),
    ("record_labels None", lambda m, s: s.record_labels(m, None)),
]


@pytest.mark.parametrize("call", [c for _, c in _WRONG_SHARING_TYPES],
                         ids=[n for n, _ in _WRONG_SHARING_TYPES])
def test_a_wrong_argument_to_a_sharing_function_is_a_usage_error(shared_home, call):
    """Before: TypeError, AttributeError, a Prolog float_overflow, a grant on segment 'None',
    an empty answer for principal None."""
    from attention_cloud import sharing

    journal = (shared_home / "journal.pl").read_bytes()
    with Memory.open(shared_home) as mem:
        with pytest.raises(UsageError) as caught:
            call(mem, sharing)
        assert "\n" not in str(caught.value)
    assert (shared_home / "journal.pl").read_bytes() == journal


def test_a_stack_limit_refused_by_set_limits_leaves_later_queries_working(typed_home):
    """set_limits(stack_limit=10**30) was taken, and every later query (and frame with rules)
    raised "set_prolog_flag/2: Cannot represent due to `int64_t'" until limits were set again."""
    with Memory.open(typed_home) as mem:
        for bad in (10**30, 1000):
            with pytest.raises(UsageError, match="stack_limit"):
                mem.set_limits(stack_limit=bad)
            assert mem.query("length(L, 2)").rows == [{"L": "[_A,_B]"}]
        mem.set_limits(stack_limit=268435456)  # the default again: limits are per process
        assert mem.query("X = 1").rows == [{"X": 1}]


# A forked child's end awaited for 20 s at most (a stuck child is the defect the tests catch).
_REAP = textwrap.dedent("""
    import os, time
    def reap(pid):
        t0 = time.monotonic()
        while not os.waitpid(pid, os.WNOHANG)[0]:
            if time.monotonic() - t0 > 20:
                print("child hung", flush=True)
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return
            time.sleep(0.05)
""")


_FORK_WHILE_BUSY = _REAP + textwrap.dedent("""
    import os, sys, threading, time
    from attention_cloud import Memory
    mem = Memory.open(sys.argv[1])
    mem.hydrate("warm up", budget=200)
    stop = False
    def busy():   # a preloaded app's background thread, always inside a call
        while not stop:
            mem.query("between(1, 300000, X), X < 0", time_limit=5)
    threading.Thread(target=busy, daemon=True).start()
    time.sleep(0.3)
    for k in range(3):
        pid = os.fork()
        if pid == 0:
            try:
                rows = mem.query("X = 1").rows
                facts = len(mem.hydrate("processor retries", budget=300).facts)
                os.write(1, f"child {rows} {facts > 0}\\n".encode())
            finally:
                os._exit(0)
        reap(pid)
    stop = True
""")


def test_a_process_forked_while_a_thread_is_in_a_call_is_not_stuck(tmp_path):
    """gunicorn --preload with a background thread: the fork caught that thread inside a
    query, the child inherited the engine's lock held by a thread it does not have, and its
    first call hung for ever. A fork now waits for the call in progress."""
    home = _home(tmp_path)
    with Memory.open(home) as mem:
        mem.ingest([SAMPLES])
    done = subprocess.run([sys.executable, "-c", _FORK_WHILE_BUSY, str(home)],
                          capture_output=True, text=True, timeout=200)
    assert done.stdout.splitlines() == ["child [{'X': 1}] True"] * 3, (done.stdout,
                                                                         done.stderr[-2000:])


_FORK_WHILE_ATTENDING = _REAP + textwrap.dedent("""
    import os, sys, threading, time
    from attention_cloud import Memory
    from attention_cloud.attention import Controller
    mem = Memory.open(sys.argv[1])
    ctl = Controller(mem.pl, "agent", memory=mem)
    ctl.add_source("registry", claim_type="dependency_version", kind="package_registry")
    for i in range(40):
        ctl.add_belief(f"b{i}", claim_type="dependency_version", subject="libfoo",
                       value=f"4.{i}", confidence=0.9, observed_at=1.7e9,
                       volatility="package_release", source="registry")
    stop = False
    def busy():   # an agent's attention loop in a thread of its own
        while not stop:
            ctl.beliefs(now=1.7e9 + 3600)
    threading.Thread(target=busy, daemon=True).start()
    time.sleep(0.3)
    for k in range(4):
        pid = os.fork()
        if pid == 0:
            try:
                os.write(1, f"child {len(ctl.beliefs(now=1.7e9))}\\n".encode())
            finally:
                os._exit(0)
        reap(pid)
    stop = True
""")


def test_the_attention_controller_takes_the_api_lock_too(tmp_path):
    """Controller calls ran outside the API lock: a fork that caught a thread inside one left
    the child stuck on its first call (and another thread's ``release`` could come between
    the write lock a change took and the batch it wrote)."""
    home = _home(tmp_path)
    done = subprocess.run([sys.executable, "-c", _FORK_WHILE_ATTENDING, str(home)],
                          capture_output=True, text=True, timeout=300)
    assert done.stdout.splitlines() == ["child 40"] * 4, (done.stdout, done.stderr[-2000:])


def test_a_query_under_a_small_stack_limit_still_answers_what_fits(typed_home):
    """A call keeps room on its global stack after a collection, scaled to its stack limit: a
    fixed 2 MB of room in every thread made set_limits(stack_limit=1_000_000) refused ("No
    permission to limit stacks"); a 1 MB limit answers what it answered before that room."""
    with Memory.open(typed_home) as mem:
        mem.set_limits(stack_limit=1_000_000)
        try:
            rows = mem.query("numlist(1, 5000, L), length(L, N)").rows
        finally:
            mem.set_limits(stack_limit=268435456)  # the default again: limits are per process
        assert rows[0]["N"] == 5000
