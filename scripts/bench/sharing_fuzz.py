#!/usr/bin/env python3
"""Fuzz the sharing policy: randomised principals, teams, grants, labels, revocations and
reads (frames, queries, rule files), each read checked against an independent Python oracle.

One home of generated sessions (4 segments, 24 sessions, times over four months) is curated
once. Then, in epochs of a few trials, the policy changes at random (grants added with random
segment/session/time filters, ceilings and expiries; grants revoked; people joining and leaving
teams; items labelled private, pii, readers, team restrictions or a retention date; labels
declassified) and each trial makes one read as a random principal through the same entry
points `--as` and `atc serve` use (sharing/reads.py):

  - hydrate: every fact and breadcrumb must be visible to the reader by the oracle, at a level
    no more detailed than the oracle's ceiling for it;
  - query: a random goal from the vocabulary (items, rungs, verbatim text, distillations,
    arcs, relations, the jump); every record an answer names must be visible, every rung at or
    below its ceiling, verbatim text only at L0;
  - rules: the same goals through a rules file loaded into the grantee's rule module;
  - raw: goals that try to reach a raw fact (module-qualified, @/2, call/N on a built goal);
    each must be refused or answer nothing.

A second home, a pool (owned by a team), receives random grants to teams and persons; every
trial there checks that no team reads it (pool-to-pool). The oracle re-implements the rules of
README "Sharing" in Python from the policy it generated; it never calls visible/3.

Figures: trials, facts checked, violations by kind (above a ceiling, outside the grants,
after revocation, pool-to-pool, raw facts read); all must be 0.

    ATC_PROLOG=pyswip nice .venv/bin/python scripts/bench/sharing_fuzz.py --trials 10000 --seed 1
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

RANK = {"l0": 0, "l1": 1, "l2": 2, "l3": 3}
WORDS = ("retry backoff ledger webhook invoice refund payout timeout schema migration cache "
         "deploy rollback token quota shard replica index alert budget vendor audit").split()
SEGMENTS = ("payments", "ops", "personal", "research")
PEOPLE = ("bob", "carol", "dave", "erin", "frank")
TEAMS = ("platform", "infra")
GOALS = ["why do {} retries fail", "what did we decide about the {}", "{} and {} in the deploy",
         "the {} incident last month", "how is the {} configured"]
QUERIES = ["item(H)", "item(H), item_segment(H, S)", "rung(H, L, T)", "item_text(H, T)",
           "item_goal(H, G)", "distilled(H, F, V)", "arc_member(A, H)", "rollup(R, S), rung(R, L, T)",
           "relation(H, P, O)", "nearest(\"{}\", 15, Hits)", "lexical(\"{}\", 15, [], Hits)",
           "provenance(R, H)", "item_arc(H, A), rung(A, L, T)", "echo_of(E, O, S)",
           "arc_goal(A, G)", "items_between(0, 9999999999, Hs)", "cell(C), rung(C, L, T)",
           "cell_member(C, H)"]
RULES = "r(H, T) :- item_text(H, T).\nr(H, T) :- rung(H, l2, T).\nw(H, S) :- item_segment(H, S).\n"
RAW = ["atc_journal:item_text(H, T)", "atc_ladder:rung(H, L, T)", "@(item_text(H, T), atc_memory)",
       "G =.. [item_text, H, T], call(atc_memory:G)", "call(atc_journal:item(H))",
       "M = atc_journal, M:item(H)", "atc_memory:item(H)", "clause(atc_journal:text_(H, T), true)"]


@dataclass
class Policy:
    """The oracle's copy of the sharing policy."""

    members: dict[str, set[str]] = field(default_factory=lambda: {t: set() for t in TEAMS})
    grants: dict[str, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)   # item -> readers/restr/ret

    def reaches(self, g: dict[str, Any], p: str, now: str) -> bool:
        if g["revoked"] or (g["expiry"] and not now < g["expiry"]):
            return False
        return g["grantee"] == p or p in self.members.get(g["grantee"], set())

    def item_labels(self, h: str) -> tuple[set[str] | None, set[str], str | None]:
        lab = self.labels.get(h, {})
        return lab.get("readers"), set(lab.get("restrictions", ())), lab.get("retention")

    def admits(self, p: str, readers: set[str] | None, restr: set[str], ret: str | None,
               now: str) -> bool:
        named = readers is not None and any(r == p or p in self.members.get(r, set())
                                            for r in readers)
        if "private" in restr or ("pii" in restr and not named):
            return False
        if any(x.startswith("team:") and not (x[5:] == p or p in self.members.get(x[5:], set()))
               for x in restr):
            return False
        if readers is not None and not named:
            return False
        return ret is None or now < ret


class Oracle:
    """Which records a principal may see, and at which ceiling, from first principles."""

    def __init__(self, items: dict[str, dict[str, str]], provenance: dict[str, set[str]]) -> None:
        self.items = items
        self.provenance = provenance

    def ceilings(self, policy: Policy, p: str, now: str) -> dict[str, int]:
        grants = [g for g in policy.grants.values() if policy.reaches(g, p, now)]
        out: dict[str, int] = {}
        for h, meta in self.items.items():
            ranks = [RANK[g["ceiling"]] for g in grants if matches(g["filter"], meta)]
            if ranks and policy.admits(p, *policy.item_labels(h), now):
                out[h] = min(ranks)
        for r, sources in self.provenance.items():
            if r.startswith("cell_"):     # the owner's partition of every item: no grantee's
                continue
            if not sources or any(s not in out for s in sources):
                continue
            readers: set[str] | None = None
            restr: set[str] = set()
            ret: str | None = None
            for s in sources:
                rd, rs, rt = policy.item_labels(s)
                if rd is not None:
                    readers = set(rd) if readers is None else readers & rd
                restr |= rs
                if rt is not None and (ret is None or rt < ret):
                    ret = rt
            if policy.admits(p, readers, restr, ret, now):
                out[r] = max(out[s] for s in sources)
        return out


def matches(filt: list[tuple[str, str]], meta: dict[str, str]) -> bool:
    by_key: dict[str, list[str]] = {}
    for k, v in filt:
        by_key.setdefault(k, []).append(v)
    for k, values in by_key.items():
        if k == "segment" and meta["segment"] not in values:
            return False
        if k == "session" and meta["session"] not in values:
            return False
        if k == "from" and not any(meta["time"] >= v for v in values):
            return False
        if k == "to" and not any(meta["time"] < v for v in values):
            return False
    return True


def make_corpus(folder: Path, rng: random.Random) -> dict[str, list[Path]]:
    """24 plain-text sessions, six per segment, eight turns each, dated over four months."""
    files: dict[str, list[Path]] = {s: [] for s in SEGMENTS}
    for i in range(24):
        seg = SEGMENTS[i % 4]
        day = f"2026-0{1 + i % 4}-{10 + i // 4:02d}"
        lines = [f"Date: {day}", ""]
        for t in range(8):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))
            who = "User" if t % 2 == 0 else "Assistant"
            extra = " We decided to use exponential backoff." if t % 3 == 0 else ""
            lines.append(f"{who}: session {i} turn {t}: {words}.{extra} The {rng.choice(WORDS)} "
                         f"must never exceed {rng.randint(2, 90)} units.")
        path = folder / f"s{i:02d}.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files[seg].append(path)
    return files


def build_home(home: Path, rng: random.Random) -> None:
    from attention_cloud import Memory
    from attention_cloud.home import write_config
    from attention_cloud.sharing import add_principal, join_team

    home.mkdir(parents=True)
    write_config(home, {"embedder": "hash"})
    corpus = home.parent / "corpus"
    corpus.mkdir()
    files = make_corpus(corpus, rng)
    with Memory.open(home) as mem:
        for seg, paths in files.items():
            mem.ingest(paths, segment=seg, format="text")
        mem.curate()
        add_principal(mem, "alice", owner=True)
        for p in PEOPLE:
            add_principal(mem, p)
        for t in TEAMS:
            add_principal(mem, t, kind="team")


def snapshot_meta(mem: Any) -> tuple[dict[str, dict[str, str]], dict[str, set[str]]]:
    items = {r["H"]: {"segment": r["S"], "session": r["Ss"], "time": r["T"]}
             for r in mem.query("item(H), item_segment(H, S), item_session(H, Ss), item_time(H, T)",
                                limit=100000).rows}
    prov: dict[str, set[str]] = {}
    for r in mem.query("(arc(R) ; rollup(R, _)), provenance(R, H)", limit=100000).rows:
        prov.setdefault(r["R"], set()).add(r["H"])
    for r in mem.query("cell(R), cell_member(R, H)", limit=100000).rows:   # cells: their members
        prov.setdefault(r["R"], set()).add(r["H"])
    return items, prov


def mutate(mem: Any, policy: Policy, meta: dict[str, dict[str, str]], rng: random.Random,
           counts: Counter) -> None:
    """One random change of the policy, applied to the home and to the oracle's copy."""
    from attention_cloud.sharing import policy as sp

    roll = rng.random()
    handles = sorted(meta)
    live = [g for g, v in policy.grants.items() if not v["revoked"]]
    if (roll < 0.40 or not policy.grants) and len(live) < 12:
        grantee = rng.choice(PEOPLE + TEAMS)
        filt: list[tuple[str, str]] = []
        kw: dict[str, Any] = {"segments": [], "sessions": []}
        for _ in range(rng.randint(0, 2)):
            s = rng.choice(SEGMENTS)
            filt.append(("segment", s))
            kw["segments"].append(s)
        if rng.random() < 0.2:
            ses = meta[rng.choice(handles)]["session"]
            filt.append(("session", ses))
            kw["sessions"].append(ses)
        if rng.random() < 0.2:
            kw["since"] = f"2026-0{rng.randint(1, 4)}-15T00:00:00Z"
            filt.append(("from", kw["since"]))
        if rng.random() < 0.2:
            kw["until"] = f"2026-0{rng.randint(1, 4)}-15T00:00:00Z"
            filt.append(("to", kw["until"]))
        ceiling = rng.choice(["L0", "L1", "L2", "L3"])
        expiry = rng.choice([None, None, None, "2020-01-01T00:00:00Z", "2099-01-01T00:00:00Z"])
        gid = sp.add_grant(mem, grantee, ceiling=ceiling, expires=expiry, **kw)
        policy.grants[gid] = {"grantee": grantee, "filter": filt, "ceiling": ceiling.lower(),
                              "expiry": expiry, "revoked": False}
        counts["grants added"] += 1
    elif roll < 0.55 or len(live) >= 12:
        if live:
            gid = rng.choice(live)
            sp.revoke_grant(mem, gid)
            policy.grants[gid]["revoked"] = True
            counts["grants revoked"] += 1
    elif roll < 0.70:
        p, t = rng.choice(PEOPLE), rng.choice(TEAMS)
        if p in policy.members[t]:
            sp.leave_team(mem, p, t)
            policy.members[t].discard(p)
        else:
            sp.join_team(mem, p, t)
            policy.members[t].add(p)
        counts["membership changes"] += 1
    elif roll < 0.90:
        h = rng.choice(handles)
        lab = policy.labels.setdefault(h, {})
        kind = rng.choice(["private", "pii", "team", "reader", "retention"])
        if kind in ("private", "pii"):
            sp.label(mem, [h], restrictions=[kind])
            lab.setdefault("restrictions", set()).add(kind)
        elif kind == "team":
            t = rng.choice(TEAMS)
            sp.label(mem, [h], restrictions=[f"team:{t}"])
            lab.setdefault("restrictions", set()).add(f"team:{t}")
        elif kind == "reader" and lab.get("readers") is None:
            r = rng.choice(PEOPLE + TEAMS)
            sp.label(mem, [h], readers=[r])
            lab["readers"] = {r}
        elif kind == "retention" and lab.get("retention") is None:
            ret = rng.choice(["2020-01-01T00:00:00Z", "2099-01-01T00:00:00Z"])
            sp.label(mem, [h], retention=ret)
            lab["retention"] = ret
        counts["labels set"] += 1
    else:
        labelled = [h for h, lab in policy.labels.items() if lab.get("restrictions")]
        if labelled:
            h = rng.choice(labelled)
            x = rng.choice(sorted(policy.labels[h]["restrictions"]))
            sp.declassify(mem, [h], why="fuzz", restrictions=[x])
            policy.labels[h]["restrictions"].discard(x)
            counts["declassifications"] += 1


def check_handles(names: set[str], levels: list[tuple[str, str]], seen: dict[str, int],
                  counts: Counter, revoked_ok: dict[str, int]) -> None:
    for h in names:
        if h not in seen:
            counts["violation: outside the grants"] += 1
            if h in revoked_ok:
                counts["violation: read after revocation"] += 1
    for h, level in levels:
        if h in seen and RANK[level.lower()] < seen[h]:
            counts["violation: above a ceiling"] += 1
        counts["facts checked"] += 1


def run_fuzz(trials: int, seed: int, workdir: Path | None = None,
             progress: bool = False) -> Counter:
    """Run ``trials`` checked reads; returns the counts (violations are keys starting with
    ``violation``)."""
    import re

    from attention_cloud import Memory
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import reads
    from attention_cloud.sharing import policy as sp

    rng = random.Random(seed)
    tmp = tempfile.TemporaryDirectory() if workdir is None else None
    base = Path(tmp.name) if tmp else workdir
    home, pool = base / "home", base / "pool"
    build_home(home, rng)
    handle = re.compile(r"(?:it|arc|ses|cell)_[0-9a-f]{6,}")
    counts: Counter = Counter()
    policy = Policy()
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    with Memory.open(home) as mem:
        meta, prov = snapshot_meta(mem)
        oracle = Oracle(meta, prov)
        before: dict[str, dict[str, int]] = {}
        started = time.time()
        for trial in range(trials):
            if trial % 5 == 0:
                mutate(mem, policy, meta, rng, counts)
            reader = rng.choice(PEOPLE + TEAMS)
            seen = oracle.ceilings(policy, reader, now)
            gone = {h: r for h, r in before.get(reader, {}).items() if h not in seen}
            before[reader] = seen
            op = rng.choices(["hydrate", "query", "rules", "raw"], [4, 4, 1.5, 0.5])[0]
            counts[f"trials: {op}"] += 1
            words = [rng.choice(WORDS) for _ in range(2)]
            if op == "hydrate":
                goal = rng.choice(GOALS).format(*words)
                frame = reads.reader_hydrate(mem, reader, goal, budget=rng.choice([300, 800, 2000]),
                                             plane=rng.choice(["default", "exploration"]),
                                             via="fuzz")
                entries = frame.receipt["facts"] + frame.receipt["beyond"]
                check_handles({e["handle"] for e in entries},
                              [(e["handle"], e["level"]) for e in entries], seen, counts, gone)
                continue
            goal = (rng.choice(RAW) if op == "raw" else
                    rng.choice(QUERIES + (["r(H, T)", "w(H, S)"] if op == "rules" else []))
                    .format(" ".join(words)))
            try:
                result = reads.reader_query(mem, reader, goal, limit=500,
                                            rules_text=RULES if op == "rules" else None,
                                            via="fuzz")
            except AtcError:
                counts["refused"] += 1
                continue
            if op == "raw" and result.rows:
                counts["violation: raw fact read"] += 1
            names: set[str] = set()
            levels: list[tuple[str, str]] = []
            for row in result.rows:
                for key, value in row.items():
                    names |= set(handle.findall(json.dumps(value)))
                rec = row.get("C") or row.get("A") or row.get("R") or row.get("H")
                if "L" in row and rec:
                    levels.append((rec, row["L"]))          # rung(Id, L, T): at most the ceiling
                elif goal.startswith(("item_text", "item_goal", "arc_goal")):
                    levels.append((rec, "l0"))              # verbatim: only at an L0 ceiling
                elif goal.startswith("distilled"):
                    levels.append((rec, "l2"))              # the structured L2
            check_handles(names, levels, seen, counts, gone)
            if progress and trial and trial % 500 == 0:
                print(f"  {trial} trials, {time.time() - started:.0f} s", file=sys.stderr)
    # the pool: a team-owned home, random grants; a team never reads it
    with Memory.open(pool) as mem:
        mem.ingest([next(iter((base / "corpus").glob("*.txt")))], format="text")
        sp.add_principal(mem, "platform", kind="team", owner=True)
        for p in ("infra", "ops"):
            sp.add_principal(mem, p, kind="team")
        sp.add_principal(mem, "bob")
        for g in ("infra", "ops", "bob"):
            sp.add_grant(mem, g, ceiling="L0")
        for trial in range(max(10, trials // 50)):
            reader = rng.choice(["infra", "ops"])
            frame = reads.reader_hydrate(mem, reader, "retry backoff", via="fuzz")
            rows = reads.reader_query(mem, reader, "item(H)", via="fuzz").rows
            counts["trials: pool"] += 1
            if frame.receipt["facts"] or rows:
                counts["violation: pool-to-pool"] += 1
        if not reads.reader_query(mem, "bob", "item(H)", via="fuzz").rows:
            counts["pool member sees nothing (unexpected)"] += 1
    counts["trials"] = trials
    if tmp:
        tmp.cleanup()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.time()
    counts = run_fuzz(args.trials, args.seed, progress=True)
    elapsed = time.time() - started
    violations = {k: v for k, v in counts.items() if k.startswith("violation")}
    for key in sorted(counts):
        print(f"{key}: {counts[key]}")
    print(f"violations: {sum(violations.values())}")
    print(f"elapsed: {elapsed:.0f} s")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
