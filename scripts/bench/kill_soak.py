#!/usr/bin/env python3
"""Kill -9 soak: SIGKILL real ``atc ingest`` and ``atc curate`` processes at random moments,
resume each, and compare the end state with an uninterrupted run.

* **ingest**: one home; trial *t* ingests the next ``--files-per-trial`` files of a generated
  corpus (``gen_corpus.py``, cached), is killed after a random delay, then the same command is
  run again to completion (the resumed run); trials go on until ``--ingest-kills`` runs were
  killed (a run may finish before its delay). Every ``--check-every`` trials, and at the end, the
  home is reopened in this process and its items compared with every item acknowledged so far
  (a completed run acknowledges all of its files' items): *lost* counts the missing ones. At
  the end the home is compared with one built by a single uninterrupted ingest of the same
  files (items, their kind, session, seq, goal, time, pointer and text, and relations): in
  this process, or an ``atc ingest`` of ``--host``'s package when that is another one.
* **curate**: a template home holds an ingested, uncurated corpus (``"embedder": "hash"``, so
  vectors are deterministic and cheap); a reference copy is curated without interruption. Each
  trial copies the template, starts ``atc curate``, waits until it has taken the home's write
  lock (its pid in ``.lock``: Python, SWI-Prolog and the rules loaded, the home open; a kill
  before that changes nothing on disk and tests nothing), and kills it after a random part of
  the time the last whole run took from that moment to its end (the reference's, or a later
  trial's that ended before its kill: the machine's speed varies). Trials go on until
  ``--curate-kills`` runs were killed, three times as many trials at most; each is resumed and
  compared: items, rungs (id, level, text), distilled facts,
  provenance, arcs and members, rollups, echoes, the vector of every key, and the BM25 entry
  (presence and meta) of every record.
* **workers**: a fresh home ingests a corpus large enough to be parsed in worker processes
  (over ``PARALLEL_PARSE_BYTES``); the parent is killed while they run and any worker still
  alive two seconds later is an orphan.

A *failed reopen* is a resumed run that does not exit 0, or a home this process cannot open.
After every resumed run (ingest and curate) the checks of ``atc doctor`` run on the home (in
this process): *doctor_unclean* counts those that failed (``atc doctor`` would exit 1) or
named a problem (MISSING, UNUSABLE, NOT A HOME); *doubled*
counts facts and keys a resumed home holds more than once (an item, a rung, an arc member, a
vector key: the state comparisons are of sets, blind to them); *pending_left* counts resumed
curates that left ``curation.pending.jsonl`` behind (a run that completes removes it).

    .venv/bin/python scripts/bench/kill_soak.py [--ingest-kills 200] [--curate-kills 50]
        [--worker-kills 5] [--seed 13] [--json PATH]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import ROOT, corpus, doctor_unclean, progress, run_header  # noqa: E402

ATC = [sys.executable, "-m", "attention_cloud.cli"]
#: The package the killed processes run (``--host``: an older checkout, to measure it).
HOST = [ROOT / "host"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HOST[0]), env.get("PYTHONPATH")) if p)
    return env


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(ATC + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env())


def _kill_after(proc: subprocess.Popen, delay: float) -> bool:
    """SIGKILL ``proc`` after ``delay`` seconds unless it ended; True when it was killed."""
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    if proc.stdout is not None:
        proc.communicate()
    proc.wait()
    return proc.returncode == -signal.SIGKILL


def _wait_for_lock(proc: subprocess.Popen, home: Path) -> float | None:
    """Seconds until ``proc`` writes its pid into ``home``'s write lock (it has started up and
    opened the home: a writer takes the lock before its work), or None when it ended first."""
    lock, pid, started = home / ".lock", str(proc.pid), time.monotonic()
    while proc.poll() is None:
        try:
            if lock.read_text(encoding="ascii").strip() == pid:
                return time.monotonic() - started
        except (OSError, UnicodeDecodeError):
            pass  # not made yet, or being written
        time.sleep(0.005)
    return None


def _run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(ATC + args, capture_output=True, text=True, env=_env(), timeout=900)


def _ingested(home: Path, sources: list[str]) -> None:
    """Make ``home`` hold ``sources`` as one whole ``atc ingest`` of them leaves it (the curate
    template, the uninterrupted ingest). Through the Python API in this process when the
    package killed is this checkout's: these homes are what the killed runs are compared with
    or start from, not what is killed, and a process spent a start of Python and SWI-Prolog
    (about 1.2 s of CPU) on each. An ``atc ingest`` process of ``--host``'s package otherwise,
    so that package's reading of the files is what the comparison meets."""
    if HOST[0] != ROOT / "host":
        done = _run(["ingest", *sources, "--home", str(home)])
        assert done.returncode == 0, done.stderr
        return
    from attention_cloud import Memory

    with Memory.open(home) as mem:
        mem.ingest(sources)


# -- state of a home ------------------------------------------------------------------------------
def _digest(value: Any) -> str:
    return hashlib.sha256(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _vector_digest(vector: Any) -> str:
    """The digest of ``vector`` rounded to 5 decimals: of its float32 bytes, which are equal
    exactly when the rounded values are (the repr of them as a list, digested before, cost 40
    times the CPU: 1.3 s of a 1,500-item curate soak's state reads)."""
    import numpy as np

    rounded = np.ascontiguousarray(np.round(vector, 5), dtype=np.float32)
    return hashlib.sha256(rounded.tobytes()).hexdigest()[:16]


def _facts(mem: Any, pred: str, arity: int) -> set[tuple]:
    from attention_cloud.bridge import Var

    return {tuple(_plain(a) for a in row) for row in mem.pl.solutions(pred, *[Var() for _ in range(arity)])}


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    if isinstance(value, float):
        return round(value, 6)
    return str(value)


def journal_state(mem: Any) -> dict[str, set]:
    """Everything ingest writes: items with their fields, and relations."""
    fields = ("item_kind", "item_session", "item_seq", "item_goal", "item_time", "item_source",
              "item_text")
    state = {name: _facts(mem, f"atc_journal:{name}", 2) for name in fields}
    state["item"] = _facts(mem, "atc_journal:item", 1)
    state["relation"] = _facts(mem, "atc_journal:relation", 3)
    return state


def curated_state(mem: Any) -> dict[str, set]:
    """Everything curate writes: ladder facts, and each record's vector and BM25 entry."""
    state = {"item": _facts(mem, "atc_journal:item", 1)}
    for pred, arity in (("rung", 3), ("distilled", 3), ("provenance", 2), ("arc_member", 2),
                        ("rollup", 2), ("echo_of", 3), ("curated", 2)):
        state[pred] = _facts(mem, f"atc_ladder:{pred}", arity)
    jump = mem.jump
    vectors = jump.vectors
    state["vector"] = {(key, _vector_digest(vectors.vector(key))) for key in vectors.keys()}
    lexical = jump.lexical
    records = {i for (i, _, _) in state["rung"]}
    state["bm25"] = {(key, _digest(sorted(lexical.meta(key).items()))) for key in records
                     if lexical.has(key)}
    state["bm25_count"] = {("entries", len(lexical))}
    return state


def doubled(mem: Any) -> int:
    """Facts and vector keys the home holds more than once (0 in a sound home)."""
    from attention_cloud.bridge import Var

    extra = 0
    for pred, arity in (("atc_journal:item", 1), ("atc_ladder:rung", 3),
                        ("atc_ladder:arc_member", 2)):
        rows = [tuple(_plain(a) for a in row)
                for row in mem.pl.solutions(pred, *[Var() for _ in range(arity)])]
        extra += len(rows) - len(set(rows))
    if mem.jump.has_vectors():
        keys = list(mem.jump.vectors.keys())
        extra += len(keys) - len(set(keys))
    return extra


def differences(a: dict[str, set], b: dict[str, set]) -> dict[str, int]:
    """Per kind of fact, how many are in one state and not the other."""
    return {k: len(a.get(k, set()) ^ b.get(k, set())) for k in sorted(set(a) | set(b))
            if a.get(k, set()) != b.get(k, set())}


def read_state(home: Path, reader: Any) -> dict[str, set] | None:
    """``reader(mem)`` on the home opened in this process; None when it does not open."""
    from attention_cloud import Memory

    try:
        with Memory.open(home) as mem:
            return reader(mem)
    except Exception as error:  # a failed reopen is a figure, not a crash of the soak
        progress(f"reopen of {home} failed: {error}")
        return None


# -- ingest ---------------------------------------------------------------------------------------
def soak_ingest(work: Path, kills: int, files_per_trial: int, check_every: int,
                rng: random.Random) -> dict[str, Any]:
    from attention_cloud.ingest import parse_path

    # trials go on until ``kills`` runs were killed (a run may finish before its delay)
    most = 2 * kills
    files = sorted(corpus(max(most * files_per_trial * 120, 1000), seed=13).rglob("*.jsonl"))
    home = work / "ingest-home"
    acknowledged: set[str] = set()
    killed = failed_reopens = lost = checks = unclean = extra = 0
    delays = []
    trial = -1
    while killed < kills and (trial + 2) * files_per_trial <= len(files):
        trial += 1
        group = [str(f) for f in files[trial * files_per_trial:(trial + 1) * files_per_trial]]
        delay = rng.uniform(0.05, 2.5)
        delays.append(delay)
        killed += _kill_after(_start(["ingest", *group, "--home", str(home),
                                      "--format-output", "json"]), delay)
        resumed = _run(["ingest", *group, "--home", str(home), "--format-output", "json"])
        if resumed.returncode != 0:
            failed_reopens += 1
            progress(f"ingest trial {trial}: resumed run failed: {resumed.stderr.strip()[-300:]}")
            continue
        for path in group:
            acknowledged.update(item.handle for item in parse_path(path).items)
        if (trial + 1) % check_every == 0 or killed >= kills:
            read = read_state(home, lambda mem: (_facts(mem, "atc_journal:item", 1), doubled(mem)))
            checks += 1
            if read is None:
                failed_reopens += 1
                continue
            state, twice = read
            lost += len(acknowledged - {h for (h,) in state})
            extra += twice
            why = doctor_unclean(home)
            if why:
                unclean += 1
                progress(f"ingest trial {trial}: atc doctor not clean: {why}")
            progress(f"ingest trial {trial + 1}: {killed}/{kills} killed, {len(acknowledged)} "
                     f"acknowledged, {lost} lost")
    files = files[:(trial + 1) * files_per_trial]
    reference = work / "ingest-reference"
    _ingested(reference, [str(f) for f in files])
    diff = differences(read_state(home, journal_state) or {}, read_state(reference, journal_state) or {})
    return {"kills": killed, "trials": trial + 1, "acknowledged_items": len(acknowledged),
            "lost": lost, "failed_reopens": failed_reopens, "checks": checks,
            "doubled": extra, "doctor_unclean": unclean,
            "differences": sum(diff.values()), "difference_kinds": diff,
            "delay_s": [round(min(delays), 2), round(max(delays), 2)]}


# -- curate ---------------------------------------------------------------------------------------
def soak_curate(work: Path, kills: int, items: int, rng: random.Random) -> dict[str, Any]:
    template = work / "curate-template"
    template.mkdir(parents=True)
    (template / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    _ingested(template, [str(corpus(items, seed=31))])
    reference = work / "curate-reference"
    shutil.copytree(template, reference)
    started = time.monotonic()
    proc = _start(["curate", "--home", str(reference), "--format", "json"])
    _wait_for_lock(proc, reference)
    working = time.monotonic()
    _, err = proc.communicate()
    took, work_s = time.monotonic() - started, time.monotonic() - working
    assert proc.returncode == 0, err
    expected = read_state(reference, curated_state)
    assert expected is not None
    killed = failed_reopens = different = total = repaired = unclean = extra = pending = 0
    kinds: dict[str, int] = {}
    trial = -1
    # as for ingest: a run may finish before its delay (the machine faster than for the reference)
    while killed < kills and trial + 1 < 3 * kills:
        trial += 1
        home = work / f"curate-{trial}"
        shutil.copytree(template, home)
        proc = _start(["curate", "--home", str(home), "--format", "json"])
        _wait_for_lock(proc, home)
        working = time.monotonic()
        if _kill_after(proc, rng.uniform(0.0, work_s)):
            killed += 1
        elif proc.returncode == 0:   # ended before its kill: faster than the run that timed it
            work_s = time.monotonic() - working
        resumed = _run(["curate", "--home", str(home), "--format", "json"])
        read = (read_state(home, lambda mem: (curated_state(mem), doubled(mem)))
                if resumed.returncode == 0 else None)
        if read is None:
            failed_reopens += 1
            progress(f"curate trial {trial}: resumed run failed: {resumed.stderr.strip()[-300:]}")
            continue
        state, twice = read
        repaired += json.loads(resumed.stdout).get("repaired", 0)
        extra += twice
        pending += (home / "curation.pending.jsonl").exists()
        why = doctor_unclean(home)
        if why:
            unclean += 1
            progress(f"curate trial {trial}: atc doctor not clean: {why}")
        diff = differences(state, expected)
        different += bool(diff)
        if diff:
            progress(f"curate trial {trial}: differs from the uninterrupted run: {diff}")
        total += sum(diff.values())
        for k, n in diff.items():
            kinds[k] = kinds.get(k, 0) + n
        shutil.rmtree(home)
        if (trial + 1) % 10 == 0:
            progress(f"curate trial {trial + 1}: {killed}/{kills} killed, {different} different")
    return {"kills": killed, "trials": trial + 1, "items": len(expected["item"]),
            "records_indexed": len(expected["bm25"]), "vectors": len(expected["vector"]),
            "uninterrupted_s": round(took, 2), "work_s": round(work_s, 2),
            "failed_reopens": failed_reopens,
            "trials_different": different, "differences": total, "difference_kinds": kinds,
            "repaired_on_resume": repaired, "doubled": extra, "doctor_unclean": unclean,
            "pending_left": pending}


# -- parse workers --------------------------------------------------------------------------------
def _children(pid: int) -> set[int]:
    found: set[int] = set()
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                found.update(int(c) for c in fh.read().split())
    except OSError:
        pass
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


#: A parse worker still alive this long after its parent was killed is an orphan.
ORPHAN_AFTER_S = 2.0


def _still_alive_after(pids: set[int], seconds: float) -> list[int]:
    """The processes of ``pids`` still alive ``seconds`` from now; sooner when all have ended
    (workers that die with their parent should not cost the soak the whole wait)."""
    deadline = time.monotonic() + seconds
    left = [p for p in pids if _alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [p for p in left if _alive(p)]
    return left


def soak_workers(work: Path, kills: int) -> dict[str, Any]:
    source = corpus(10_000, seed=1)  # about 12 MB: parsed by worker processes
    orphans = seen = killed = 0
    for trial in range(kills):
        home = work / f"workers-{trial}"
        # no pipes: an orphaned worker would hold them open, and reading them would hang
        proc = subprocess.Popen(ATC + ["ingest", str(source), "--home", str(home)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
        workers: set[int] = set()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None and len(workers) < 2:
            workers = _children(proc.pid)
            time.sleep(0.05)
        killed += _kill_after(proc, 0.3 * trial / max(kills, 1))
        seen += len(workers)
        left = _still_alive_after(workers, ORPHAN_AFTER_S)
        orphans += len(left)
        for w in left:
            os.kill(w, signal.SIGKILL)  # clean up after a failure of the property under test
        shutil.rmtree(home, ignore_errors=True)
    return {"kills": killed, "workers_seen": seen, "orphans": orphans}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ingest-kills", type=int, default=200)
    parser.add_argument("--files-per-trial", type=int, default=2)
    parser.add_argument("--check-every", type=int, default=10)
    parser.add_argument("--curate-kills", type=int, default=50)
    parser.add_argument("--curate-items", type=int, default=1500)
    parser.add_argument("--worker-kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--host", type=Path, default=HOST[0],
                        help="the host/ folder whose atc is killed (default: this checkout's)")
    args = parser.parse_args(argv)
    HOST[0] = args.host.resolve()
    rng = random.Random(args.seed)
    started = time.monotonic()
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="atc-kill-soak-") as tmp:
        work = Path(tmp)
        if args.worker_kills:
            figures["workers"] = soak_workers(work, args.worker_kills)
            progress(f"workers: {figures['workers']}")
        if args.curate_kills:
            figures["curate"] = soak_curate(work, args.curate_kills, args.curate_items, rng)
            progress(f"curate: {figures['curate']}")
        if args.ingest_kills:
            figures["ingest"] = soak_ingest(work, args.ingest_kills, args.files_per_trial,
                                            args.check_every, rng)
            progress(f"ingest: {figures['ingest']}")
    figures["wall_s"] = round(time.monotonic() - started, 1)
    print(run_header("Kill -9 soak"))
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    bad = sum(figures.get(k, {}).get(f, 0) for k in ("ingest", "curate", "workers")
              for f in ("lost", "failed_reopens", "differences", "orphans", "doubled",
                        "doctor_unclean", "pending_left"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
