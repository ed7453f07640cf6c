#!/usr/bin/env python3
"""Agent-loop soak: one process uses the public Python API every turn, as an agent loop does.

One ``Memory`` is opened on a fresh home and kept open for ``--turns`` turns. Each turn appends
a user message, an assistant reply with a tool call and the tool's result to a growing
transcript (OpenAI chat JSONL and Anthropic Messages JSONL in turn, a new session file every
``--session-turns`` turns; text with unicode, quotes and Prolog-looking text; timestamps spread
over ``--weeks`` weeks), ingests it (incremental), and then:

  every turn        ``hydrate`` of a goal about an earlier turn (some naming a time:
                    "yesterday", "last week", read against the turn's time), ``query`` of a few
                    vocabulary predicates, and a query for the newest ingested item's handle
  every k turns     ``curate`` (``--curate-every``)
  now and then      ``remember``, ``forget`` of an earlier item (``--forget-every``),
                    ``rules_add`` of a traversal rule (``--rules-every``) and a hydrate with
                    ``walk=``
  in the background a second process runs ``atc ingest`` (its own transcript) or ``atc curate``
                    on the same home every ``--side-every`` turns; the API waits for the write
                    lock (``ATC_LOCK_WAIT``) or fails with the documented HomeError

Checked every turn: no exception but the documented ones (HomeError "another process is
writing", counted and retried next turn), every receipt consistent (its facts exist, spent <=
budget), the newest item findable, forgotten items never in a frame, a receipt's ``beyond`` or
a query. Recorded: RSS (``/proc/self/status`` VmRSS) every turn and the latency of every call,
by kind; the summary compares the first and last 10 % of turns.

``--skip KIND,...`` turns call kinds off (to bisect a leak): hydrate, query, curate, remember,
forget, rules, walk, side.

    .venv/bin/python scripts/bench/agent_loop_soak.py --quick
    ATC_PROLOG=pyswip nice -n 10 .venv/bin/python scripts/bench/agent_loop_soak.py --turns 3000
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

KINDS = ("hydrate", "query", "curate", "remember", "forget", "rules", "walk", "side")

TOPICS = [
    ("the retry backoff in payments/processor.py", "raise the max delay to 30 s and add jitter"),
    ("the flaky test_webhook_idempotency test", "pin the clock in the fixture"),
    ("logging card numbers (PANs) in the gateway", "mask all but the last four digits"),
    ("the Prolog rule `ancestor(X, Y) :- parent(X, Z), ancestor(Z, Y).`", "add a tabling directive"),
    ("migrating the users table to UUID keys", "backfill in batches of 10 000 rows"),
    ("the café menu's unicode names (crème brûlée, 中文菜单)", "normalise to NFC before hashing"),
    ("Priya's review of the \"rate limiter\" PR", "split the token bucket into its own module"),
    ("the staging DB being read-only on Fridays", "move the migration to Thursday"),
    ("a query like `item_kind(H, error), halt.` in user input", "treat it as text, never as code"),
    ("the OOM in the embedding worker 🙂", "cap the batch at 256 texts"),
    ("the S3 bucket policy for s3://acme-logs/2026/", "deny public ACLs explicitly"),
    ("Kubernetes liveness probes timing out", "raise initialDelaySeconds to 20"),
]
TOOLS = ["read_file", "run_tests", "grep", "edit_file", "shell"]
FILES = ["payments/processor.py", "tests/test_webhook.py", "gateway/log.py", "rules/family.pl",
         "db/migrations/0042_uuid.sql", "menu/names.py", "ratelimit/bucket.py", "ops/schedule.yaml"]
TIME_PHRASES = ["yesterday", "last week", "two weeks ago", "earlier today", "three days ago"]

#: goals hydrated every ``--probe-every`` turns, the same each time (the turn's own goals vary)
PROBE_GOALS = ["the retry backoff in payments/processor.py: what was the fix?",
               "why did tests/test_webhook.py fail",
               "what did we decide about logging card numbers",
               "Priya's review of the rate limiter",
               "the OOM in the embedding worker"]

RULE = """\
% the items right after a seed in its session: what happened next
soak_next(Seeds, H-0.5) :-
    member(S-_, Seeds),
    item_session(S, Session), item_seq(S, N), M is N + 1,
    item_session(H, Session), item_seq(H, M).
"""


def rss_kb() -> int:
    """VmRSS of this process in KiB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Transcripts:
    """The agent's transcript files: one session file per ``session_turns`` turns, OpenAI chat
    JSONL and Anthropic Messages JSONL in turn."""

    def __init__(self, folder: Path, session_turns: int, start: datetime, step: timedelta):
        self.folder = folder
        self.session_turns = session_turns
        self.start = start
        self.step = step
        self.lines: dict[Path, int] = {}

    def when(self, turn: int) -> datetime:
        return self.start + self.step * turn

    def path(self, turn: int) -> tuple[Path, str]:
        session = turn // self.session_turns
        fmt = "openai" if session % 2 == 0 else "anthropic"
        return self.folder / f"session-{session:04d}-{fmt}.jsonl", fmt

    def append(self, turn: int, rng: random.Random) -> tuple[Path, str, dict[str, str]]:
        path, fmt = self.path(turn)
        topic, fix = TOPICS[turn % len(TOPICS)]
        tool = TOOLS[rng.randrange(len(TOOLS))]
        file = FILES[rng.randrange(len(FILES))]
        token = f"T{turn:06d}"
        failed = rng.random() < 0.2
        user = (f"[{token}] Can you look at {topic}? It said \"it's fine\" yesterday — "
                f"but now {file} fails with 'KeyError: “β”' (ticket {token}).")
        reply = (f"Looking at {topic} for {token}: I'll {fix}. "
                 f"First `{tool}` on {file}; the rule `p(X) :- q(X, 'a b').` is only text.")
        result = (f"Traceback (most recent call last):\n  File \"{file}\", line {10 + turn % 90}\n"
                  f"ValueError: retry {token} exceeded" if failed
                  else f"{tool} ok for {token}: 3 passed, 0 failed in {file} (ünïcödé ✓)")
        at = self.when(turn)
        stamps = [(at + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%SZ") for s in (0, 20, 40)]
        call_id = f"call_{turn:06d}"
        if fmt == "openai":
            records = [
                {"role": "user", "content": user, "timestamp": stamps[0]},
                {"role": "assistant", "content": reply, "timestamp": stamps[1],
                 "tool_calls": [{"id": call_id, "type": "function", "function": {
                     "name": tool, "arguments": json.dumps({"path": file, "ticket": token})}}]},
                {"role": "tool", "tool_call_id": call_id, "content": result,
                 "timestamp": stamps[2]},
            ]
        else:
            records = [
                {"role": "user", "content": user, "timestamp": stamps[0]},
                {"role": "assistant", "timestamp": stamps[1], "content": [
                    {"type": "text", "text": reply},
                    {"type": "tool_use", "id": call_id, "name": tool,
                     "input": {"path": file, "ticket": token}}]},
                {"role": "user", "timestamp": stamps[2], "content": [
                    {"type": "tool_result", "tool_use_id": call_id, "content": result,
                     "is_error": failed}]},
            ]
        with open(path, "a", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.lines[path] = self.lines.get(path, 0) + len(records)
        return path, fmt, {"token": token, "topic": topic, "file": file}


def side_transcript(folder: Path, n: int) -> Path:
    """A small transcript another tool wrote, for the second process's ``atc ingest``."""
    path = folder / f"side-{n:04d}.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(3):
            fh.write(json.dumps({"role": "user" if i % 2 == 0 else "assistant",
                                 "content": f"side note {n}.{i}: the nightly job on host-{n % 7} "
                                            f"finished; 'quoted' and ünïcödé text"},
                                ensure_ascii=False) + "\n")
    return path


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def is_busy(exc: BaseException) -> bool:
    from attention_cloud.errors import HomeError

    return isinstance(exc, HomeError) and "another process is writing" in str(exc)


class Soak:
    def __init__(self, args: argparse.Namespace, home: Path, work: Path):
        from attention_cloud import Memory

        self.args = args
        self.skip = set(args.skip)
        self.rng = random.Random(args.seed)
        self.home = home
        self.work = work
        home.mkdir(parents=True)
        (home / "config.json").write_text(json.dumps({"embedder": args.embedder}))
        self.mem = Memory.open(home)
        start = datetime(2026, 10, 1, 9, 0, tzinfo=timezone.utc)
        step = timedelta(weeks=args.weeks) / max(1, args.turns)
        self.tx = Transcripts(work / "tx", args.session_turns, start, step)
        self.tx.folder.mkdir()
        self.ingested: list[tuple[int, str, dict[str, str]]] = []   # (turn, handle, info)
        self.forgotten: set[str] = set()
        self.lat: dict[str, list[tuple[int, float]]] = {}
        self.rss: list[tuple[int, int]] = []
        self.counts: dict[str, int] = {}
        self.failures: list[str] = []
        self.side: subprocess.Popen | None = None
        self.side_runs = 0
        self.side_rcs: dict[str, int] = {}
        self.pending: list[Path] = []     # files whose ingest a busy lock put off

    # -- bookkeeping -------------------------------------------------------------------------
    def timed(self, kind: str, turn: int, fn, /, *a, **kw):
        t0 = time.perf_counter()
        try:
            return fn(*a, **kw)
        except Exception as exc:
            if is_busy(exc):
                self.counts[f"{kind}_busy"] = self.counts.get(f"{kind}_busy", 0) + 1
                return None
            self.fail(turn, f"{kind} raised {type(exc).__name__}: {exc}\n"
                      + traceback.format_exc(limit=6))
            return None
        finally:
            self.lat.setdefault(kind, []).append((turn, (time.perf_counter() - t0) * 1000))
            self.counts[kind] = self.counts.get(kind, 0) + 1

    def fail(self, turn: int, what: str) -> None:
        self.failures.append(f"turn {turn}: {what}")
        print(f"FAIL turn {turn}: {what}", file=sys.stderr, flush=True)
        if len(self.failures) >= self.args.max_failures:
            raise SystemExit(f"stopping: {len(self.failures)} failures")

    # -- checks ------------------------------------------------------------------------------
    def check_frame(self, turn: int, frame: Any, budget: int) -> None:
        if frame is None:
            return
        r = frame.receipt
        if r["budget"]["spent"] > budget:
            self.fail(turn, f"receipt spent {r['budget']['spent']} > budget {budget}")
        handles = [f["handle"] for f in r["facts"]]
        shown = set(handles) | {b["handle"] for b in r.get("beyond", [])}
        back = shown & self.forgotten
        if back:
            self.fail(turn, f"forgotten items in a frame: {sorted(back)}")
        if handles:
            listed = ", ".join(f"'{h}'" for h in handles)
            rows = self.mem.query(f"member(H, [{listed}]), \\+ item(H), \\+ arc(H), "
                                  "\\+ rollup(H, _), \\+ cell(H)", limit=100).rows
            if rows:
                self.fail(turn, f"receipt names facts memory does not hold: {rows}")

    def check_forgotten(self, turn: int) -> None:
        if not self.forgotten:
            return
        listed = ", ".join(f"'{h}'" for h in sorted(self.forgotten))
        rows = self.mem.query(f"member(H, [{listed}]), (item(H) ; item_text(H, _))",
                              limit=100).rows
        if rows:
            self.fail(turn, f"forgotten items answer queries again: {rows}")

    # -- one turn ----------------------------------------------------------------------------
    def turn(self, t: int) -> None:
        a, mem, rng = self.args, self.mem, self.rng
        path, fmt, info = self.tx.append(t, rng)
        todo = sorted(set(self.pending + [path]))
        report = self.timed("ingest", t, mem.ingest, todo)
        if report is None:
            self.pending = todo
        else:
            self.pending = []
            for h in report.new_handles:
                self.ingested.append((t, h, info))
            if report.new_handles:
                newest = report.new_handles[-1]
                rows = self.timed("query", t, lambda: mem.query(f"item(H), H == '{newest}'").rows)
                if rows is not None and len(rows) != 1:
                    self.fail(t, f"newest item {newest} not findable after ingest")
            elif t % a.session_turns:   # a new turn, new items, always
                self.fail(t, f"ingest of {path.name} after turn {t} found nothing new: "
                          f"{report.as_dict()}")
        if "curate" not in self.skip and t % a.curate_every == a.curate_every - 1:
            self.timed("curate", t, mem.curate)
        if "hydrate" not in self.skip:
            self.hydrate(t)
        if "query" not in self.skip:
            for q in ("item_kind(H, error), item_goal(H, G)", "relation(H, tool, T)",
                      "item_time(H, T), item_speaker(H, S)", "rung(H, l1, Text)"):
                self.timed("query", t, lambda q=q: mem.query(q, limit=20))
        if "remember" not in self.skip and t % 15 == 7:
            r = self.timed("remember", t, mem.remember,
                           f"decision {t}: {TOPICS[t % len(TOPICS)][1]} ('agreed' with Priya, ✓)",
                           kind="decision", time=self.tx.when(t).strftime("%Y-%m-%dT%H:%M:%SZ"))
            if r is not None and mem.item(r.handle) is None:
                self.fail(t, f"remembered {r.handle} not found")
        if "forget" not in self.skip and t % a.forget_every == a.forget_every - 1:
            self.forget(t)
        if "rules" not in self.skip and t % a.rules_every == 3:
            self.timed("rules", t, mem.rules_add, RULE, "soak_next")
        if "walk" not in self.skip and "rules" not in self.skip and t % 10 == 5 and t > 3:
            frame = self.timed("walk", t, mem.hydrate, f"what happened after {info['topic']}",
                               budget=600, walk="soak_next")
            self.check_frame(t, frame, 600)
        if "side" not in self.skip and t % a.side_every == a.side_every // 2:
            self.side_start(t)
        if t % 25 == 0:
            self.check_forgotten(t)
        if a.probe_every and t % a.probe_every == 0:
            for goal in PROBE_GOALS:   # the same goals all along: a trend is the process's
                self.timed("probe", t, mem.hydrate, goal, budget=800)
        self.timed("release", t, mem.release)    # let other writers in between turns
        self.rss.append((t, rss_kb()))

    def hydrate(self, t: int) -> None:
        earlier = self.ingested[self.rng.randrange(len(self.ingested))] if self.ingested else None
        topic = earlier[2]["topic"] if earlier else TOPICS[0][0]
        budget = self.rng.choice([300, 800, 1500])
        now = None
        if t % 3 == 0:
            phrase = self.rng.choice(TIME_PHRASES)
            goal = f"what did we decide about {topic} {phrase}"
            now = self.tx.when(t).strftime("%Y-%m-%dT%H:%M:%SZ")
        elif t % 3 == 1 and earlier:
            goal = f"why did {earlier[2]['file']} fail in ticket {earlier[2]['token']}"
        else:
            goal = f"{topic}: what was the fix?"
        frame = self.timed("hydrate", t, self.mem.hydrate, goal, budget=budget, now=now)
        self.check_frame(t, frame, budget)

    def forget(self, t: int) -> None:
        live = [(tt, h) for tt, h, _ in self.ingested if h not in self.forgotten]
        if not live:
            return
        _, handle = live[self.rng.randrange(len(live))]
        report = self.timed("forget", t, self.mem.forget, [handle], reason="soak")
        if report is not None:
            self.forgotten.add(handle)
            if self.mem.item(handle) is not None:
                self.fail(t, f"forgotten {handle} still an item")

    def side_start(self, t: int) -> None:
        if self.side is not None and self.side.poll() is None:
            return   # the last one still runs
        self.side_reap()
        self.side_runs += 1
        atc = [sys.executable, "-m", "attention_cloud.cli"]
        if self.side_runs % 2:
            cmd = atc + ["ingest", "--home", str(self.home),
                         str(side_transcript(self.work, self.side_runs))]
        else:
            cmd = atc + ["curate", "--home", str(self.home)]
        env = {**os.environ, "PYTHONPATH": str(ROOT / "host")}
        self.side_cmd = cmd[3]
        self.side = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)

    def side_reap(self) -> None:
        if self.side is None:
            return
        err = self.side.communicate()[1]
        rc = self.side.returncode
        key = f"{self.side_cmd}:{'ok' if rc == 0 else 'busy' if 'another process' in err else rc}"
        self.side_rcs[key] = self.side_rcs.get(key, 0) + 1
        if rc != 0 and "another process is writing" not in err:
            self.fail(-1, f"atc {self.side_cmd} exited {rc}: {err[-800:]}")
        self.side = None

    def finish(self) -> None:
        self.side_reap()
        self.mem.curate()
        self.check_forgotten(self.args.turns)
        self.mem.close()
        from attention_cloud import Memory   # the home reopens and holds what was written

        mem = Memory.open(self.home)
        missing = [h for _, h, _ in self.ingested[-50:]
                   if h not in self.forgotten and mem.item(h) is None]
        if missing:
            self.fail(self.args.turns, f"after reopening, items missing: {missing[:5]}")
        back = [h for h in self.forgotten if mem.item(h) is not None]
        if back:
            self.fail(self.args.turns, f"after reopening, forgotten items back: {back}")
        self.items_end = mem.stats().get("items")
        mem.close()


def summary(s: Soak, turns: int, seconds: float) -> dict[str, Any]:
    tenth = max(1, turns // 10)

    def window(kind: str, lo: int, hi: int) -> list[float]:
        return [ms for t, ms in s.lat.get(kind, []) if lo <= t < hi]

    lat = {}
    for kind in sorted(s.lat):
        first, last = window(kind, 0, tenth), window(kind, turns - tenth, turns)
        all_ms = [ms for _, ms in s.lat[kind]]
        lat[kind] = {"calls": len(all_ms), "p50": round(pct(all_ms, .5), 1),
                     "p95": round(pct(all_ms, .95), 1),
                     "first10_p50": round(pct(first, .5), 1), "first10_p95": round(pct(first, .95), 1),
                     "last10_p50": round(pct(last, .5), 1), "last10_p95": round(pct(last, .95), 1)}
    rss = [kb for _, kb in s.rss]
    mid = rss[len(rss) // 2] if rss else 0
    # the trend over the second half (the first half includes warm-up: caches, indexes)
    half = rss[len(rss) // 2:]
    slope = (statistics.linear_regression(range(len(half)), half).slope
             if len(half) > 2 else 0.0)
    return {"turns": turns, "seconds": round(seconds, 1), "backend": s.mem_backend,
            "embedder": s.args.embedder, "calls": sum(v["calls"] for v in lat.values()),
            "rss_mb": {"start": round(rss[0] / 1024, 1) if rss else None,
                       "middle": round(mid / 1024, 1), "end": round(rss[-1] / 1024, 1) if rss else None,
                       "max": round(max(rss) / 1024, 1) if rss else None,
                       "second_half_kb_per_turn": round(slope, 2)},
            "latency_ms": lat, "items_end": getattr(s, "items_end", None),
            "ingested": len(s.ingested), "forgotten": len(s.forgotten),
            "busy": {k: v for k, v in s.counts.items() if k.endswith("_busy")},
            "side": s.side_rcs, "failures": s.failures}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=3000)
    ap.add_argument("--quick", action="store_true", help="200 turns")
    ap.add_argument("--embedder", default="hash", help="hash (default) or minilm")
    ap.add_argument("--curate-every", type=int, default=10)
    ap.add_argument("--forget-every", type=int, default=40)
    ap.add_argument("--side-every", type=int, default=20, help="turns between `atc` runs")
    ap.add_argument("--session-turns", type=int, default=40, help="turns per transcript file")
    ap.add_argument("--weeks", type=float, default=6.0, help="weeks the turns' times span")
    ap.add_argument("--lock-wait", type=float, default=30.0,
                    help="ATC_LOCK_WAIT for this process and the second one")
    ap.add_argument("--skip", type=lambda v: [k for k in v.split(",") if k], default=[],
                    help=f"call kinds to turn off: {','.join(KINDS)}")
    ap.add_argument("--rules-every", type=int, default=100,
                    help="turns between adds of the walk rule (the first at turn 3)")
    ap.add_argument("--probe-every", type=int, default=50,
                    help="hydrate the fixed PROBE_GOALS every N turns (0: never)")
    ap.add_argument("--minutes", type=float, default=0,
                    help="stop after this many minutes (the checks at the end still run)")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--max-failures", type=int, default=20)
    ap.add_argument("--every", type=int, default=0, help="print progress every N turns")
    ap.add_argument("--json", type=Path, help="write the summary (and the RSS series) here")
    ap.add_argument("--keep", type=Path, help="work in this folder (kept) instead of a temp one")
    args = ap.parse_args(argv)
    if args.quick:
        args.turns = 200
    bad = set(args.skip) - set(KINDS)
    if bad:
        ap.error(f"unknown kinds: {sorted(bad)}")
    os.environ["ATC_LOCK_WAIT"] = str(args.lock_wait)
    every = args.every or max(1, args.turns // 10)

    with tempfile.TemporaryDirectory(prefix="atc-agent-soak-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        s = Soak(args, work / "home", work)
        s.mem_backend = s.mem.pl.backend
        start = time.perf_counter()
        turns = 0
        try:
            for t in range(args.turns):
                if args.minutes and time.perf_counter() - start > args.minutes * 60:
                    print(f"stopping after {t} turns: --minutes {args.minutes} reached", flush=True)
                    break
                s.turn(t)
                turns = t + 1
                if turns % every == 0:
                    h = [ms for _, ms in s.lat.get("hydrate", [])[-every:]]
                    print(f"turn {turns}: rss {s.rss[-1][1] / 1024:.1f} MB, hydrate p50 "
                          f"{pct(h, .5):.1f} ms, items {len(s.ingested)}, "
                          f"failures {len(s.failures)}, {time.perf_counter() - start:.0f} s",
                          flush=True)
            s.finish()
        finally:
            out = summary(s, turns, time.perf_counter() - start)
            print(json.dumps(out, indent=1, ensure_ascii=False))
            if args.json:
                args.json.write_text(json.dumps({**out, "rss_series_kb": s.rss}, indent=1))
    return 1 if out["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
