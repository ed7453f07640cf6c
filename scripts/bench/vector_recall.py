#!/usr/bin/env python3
"""Recall@10 and latency of VectorStore searches against exact float32 search, by store size.

Loads real vectors (a float32 vector log, ``--dim`` floats a row, e.g. an older store's
``vectors-0.f32``; or a directory of ``.npy`` arrays, e.g. cached MiniLM vectors), writes the
first N of them into a fresh VectorStore in the default configuration (exact scans of the mapped
log below 50k vectors, the compressed IVF index with exact re-ranking from there) and asks it
for the 10 nearest neighbours of ``--queries`` of its own vectors. A hit counts when its exact
float32 score reaches the exact 10th best (identical vectors tie exactly); the query's own key is
left out. Also prints the recall of an exact search over the float16-rounded rows (what the log
stores), the search latency (one query a call, p50/p95), the time to open the store, and the
p50 of cosines by key (the vectors of 96 random keys gathered and scored, as Jump.similarity).

Run it against another checkout's code (``--host /work/main/host``) for a before/after in one go.

    nice .venv/bin/python scripts/bench/vector_recall.py --vectors LOG.f32 --dim 512 --sizes 10000,100000
    nice .venv/bin/python scripts/bench/vector_recall.py --vectors /work/coord/cache/lme-vectors/ac5a0040f4c1 --sizes 100000
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def load(path: Path, dim: int | None, limit: int) -> np.ndarray:
    """The first ``limit`` vectors of a float32 log or a directory of .npy files (sorted)."""
    if path.is_dir():
        parts, total = [], 0
        for name in sorted(path.glob("*.npy")):
            part = np.load(name)
            parts.append(part)
            total += len(part)
            if total >= limit:
                break
        matrix = np.concatenate(parts)[:limit]
    else:
        if not dim:
            sys.exit("--dim is needed for a raw float32 vector log")
        matrix = np.fromfile(path, dtype=np.float32, count=limit * dim).reshape(-1, dim)
    return np.ascontiguousarray(matrix, dtype=np.float32)


def measure(vectors: np.ndarray, queries: int, seed: int) -> dict:
    import faiss

    from attention_cloud.embed import VectorStore

    n, dim = vectors.shape
    keys = [f"v{i}" for i in range(n)]
    picked = np.random.default_rng(seed).choice(n, size=min(queries, n), replace=False)
    exact, _ = faiss.knn(vectors[picked], vectors, 11, faiss.METRIC_INNER_PRODUCT)
    tenth = exact[:, 10]  # [:, 0] is the query itself
    half = vectors.astype(np.float16).astype(np.float32)
    _, half_top = faiss.knn(vectors[picked], half, 11, faiss.METRIC_INNER_PRODUCT)

    def recall(found: list[list[int]]) -> float:
        hits = total = 0
        for row, (q, ids) in enumerate(zip(picked, found)):
            ids = [i for i in ids if i != q][:10]
            hits += int(np.sum(vectors[ids] @ vectors[q] >= tenth[row] - 1e-6))
            total += 10
        return hits / total

    with tempfile.TemporaryDirectory(prefix="vector-recall-") as work:
        with VectorStore.open(Path(work), embedder_id="bench@1", dim=dim) as store:
            for start in range(0, n, 20_000):
                store.add(keys[start:start + 20_000], vectors[start:start + 20_000])
            store.wait_for_index()
        started = time.perf_counter()
        store = VectorStore.open(Path(work), embedder_id="bench@1", dim=dim)
        opened = time.perf_counter() - started
        kind = store.wait_for_index()
        store.search(vectors[picked[0]], 11)  # first touch
        found, seconds = [], []
        for q in picked:
            started = time.perf_counter()
            hits = store.search(vectors[q], 11)
            seconds.append(time.perf_counter() - started)
            found.append([int(key[1:]) for key, _ in hits])
        rng = np.random.default_rng(seed + 1)
        gathers = []
        for _ in range(50):  # what Jump.similarity does: the vectors of 96 random keys, one gather
            asked = [keys[i] for i in rng.choice(n, size=96, replace=False)]
            started = time.perf_counter()
            _, rows = store.vectors(asked)
            np.einsum("ij,j->i", rows, vectors[picked[0]])
            gathers.append(time.perf_counter() - started)
        store.close()
    ms = np.array(seconds) * 1000
    return {"vectors": n, "dim": dim, "kind": kind, "recall10": round(recall(found), 4),
            "recall10_float16_exact": round(recall([list(t) for t in half_top]), 4),
            "search_p50_ms": round(float(np.percentile(ms, 50)), 2),
            "search_p95_ms": round(float(np.percentile(ms, 95)), 2), "open_s": round(opened, 2),
            "cosines_96_keys_p50_ms": round(float(np.percentile(np.array(gathers) * 1000, 50)), 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vectors", type=Path, required=True, help="a float32 vector log or a directory of .npy")
    parser.add_argument("--dim", type=int, default=None, help="row width of a float32 vector log")
    parser.add_argument("--sizes", default="10000,100000", help="store sizes, comma-separated")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--host", type=Path, default=ROOT / "host", help="the attention_cloud code to measure")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.host))
    sizes = [int(s) for s in args.sizes.split(",")]
    vectors = load(args.vectors, args.dim, max(sizes))
    for size in sizes:
        if size > len(vectors):
            print(f"only {len(vectors)} vectors available; skipping {size}")
            continue
        print(json.dumps(measure(vectors[:size], args.queries, args.seed)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
