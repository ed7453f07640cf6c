#!/usr/bin/env python3
"""Several processes on one home at once: a random mix of every kind of call, then the checks.

One fresh home (``hash`` embedder) and ``--workers`` processes for ``--seconds``: half run the
``atc`` command line (each call a real subprocess), half hold a :class:`Memory` open in Python
(as ``atc mcp``, a server or a script does) and give the write lock back after each write. Each
picks at random: ``ingest`` of a transcript file of its own (distinct files, each ingested once
or again), ``remember`` of a fresh text, ``curate``, ``hydrate``, ``query``, ``show`` of an item
it remembered, ``forget`` of one, ``receipt`` of a frame it stored, ``stats``. Writers wait for
the lock for a random ``ATC_LOCK_WAIT`` (0 s: refused at once, or up to 8 s). Every call is a
line of a JSON log (worker, op, start, seconds, outcome, what it returned). Once, mid-run, one
process is SIGKILLed: a command-line call in flight, or a whole Python worker (its lock, if it
held it, left stale on disk with its pid).

Then, with every worker stopped, the checks (each a line; exit 1 when any fails):

* *acknowledged*: every remember that answered is in the home once, under the handle it
  answered (or was forgotten), and no text is held by two items; every turn of every file an
  ingest acknowledged is held exactly once;
* *forgotten*: every acknowledged forget's item is gone from ``item()``, from every file of
  the home (journal, indexes, vectors, receipts: its secret token found nowhere) and from any
  frame hydrated on its token afterwards;
* *bounded*: no call ran past ``--bound`` seconds (default 120);
* *refusals*: every refused call exited non-zero with one line naming the process that holds
  the lock (a pid that was alive and in a call then) and what to do;
* *consistent frames*: every item a frame showed was held at the time (or forgotten since);
* *doctor*: ``atc doctor``'s checks pass and name no problem (run in this process).

    nice .venv/bin/python scripts/bench/concurrent_home.py [--workers 6] [--seconds 60]
        [--seed 1] [--bound 120] [--no-kill] [--remove-lock N] [--keep DIR] [--json PATH]

``--remove-lock N`` also removes ``home/.lock`` N times mid-run (a user's ``rm`` of what looks
like a stale lock): the checks stand as they are (nothing acknowledged lost or doubled,
nothing forgotten left), and a write refused because its lock's file went counts as *lock
lost*, not as an error.
    nice .venv/bin/python scripts/bench/concurrent_home.py --handover-probe 5 [--rounds 3]

``--handover-probe`` instead counts, A/B, the refusals that name no holder while the lock
changes hands fast (see :func:`handover_probe`).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import ROOT, WorkFolder, doctor_unclean, run_header  # noqa: E402

ATC = [sys.executable, "-m", "attention_cloud.cli"]
OPS = ("ingest", "remember", "curate", "hydrate", "query", "show", "forget", "receipt", "stats")
WRITES = frozenset({"ingest", "remember", "curate", "forget"})
#: Words a writer refused for the lock must say: who holds it, and what to do.
REFUSAL = "another process is writing to this memory home"
#: What a write says when ``.lock`` was removed while its process held it (``--remove-lock``).
LOCK_LOST = "the write lock file .lock was removed or replaced"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, ATC_HOME=str(home), PYTHONUNBUFFERED="1", **extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "host"), env.get("PYTHONPATH")) if p)
    return env


def make_file(path: Path, key: str, turns: int) -> Path:
    """A small chat whose every turn holds a token of its own (``tk<key>f<turn>t``), written
    elsewhere and renamed into place (a watcher sees it whole)."""
    lines = [f"{'User' if t % 2 == 0 else 'Assistant'}: step {t} of the rollout names "
             f"tk{key}f{t}t and the {('payments', 'search', 'billing')[t % 3]} service"
             for t in range(turns)]
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.parent.parent / f".{path.name}.part"
    part.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(part, path)
    return path


def make_files(folder: Path, workers: int, per_worker: int, turns: int) -> dict[int, list[Path]]:
    """Distinct small chats for each worker to ingest."""
    return {w: [make_file(folder / f"w{w}-f{f}.txt", f"{w}w{f}", turns)
                for f in range(per_worker)] for w in range(workers)}


def file_tokens(path: Path) -> list[str]:
    """The tokens of a file's turns, one per turn."""
    return [t for line in path.read_text(encoding="utf-8").splitlines() for t in _tokens(line)]


# --- a worker -----------------------------------------------------------------------------------

class Worker:
    """One process's loop of random calls; ``cli`` runs each as ``atc``, ``api`` in a Memory."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.id, self.kind, self.home = args.worker, args.kind, Path(args.home)
        self.rng = random.Random(args.seed * 1000 + args.worker)
        self.files = [Path(p) for p in args.files.split(os.pathsep) if p]
        self.until, self.bound = args.until, args.bound
        self.log = open(args.log, "a", encoding="utf-8", buffering=1)
        self.pidfile = Path(args.log).with_suffix(".child")
        self.remembered: list[str] = []     # handles of this worker's live remembered notes
        self.receipts: list[str] = []
        self.n = 0
        self.mem: Any = None
        self.lock_s = 0.0                   # seconds this call spent taking the write lock
        if self.kind == "api":
            from attention_cloud import Memory
            self._time_the_lock()
            self.mem = Memory.open(self.home)

    def _time_the_lock(self) -> None:
        """Count the seconds every ``WriteLock.acquire`` of this process takes (waits)."""
        from attention_cloud.home import WriteLock
        acquire = WriteLock.acquire

        def timed(lock: Any, *args: Any, **kwargs: Any) -> None:
            began = time.monotonic()
            try:
                acquire(lock, *args, **kwargs)
            finally:
                self.lock_s += time.monotonic() - began

        WriteLock.acquire = timed  # type: ignore[method-assign]

    def run(self) -> None:
        while time.time() < self.until:
            op = self.rng.choice(OPS)
            wait = self.rng.choice((None, 0.0, 2.0, 8.0))   # None: ATC_LOCK_WAIT unset
            start, self.lock_s = time.time(), 0.0
            entry: dict[str, Any] = {"worker": self.id, "kind": self.kind, "op": op,
                                     "pid": os.getpid(), "wait": wait, "start": start}
            try:
                entry.update(getattr(self, f"{self.kind}_{op}")(wait))
            except Exception as exc:  # noqa: BLE001 - every failure is logged, and judged later
                entry.update(self._api_failure(exc))
            # the call's own time: a frame's items looked up afterwards are the check's
            entry["seconds"] = round(time.time() - start - entry.pop("check_s", 0), 3)
            if self.kind == "api" and op in WRITES:
                entry["lock_s"] = round(self.lock_s, 3)
            self.log.write(json.dumps(entry) + "\n")

    # ---- what each op does, by the command line

    def _atc(self, args: list[str], wait: float | None) -> dict[str, Any]:
        env = _env(self.home) if wait is None else _env(self.home, ATC_LOCK_WAIT=str(wait))
        proc = subprocess.Popen(ATC + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        self.pidfile.write_text(str(proc.pid))
        try:
            out, err = proc.communicate(timeout=self.bound)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            timed_out = True
        self.pidfile.write_text("")
        outcome = ("timeout" if timed_out else "killed" if proc.returncode == -9
                   else "ok" if proc.returncode == 0
                   else "refused" if REFUSAL in err
                   else "lock lost" if LOCK_LOST in err else "error")
        return {"child": proc.pid, "rc": proc.returncode, "outcome": outcome,
                "stderr": err.strip().splitlines()[-3:] if outcome != "ok" else [],
                "stderr_lines": len(err.strip().splitlines()), "_out": out}

    def _fresh(self) -> str:
        self.n += 1
        return f"rm{self.id}w{self.n}n"

    def cli_ingest(self, wait: float | None) -> dict[str, Any]:
        path = self.rng.choice(self.files)
        r = self._atc(["ingest", str(path), "--format", "text"], wait)
        return self._plain(r, file=str(path))

    def cli_remember(self, wait: float | None) -> dict[str, Any]:
        token = self._fresh()
        r = self._atc(["remember", f"note {token} about the rollout window",
                       "--format", "json"] + (["--no-curate"] if self.rng.random() < .5 else []),
                      wait)
        if r["outcome"] == "ok":
            handle = json.loads(r["_out"])["handle"]
            self.remembered.append(handle)
            return self._plain(r, token=token, handle=handle)
        return self._plain(r, token=token)

    def cli_curate(self, wait: float | None) -> dict[str, Any]:
        return self._plain(self._atc(["curate"], wait))

    def cli_hydrate(self, wait: float | None) -> dict[str, Any]:
        goal = self._goal()
        r = self._atc(["hydrate", goal, "--format", "json", "--budget", "600"], wait)
        if r["outcome"] != "ok":
            return self._plain(r, goal=goal)
        frame = json.loads(r["_out"])
        self.receipts.append(frame["receipt_id"])
        handles = [f["handle"] for f in frame["receipt"]["facts"]]
        began, shown, shows = time.time(), {}, []
        for h in (h for h in handles if h.startswith("it_")):
            at = time.time()
            shown[h] = self._atc(["show", h, "--level", "L0"], 30)   # not L1: curated only
            shows.append((shown[h]["child"], at, time.time()))  # a reader may write: a pid
        # a show the soak's kill hit (-9) found nothing wrong
        missing = {h: s["stderr"][-1:] for h, s in shown.items() if s["rc"] not in (0, -9)}
        return self._plain(r, goal=goal, receipt=frame["receipt_id"], handles=handles,
                           unresolved=list(missing), unresolved_why=missing, shows=shows,
                           check_s=time.time() - began)

    def cli_query(self, wait: float | None) -> dict[str, Any]:
        return self._plain(self._atc(["query", "item_kind(H, K)", "--limit", "5"], wait))

    def cli_show(self, wait: float | None) -> dict[str, Any]:
        if not self.remembered:
            return {"outcome": "skipped"}
        handle = self.rng.choice(self.remembered)
        return self._plain(self._atc(["show", handle], wait), handle=handle)

    def cli_forget(self, wait: float | None) -> dict[str, Any]:
        if not self.remembered:
            return {"outcome": "skipped"}
        handle = self.rng.choice(self.remembered)
        r = self._atc(["forget", handle, "--yes", "--reason", "soak"], wait)
        if r["outcome"] == "ok":
            self.remembered.remove(handle)
        return self._plain(r, handle=handle)

    def cli_receipt(self, wait: float | None) -> dict[str, Any]:
        if not self.receipts:
            return {"outcome": "skipped"}
        rid = self.rng.choice(self.receipts)
        return self._plain(self._atc(["receipt", rid], wait), receipt=rid)

    def cli_stats(self, wait: float | None) -> dict[str, Any]:
        return self._plain(self._atc(["stats"], wait))

    def _goal(self) -> str:
        return self.rng.choice(("rollout window", "payments service step", "billing rollout",
                                "search service note"))

    @staticmethod
    def _plain(r: dict[str, Any], **more: Any) -> dict[str, Any]:
        r = {k: v for k, v in r.items() if not k.startswith("_")}
        r.update(more)
        return r

    # ---- the same ops, by a Memory held open

    def _api_failure(self, exc: Exception) -> dict[str, Any]:
        from attention_cloud.errors import WriterBusy
        if self.mem is not None:
            self.mem.release()
        outcome = ("refused" if isinstance(exc, WriterBusy)
                   else "lock lost" if LOCK_LOST in str(exc) else "error")
        return {"outcome": outcome, "error": f"{type(exc).__name__}: {exc}"}

    def _write(self, wait: float, call: Any) -> Any:
        if wait is None:
            os.environ.pop("ATC_LOCK_WAIT", None)
        else:
            os.environ["ATC_LOCK_WAIT"] = str(wait)
        try:
            return call()
        finally:
            self.mem.release()

    def api_ingest(self, wait: float | None) -> dict[str, Any]:
        path = self.rng.choice(self.files)
        self._write(wait, lambda: self.mem.ingest([path], format="text"))
        return {"outcome": "ok", "file": str(path)}

    def api_remember(self, wait: float | None) -> dict[str, Any]:
        token = self._fresh()
        got = self._write(wait, lambda: self.mem.remember(
            f"note {token} about the rollout window", curate=self.rng.random() < .5))
        self.remembered.append(got.handle)
        return {"outcome": "ok", "token": token, "handle": got.handle}

    def api_curate(self, wait: float | None) -> dict[str, Any]:
        self._write(wait, self.mem.curate)
        return {"outcome": "ok"}

    def api_hydrate(self, wait: float | None) -> dict[str, Any]:
        goal = self._goal()
        frame = self.mem.hydrate(goal, budget=600)
        self.receipts.append(frame.receipt_id)
        handles = [f["handle"] for f in frame.receipt["facts"]]
        missing = [h for h in handles if h.startswith("it_") and self.mem.item(h) is None]
        return {"outcome": "ok", "goal": goal, "receipt": frame.receipt_id, "handles": handles,
                "unresolved": missing}

    def api_query(self, wait: float | None) -> dict[str, Any]:
        self.mem.query("item_kind(H, K)", limit=5)
        return {"outcome": "ok"}

    def api_show(self, wait: float | None) -> dict[str, Any]:
        if not self.remembered:
            return {"outcome": "skipped"}
        handle = self.rng.choice(self.remembered)
        got = self.mem.item(handle)
        return {"outcome": "ok" if got is not None else "error", "handle": handle,
                "error": "" if got is not None else "item() is None"}

    def api_forget(self, wait: float | None) -> dict[str, Any]:
        if not self.remembered:
            return {"outcome": "skipped"}
        handle = self.rng.choice(self.remembered)
        self._write(wait, lambda: self.mem.forget([handle], reason="soak"))
        self.remembered.remove(handle)
        return {"outcome": "ok", "handle": handle}

    def api_receipt(self, wait: float | None) -> dict[str, Any]:
        if not self.receipts:
            return {"outcome": "skipped"}
        rid = self.rng.choice(self.receipts)
        self.mem.receipt(rid)
        return {"outcome": "ok", "receipt": rid}

    def api_stats(self, wait: float | None) -> dict[str, Any]:
        self.mem.stats()
        return {"outcome": "ok"}


# --- the run and its checks ---------------------------------------------------------------------

def log_entries(logs: list[Path]) -> list[dict[str, Any]]:
    entries = []
    for path in logs:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                pass            # a worker killed mid-line
    return sorted(entries, key=lambda e: e["start"])


def kill_one(rng: random.Random, procs: list[subprocess.Popen], logs: list[Path],
             kinds: list[str]) -> dict[str, Any]:
    """SIGKILL a command-line call in flight, or a whole Python worker."""
    for _ in range(200):
        w = rng.randrange(len(procs))
        if kinds[w] == "api":
            procs[w].send_signal(signal.SIGKILL)
            return {"worker": w, "pid": procs[w].pid, "what": "api worker", "at": time.time()}
        child = logs[w].with_suffix(".child")
        pid = child.read_text().strip() if child.exists() else ""
        if pid.isdigit():
            try:
                os.kill(int(pid), signal.SIGKILL)
                return {"worker": w, "pid": int(pid), "what": "atc call", "at": time.time()}
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    return {}


def run_soak(home: Path, work: Path, *, workers: int, seconds: float, seed: int, bound: float,
             kill: bool, remove_lock: int = 0) -> dict[str, Any]:
    """Run the workers on ``home`` and return the log, the kill and the checks."""
    rng = random.Random(seed)
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    files = make_files(work / "transcripts", workers, per_worker=4, turns=6)
    until = time.time() + seconds
    kinds = ["cli" if w % 2 == 0 else "api" for w in range(workers)]
    logs = [work / f"worker{w}.log" for w in range(workers)]
    watched = work / "watched"
    watched.mkdir()
    watcher = subprocess.Popen(ATC + ["watch", str(watched), "--poll", "--interval", "1",
                                      "--format-output", "json"],
                               stdout=open(work / "watch.out", "w"),
                               stderr=open(work / "watch.err", "w"), env=_env(home))
    procs = [subprocess.Popen(
        [sys.executable, __file__, "--worker", str(w), "--kind", kinds[w], "--home", str(home),
         "--files", os.pathsep.join(map(str, files[w])), "--until", str(until), "--bound",
         str(bound), "--log", str(logs[w]), "--seed", str(seed)],
        env=_env(home), stderr=open(work / f"worker{w}.err", "w")) for w in range(workers)]
    kill_at = rng.uniform(seconds * 0.3, seconds * 0.6) + time.time() if kill else None
    killed: dict[str, Any] = {}
    fed: list[Path] = []
    # the home's lock file removed while (most likely) held, as a user's rm of a "stale" lock
    removals = sorted(rng.uniform(seconds * 0.2, seconds * 0.9) + time.time()
                      for _ in range(remove_lock))
    removed = 0
    while time.time() < until:        # a new transcript for the watcher every few seconds
        time.sleep(max(1.0, seconds / 12))
        fed.append(make_file(watched / f"feed{len(fed)}.txt", f"{len(fed)}x", 4))
        if kill_at and time.time() >= kill_at and not killed:
            killed = kill_one(rng, procs, logs, kinds)
        while removals and time.time() >= removals[0]:
            removals.pop(0)
            try:
                (home / ".lock").unlink()
                removed += 1
            except FileNotFoundError:
                pass
    for p in procs:
        p.wait(timeout=seconds + 4 * bound)
    caught_up = _watch_caught_up(home, fed, bound, work / "watch.out")
    watcher.send_signal(signal.SIGTERM)
    watcher.wait(timeout=bound)
    entries = log_entries(logs)
    checks = check(home, entries, killed, files, bound, running=[watcher.pid])
    checks.insert(1, ("watched", caught_up is not None and watcher.returncode == 0,
                      f"{len(fed)} files fed to atc watch; all turns held once after "
                      f"{caught_up if caught_up is None else round(caught_up, 1)} s more; "
                      f"exit {watcher.returncode}"))
    return {"entries": entries, "killed": killed, "files": files, "checks": checks,
            "locks_removed": removed}


def _tokens(text: str) -> set[str]:
    """The soak's tokens in ``text``: a file turn's ``tk...t``, a remembered note's ``rm...n``."""
    return {w for w in text.split() if (w.startswith("rm") and w.endswith("n"))
            or (w.startswith("tk") and w.endswith("t"))}


def _held_tokens(home: Path) -> Counter:
    """How many items hold each token (``tk...t``, ``rm...n``) in ``home``, as a new reader
    sees them."""
    from attention_cloud import Memory
    held: Counter = Counter()
    with Memory.open(home, create=False) as mem:
        for row in mem.query("item(H)", limit=100000).rows:
            held.update(_tokens(mem.item(row["H"]).text))
    return held


def _watch_caught_up(home: Path, fed: list[Path], bound: float, events: Path) -> float | None:
    """Seconds until every turn of every file fed to the watcher is held exactly once (None
    past ``bound``). Looked at once, then each time the watcher's event log (``events``)
    grows, as it does when a batch ends, and every 2 s besides: each look opens the home and
    reads every item, and looking every 2 s alone kept a run that had caught up waiting up to
    2 s for nothing."""
    began = time.time()
    tokens = [t for path in fed for t in file_tokens(path)]
    logged, looked = None, 0.0
    while time.time() - began < bound:
        size = events.stat().st_size if events.exists() else 0
        if size != logged or time.time() - looked >= 2:
            logged, looked = size, time.time()
            held = _held_tokens(home)
            if all(held[t] == 1 for t in tokens):
                return time.time() - began
        time.sleep(0.05)
    return None


def _home_bytes(home: Path) -> Iterator[tuple[Path, bytes]]:
    for path in sorted(home.rglob("*")):
        if path.is_file():
            yield path, path.read_bytes()


def check(home: Path, entries: list[dict[str, Any]], killed: dict[str, Any],
          files: dict[int, list[Path]], bound: float,
          running: list[int] = ()) -> list[tuple[str, bool, str]]:
    """The checks of the module doc, each (name, passed, detail); ``running`` the pids of
    processes up throughout (the watcher)."""
    from attention_cloud import Memory
    results: list[tuple[str, bool, str]] = []
    ok = [e for e in entries if e.get("outcome") == "ok"]
    forgotten = {e["handle"] for e in ok if e["op"] == "forget"}
    tried_forget = {e.get("handle") for e in entries if e["op"] == "forget"}
    remembered = {e["token"]: e["handle"] for e in ok if e["op"] == "remember"}
    ingested = {e["file"] for e in ok if e["op"] == "ingest"}

    with Memory.open(home, create=False) as mem:
        handles = [r["H"] for r in mem.query("item(H)", limit=100000).rows]
        texts = {h: mem.item(h).text for h in handles}
        held_by_token: dict[str, list[str]] = defaultdict(list)
        for h, text in texts.items():
            for token in _tokens(text):
                held_by_token[token].append(h)
        lost = [t for t, h in remembered.items() if h not in forgotten
                and held_by_token.get(t) != [h]]
        turns = [t for f in ingested for t in file_tokens(Path(f))]
        lost += [t for t in turns if len(held_by_token.get(t, [])) != 1]
        doubled = [t for t, hs in held_by_token.items() if len(hs) > 1]
        results.append(("acknowledged", not lost and not doubled,
                        f"{len(remembered)} remembered, {len(turns)} turns of {len(ingested)} "
                        f"files; lost or moved {lost[:5]}, doubled {doubled[:5]}"))

        tokens = {h: t for t, h in remembered.items() if h in forgotten}
        still = [h for h in tokens if mem.item(h) is not None]
        on_disk = sorted({f"{tokens[h]} in {p.relative_to(home)}" for p, data in _home_bytes(home)
                          for h in tokens if tokens[h].encode() in data})
        framed = _framed_after_forget(ok, forgotten)
        last = mem.hydrate("note about the rollout window", budget=4000)
        framed += [h for h in tokens if h in {f["handle"] for f in last.receipt["facts"]}
                   or tokens[h] in last.text]
        results.append(("forgotten", not still and not on_disk and not framed,
                        f"{len(tokens)} forgotten; still an item {still[:3]}, on disk "
                        f"{on_disk[:3]}, in a frame or receipt begun after {framed[:3]}"))
    slow = [f"{e['op']} {e['seconds']}s" for e in entries if e.get("outcome") == "timeout"
            or e.get("seconds", 0) > bound]
    results.append(("bounded", not slow, f"bound {bound:g} s; past it: {slow[:5]}"))

    results.append(("refusals",) + _check_refusals(entries, killed, running))
    unresolved = [h for e in ok if e["op"] == "hydrate" for h in e.get("unresolved", [])
                  if h not in tried_forget]
    results.append(("consistent frames", not unresolved,
                    f"{sum(e['op'] == 'hydrate' for e in ok)} frames; items shown and not held "
                    f"{unresolved[:5]}"))
    errors = [f"{e['op']}: {(e.get('stderr') or [e.get('error', '')])[-1]}" for e in entries
              if e.get("outcome") == "error"]
    results.append(("no other errors", not errors, f"{len(errors)}: {errors[:5]}"))
    why = doctor_unclean(home)
    results.append(("doctor", why is None, why or "clean"))
    return results


def _framed_after_forget(ok: list[dict[str, Any]], forgotten: set[str]) -> list[str]:
    """Forgotten handles in a frame (and its receipt) of a hydrate begun after the forget
    returned."""
    gone = {e["handle"]: e["start"] + e["seconds"] for e in ok if e["op"] == "forget"}
    return [h for e in ok if e["op"] == "hydrate" for h in e.get("handles", [])
            if h in forgotten and e["start"] > gone[h]]


def _check_refusals(entries: list[dict[str, Any]], killed: dict[str, Any],
                    running: list[int]) -> tuple[bool, str]:
    """Each refusal: one line on stderr (the CLI), naming a pid that was in a call then (or
    one of ``running``)."""
    alive: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for pid in running:
        alive[pid].append((0, float("inf")))
    if killed:          # up until its kill (a Python worker's call then was never logged)
        alive[killed["pid"]].append((0, killed["at"]))
    for e in entries:
        for pid in (e.get("child"), e["pid"] if e["kind"] == "api" else None):
            if pid:
                alive[pid].append((e["start"], e["start"] + e.get("seconds", 0)))
        for pid, start, end in e.get("shows", []):   # a reader cutting a killed writer's tail
            alive[pid].append((start, end))
    bad = []
    for e in entries:
        if e.get("outcome") != "refused":
            continue
        text = e["stderr"][-1] if e["kind"] == "cli" else e["error"]
        if e["kind"] == "cli" and e["stderr_lines"] != 1:
            bad.append(f"{e['stderr_lines']} lines: {e['stderr']}")
            continue
        if e["kind"] == "cli" and e["rc"] == 0:
            bad.append(f"exit 0: {text}")
        named = text.split("(pid ", 1)[1].split(")", 1)[0] if "(pid " in text else ""
        if not named.isdigit():
            bad.append(f"names no holder: {text}")
        elif not any(
                s - 1 <= e["start"] + e["seconds"] and e["start"] <= t + 1
                for s, t in alive.get(int(named), [])):
            bad.append(f"names pid {named}, in no call then: {text}")
        elif "ATC_LOCK_WAIT" not in text:
            bad.append(f"says not what to do: {text}")
    refused = sum(e.get("outcome") == "refused" for e in entries)
    return not bad, f"{refused} refused; wrong {len(bad)}: {bad[:3]}"


def summary(entries: list[dict[str, Any]]) -> str:
    """Calls, outcomes and durations per op, as a Markdown table."""
    rows = ["| op | calls | ok | refused | ok, allowed to wait | killed | error | median s "
            "| max s |", "|---|---|---|---|---|---|---|---|---|"]
    for op in OPS:
        es = [e for e in entries if e["op"] == op and e.get("outcome") != "skipped"]
        if not es:
            continue
        c = Counter(e["outcome"] for e in es)
        secs = sorted(e["seconds"] for e in es)
        waited = sum(1 for e in es if e["outcome"] == "ok" and e["wait"] != 0 and op in WRITES)
        rows.append(f"| {op} | {len(es)} | {c['ok']} | {c['refused']} | {waited} | "
                    f"{c['killed']} | {c['error'] + c['timeout']} | {secs[len(secs) // 2]:.2f} | "
                    f"{secs[-1]:.2f} |")
    waits = sorted(e["lock_s"] for e in entries if "lock_s" in e)
    if waits:
        rows.append(f"\nPython API writers' time taking the lock: {len(waits)} calls, median "
                    f"{waits[len(waits) // 2]:.2f} s, max {waits[-1]:.2f} s; "
                    f"{sum(w > 0.1 for w in waits)} waited over 0.1 s")
    return "\n".join(rows)


def handover_probe(seconds: float, rounds: int) -> list[dict[str, Any]]:
    """Refusals while the lock changes hands fast: a forked process takes and gives back the
    write lock in a loop, and this one tries to take it at once (``wait=0``) for ``seconds``,
    alternately without the look again before refusing (``name_holder=False``, the lock as it
    was before round 33) and with it. Counts per leg: taken, refused naming the holder, refused
    naming no one (or a pid not the holder's)."""
    legs = []
    for n in range(2 * rounds):
        with tempfile.TemporaryDirectory(prefix="atc-handover-") as home:
            legs.append(_handover_leg(Path(home), seconds, name_holder=n % 2 == 1))
    return legs


def _handover_leg(home: Path, seconds: float, *, name_holder: bool) -> dict[str, Any]:
    """One leg of :func:`handover_probe`, on a home folder of its own."""
    from attention_cloud.errors import WriterBusy
    from attention_cloud.home import WriteLock
    churn = os.fork()
    if churn == 0:
        lock, end = WriteLock(home), time.time() + seconds + 1
        while time.time() < end:
            lock.acquire(wait=5)
            lock.release()
        os._exit(0)
    counts = Counter(leg="look again" if name_holder else "before")
    lock, end = WriteLock(home), time.time() + seconds
    while time.time() < end:
        try:
            lock.acquire(wait=0, name_holder=name_holder)
            lock.release()
            counts["taken"] += 1
        except WriterBusy as exc:
            counts["holder named" if exc.holder == churn else "no holder named"] += 1
    os.waitpid(churn, 0)
    return dict(counts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bound", type=float, default=120,
                    help="seconds past which a call counts as hung")
    ap.add_argument("--no-kill", action="store_true", help="kill no process mid-run")
    ap.add_argument("--remove-lock", type=int, default=0, metavar="N",
                    help="remove home/.lock N times mid-run (a user's rm of a 'stale' lock): "
                         "a write then refused for it counts as 'lock lost'; the checks stand")
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="work in DIR and keep it (home, logs); without "
                    "it the work folder is kept only when a check failed, and named")
    ap.add_argument("--json", type=Path, help="write the log and the checks here")
    ap.add_argument("--handover-probe", type=float, metavar="SECONDS",
                    help="instead: count refusals naming no holder while the lock changes "
                         "hands, A/B legs of SECONDS each")
    ap.add_argument("--rounds", type=int, default=3, help="A/B rounds of --handover-probe")
    # a worker's own arguments (the run starts its workers with them)
    ap.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--kind", choices=("cli", "api"), help=argparse.SUPPRESS)
    ap.add_argument("--home", help=argparse.SUPPRESS)
    ap.add_argument("--files", help=argparse.SUPPRESS)
    ap.add_argument("--until", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--log", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        Worker(args).run()
        return 0

    print(run_header("concurrent home"))
    if args.handover_probe:
        for leg in handover_probe(args.handover_probe, args.rounds):
            print(json.dumps(leg))
        return 0
    with WorkFolder("atc-concurrent-", args.keep) as work:
        failed = _soak_report(args, work.path)
        if failed:
            work.keep(f"{failed} check(s) failed")
    return 1 if failed else 0


def _soak_report(args: argparse.Namespace, work: Path) -> int:
    """Run the soak in ``work`` and print what it found; the number of checks that failed."""
    result = run_soak(work / "home", work, workers=args.workers, seconds=args.seconds,
                      seed=args.seed, bound=args.bound, kill=not args.no_kill,
                      remove_lock=args.remove_lock)
    print(summary(result["entries"]))
    if result["killed"]:
        print(f"\nSIGKILLed mid-run: {result['killed']['what']} (pid {result['killed']['pid']})")
    if result["locks_removed"]:
        print(f"home/.lock removed mid-run {result['locks_removed']} time(s); writes refused "
              f"for it: {sum(e.get('outcome') == 'lock lost' for e in result['entries'])}")
    failed = 0
    for name, passed, detail in result["checks"]:
        print(f"{'ok  ' if passed else 'FAIL'} {name}: {detail}")
        failed += not passed
    if args.json:
        args.json.write_text(json.dumps({k: v for k, v in result.items() if k != "files"},
                                        default=str, indent=1))
    return failed


if __name__ == "__main__":
    sys.exit(main())
