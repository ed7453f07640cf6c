"""Erasure fuzz: randomised ``forget`` trials, some killed (SIGKILL) at a random step.

Each trial builds a small home (hash embedder) from random sessions whose every item carries
its own secret (three made-up words), leaves it uncurated, curated or half curated, stores a
few receipts (some hydrated with an item's text as the goal), then forgets random items (by
handle, by session or by a query goal). In some trials the forget runs in a child process
that SIGKILLs itself at a random filesystem step (an fsync or rename of the erasure, the
indexes' purge, the journal compaction or the snapshot); the home is then reopened and the
next writer finishes the erasure. Every trial then checks:

- **leaks**: a forgotten item's secret in any byte of any file of the home (binary ones
  too, case-insensitive), in any rung or item text a query returns, in a frame hydrated
  with the forgotten text as the goal, or on the attention side: before the forget, a few
  items (forgotten or not) are quoted by beliefs (subject and value, some citing the item
  as support), an inspection's result, an event's payload and a claim, and a goal is
  attended to (candidates keyed on the subjects, the trace); afterwards no attention text
  (atc_api:api_attention_texts), belief, candidate, claim or trace event may hold a word of
  a forgotten item's secret;
- **failed reopens**: the home does not open after the kill, or after the erasure;
- **other items lost**: an item not forgotten lost its text, a rung it had, its BM25 entry
  or its vector, or the secret of an item not forgotten is gone from the journal or from
  the attention records that quoted it;
- **re-ingest**: the grown transcript is ingested again and a forgotten item comes back.

    python scripts/bench/erasure_fuzz.py --trials 1000 [--seed 1] [--kill-share 0.3]

The figures are printed as a markdown table (``--json PATH`` writes them too).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

from attention_cloud import Memory  # noqa: E402
from attention_cloud.attention.controller import Controller  # noqa: E402
from attention_cloud.bridge import Atom, Var  # noqa: E402
from attention_cloud.hydration import hydrate  # noqa: E402

FILLER = ("the retry loop backs off and the deploy script runs again after we checked the "
          "payment webhook logs with the team on monday then decided to keep the cache small "
          "because tests failed twice in staging before lunch").split()
CONSONANTS = "bcdfghjklmnpqrstvwxz"

#: Modules whose fsync and rename steps a killed child counts (see KILL_CHILD).
KILL_CHILD = r"""
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from attention_cloud import Memory, erasure, store
from attention_cloud.embed import store as vstore, lexical
home, target, handles, only_compaction = sys.argv[2], int(sys.argv[3]), sys.argv[4].split(","), sys.argv[5] == "1"
state = {"n": 0, "on": not only_compaction}
def counted(fn):
    def step(*a, **k):
        if state["on"]:
            state["n"] += 1
            if state["n"] == target:
                os.kill(os.getpid(), signal.SIGKILL)
        return fn(*a, **k)
    return step
for mod in (erasure, store, vstore, lexical):
    mod.fsync_path = counted(mod.fsync_path)
os.replace = counted(os.replace)
real_compact = erasure.compact_journal
def compact(mem):
    state["on"] = True
    return real_compact(mem)
erasure.compact_journal = compact
with Memory.open(home) as mem:
    mem.forget(handles, reason="fuzz", who="fuzz")
print(state["n"])
"""


def secret(rng: random.Random) -> str:
    """Three made-up words no filler or other item shares."""
    return " ".join("zq" + "".join(rng.choice(CONSONANTS) for _ in range(8)) for _ in range(3))


@dataclass
class Session:
    name: str
    path: Path
    texts: list[str]           # in order; even positions are the user's
    secrets: list[str]


def write_session(folder: Path, name: str, rng: random.Random, n: int) -> Session:
    """A Claude Code transcript of ``n`` turns, each with its own secret."""
    texts, secrets, lines = [], [], []
    for i in range(n):
        s = secret(rng)
        words = rng.sample(FILLER, 6)
        text = f"{' '.join(words[:3])} {s} {' '.join(words[3:])} number {i}"
        role = "user" if i % 2 == 0 else "assistant"
        texts.append(text)
        secrets.append(s)
        lines.append(json.dumps({"type": role, "uuid": f"{name}-{i}", "sessionId": name,
                                 "timestamp": f"2026-02-0{1 + i % 9}T10:0{i % 10}:00Z",
                                 "message": {"role": role, "content": text}}))
    path = folder / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Session(name, path, texts, secrets)


@dataclass
class Outcome:
    leaks: list[str] = field(default_factory=list)
    failed_reopens: int = 0
    lost: list[str] = field(default_factory=list)
    returned: int = 0
    killed: bool = False
    mode: str = ""
    forgotten: int = 0


def _secret_of(mem: Memory, handle: str, secrets: list[str]) -> str | None:
    item = mem.item(handle)
    if item is None:
        return None
    return next((s for s in secrets if s in item.text), None)


def trial(rng: random.Random, work: Path, kill: bool, only_compaction: bool = False,
          kill_step: int | None = None) -> Outcome:
    """One randomised trial in ``work`` (see the module doc)."""
    out = Outcome()
    home = work / "home"
    home.mkdir(parents=True)
    config = {"embedder": "hash", "echoes": rng.random() < 0.5,
              "distillation_vectors": rng.random() < 0.7}
    (home / "config.json").write_text(json.dumps(config), encoding="utf-8")
    sessions = [write_session(work, f"S{k}", rng, rng.randint(2, 6))
                for k in range(rng.randint(1, 3))]
    all_secrets = [s for ses in sessions for s in ses.secrets]
    curation = rng.choice(["none", "all", "partial"])
    with Memory.open(home) as mem:
        if curation == "partial" and len(sessions) > 1:
            mem.ingest([sessions[0].path])
            mem.curate()
            mem.ingest([s.path for s in sessions[1:]])
        else:
            mem.ingest([s.path for s in sessions])
            if curation == "all":
                mem.curate()
        handles = [row["H"] for row in mem.query("item(H)", limit=10_000).rows]
        by_secret = {}
        for h in handles:
            s = _secret_of(mem, h, all_secrets)
            if s:
                by_secret[s] = h
        for _ in range(rng.randint(0, 2)):
            goal = rng.choice([" ".join(rng.sample(FILLER, 4)),
                               rng.choice([t for ses in sessions for t in ses.texts])])
            mem.hydrate(goal, budget=rng.choice([60, 200, 800]))
        out.mode = rng.choice(["handles", "session", "query"])
        if out.mode == "session":
            victims = [by_secret[s] for s in rng.choice(sessions).secrets if s in by_secret]
        elif out.mode == "query":
            target = rng.choice(list(by_secret))
            goal = f'item_text(H, T), sub_string(T, _, _, _, "{target}")'
            victims = [row["H"] for row in mem.query(goal, limit=100).rows]
        else:
            victims = rng.sample(list(by_secret.values()), min(len(by_secret), rng.randint(1, 2)))
        if not victims:
            return out
        secret_of = {h: s for s, h in by_secret.items()}
        gone = {secret_of[h] for h in victims}
        quoted = _quote_in_attention(mem, rng, by_secret, sorted(gone)[0])
        kept = {h: s for h, s in secret_of.items() if h not in victims}
        before = {h: _index_state(mem, h) for h in kept}
        vectors = _vector_bytes(mem, victims)
        if gone & quoted and not _attention_leaks(mem, gone & quoted):
            out.leaks.append("the attention scan is blind: no quote found before forgetting")
    if not _file_leaks(home, gone):  # the scan must see the text while it is there
        out.leaks.append("the file scan is blind: no secret found before forgetting")
    out.forgotten = len(victims)
    if kill:
        step = kill_step if kill_step is not None else rng.randint(1, 64 if not only_compaction else 15)
        proc = subprocess.run([sys.executable, "-c", KILL_CHILD, str(ROOT / "host"), str(home),
                               str(step), ",".join(victims), "1" if only_compaction else "0"],
                              capture_output=True, text=True, timeout=600)
        out.killed = proc.returncode == -9
        if proc.returncode not in (0, -9):
            out.leaks.append(f"child failed: {proc.stderr.strip()[-300:]}")
    try:
        mem = Memory.open(home)
    except Exception as exc:  # noqa: BLE001 - counted, not raised
        out.failed_reopens += 1
        out.leaks.append(f"reopen after kill: {exc}")
        return out
    try:
        if kill:
            mem.finish_erasure()  # what the next writer does first
        if not set(victims) <= {e.handle for e in mem.erasures()}:
            mem.forget(victims, reason="fuzz", who="fuzz")  # in process, or killed too early
        out.lost += _lost(mem, kept, before)
        out.leaks += _query_leaks(mem, gone)
        out.leaks += _attention_leaks(mem, gone)
        out.lost += [f"attention records lost the quote of kept {s!r}"
                     for s in _attention_missing(mem, quoted - gone)]
        # the transcript grows: it is parsed again, and the forgotten items must stay out
        grown = rng.choice(sessions)
        with open(grown.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"type": "user", "uuid": f"{grown.name}-x", "sessionId": grown.name,
                                 "message": {"role": "user", "content": "one more thing to add"}})
                     + "\n")
        mem.ingest([s.path for s in sessions])
        back = [h for h in victims if mem.item(h) is not None]
        out.returned = len(back)
    finally:
        mem.close()
    try:
        with Memory.open(home) as again:
            out.lost += _lost(again, kept, before)
    except Exception as exc:  # noqa: BLE001
        out.failed_reopens += 1
        out.leaks.append(f"reopen after erasure: {exc}")
    out.leaks += _file_leaks(home, gone, vectors)
    return out


ATTENTION_SCOPE = "fuzz"


def _quote_in_attention(mem: Memory, rng: random.Random, by_secret: dict[str, str],
                        victim: str) -> set[str]:
    """Record attention-side texts quoting the secret ``victim`` of an item to be forgotten
    and those of up to two random others (README, Erasure: a belief's or inspection's subject
    or value, a payload, a claim that quotes an item, and the value of a belief citing it);
    returns the secrets quoted."""
    others = sorted(set(by_secret) - {victim})
    picked = [victim] + rng.sample(others, min(len(others), rng.randint(0, 2)))
    ctl = Controller(mem.pl, ATTENTION_SCOPE, memory=mem)
    ctl.add_source("registry", claim_type="dependency_version", kind="package_registry")
    beliefs = []
    for k, s in enumerate(picked):
        cite = [by_secret[s]] if rng.random() < 0.5 else []
        ctl.add_belief(f"b{k}", claim_type="dependency_version", subject=f"about {s}",
                       value=f"it said {s} then", confidence=0.8, observed_at=1_000,
                       volatility="package_release", supports=cite, source="registry")
        beliefs.append(f"b{k}")
        ctl.add_event("claim_drafted", source="registry", target="dependency_version",
                      payload_text=f"payload {s}", now=2_000)
        ctl.claim(f"claim {s} holds", claim_type="dependency_version", now=2_000)
    ctl.add_goal("deploy", depends_on=beliefs, loss_if_wrong=1.0, now=2_000)
    result = ctl.attend("deploy", budget=3, now=2_000)
    readings = [c for c in result.ranked if c.kind == "inspect_source"]
    if readings:
        ctl.inspect(readings[0].candidate_id, result=f"read {rng.choice(picked)} now", now=2_001)
    return set(picked)


def _attention_texts(mem: Memory) -> list[str]:
    """Every attention text as the erasure reads them, and what the controller's reads show."""
    (leaves,) = mem.pl.once("atc_api:api_attention_texts", Var())
    ctl = Controller(mem.pl, ATTENTION_SCOPE, memory=mem)
    shown = [ctl.beliefs(now=3_000), ctl.trace(), ctl.claims()]
    for event in ctl.trace():
        cand = event.get("candidate_id")
        if cand:
            shown.append(ctl.candidate(cand))
    return [str(t) for t in leaves] + [json.dumps(x, default=str) for x in shown]


def _attention_leaks(mem: Memory, gone: set[str]) -> list[str]:
    words = {w for s in gone for w in s.split()}
    return sorted({f"attention records hold {w}" for t in _attention_texts(mem)
                   for w in words if w in t.lower()})


def _attention_missing(mem: Memory, kept: set[str]) -> list[str]:
    texts = _attention_texts(mem)
    return [s for s in kept if not any(s in t for t in texts)]


def _vector_bytes(mem: Memory, handles: list[str]) -> list[bytes]:
    """The stored rows of the items' vectors (text and distillation), as the float16 log holds
    them and as float32 (an older store's log, or a copy an index might keep)."""
    jump = mem.jump
    if not jump.has_vectors():
        return []
    keys = [k for h in handles for k in (h, f"{h}#l2") if jump.vectors.has(k)]
    return [jump.vectors.vector(k).astype(dtype).tobytes() for k in keys for dtype in ("float16", "float32")]


def _index_state(mem: Memory, handle: str) -> tuple[bool, bool, bool]:
    jump = mem.jump
    has_vector = jump.has_vectors() and jump.vectors.has(handle)
    curated = mem.pl.once("atc_ladder:curated", Atom(handle), Var()) is not None
    return jump.lexical.has(handle), has_vector, curated


def _lost(mem: Memory, kept: dict[str, str], before: dict[str, tuple[bool, bool, bool]]) -> list[str]:
    lost = []
    for handle, s in kept.items():
        item = mem.item(handle)
        if item is None or s not in item.text:
            lost.append(f"{handle}: item or text gone")
            continue
        bm25, vector, curated = _index_state(mem, handle)
        was_bm25, was_vector, was_curated = before[handle]
        if (was_bm25 and not bm25) or (was_vector and not vector) or (was_curated and not curated):
            lost.append(f"{handle}: index entry or rungs gone "
                        f"(bm25 {was_bm25}->{bm25}, vector {was_vector}->{vector}, "
                        f"curated {was_curated}->{curated})")
    return lost


def _query_leaks(mem: Memory, gone: set[str]) -> list[str]:
    leaks = []
    words = [w for s in gone for w in s.split()]
    texts = [r["T"] for r in mem.query("(item_text(_, T) ; rung(_, _, T) ; item_goal(_, T))",
                                       limit=100_000).rows]
    for s in gone:  # the erased text as the goal: the frame's facts must not hold it
        frame = hydrate(mem, s, budget=800, store_receipt=False)
        texts += [fact.text for fact in frame.facts]
        texts += [crumb["text"] for crumb in frame.receipt["beyond"]]
    for t in texts:
        low = str(t).lower()
        for w in words:
            if w in low:
                leaks.append(f"query/frame surfaces {w}")
    return leaks


def _file_leaks(home: Path, gone: set[str], vectors: list[bytes] = ()) -> list[str]:
    """Files holding a word of an erased text (any case), or an erased vector's bytes."""
    words = [w.encode() for s in gone for w in s.split()]
    leaks = []
    for path in home.rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            data = raw.lower()
            leaks += [f"{path.relative_to(home)} holds {w.decode()}" for w in words if w in data]
            leaks += [f"{path.relative_to(home)} holds an erased vector" for v in vectors if v in raw]
    return leaks


def run(trials: int, seed: int, kill_share: float, work: Path | None = None,
        progress: bool = False, checkpoint: Path | None = None) -> dict[str, Any]:
    """Run ``trials`` trials; returns the figures (and the first failures)."""
    rng = random.Random(seed)
    totals = {"trials": 0, "killed": 0, "items_forgotten": 0, "leaks": 0, "failed_reopens": 0,
              "other_items_lost": 0, "returned_on_reingest": 0, "modes": {}}
    failures: list[str] = []
    started = time.monotonic()
    base = Path(tempfile.mkdtemp(prefix="atc-erasure-", dir=work))
    try:
        for i in range(trials):
            folder = base / f"t{i}"
            folder.mkdir()
            outcome = trial(random.Random(rng.random()), folder, kill=rng.random() < kill_share)
            totals["trials"] += 1
            totals["killed"] += outcome.killed
            totals["items_forgotten"] += outcome.forgotten
            totals["leaks"] += len(outcome.leaks)
            totals["failed_reopens"] += outcome.failed_reopens
            totals["other_items_lost"] += len(outcome.lost)
            totals["returned_on_reingest"] += outcome.returned
            totals["modes"][outcome.mode] = totals["modes"].get(outcome.mode, 0) + 1
            failures += [f"trial {i}: {x}" for x in outcome.leaks + outcome.lost][:5]
            shutil.rmtree(folder, ignore_errors=True)
            if progress and (i + 1) % 25 == 0:
                print(f"  {i + 1}/{trials} trials, {time.monotonic() - started:.0f} s", file=sys.stderr)
            if checkpoint is not None and (i + 1) % 10 == 0:  # what a cut-short run did
                checkpoint.write_text(json.dumps({**totals, "failures": failures[:20],
                                                  "seconds": round(time.monotonic() - started, 1)}),
                                      encoding="utf-8")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    totals["seconds"] = round(time.monotonic() - started, 1)
    totals["failures"] = failures[:20]
    return totals


def scale(items: int, seed: int) -> dict[str, Any]:
    """Seconds to forget one item (all stages) in a curated home of ``items`` items."""
    rng = random.Random(seed)
    base = Path(tempfile.mkdtemp(prefix="atc-erasure-scale-"))
    try:
        home = base / "home"
        home.mkdir()
        (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
        sessions = [write_session(base, f"S{k}", rng, 10) for k in range(items // 10)]
        with Memory.open(home) as mem:
            mem.ingest([s.path for s in sessions])
            mem.curate()
            mem.hydrate("the retry loop", budget=400)
        with Memory.open(home) as mem:
            target = sessions[len(sessions) // 2].secrets[0]
            victim = mem.query(f'item_text(H, T), sub_string(T, _, _, _, "{target}")').rows[0]["H"]
            started = time.monotonic()
            report = mem.forget([victim], reason="scale")
            seconds = time.monotonic() - started
        leaks = _file_leaks(home, {target})
        return {"items": items, "forget_seconds": round(seconds, 2),
                "journal_bytes_before": report.journal_bytes[0],
                "journal_bytes_after": report.journal_bytes[1], "leaks": len(leaks)}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run_jobs(args: argparse.Namespace) -> dict[str, Any]:
    """Split the trials over ``args.jobs`` processes (seeds seed, seed+1, ...) and add up."""
    folder = Path(tempfile.mkdtemp(prefix="atc-erasure-jobs-"))
    shares = [args.trials // args.jobs + (k < args.trials % args.jobs) for k in range(args.jobs)]
    procs = [subprocess.Popen([sys.executable, __file__, "--trials", str(n), "--seed",
                               str(args.seed + k), "--kill-share", str(args.kill_share),
                               "--json", str(folder / f"{k}.json")], stdout=subprocess.DEVNULL)
             for k, n in enumerate(shares)]
    for proc in procs:
        proc.wait()
    parts = [json.loads((folder / f"{k}.json").read_text()) for k in range(args.jobs)]
    shutil.rmtree(folder, ignore_errors=True)
    total: dict[str, Any] = {"modes": {}, "failures": []}
    for part in parts:
        for key, value in part.items():
            if key == "modes":
                for mode, n in value.items():
                    total["modes"][mode] = total["modes"].get(mode, 0) + n
            elif key == "failures":
                total["failures"] += value
            elif key == "seconds":
                total["seconds"] = max(total.get("seconds", 0), value)
            else:
                total[key] = total.get(key, 0) + value
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kill-share", type=float, default=0.3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes, each running its share of the trials from its own seed")
    parser.add_argument("--scale", type=int, metavar="ITEMS",
                        help="instead: time one forget in a curated home of ITEMS items")
    args = parser.parse_args(argv)
    if args.scale:
        figures = scale(args.scale, args.seed)
        print(json.dumps(figures))
        return 1 if figures["leaks"] else 0
    if args.jobs > 1:
        figures = _run_jobs(args)
    else:
        figures = run(args.trials, args.seed, args.kill_share, progress=True, checkpoint=args.json)
    print("| trials | killed mid-erasure | items forgotten | leaks | failed reopens | "
          "other items lost | back after re-ingest | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {figures['trials']} | {figures['killed']} | {figures['items_forgotten']} | "
          f"{figures['leaks']} | {figures['failed_reopens']} | {figures['other_items_lost']} | "
          f"{figures['returned_on_reingest']} | {figures['seconds']} |")
    print(f"modes: {figures['modes']}")
    for failure in figures["failures"]:
        print("  " + failure)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    bad = figures["leaks"] + figures["failed_reopens"] + figures["other_items_lost"] + \
        figures["returned_on_reingest"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
