#!/usr/bin/env python3
"""What a grantee's searches and lookups cost beside the owner's (round 26, qa117).

Copies ``--home`` (a curated home: ``bench_env.build_home(N, curate=True)``, the cached
``home-20000-s1-hash-curated-l2v`` by default) to a temporary folder, ingests and curates the
real Claude Code sessions (``--data``) into a second segment ``team``, and makes alice the
owner, dave a grantee of one session of ``default`` at L0 (a kept set) and erin a grantee of
the whole of ``team`` at L2 (no label in the home: no kept set). Each read is run ``--rounds``
times after one warm-up; the median CPU ms (``time.process_time``) is printed, the owner's
beside it:

* ``nearest/4`` with ``level(l2)`` (a distillation's vectors) and with no option, as dave;
* ``rung(H, l2, T)`` with ``T`` bound to an L2 text erin is shown (one with a path cut and one
  without), as erin;
* ``aggregate_all(count, (item(H), item_goal(H, G)), C)`` as erin (the audit of every record
  the goal read);
* then, every 50th item of ``default`` labelled private, as frank (the whole of ``default`` at
  L1: past the kept-set limit): his first read (the records a label hides worked out), two
  ``lexical/4`` searches and a frame.

    nice .venv/bin/python scripts/bench/grantee_searches.py [--home DIR] [--rounds 5]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import CACHE, markdown_table  # noqa: E402

DEFAULT_HOME = CACHE / "home-20000-s1-hash-curated-l2v" / "home"
GOAL = "why did the database migration fail"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME, help="a curated home (copied)")
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/claude-code-real"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not (args.home / "journal.pl").exists():
        sys.exit(f"grantee_searches: {args.home} is not a memory home (bench_env.build_home)")
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal, reader_query

    work = Path(tempfile.mkdtemp(prefix="grantee-searches-"))
    try:
        home = work / "home"
        shutil.copytree(args.home, home)
        mem = Memory.open(home)
        mem.ingest(sorted(args.data.glob("*.jsonl")), segment="team")
        mem.curate()
        add_principal(mem, "alice", owner=True)
        add_principal(mem, "dave")
        add_principal(mem, "erin")
        session = mem.query("item_segment(H, default), item_session(H, S)", limit=1).rows[0]["S"]
        add_grant(mem, "dave", sessions=[session], ceiling="L0")
        add_grant(mem, "erin", segments=["team"], ceiling="L2")
        items = mem.query("aggregate_all(count, item(H), N)").rows[0]["N"]
        dave = mem.query(f"aggregate_all(count, item_session(H, {session!r}), N)").rows[0]["N"]
        team = mem.query("aggregate_all(count, item_segment(H, team), N)").rows[0]["N"]
        # two L2 texts erin is shown: one whose owner's text held a path (cut for her), one not
        shown = reader_query(mem, "erin", "item_segment(H, team), rung(H, l2, T)",
                             limit=100000).rows
        owner_l2 = {r["H"]: r["T"] for r in mem.query(
            "item_segment(H, team), rung(H, l2, T)", limit=100000).rows}
        cut = next(r["T"] for r in shown if r["T"] != owner_l2[r["H"]])
        plain = next(r["T"] for r in shown if r["T"] == owner_l2[r["H"]] and len(r["T"]) > 40)

        def cpu(read) -> float:
            read()
            times = []
            for _ in range(args.rounds):
                start = time.process_time()
                read()
                times.append(time.process_time() - start)
            return statistics.median(times) * 1000

        def term(text: str) -> str:
            return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

        reads = [
            ("dave", f'nearest({term(GOAL)}, 10, [level(l2)], H)'),
            ("dave", f'nearest({term(GOAL)}, 10, [], H)'),
            ("erin", f"rung(H, l2, {term(cut)})"),
            ("erin", f"rung(H, l2, {term(plain)})"),
            ("erin", "aggregate_all(count, (item(H), item_goal(H, G)), C)"),
        ]
        rows = []
        for reader, goal in reads:
            owner = cpu(lambda: mem.query(goal, limit=20))
            grantee = cpu(lambda: reader_query(mem, reader, goal, limit=20))
            shown_goal = goal if len(goal) < 70 else goal[:67] + "..."
            rows.append((reader, f"`{shown_goal}`", f"{owner:.1f}", f"{grantee:.1f}",
                         f"{grantee / max(owner, 0.01):.1f}"))
        print(f"{items} items; dave sees one session of {dave} items (kept set), erin segment "
              f"team ({team} items, at L2, no kept set); median CPU ms of {args.rounds}")
        print(markdown_table(["reader", "goal", "owner ms", "grantee ms", "× owner"], rows))

        # past the kept-set limit: frank reads the whole of `default` at L1, every 50th of its
        # items labelled private (more than 20,000 candidates: no set kept)
        from attention_cloud.sharing import label, reader_hydrate
        add_principal(mem, "frank")
        add_grant(mem, "frank", segments=["default"], ceiling="L1")
        hidden = [r["H"] for r in mem.query("item_segment(H, default), item_seq(H, N), "
                                             "N mod 50 =:= 7", limit=100000).rows]
        label(mem, hidden, restrictions=["private"])
        start = time.process_time()
        reader_query(mem, "frank", 'lexical("migration", 10, [], H)')
        first = (time.process_time() - start) * 1000
        rows = [("frank", "his first search after the labels (what a label hides worked out)",
                 "", f"{first:.1f}", "")]
        for goal in (f'lexical({term(GOAL)}, 10, [], H)', 'lexical("migration", 10, [], H)'):
            owner = cpu(lambda: mem.query(goal, limit=20))
            grantee = cpu(lambda: reader_query(mem, "frank", goal, limit=20))
            rows.append(("frank", f"`{goal}`", f"{owner:.1f}", f"{grantee:.1f}",
                         f"{grantee / max(owner, 0.01):.1f}"))
        owner = cpu(lambda: mem.hydrate(GOAL, budget=2000))
        grantee = cpu(lambda: reader_hydrate(mem, "frank", GOAL, budget=2000))
        rows.append(("frank", "frame, 2000 tokens", f"{owner:.1f}", f"{grantee:.1f}",
                     f"{grantee / max(owner, 0.01):.1f}"))
        # dave's session now has private turns inside it: his frames walk past them
        grantee = cpu(lambda: reader_hydrate(mem, "dave", GOAL, budget=2000))
        rows.append(("dave", "frame, 2000 tokens (his session's private turns hidden)",
                     f"{owner:.1f}", f"{grantee:.1f}", f"{grantee / max(owner, 0.01):.1f}"))
        print(f"\nfrank: segment default at L1, {len(hidden)} of its items private, no kept set")
        print(markdown_table(["reader", "goal", "owner ms", "grantee ms", "× owner"], rows))
        mem.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
