#!/usr/bin/env python3
"""Embedding throughput, query latency, and VectorStore search speed and recall per index policy.

Part 1, embedders: texts/s when embedding a batch of chat turns (real LongMemEval turns when
``--data`` exists, else generated sentences) and the latency of embedding one short query.

Part 2, vector store: for each size (default 100k and 1M unit 384-d vectors) and index kind
(flat, hnsw, ivf), the time to add and build, then search p50/p95 over 200 queries and
recall@10 against exact search. Two vector shapes (``--shapes``):

* ``random``: isotropic Gaussian directions, the brief's worst case for approximate indexes
  (every stored vector is almost equally far from every query);
* ``minilm``: a Gaussian with the mean and covariance of real MiniLM vectors of chat turns
  (fitted on ``--fit`` texts embedded here), which has the anisotropy of real embeddings;
* ``text``: real chat text (LongMemEval turns in 12-word windows) embedded with the static
  embedder, which has the cluster structure of real embeddings (needs the distilled table).

HNSW is also swept over efSearch and IVF over nprobe, to show the recall/latency trade-off.

Queries are fresh draws from the same distribution. Filtered searches are timed too: a 1 %
filter (exact path) and a 50 % filter (bitmap selector inside the index), and a batch of 32
queries through ``search_many``.

Example:
    python scripts/bench/embed_speed.py --sizes 100000 --kinds flat,hnsw
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

from attention_cloud.embed import LexicalIndex, VectorStore, available_embedders, load_embedder  # noqa: E402
from attention_cloud.embed.faiss_index import IndexPolicy  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_data import LONGMEMEVAL_DEV, require_data, shown  # noqa: E402

DEFAULT_DATA = LONGMEMEVAL_DEV  # ../shared/data/longmemeval-dev from the repository root


def percentile_ms(samples: list[float], q: float) -> float:
    return 1000.0 * float(np.percentile(samples, q))


def sample_texts(data: Path, count: int) -> list[str]:
    texts: list[str] = []
    for path in sorted(data.glob("*.json")) if data.is_dir() else []:
        raw = json.loads(path.read_text(encoding="utf-8"))
        texts += [t["content"] for s in raw["haystack_sessions"] for t in s if t["role"] == "user"]
        if len(texts) >= count:
            break
    if not texts:
        print(f"embed_speed: no LongMemEval data in {data} (--data FOLDER): timing synthetic texts",
              file=sys.stderr)
        words = "deploy database migration failed timeout retry config cluster user asked about the plan".split()
        rng = np.random.default_rng(0)
        texts = [" ".join(rng.choice(words, size=rng.integers(5, 60))) for _ in range(count)]
    return texts[:count]


def bench_embedders(specs: list[str], texts: list[str]) -> None:
    print(f"## Embedders ({len(texts)} user turns)")
    print(f"{'embedder':<12}{'dim':>5}{'load s':>8}{'texts/s':>9}{'query p50 ms':>14}{'query p95 ms':>14}")
    for spec in specs:
        start = time.perf_counter()
        embedder = load_embedder(spec)
        loaded = time.perf_counter() - start
        embedder.embed(texts[:8])  # warm-up
        start = time.perf_counter()
        embedder.embed(texts)
        rate = len(texts) / (time.perf_counter() - start)
        latencies = []
        for text in texts[:100]:
            query = " ".join(text.split()[:12])
            start = time.perf_counter()
            embedder.embed([query])
            latencies.append(time.perf_counter() - start)
        print(f"{spec:<12}{embedder.dim:>5}{loaded:>8.2f}{rate:>9.0f}{percentile_ms(latencies, 50):>14.2f}{percentile_ms(latencies, 95):>14.2f}")
    print()


def bench_lexical(texts: list[str]) -> None:
    index = LexicalIndex()
    start = time.perf_counter()
    index.add([f"t{i}" for i in range(len(texts))], texts)
    built = time.perf_counter() - start
    latencies = []
    for text in texts[:: max(1, len(texts) // 200)][:200]:
        query = " ".join(text.split()[:12])
        begin = time.perf_counter()
        index.search(query, 10)
        latencies.append(time.perf_counter() - begin)
    print(f"## BM25 LexicalIndex over {len(texts):,} user turns")
    print(f"index {built:.1f} s ({len(texts) / built:,.0f} texts/s); 12-word query p50 "
          f"{percentile_ms(latencies, 50):.2f} ms, p95 {percentile_ms(latencies, 95):.2f} ms")
    print()


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


class Shape:
    """Draws unit vectors: isotropic, or Gaussian with a fitted mean and covariance."""

    def __init__(self, name: str, dim: int, sample: np.ndarray | None = None) -> None:
        self.name = name
        self.dim = dim
        self.pool: np.ndarray | None = None
        self.used = 0
        if sample is not None:
            self.mean = sample.mean(axis=0)
            _, singular, basis = np.linalg.svd(sample - self.mean, full_matrices=False)
            self.transform = (singular[:, None] * basis / np.sqrt(len(sample) - 1)).astype(np.float32)
        else:
            self.mean, self.transform = None, None

    def draw(self, rng: np.random.Generator, count: int) -> np.ndarray:
        if self.pool is not None:
            if count > len(self.pool) - self.used:
                raise SystemExit(f"the {self.name} shape has {len(self.pool)} vectors; asked for {self.used + count}")
            rows = self.pool[self.used : self.used + count]
            self.used += count
            return rows
        out = np.empty((count, self.dim), dtype=np.float32)
        for start in range(0, count, 100_000):
            n = min(100_000, count - start)
            if self.transform is None:
                rows = rng.standard_normal((n, self.dim), dtype=np.float32)
            else:
                rows = self.mean + rng.standard_normal((n, len(self.transform)), dtype=np.float32) @ self.transform
            out[start : start + n] = unit(rows)
        return out


def text_shape(data: Path, count: int) -> Shape:
    """Real chat text: LongMemEval turns cut into overlapping 12-word windows, embedded with the
    static embedder (MiniLM's token table: the same space, fast enough for a million texts),
    shuffled so that queries come from the same distribution as the stored rows."""
    windows: list[str] = []
    for path in sorted(data.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        for session in raw["haystack_sessions"]:
            for turn in session:
                words = turn["content"].split()
                windows += [" ".join(words[i : i + 12]) for i in range(0, max(1, len(words) - 6), 6)]
        if len(windows) >= count:
            break
    if len(windows) < count:
        raise SystemExit(f"only {len(windows)} text windows in {data}; use smaller --sizes")
    order = np.random.default_rng(0).permutation(len(windows))[:count]
    embedder = load_embedder("static")
    shape = Shape("text (static-embedded chat windows)", embedder.dim)
    shape.pool = embedder.embed([windows[i] for i in order])
    return shape


def bench_store(size: int, kinds: list[str], shape: Shape, workdir: Path) -> None:
    dim = shape.dim
    rng = np.random.default_rng(size)
    vectors = shape.draw(rng, size)
    keys = [f"it_{i:07d}" for i in range(size)]
    meta = [{"segment": "rare" if i % 100 == 0 else "default", "half": i % 2 == 0} for i in range(size)]
    queries = shape.draw(rng, 200)
    truth = []
    for start in range(0, len(queries), 50):
        scores = queries[start : start + 50] @ vectors.T
        truth += [set(np.argpartition(-row, 10)[:10].tolist()) for row in scores]
        del scores
    print(f"## VectorStore, {size:,} unit {dim}-d vectors, {shape.name} shape")
    print(f"{'index':<6}{'add+build s':>12}{'p50 ms':>8}{'p95 ms':>8}{'recall@10':>10}"
          f"{'1% filter p50':>14}{'50% filter p50':>15}{'batch32 ms/q':>13}")
    for kind in kinds:
        directory = workdir / f"store-{size}-{kind}"
        shutil.rmtree(directory, ignore_errors=True)
        policy = IndexPolicy(kind=kind, background=False)
        start = time.perf_counter()
        store = VectorStore.open(directory, embedder_id="bench@1", dim=dim, policy=policy)
        # Add in one go under a flat policy, then build the chosen index once, as a reopen would.
        for begin in range(0, size, 100_000):
            store.policy = IndexPolicy(kind="flat")
            store.add(keys[begin : begin + 100_000], vectors[begin : begin + 100_000], meta[begin : begin + 100_000])
        store.policy = policy
        store._rebuild(policy.kind_for(size))
        built = time.perf_counter() - start
        assert store.index_kind == kind, store.index_kind
        latencies, hits = [], 0
        for query, expected in zip(queries, truth):
            begin = time.perf_counter()
            found = store.search(query, 10)
            latencies.append(time.perf_counter() - begin)
            hits += len(expected & {int(key[3:]) for key, _ in found})
        filtered = {}
        for label, flt in (("1%", {"segment": "rare"}), ("50%", {"half": True})):
            samples = []
            for query in queries[:50]:
                begin = time.perf_counter()
                store.search(query, 10, filter_meta=flt)
                samples.append(time.perf_counter() - begin)
            filtered[label] = percentile_ms(samples, 50)
        begin = time.perf_counter()
        store.search_many(queries[:32], 10)
        batch = 1000 * (time.perf_counter() - begin) / 32
        print(f"{kind:<6}{built:>12.1f}{percentile_ms(latencies, 50):>8.2f}{percentile_ms(latencies, 95):>8.2f}"
              f"{hits / (10 * len(queries)):>10.3f}{filtered['1%']:>14.2f}{filtered['50%']:>15.2f}{batch:>13.2f}")
        sweep = {"hnsw": ("hnsw_ef_search", (32, 128, 256)), "ivf": ("ivf_nprobe", (8, 32, 64))}.get(kind)
        if sweep:
            field, values = sweep
            cells = []
            for value in values:
                store.policy = IndexPolicy(kind=kind, background=False, **{field: value})
                latencies, hits = [], 0
                for query, expected in zip(queries, truth):
                    begin = time.perf_counter()
                    found = store.search(query, 10)
                    latencies.append(time.perf_counter() - begin)
                    hits += len(expected & {int(key[3:]) for key, _ in found})
                cells.append(f"{value}: p50 {percentile_ms(latencies, 50):.2f} ms recall {hits / (10 * len(queries)):.3f}")
            store.policy = policy
            print(f"{'':<6}{field} " + "; ".join(cells))
        start = time.perf_counter()
        store.close()
        closed = time.perf_counter() - start
        start = time.perf_counter()
        reopened = VectorStore.open(directory, embedder_id="bench@1", dim=dim, policy=policy)
        opened = time.perf_counter() - start
        reopened._release_files()
        print(f"{'':<6}close (flush, save index) {closed:.1f} s; reopen {opened:.1f} s")
        shutil.rmtree(directory, ignore_errors=True)
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", action="append", help="embedder spec (repeatable); default minilm, static (when distilled) and hash")
    parser.add_argument("--texts", type=int, default=500, help="texts for the throughput run (0: skip)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help=f"LongMemEval instances (default {shown(DEFAULT_DATA)})")
    parser.add_argument("--sizes", default="100000,1000000", help="comma-separated store sizes; empty to skip")
    parser.add_argument("--kinds", default="flat,hnsw,ivf")
    parser.add_argument("--shapes", default="random,minilm", help="random and/or minilm (see module doc)")
    parser.add_argument("--bm25", type=int, default=20000, help="turns for the BM25 run (0: skip)")
    parser.add_argument("--fit", type=int, default=2000, help="texts embedded to fit the minilm shape")
    parser.add_argument("--workdir", type=Path, default=None, help="where stores are built (default: a temp dir)")
    args = parser.parse_args(argv)
    texts = sample_texts(args.data, max(args.texts, args.fit, args.bm25))
    default_specs = [info.spec for info in available_embedders() if info.spec in ("minilm", "static", "hash") and info.available]
    if args.texts:
        bench_embedders(args.embedder or default_specs, texts[: args.texts])
    if args.bm25:
        bench_lexical(texts[: args.bm25])
    sizes = [int(size) for size in args.sizes.split(",") if size] or [0]
    shapes = []
    for name in args.shapes.split(","):
        if name == "random":
            shapes.append(Shape("random", 384))
        elif name == "minilm":
            shapes.append(Shape("minilm", 384, load_embedder("minilm").embed(texts[: args.fit])))
        elif name == "text":
            shapes.append(text_shape(require_data(args.data, parser), max(sizes) + 200))
        elif name:
            raise SystemExit(f"unknown shape {name!r}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="atc-embed-speed-"))
    try:
        for size in [size for size in sizes if size]:
            for shape in shapes:
                shape.used = 0
                bench_store(size, args.kinds.split(","), shape, workdir)
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
