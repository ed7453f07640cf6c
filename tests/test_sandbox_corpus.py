"""The sandbox as a boundary: every attempt in tests/fixtures/sandbox/attempts.jsonl (user
goals, rules files, walk rules and planes, rule names) is refused with a clean one-line error or
stopped by a limit, and the home is byte-identical afterwards.

Runs in-process through the Python API (with a 0.25 s time limit so the loops stop quickly),
plus a handful of real ``atc`` subprocesses. scripts/bench/sandbox_corpus.py runs the whole
corpus through subprocesses and prints the figures.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud.errors import AtcError

CORPUS = Path(__file__).parent / "fixtures" / "sandbox" / "attempts.jsonl"
ATTEMPTS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()
            if line.strip()]
SESSION = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_session.jsonl"

def _bench():
    """scripts/bench/sandbox_corpus.py, which runs the same corpus through real processes: one
    reading of what a limit's message says, and one home snapshot, for both."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "scripts" / "bench" / "sandbox_corpus.py"
    spec = importlib.util.spec_from_file_location("sandbox_corpus_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_BENCH = _bench()
home_bytes = _BENCH.home_bytes
#: The time limit the corpus runs under. About 36 of its attempts run until the time limit stops
#: them (the others expecting a limit meet a stack or size limit first), each a core busy for
#: the whole limit: at 0.5 s (to round 33) that was 18 s of the test's 19 s in the suite. Every
#: attempt that is refused ended within 0.1 s of wall time (load 15), so 0.25 s still tells a
#: refusal from a stop, and a loop the limit did not stop still runs for ever.
TIME_LIMIT = 0.25


def classify(message: str) -> str:
    """``limit`` for a message of a limit that stopped the call, else ``refused``."""
    return "limit" if _BENCH.LIMIT.search(message) else "refused"


def attempt(mem, a: dict, scratch: Path) -> str:
    """Run one attempt through the API; the error message ("" when it was not refused)."""
    try:
        if a["route"] == "query":
            mem.query(a["text"], limit=5)
        elif a["route"] == "rules":
            mem.rules_add(a["text"], "attempt")
        elif a["route"] == "add_name":
            mem.rules_add(a["rules_text"], a["text"])
        elif a["route"] == "remove":
            mem.rules_remove(a["text"])
        elif a["route"] == "hydrate":
            rules = scratch / "attempt.pl"
            rules.write_text(a["text"], encoding="utf-8")
            mem.hydrate("ValueError in the retry tests", budget=300, rules=rules,
                        plane=a.get("plane", "default"), walk=a.get("walk"))
        else:
            raise ValueError(a["route"])
    except AtcError as exc:
        return str(exc)
    return ""


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A home with one ingested session, victims outside its rules/, and short limits."""
    from attention_cloud import Memory

    root = tmp_path_factory.mktemp("sandbox")
    home = root / "home"
    home.mkdir()
    (root / "victim.pl").write_text("victim.\n")
    mem = Memory.open(home)
    (home / "victim.pl").write_text("victim.\n")   # once it is a home: a stranger's file refuses it
    mem.ingest([SESSION])
    mem.close()
    mem = Memory.open(home)
    mem.set_limits(time_limit=TIME_LIMIT)
    mem.scratch = tmp_path_factory.mktemp("scratch")   # where --rules files are written
    yield mem, home, root
    mem.set_limits(time_limit=30)
    mem.close()


def test_the_corpus_is_large_and_covers_every_route():
    assert len(ATTEMPTS) >= 200
    assert {a["route"] for a in ATTEMPTS} == {"query", "rules", "hydrate", "remove", "add_name"}
    assert len({a["id"] for a in ATTEMPTS}) == len(ATTEMPTS)
    assert sum(a["expect"] == "limit" for a in ATTEMPTS) >= 30


#: Attempts a backend does not stop yet, each with what was seen. Running one would hang the
#: suite, so it is left out on that backend only, and named here rather than skipped in silence.
KNOWN_HOLES: dict[str, dict[str, str]] = {
    # backend -> {attempt id: why it is not stopped}; none known. (query-203, a loop making
    # atoms with atom_number/2, once escaped the alarm-chain watchdog on janus: its signal was
    # lost and nothing re-armed; the watchdog is a thread now, and test_limits_hold_under_load
    # runs that loop many times.)
}


def test_every_attempt_is_refused_or_stopped_and_the_home_is_unchanged(sandbox):
    mem, home, root = sandbox
    before = home_bytes(root)
    wrong = []
    holes = KNOWN_HOLES.get(mem.pl.backend, {})
    assert set(holes) <= {a["id"] for a in ATTEMPTS}
    for a in ATTEMPTS:
        if a["id"] in holes:
            continue
        message = attempt(mem, a, mem.scratch)
        first = message.splitlines()[0] if message else ""
        if not first or classify(first) != a["expect"]:
            wrong.append(f"{a['id']} {a['text'][:60]!r}: expected {a['expect']}, got {first!r}")
        assert home_bytes(root) == before, f"{a['id']} changed the home"
    assert not wrong, "\n".join(wrong)
    assert not (Path.cwd() / "PWNED").exists()
    assert mem.rules_list() == []
    assert mem.query("item(H)", limit=1).rows, "memory still answers after the corpus"


def test_a_caught_loop_stops_within_its_limit(sandbox):
    import time

    mem, _, _ = sandbox
    started = time.monotonic()
    with pytest.raises(AtcError, match=f"stopped: ran past its time limit of {TIME_LIMIT} s"):
        mem.query("repeat, catch((between(1,inf,_),fail),_,true), fail")
    assert time.monotonic() - started < 3


def test_the_time_limit_is_named_as_the_user_wrote_it(sandbox):
    """A limit of whole seconds reads `30 s` (as the README quotes it), not `30.0 s`."""
    mem, _, _ = sandbox
    with pytest.raises(AtcError, match=r"stopped: ran past its time limit of 1 s$"):
        mem.query("repeat, catch((between(1,inf,_),fail),_,true), fail", time_limit=1.0)


def test_a_huge_answer_is_refused_in_prolog(sandbox):
    mem, _, _ = sandbox
    mem.set_limits(time_limit=30)
    try:
        with pytest.raises(AtcError, match="stack limit of 256 MB|answers too large"):
            mem.query("numlist(1, 20000000, L)")
        with pytest.raises(AtcError, match="answers too large"):
            mem.query("numlist(1, 600000, L)")   # ~1.2M cells: past the 1M cells answers may hold
    finally:
        mem.set_limits(time_limit=TIME_LIMIT)


def test_safe_goals_and_rules_still_work(sandbox, tmp_path):
    mem, _, _ = sandbox
    rows = mem.query("item_kind(H, K), atom_length(K, N), N > 2", limit=2).rows
    assert rows and all(r["N"] > 2 for r in rows)
    mem.rules_add("kind_of(H, K) :- item_kind(H, K).\n:- discontiguous kind_of/2.\n", "kinds")
    try:
        assert mem.query("kind_of(H, error)", limit=1).rows
        assert [r["name"] for r in mem.rules_list()] == ["kinds"]
    finally:
        mem.rules_remove("kinds")
    assert mem.rules_list() == []


def _atc(home: Path, *args: str, stdin: str | None = None, timeout: float = 120):
    env = {**os.environ, "ATC_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=home.parent)


@pytest.mark.parametrize("args,stdin", [
    (["query", "atc_store:assertz(pending_(call(shell('touch PWNED'))))"], None),
    (["query", "user:assert(x)"], None),
    (["query", "X = f(X)"], None),
    (["rules", "add", "-", "--name", "init"],
     ":- initialization(atc_store:assertz(pending_(call(shell('touch PWNED'))))).\n"),
    (["rules", "remove", "../../victim"], None),
])
def test_real_atc_refuses_cleanly_and_changes_nothing(sandbox, args, stdin):
    _, home, root = sandbox
    before = home_bytes(root)
    out = _atc(home, *args, stdin=stdin)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("atc: ") and out.stderr.count("\n") == 1, out.stderr
    assert home_bytes(root) == before
    assert not (root / "PWNED").exists() and not (home / "PWNED").exists()


_UNDER_LOAD = r"""
import sys, tempfile, threading, time
from attention_cloud import Memory
from attention_cloud.errors import PrologError
threading.Thread(target=time.sleep, args=(600,), daemon=True).start()   # as a server has
scratch = tempfile.TemporaryDirectory()   # removed as the process exits
mem = Memory.open(scratch.name)
for goal in ["between(1, inf, N), atom_number(A, N), fail",
             "repeat, catch((between(1, inf, _), fail), _, true), fail"] * 12:
    t0 = time.process_time()   # this process's CPU: what a loop the watchdog missed would burn
    try:
        mem.query(goal, time_limit=0.3)
        raise SystemExit("not stopped: " + goal)
    except PrologError as exc:
        assert "stopped" in str(exc), exc
    assert time.process_time() - t0 < 5, goal   # a wall clock counts the burners' turns too
assert mem.query("X = 1").rows == [{"X": 1}]      # a later call is not hit by a late signal
print("ok")
"""


def test_limits_hold_under_load(children_tmpdir):
    """The watchdog stops loops that make atoms (atom GC signals the same thread) and caught
    loops, 24 times over while three CPU burners compete for the cores. Before the watchdog was
    a thread, one alarm's lost signal ended the alarm chain and the janus backend ran on."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        out = subprocess.run([sys.executable, "-c", _UNDER_LOAD], capture_output=True,
                             text=True, timeout=120)
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
    assert list(children_tmpdir.iterdir()) == []   # its scratch home removed




_HUGE_QUERY_TEXT = r"""
import sys, tempfile, time
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.errors import PrologError
from attention_cloud.home import write_config
scratch = tempfile.TemporaryDirectory()   # removed as the process exits
home = Path(scratch.name) / "home"
home.mkdir()
write_config(home, {"embedder": "hash"})
with Memory.open(home) as mem:
    mem.ingest([Path(sys.argv[1])])
    mem.curate()
    assert mem.query('nearest("retry", 1, [_])').rows
    for call in ["nearest(S, 1, H)", "lexical(S, 1, [], H)",
                 "findall(R, item(R), Rs), similarity(S, Rs, P)"]:
        seed = call.split("(")[0]        # a text of its own: no vector kept from another call
        goal = (f'numlist(1, 22, Ns), foldl([_, A, B]>>string_concat(A, A, B), Ns, "{seed} 12 ", '
                f'S), {call}, fail')
        started, cpu = time.monotonic(), time.process_time()
        try:
            mem.query(goal, time_limit=2.0)
        except PrologError as exc:
            assert "stopped" in str(exc), exc
        print(call, round(time.monotonic() - started, 1), round(time.process_time() - cpu, 1))
"""


def test_a_huge_query_text_does_not_hold_the_search_past_the_limit(children_tmpdir):
    """The search reads its query text in the host, where no limit reaches: a goal that built
    a 37 MB text in a fraction of a second (22 doublings) held `nearest/3` for ~30 s past a 2 s
    limit (the hash embedder reads every word), a `POST /v1/query` as long. The host reads a
    query's first MAX_QUERY_CHARS characters, so each call ends within its limit."""
    out = subprocess.run([sys.executable, "-c", _HUGE_QUERY_TEXT, str(SESSION)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    took = {call: (float(wall), float(cpu)) for call, wall, cpu in
            (line.rsplit(" ", 2) for line in out.stdout.splitlines())}
    # The work a call did (its process's CPU time: the search held past the limit hashed for
    # ~30 s of it) within three times the limit; its wall time only against a hang: on a
    # loaded machine the limit stops the goal on time, but the stop is run and answered in
    # the turns the process gets (6.3 s of wall time beside nine busy loops, 0.2 s of CPU).
    assert len(took) == 3 and all(cpu < 6 and wall < 60 for wall, cpu in took.values()), took
    assert list(children_tmpdir.iterdir()) == []   # its scratch home removed
