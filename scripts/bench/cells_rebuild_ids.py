#!/usr/bin/env python3
"""How much of a partition a rebuild keeps: k-means started from the old cells' centroids
(``partition.seed_centroids``, the product) against k-means started afresh from a seeded
sample (the code before it), on copies of one curated home, in one process::

    nice .venv/bin/python scripts/bench/cells_rebuild_ids.py --home HOME --grow 200 [--stream]

For each way, on its own copy of ``--home``: ``--grow`` items of another generated corpus
(``gen_corpus.py``, seed 2) ingested and curated (placed in the cells as curation places
them), then ``cells.rebuild``, then ``cells.rebuild`` again with nothing new. Reported: the
cells' ids kept by the rebuild (and the share of items whose cell id is the same), the
adjusted Rand index between the partition before and after it, the mean squared distance of
an item to its cell's centroid in the cells' feature space (k-means' objective: lower is a
tighter partition), the time of the rebuild, and what the second rebuild kept. The two ways'
partitions are also compared with each other.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402


def _membership(mem) -> dict[str, str]:
    from attention_cloud.bridge import Var

    (pairs,) = mem.pl.once("atc_cells:cells_membership", Var())
    return {str(p.args[0]): str(p.args[1]) for p in pairs}


def _spread(mem, cell_of: dict[str, str]) -> float:
    """Mean squared distance of an item to its cell's centroid, in the stored feature space."""
    from attention_cloud.cells import api

    state = api._state_from_facts(mem)
    handles = sorted(cell_of)
    feats = api._features_of(mem, state, handles)
    labels = np.array([state.ids.index(cell_of[h]) for h in handles])
    cents = state.sums / np.maximum(state.counts, 1)[:, None]
    return float(((feats - cents[labels]) ** 2).sum(axis=1).mean())


def _kept(before: dict[str, str], after: dict[str, str]) -> tuple[int, int, float]:
    old_ids, new_ids = set(before.values()), set(after.values())
    common = [h for h in before if h in after]
    same = sum(before[h] == after[h] for h in common)
    return len(old_ids & new_ids), len(old_ids), same / max(1, len(common))


def _ari(a: dict[str, str], b: dict[str, str]) -> float:
    from attention_cloud.cells import adjusted_rand

    common = sorted(set(a) & set(b))
    return adjusted_rand([a[h] for h in common], [b[h] for h in common])


def run(home: Path, grow: Path | None, seeded: bool) -> dict:
    from attention_cloud import Memory
    from attention_cloud.cells import api
    from attention_cloud.cells import partition as P

    original = P.seed_centroids, P.seeded_count, api.SETTLE_ROUNDS, P.kmeans
    if not seeded:   # the code before: cell_count(n) clusters from a seeded sample, once
        P.seed_centroids, P.seeded_count = (lambda *a, **k: None), (lambda k, old: k)
        api.SETTLE_ROUNDS = 0
    runs = []

    def counted(*a, **k):   # the partition's runs, not the 2-means of a split
        if a[1] > 2:
            runs.append(1)
        return original[3](*a, **k)

    P.kmeans = counted
    try:
        with Memory.open(home) as mem:
            placed = {}
            if grow is not None:
                mem.ingest([grow])
                placed = mem.curate().cells
            before = _membership(mem)
            cpu, wall = time.process_time(), time.perf_counter()
            runs.clear()
            api.rebuild(mem)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            rounds = len(runs)
            after = _membership(mem)
            spread = _spread(mem, after)
            api.rebuild(mem)
            again = _membership(mem)
    finally:
        P.seed_centroids, P.seeded_count, api.SETTLE_ROUNDS, P.kmeans = original
    kept, old, same = _kept(before, after)
    kept2, old2, same2 = _kept(after, again)
    return {"before": before, "after": after, "cells_before": old, "cells_after": len(set(after.values())),
            "kept": kept, "items_same_id": same, "ari": _ari(before, after), "spread": spread,
            "cpu": cpu, "wall": wall, "again_kept": kept2, "again_of": old2, "again_same": same2,
            "again_ari": _ari(after, again), "placed": placed, "rounds": rounds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a curated home (copied, never changed)")
    parser.add_argument("--grow", type=int, default=200, help="items to add before the rebuild (0: none)")
    parser.add_argument("--stream", action="store_true",
                        help="rebuild as a home above STREAM_FROM items does (k-means on a sample)")
    args = parser.parse_args(argv)
    if args.stream:
        from attention_cloud.cells import api

        api.STREAM_FROM = 0
    from bench_env import corpus

    grow = corpus(args.grow, seed=2) if args.grow else None
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, seeded in (("afresh (before)", False), ("from the old centroids", True)):
            copy = Path(tmp) / name.replace(" ", "_")
            shutil.copytree(args.home, copy)
            results[name] = run(copy, grow, seeded)
            shutil.rmtree(copy)
    print("| k-means starts | cells before → after | ids kept | items keeping their cell id "
          "| ARI before/after | mean sq. distance to centroid | rebuild CPU / wall s "
          "| k-means runs | a second rebuild keeps (ids, ARI) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        print(f"| {name} | {r['cells_before']} → {r['cells_after']} | {r['kept']} of {r['cells_before']} "
              f"| {r['items_same_id']:.3f} | {r['ari']:.3f} | {r['spread']:.4f} "
              f"| {r['cpu']:.2f} / {r['wall']:.2f} | {r['rounds']} | {r['again_kept']} of {r['again_of']}, "
              f"{r['again_ari']:.3f} |")
    for name, r in results.items():
        p = r["placed"]
        if p.get("assigned"):
            print(f"\n{name}: the curate placing the new items: {p['assigned']} placed in "
                  f"{p['seconds']:.2f} s ({1000 * p['seconds'] / p['assigned']:.1f} ms an item), "
                  f"{p['split']} split, {p['merged']} merged, rebuilt {p['rebuilt']}")
    a, b = (results[n]["after"] for n in results)
    print(f"\nthe two rebuilds against each other: ARI {_ari(a, b):.3f}")


if __name__ == "__main__":
    main()
