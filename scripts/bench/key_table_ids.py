#!/usr/bin/env python3
"""CPU of ``KeyTable.ids`` (the vector store's key -> row id lookup, behind every
``VectorStore.vectors``/``ids`` call curation makes) for one or more code trees, in the three
states a store's keys are in: all in the overlay (added since the last checkpoint: a first
curate, a long-lived writer), all loaded from the key snapshot, and half each; each with the
keys as a list and as a ``HandleList`` (what curation passes). Each ``--tree NAME=FOLDER`` (a
folder holding ``attention_cloud``, e.g. ``git archive REV host`` unpacked) runs in a fresh
process per round, trees alternated; the least CPU of ``--repeat`` calls is kept::

    .venv/bin/python scripts/bench/key_table_ids.py --tree before=/tmp/before/host \\
        --tree after=host --keys 200000 --rounds 3
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

#: One process of one tree: build the three tables, time ids(); prints JSON.
_WORKER = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from attention_cloud.embed.key_table import KeyTable
from attention_cloud.curate.handles import HandleList
n, repeat = int(sys.argv[2]), int(sys.argv[3])
keys = [f"it_{i:016x}" for i in range(n)]
def blob(ks):
    return np.frombuffer("\0".join(ks).encode(), dtype=np.uint8)
overlay = KeyTable(); overlay.update((k, i) for i, k in enumerate(keys))
loaded = KeyTable.from_blob(blob(keys), np.arange(n))
half = KeyTable.from_blob(blob(keys[: n // 2]), np.arange(n // 2))
half.update((k, i) for i, k in enumerate(keys) if i >= n // 2)
out = {}
for name, table in (("overlay", overlay), ("loaded", loaded), ("half each", half)):
    for kind, ks in (("list", keys), ("HandleList", HandleList(keys))):
        assert (table.ids(ks) == np.arange(n)).all()
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            table.ids(ks)
            best = min(best, time.process_time() - start)
        out[f"{name} / {kind}"] = best
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", required=True, help="NAME=FOLDER")
    parser.add_argument("--keys", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trees = [t.split("=", 1) for t in args.tree]
    seen: dict[str, list[dict[str, float]]] = {name: [] for name, _ in trees}
    for r in range(args.rounds):
        for name, folder in (trees if r % 2 == 0 else trees[::-1]):
            done = subprocess.run([sys.executable, "-c", _WORKER, folder, str(args.keys), str(args.repeat)],
                                  check=True, capture_output=True, text=True)
            seen[name].append(json.loads(done.stdout))
    cases = list(next(iter(seen.values()))[0])
    print(f"`{' '.join(sys.argv)}`: ns a key (least CPU of {args.repeat} calls, median of "
          f"{args.rounds} processes), {args.keys:,} keys\n")
    print("| keys are | " + " | ".join(name for name, _ in trees) + " |")
    print("|---|" + "---|" * len(trees))
    for case in cases:
        cells = []
        for name, _ in trees:
            values = sorted(run[case] for run in seen[name])
            cells.append(f"{values[len(values) // 2] / args.keys * 1e9:.0f}")
        print(f"| {case} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
