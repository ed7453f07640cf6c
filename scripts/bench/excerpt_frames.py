#!/usr/bin/env python3
"""Frames with and without excerpts on real Claude Code transcripts: a side-by-side look.

The ``claude-code-real`` sessions (``--data``; main sessions and their subagents) are ingested
and curated into a temporary home with ``--embedder`` (default ``hash``: a sanity look, not a
score), then each goal is hydrated at each budget twice, with excerpts and with
``excerpt=False``. Printed per frame: tokens spent both ways, facts, and for every excerpted
fact its size, how many sentences it kept, what the frame without excerpts showed instead
(level, tokens, text) and the excerpt's text.

    .venv/bin/python scripts/bench/excerpt_frames.py
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data import CLAUDE_CODE_REAL, require_data  # noqa: E402

GOALS = ("why did the pre-commit check fail and how was it fixed", "why did git push fail",
         "which tests failed and what was the error message",
         "what did the subagent find in the transcripts fixtures")


def shown(text: str, width: int) -> str:
    flat = text.replace("\n", "\\n")
    return flat if len(flat) <= width else flat[:width] + " [...]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=CLAUDE_CODE_REAL)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--goals", nargs="+", default=list(GOALS))
    parser.add_argument("--width", type=int, default=400, help="characters of text shown")
    args = parser.parse_args(argv)
    data = require_data(args.data, parser, pattern="*.jsonl")
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    with tempfile.TemporaryDirectory(prefix="excerpt-frames-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        write_config(home, {"embedder": args.embedder})
        with Memory.open(home) as mem:
            mem.ingest(sorted(data.glob("*.jsonl")) + sorted(data.glob("*/subagents")))
            mem.curate()
            for goal in args.goals:
                for budget in args.budgets:
                    on = mem.hydrate(goal, budget=budget)
                    off = mem.hydrate(goal, budget=budget, excerpt=False)
                    cut = [f for f in on.facts if f.excerpt_spans]
                    print(f"\n=== {goal!r} @{budget}: spent {on.receipt['budget']['spent']} "
                          f"(without excerpts {off.receipt['budget']['spent']}); facts "
                          f"{len(on.facts)} ({len(off.facts)}); excerpts {len(cut)}")
                    for f in cut:
                        was = next((o for o in off.facts if o.handle == f.handle), None)
                        print(f"--- {f.handle}: excerpt of {len(f.excerpt_spans)}/{f.excerpt_units} "
                              f"sentences, {f.tokens} tokens; without: "
                              + (f"{was.level.upper()}, {was.tokens} tokens" if was else "not in the frame"))
                        if was:
                            print("    without:", shown(was.text, args.width))
                        print("    excerpt:", shown(f.text, args.width))
    return 0


if __name__ == "__main__":
    sys.exit(main())
