#!/usr/bin/env python3
"""Frames before and after a change: hydrate cells.py's goals on the cached synthetic home and
write or compare their receipts.

A speed change to hydration must not change frames. Run this in the checkout before the change
with ``--dump``, then in the changed one with ``--against`` the file it wrote: every goal is
hydrated with the cell walk and with the entity walk (2000 tokens, cells.py's agent goals), and
each receipt (facts with their levels, scores, tokens and order, breadcrumbs, what was left out
as redundant, what was bridged, the budget) and the frame text must be the same; the receipt id
and time are left out. The process CPU time of each hydration is printed beside it (p50/p95;
``--passes`` hydrates the goals several times in the process for steadier figures, and checks
that every pass renders the same frames).

The home is the cached ``--items`` synthetic home (hydrate.py's, ``hash`` embedder), copied
once to ``--home`` with its cells built (both checkouts then read the same home; the copy is
reused while it exists).

    .venv/bin/python scripts/bench/frames_check.py --home /tmp/frames-home --dump /tmp/before.json
    .venv/bin/python scripts/bench/frames_check.py --home /tmp/frames-home --against /tmp/before.json
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import build_home, percentile_ms, progress  # noqa: E402
from hydrate import agent_goals  # noqa: E402


def prepare(items: int, home: Path) -> None:
    """Copy the cached home of ``items`` items to ``home`` and build its cells (once)."""
    from attention_cloud import Memory
    from attention_cloud.cells import rebuild

    if home.exists():
        return
    built = build_home(items, curate=True, echoes=items <= 500_000,
                       distillation_vectors=items <= 500_000)
    progress(f"copying the {items}-item home to {home}")
    shutil.copytree(built.path, home)
    mem = Memory.open(home)
    try:
        mem.jump.vectors.wait_for_index()
        report = rebuild(mem)
        progress(f"built {report.cells} cells")
    finally:
        mem.close()


def hydrate_all(home: Path, queries: int, passes: int = 1) -> dict:
    """Receipts and CPU seconds of every goal, with cells and without, ``passes`` times over
    the goals in one process (the receipts of the first pass; a later pass that renders a
    frame differently is counted in ``unstable``)."""
    from attention_cloud import Memory

    goals = agent_goals(queries + 3, 7)
    mem = Memory.open(home)
    out: dict = {"frames": [], "cpu": {"cells": [], "entity": []}, "unstable": 0}
    try:
        mem.jump.vectors.wait_for_index()
        for goal in goals[:3]:
            mem.hydrate(goal, budget=2000)
            mem.hydrate(goal, budget=2000, cells=False)
        for done in range(passes):
            at = 0
            for goal in goals[3:]:
                for label, cells in (("cells", True), ("entity", False)):
                    started = time.process_time()
                    frame = mem.hydrate(goal, budget=2000, cells=cells)
                    out["cpu"][label].append(time.process_time() - started)
                    receipt = {k: v for k, v in frame.receipt.items() if k not in ("id", "created")}
                    seen = {"goal": goal, "cells": cells, "receipt": receipt,
                            "text": frame.text.split("\n", 2)[-1]}
                    if done == 0:
                        out["frames"].append(seen)
                    elif out["frames"][at] != seen:
                        out["unstable"] += 1
                    at += 1
    finally:
        mem.close()
    return out


def differences(before: dict, after: dict) -> list[str]:
    """One line per frame that differs (goal, walk, the receipt fields that differ)."""
    lines = []
    if len(before["frames"]) != len(after["frames"]):
        lines.append(f"{len(before['frames'])} frames before, {len(after['frames'])} after")
    for a, b in zip(before["frames"], after["frames"]):
        if a == b:
            continue
        fields = sorted(k for k in set(a["receipt"]) | set(b["receipt"])
                        if a["receipt"].get(k) != b["receipt"].get(k))
        if a["text"] != b["text"]:
            fields.append("text")
        walk = "cells" if a["cells"] else "entity walk"
        lines.append(f"{a['goal']!r} ({walk}): {', '.join(fields)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=100_000, help="home size (default 100000)")
    parser.add_argument("--home", type=Path, required=True,
                        help="where the home with cells is kept (made on the first run)")
    parser.add_argument("--queries", type=int, default=40, help="goals (default 40)")
    parser.add_argument("--passes", type=int, default=1,
                        help="hydrate the goals this many times in the process, for the CPU "
                             "figures (default 1)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--dump", type=Path, help="write the receipts here")
    action.add_argument("--against", type=Path, help="compare with receipts written by --dump")
    args = parser.parse_args(argv)
    prepare(args.items, args.home)
    result = hydrate_all(args.home, args.queries, args.passes)
    for label, seconds in result["cpu"].items():
        print(f"{label}: CPU p50 {percentile_ms(seconds, 50):.1f} ms, "
              f"p95 {percentile_ms(seconds, 95):.1f} ms ({len(seconds)} hydrations)")
    if result["unstable"]:
        print(f"{result['unstable']} frames rendered differently by a later pass")
    if args.dump:
        args.dump.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
        print(f"{len(result['frames'])} frames written to {args.dump}")
        return 0
    before = json.loads(args.against.read_text(encoding="utf-8"))
    diff = differences(before, result)
    print(f"{len(result['frames'])} frames, {len(diff)} differ from {args.against}")
    for line in diff[:20]:
        print("  " + line)
    return 1 if diff or result["unstable"] else 0


if __name__ == "__main__":
    sys.exit(main())
