#!/usr/bin/env python3
"""A faster echo search, measured, not used by curation yet: exact scores within the IVF lists
each item probes (one matrix product per list for a large batch of items), falling back to the
index search for the items whose answer the index's 4-bit codes could change.

Curation's echo search (``curation._mark_echoes``) asks the IVF index for each item's 8 nearest
items at nprobe 2: faiss scans the 4-bit codes of the two lists (about 1 ms an item at a million
items, 1.68M vectors in 900 lists), takes the best 32 by those codes and re-ranks them exactly.
The join here reads each probed list's item rows once per batch and scores them exactly against
every item of the batch that probes it (``faiss.knn``, one OpenMP thread). Its hits at the echo
similarity (0.92) are provably those of the index search when, within the probed lists, at most
8 items score >= 0.92 and at most 32 score >= 0.92 - 2 * eps (``eps``: the largest error of a
code's score, measured here on ``--probe`` items' candidates; ``--eps`` is used): every item at
>= 0.92 is then among the index's 32 candidates and its 8 results. Other items ("crowded":
near-identical copies of one text) are searched by the index as before, each distinct vector
once. Hits are re-scored by the store's own re-ranking, so similarities are bit for bit the
same. Prints the times of both and how many items' hits at >= 0.92 (other than the item)
differ (0 expected).

    .venv/bin/python scripts/bench/echo_join.py --vectors HOME/vectors [--start 0] [--queries 40000] [--eps 0.12]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import faiss
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

FLOOR = 0.92
K = 8
NPROBE = 2
ITEMS = {"record": "item"}


def code_error(store, queries: np.ndarray) -> float:
    """The largest |code score - exact score| over the index's 32 candidates of ``queries``."""
    from attention_cloud.embed.faiss_index import search_index

    _, bits, _ = store._candidates(ITEMS)
    policy = dataclasses.replace(store.policy, ivf_nprobe=NPROBE)
    scores, labels = search_index(store._index, queries, 4 * K, policy, bits, tail=store._tail)
    worst = 0.0
    for query, approx, ids in zip(queries, scores, labels):
        found = ids >= 0
        worst = max(worst, float(np.max(np.abs(store._vectors_of_ids(ids[found]) @ query - approx[found]))))
    return worst


def joined(store, ids: np.ndarray, queries: np.ndarray, eps: float, clock: dict) -> list[list[tuple[str, float]]]:
    """Each query's hits at >= FLOOR other than itself (row ``ids``), as the index search gives them."""
    mask, _, _ = store._candidates(ITEMS)
    # a read-only store maps its saved index: the rows written after the save (store._tail) are
    # not in these lists; a store whose manifest index covers every row (the usual case after a
    # curate's flush) has none
    ivf = faiss.extract_index_ivf(store._index)
    faiss.omp_set_num_threads(1)
    _, lists = ivf.quantizer.search(queries, NPROBE)
    width = 4 * K + 1  # one past the index's candidates: more than 32 near ones is "crowded"
    low, high = FLOOR - 2 * eps, FLOOR - 1e-5
    scores = np.full((len(queries), NPROBE * width), -np.inf, np.float32)
    found = np.full((len(queries), NPROBE * width), -1, np.int64)
    for lst in np.unique(lists):
        started = time.perf_counter()
        size = ivf.invlists.list_size(int(lst))
        members = faiss.rev_swig_ptr(ivf.invlists.get_ids(int(lst)), size).copy() if size else np.zeros(0, np.int64)
        members = np.sort(members[mask[members]])
        if not len(members):
            continue
        rows = store._matrix().pread(store._position[members])
        middle = time.perf_counter()
        clock["read lists"] += middle - started
        for probe in range(NPROBE):
            which = np.flatnonzero(lists[:, probe] == lst)
            if len(which):
                top = min(width, len(members))
                d, i = faiss.knn(queries[which], rows, top, faiss.METRIC_INNER_PRODUCT)
                scores[which, probe * width:probe * width + top] = d
                found[which, probe * width:probe * width + top] = np.where(i >= 0, members[np.maximum(i, 0)], -1)
        clock["exact scores"] += time.perf_counter() - middle
    started = time.perf_counter()
    safe = ((scores >= low).sum(1) <= 4 * K) & ((scores >= high).sum(1) <= K)
    near = np.where(scores >= high, found, -1)
    near[near == ids[:, None]] = -1
    out: list[list[tuple[str, float]]] = [[] for _ in range(len(queries))]
    todo = np.flatnonzero(safe & (near >= 0).any(1))
    for q, hits in zip(todo, store._rerank(queries[todo], near[todo], K)):
        out[q] = [(store._keys.key_of(i), s) for i, s in hits if s >= FLOOR]
    clock["re-rank"] += time.perf_counter() - started
    started = time.perf_counter()
    crowded = np.flatnonzero(~safe)
    if len(crowded):
        _, first, back = np.unique(queries[crowded], axis=0, return_index=True, return_inverse=True)
        hits = store.search_many(queries[crowded][first], K, filter_meta=ITEMS, nprobe=NPROBE)
        for q, j in zip(crowded, back.reshape(-1)):
            out[q] = [(h, s) for h, s in hits[j] if s >= FLOOR and store._keys[h] != ids[q]]
        clock["index search (crowded)"] += time.perf_counter() - started
        clock["crowded items"] += len(crowded)
        clock["crowded distinct vectors"] += len(first)
    return out


def main(argv: list[str] | None = None) -> int:
    from attention_cloud.embed.store import VectorStore

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vectors", type=Path, required=True, help="a home's vectors folder (read only)")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--queries", type=int, default=40_000, help="items searched as one batch")
    parser.add_argument("--eps", type=float, default=0.12, help="bound on a 4-bit code's score error")
    parser.add_argument("--probe", type=int, default=2000, help="items whose candidates measure the error")
    args = parser.parse_args(argv)
    manifest = json.loads((args.vectors / "manifest.json").read_text(encoding="utf-8"))
    store = VectorStore.open(args.vectors, embedder_id=manifest["embedder_id"], dim=manifest["dim"], read_only=True)
    if store.wait_for_index() != "ivf":
        print("this store has no IVF index: echo search is exact here")
        return 1
    keys = [k for k in store.keys() if "#" not in k and not k.startswith("arc")][args.start:args.start + args.queries]
    ids = store._keys.ids(keys)
    order = np.argsort(store._position[ids])
    queries = np.empty((len(ids), store.dim), np.float32)
    queries[order] = store._read_ids(ids[order])
    worst = code_error(store, queries[: args.probe])
    print(f"{len(store):,} vectors, {faiss.extract_index_ivf(store._index).nlist} lists; {len(keys):,} items; "
          f"largest code score error on {min(args.probe, len(keys)):,} items' candidates {worst:.3f} (eps used {args.eps})")
    if worst > args.eps:
        print("WARNING: the measured error exceeds --eps: the join's answers are not guaranteed")
    started = time.perf_counter()
    reference = []
    for s in range(0, len(keys), 512):  # as curation searches: chunks of 512
        rows = store.search_many(queries[s:s + 512], K, filter_meta=ITEMS, nprobe=NPROBE)
        reference += [[(h, x) for h, x in r if x >= FLOOR and h != key] for key, r in zip(keys[s:s + 512], rows)]
    index_s = time.perf_counter() - started
    clock: dict[str, float] = defaultdict(float)
    started = time.perf_counter()
    mine = joined(store, ids, queries, args.eps, clock)
    join_s = time.perf_counter() - started
    print(f"index search (curation's): {index_s:.1f} s, {index_s / len(keys) * 1000:.3f} ms an item")
    print(f"join: {join_s:.1f} s, {join_s / len(keys) * 1000:.3f} ms an item "
          f"({index_s / join_s:.1f}x); " + ", ".join(
              f"{name} {value:.1f} s" if "items" not in name and "vectors" not in name else f"{name} {int(value):,}"
              for name, value in clock.items()))
    differ = sum(a != b for a, b in zip(mine, reference))
    print(f"items whose hits at >= {FLOOR} differ: {differ:,} of {len(keys):,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
