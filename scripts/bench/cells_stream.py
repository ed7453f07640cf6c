#!/usr/bin/env python3
"""Cells rebuild in memory against the streamed rebuild: time, memory and how alike they group.

A rebuild of more than ``attention_cloud.cells.api.STREAM_FROM`` items streams (k-means trained
on a seeded sample of 256 rows per cell, features computed a chunk at a time); below it every
item's features are held at once. On one home (``--home``, rebuilt in place: use a copy), this
runs both in fresh child processes, one after the other, forcing the path with ``STREAM_FROM``:
wall time, RSS before the rebuild (home and vector store open) and the peak over it, cells and
their largest size; then the adjusted Rand index of the two partitions (1 = the same
co-memberships).

    .venv/bin/python scripts/bench/cells_stream.py --home COPY_OF_A_CURATED_HOME
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import ROOT, markdown_table, progress, run_header  # noqa: E402

CHILD = r"""
import json, resource, sys, time
import attention_cloud.cells.api as api
from attention_cloud import Memory
from attention_cloud.bridge import Var
home, stream_from, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
api.STREAM_FROM = stream_from
mem = Memory.open(home)
mem.jump.vectors.wait_for_index()
before = rss()
peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
report = api.rebuild(mem)
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
(pairs,) = mem.pl.once("atc_cells:cells_membership", Var())
membership = {str(p.args[0]): str(p.args[1]) for p in pairs}
sizes = {}
for c in membership.values():
    sizes[c] = sizes.get(c, 0) + 1
mem.close()
json.dump({"seconds": seconds, "rss_before": before, "peak_before": peak_before, "peak": peak,
           "cells": report.cells, "items": report.items, "largest": max(sizes.values()),
           "membership": membership}, open(out, "w"))
"""


def run(home: Path, stream_from: int) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "host"), "OPENBLAS_NUM_THREADS": "1"}
        subprocess.run([sys.executable, "-c", CHILD, str(home), str(stream_from), out.name],
                       check=True, env=env)
        return json.loads(Path(out.name).read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a curated home (rebuilt in place)")
    args = parser.parse_args(argv)
    from attention_cloud.cells import adjusted_rand

    header = run_header("Cells rebuild, in memory and streamed")
    results = {}
    for name, stream_from in (("in memory", 10**12), ("streamed", 0)):
        progress(f"rebuild {name}")
        results[name] = run(args.home, stream_from)
    a, b = results["in memory"]["membership"], results["streamed"]["membership"]
    handles = sorted(a)
    ari = adjusted_rand([a[h] for h in handles], [b.get(h, "") for h in handles])
    rows = [[name, f"{r['items']:,}", f"{r['cells']:,}", f"{r['largest']:,}", f"{r['seconds']:.1f}",
             f"{r['rss_before']:,.0f}", f"{r['peak']:,.0f}",
             f"+{max(0.0, r['peak'] - max(r['rss_before'], r['peak_before'])):,.0f}"]
            for name, r in results.items()]
    body = (header + "\n" + markdown_table(
        ["rebuild", "items", "cells", "largest cell", "seconds", "RSS before MB", "peak RSS MB",
         "peak over before MB"], rows)
        + f"\nAdjusted Rand index, streamed against in memory: {ari:.3f}.\n")
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
