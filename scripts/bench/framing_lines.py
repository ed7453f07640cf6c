#!/usr/bin/env python3
"""Where a frame's tokens go: its facts' text against each kind of its own lines.

LongMemEval dev instances in both shapes (``conversational.py``'s: the dev split as it is, and
its conversational variant with named people and human dates) are ingested and curated, each
question hydrated at each budget, and every line of the envelope counted with its newline by
the one estimator, by kind: the envelope's tags, the frame's heading lines, the anchor line, a
segment's heading (and the blank line before it), the line heading each fact, the facts' text,
the breadcrumbs' heading and lines, the near-duplicates line. Printed: mean tokens per frame of
each kind and its share of what the envelope costs, per shape and budget.

    .venv/bin/python scripts/bench/framing_lines.py --limit 6 --embedder hash
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import conversational as conv  # noqa: E402
import longmemeval as lme  # noqa: E402
from bench_data import require_data  # noqa: E402
from bench_env import markdown_table, run_header  # noqa: E402

KINDS = ("fact text", "fact heading", "breadcrumb text", "breadcrumb line", "breadcrumbs heading",
         "near-duplicates line", "segment heading", "frame heading", "anchor line", "envelope tags",
         "fact day line")


def line_kinds(frame) -> Counter:
    """Tokens of ``frame``'s envelope by kind of line (:data:`KINDS`)."""
    from attention_cloud.curate.tokens import estimate_tokens
    from attention_cloud.hydration import frame_line_kinds

    counted: Counter = Counter()
    for kind, line in frame_line_kinds(frame.receipt, frame.facts):
        counted[kind] += estimate_tokens(line + "\n")
    return counted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=6)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--cache", type=Path, default=None, help="vector cache (longmemeval.py's)")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--show", action="store_true", help="also print each shape's first frame at each budget")
    args = parser.parse_args(argv)
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    instances = lme.load_instances(require_data(args.data, parser), args.limit)
    totals = {(shape, b): Counter() for shape in conv.SHAPES for b in args.budgets}
    frames = Counter()
    shown: set = set()
    with tempfile.TemporaryDirectory(prefix="framing-lines-") as tmp:
        for inst in instances:
            variant = conv.make_variant(inst)
            for shape in conv.SHAPES:
                folder = Path(tmp) / shape / inst.qid
                asked = inst if shape == "dev" else variant.instance
                if shape == "dev":
                    lme.write_sessions(inst, folder / "sessions")
                else:
                    conv.variant_writer(variant)(variant.instance, folder / "sessions")
                home = folder / "home"
                home.mkdir()
                write_config(home, {"embedder": args.embedder})
                with Memory.open(home) as mem:
                    if args.cache is not None and not mem.jump.disabled:
                        mem.jump._embedder = lme.CachedEmbedder(mem.jump.embedder, args.cache)
                    mem.ingest([folder / "sessions"])
                    mem.curate()
                    now = lme.iso_time(asked.question_date, 0) if asked.question_date else None
                    for b in args.budgets:
                        frame = mem.hydrate(asked.question, budget=b, now=now)
                        totals[(shape, b)] += line_kinds(frame)
                        frames[(shape, b)] += 1
                        if args.show and (shape, b) not in shown:
                            shown.add((shape, b))
                            print(f"--- {shape} @{b}\n{frame.envelope}\n", file=sys.stderr)
    rows = []
    for (shape, b), counted in totals.items():
        n = max(frames[(shape, b)], 1)
        whole = sum(counted.values())
        rows.append([shape, f"{b}", f"{whole / n:.0f}"]
                    + [f"{counted[k] / n:.1f} ({counted[k] / max(whole, 1):.3f})" for k in KINDS])
    print(run_header("Where a frame's tokens go") + "\n"
          + f"{len(instances)} instances in both shapes, embedder `{args.embedder}`; mean tokens "
            "per frame (share of the envelope):\n\n"
          + markdown_table(["shape", "budget", "envelope tokens", *KINDS], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
