#!/usr/bin/env python3
"""Whether a cells build is a fixed point of the incremental step, and what the build costs,
for one or more code trees on copies of one curated home.

Each ``--tree NAME=FOLDER`` (a folder holding ``attention_cloud``: ``git archive REV host``
unpacked, with ``rules/`` and ``facts/`` beside it; ``here`` is this checkout's ``host/``), in a
fresh process on its own copy of ``--home``, rebuilds the cells (``cells.rebuild``, CPU timed),
then runs the update a curate with nothing new runs (``cells.update``): printed are the cells
built, the smallest cell against the merge size, the update's ``merged`` count and whether it
changed any membership::

    .venv/bin/python scripts/bench/cells_fixed_point.py --home HOME \\
        --tree before=/tmp/before/host --tree after=here --work /tmp/cells-fp
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from attention_cloud import Memory
from attention_cloud.cells import rebuild, update
from attention_cloud.cells import partition as P
def membership(mem):
    return {r["H"]: r["C"] for r in mem.query("cell_member(C, H)", limit=10**7).rows}
with Memory.open(sys.argv[2]) as mem:
    start = time.process_time()
    built = rebuild(mem)
    cpu = time.process_time() - start
    sizes = sorted(r["N"] for r in mem.query("cell(C), cell_info(C, size, N)", limit=10**7).rows)
    before = membership(mem)
    start = time.process_time()
    again = update(mem)
    print(json.dumps({"cells": built.cells, "items": built.items, "cpu": cpu,
                      "smallest": sizes[0], "merge_size": P.merge_size(built.items),
                      "merged": again.merged, "update_cpu": time.process_time() - start,
                      "changed": sum(before.get(h) != c for h, c in membership(mem).items())}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a curated home (copied, not changed)")
    parser.add_argument("--tree", action="append", required=True, help="NAME=FOLDER ('here': host/)")
    parser.add_argument("--work", type=Path, required=True, help="folder for the copies")
    args = parser.parse_args()
    print(f"`{' '.join(sys.argv)}`\n")
    print("| tree | cells | smallest (merge size) | rebuild CPU s | no-op update: merged | memberships changed |")
    print("|---|---|---|---|---|---|")
    for name, folder in (t.split("=", 1) for t in args.tree):
        folder = str(ROOT / "host") if folder == "here" else folder
        copy = args.work / name
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(args.home, copy)
        done = subprocess.run([sys.executable, "-c", _WORKER, folder, str(copy)], check=True,
                              capture_output=True, text=True)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"| {name} | {r['cells']} | {r['smallest']} ({r['merge_size']}) | {r['cpu']:.2f} | "
              f"{r['merged']} | {r['changed']} |")
    print(f"\n{r['items']:,} items; load average at the end {open('/proc/loadavg').read().split()[0]}")


if __name__ == "__main__":
    main()
