#!/usr/bin/env python3
"""A streamed cells rebuild's training sample: how many rows a cell k-means needs.

Opens ``--home`` (a curated home above the streaming threshold; it is only read: pass a copy
all the same, closing a home may snapshot it), reads the items' inputs once as a rebuild does
(``cells.api._stream_inputs``), then partitions them with each ``--per-cell`` sample size and
``--seeds`` (the sample's and k-means' seed) without writing anything, and prints per run: the
cells, their sizes, the training matrix's MB, the seconds, the mean squared distance of an
item's features to its cell's centroid (lower is tighter; k-means' own objective, over every
item, oversized clusters split as a rebuild splits them) and the adjusted Rand index against
the first run (1 = the same co-memberships). Two seeds at the same size give k-means' own
noise floor.

    ATC_PROLOG=pyswip nice -n 10 .venv/bin/python scripts/bench/cells_sample.py --home COPY \\
        --per-cell 256 128 64 32 --seeds 1234 1235
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import markdown_table, run_header  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--per-cell", type=int, nargs="+", default=[256, 128, 64, 32])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1234, 1235])
    args = parser.parse_args(argv)

    from attention_cloud import Memory
    from attention_cloud.bridge import Var
    from attention_cloud.cells import api, partition as P
    from attention_cloud.curate.handles import HandleList

    print(run_header(f"cells sample: {args.home}"))
    mem = Memory.open(args.home)
    t = time.perf_counter()
    (curated,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
    handles = HandleList(str(h) for h in curated)
    del curated
    handles.sort()
    stream = api._stream_inputs(mem, handles)
    n = len(stream.handles)
    print(f"{n} items, inputs read in {time.perf_counter() - t:.0f} s", flush=True)
    squares = np.zeros(n, dtype=np.float64)
    for start in range(0, n, api.CHUNK):
        f = stream.features(np.arange(start, min(start + api.CHUNK, n))).astype(np.float64)
        squares[start:start + len(f)] = (f * f).sum(axis=1)
    k = P.cell_count(n)
    rows, reference = [], None
    runs = [(per_cell, args.seeds[0]) for per_cell in args.per_cell]
    runs[1:1] = [(args.per_cell[0], seed) for seed in args.seeds[1:]]
    for per_cell, seed in runs:
        t = time.perf_counter()
        cells, state = api._stream_partition(stream, per_cell, seed)
        seconds = time.perf_counter() - t
        labels = np.empty(n, dtype=np.int64)
        for i, (_, members, _) in enumerate(cells):
            labels[members.rows] = i
        sums = state.sums
        inertia = (squares.sum() - ((sums * sums).sum(axis=1) / state.counts).sum()) / n
        if reference is None:
            reference = labels
        ari = P.adjusted_rand(reference.tolist(), labels.tolist())
        train_mb = min(n, per_cell * k) * stream.space.width * 4 / (1 << 20)
        rows.append([per_cell, seed, len(cells), f"{int(state.counts.min())}..{int(state.counts.max())}",
                     f"{train_mb:.0f}", f"{seconds:.0f}", f"{inertia:.5f}", f"{ari:.3f}"])
        print(rows[-1], flush=True)
    print()
    print(markdown_table(["rows a cell", "seed", "cells", "sizes", "training MB", "seconds",
                          "mean sq. distance to centroid", "ARI vs first"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
