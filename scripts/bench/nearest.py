#!/usr/bin/env python3
"""nearest/3 latency called from Prolog, per index policy, over real-text vectors (issue #3).

For each size (default 100k and 1M) and each index policy the VectorStore supports (flat exact,
HNSW, IVF), a fresh process opens a :class:`~attention_cloud.Memory` whose jump is served by a
vector store forced to that policy, and times ``atc_jump:nearest(Text, 10, Hits)`` called from
Prolog through the bridge for held-out query texts: p50/p95 wall and CPU, recall@10 against
exact search of the same vectors, and beside it the plain ``VectorStore.search`` with the same
query vector and the query embedding alone, so the bridge + Prolog overhead is its own column.

Where the vectors come from:

* Items are the journal items of a cached ingested home (``bench_env.build_home``) of the
  synthetic Claude-Code-like corpus (gen_corpus.py). Their handles are real journal items, so
  ``nearest/3``'s liveness check (``item/1``) keeps them, as it would in a product home.
* Texts are embedded with the ``static`` embedder (MiniLM distilled to a token table, about
  2,000 texts/s a core; MiniLM itself manages ~40 texts/s, days for a million). Texts that
  occur more than once are embedded once, and identical vectors (a bag-of-tokens embedding
  ignores word order and numbers it has no token for) are kept once: duplicate vectors make
  recall@10 meaningless. The distinct count is reported; when a size asks for more distinct
  vectors than the corpus has, the largest available is used and the table says so.
* ``--queries`` distinct vectors are held out (seeded) and never indexed; every size indexes a
  prefix of the same seeded order of the rest (so 100k is a subset of 1M).

Recall@10 counts a returned key as right when it is in the exact top 10 or scores exactly as
high as the exact 10th (ties on the boundary are interchangeable).

Index policies are forced per run with ``IndexPolicy(kind=..., background=False)``; product
defaults (faiss_index.py) are not changed. The index is built once per size and policy (its
build time and the faiss threads used are recorded) and saved in the store, like a product
store after its first flush; later runs load it. ``--build-threads`` lets faiss use more
threads for that build only (the product builds with one); searches always use one thread.

Cached under ``.local/bench-cache/nearest-vectors/``: a private copy of the source home, the
extracted items, the distinct vectors (.npy), the exact ground truth and one store per size and
policy (its logs hard-linked from one flat-built base store).

Runs at 1M need several GB: run them under ``flock /tmp/atc-bigmem.lock``.

Example:
    flock /tmp/atc-bigmem.lock .venv/bin/python scripts/bench/nearest.py --sizes 100000 1000000 \
        --build-threads 2 --update-md
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

import bench_env
from bench_env import CpuClock, markdown_table, percentile_ms, progress

POLICIES = ("flat", "hnsw", "ivf")
SECTION = "Embeddings and the jump (issue 3)"
SUBSECTION = "nearest/3 from Prolog"
K = 10
#: How the table names a search-time setting.
LABELS = {"ef_search": "efSearch", "nprobe": "nprobe", "one_add": "built in one add"}
#: Rows per chunk when computing exact ground truth (queries x chunk floats at a time).
TRUTH_CHUNK = 100_000


# -- data preparation -----------------------------------------------------------------------------
@dataclass
class Pool:
    """Distinct vectors of the corpus items and what each row stands for."""

    vectors: np.ndarray           # (rows, dim) float32, unit length, pairwise distinct
    handles: list[str]
    kinds: list[str]
    segments: list[str]
    texts: list[str]
    info: dict[str, Any]


def _work_dir(cache: Path, items: int, seed: int, embedder: str) -> Path:
    tag = embedder.replace(":", "_").replace("/", "_")
    return cache / "nearest-vectors" / f"corpus-{items}-s{seed}-{tag}"


def private_home(work: Path, items: int, seed: int, embedder: str) -> Path:
    """A copy of the cached ingested home (ours to open and lock), configured for ``embedder``."""
    home = work / "home"
    if (work / "home.json").exists():
        return home
    source = bench_env.build_home(items, seed=seed, embedder="hash")
    if home.exists():
        shutil.rmtree(home)
    progress(f"copying {source.path} to {home}")
    shutil.copytree(source.path, home, ignore=shutil.ignore_patterns(".lock", "vectors", "lexical"))
    from attention_cloud.home import read_config, write_config

    write_config(home, {**read_config(home), "embedder": embedder})
    (home / "vectors").mkdir(exist_ok=True)  # the jump's "anything embedded?" check looks here
    (work / "home.json").write_text(json.dumps({"source": str(source.path), **source.info}), encoding="utf-8")
    return home


_EXTRACT = """
import json, sys
from attention_cloud import Memory
from attention_cloud.bridge import Var
mem = Memory.open(sys.argv[1])
texts = dict(mem.pl.solutions("atc_journal:item_text", Var(), Var()))
kinds = dict(mem.pl.solutions("atc_journal:item_kind", Var(), Var()))
segments = dict(mem.pl.solutions("atc_journal:item_segment", Var(), Var()))
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for handle in sorted(texts):
        out.write(json.dumps([str(handle), str(kinds[handle]), str(segments[handle]), texts[handle]]) + "\\n")
mem.close()
"""


def extract_items(home: Path, work: Path) -> Path:
    """Every live item of ``home`` as JSON lines ``[handle, kind, segment, text]`` (child process)."""
    path = work / "items.jsonl"
    if path.exists():
        return path
    progress(f"extracting items from {home}")
    temporary = path.with_name(path.name + ".tmp")
    _child([sys.executable, "-c", _EXTRACT, str(home), str(temporary)])
    temporary.replace(path)
    return path


def _embed_chunk(spec: str, texts: list[str]) -> np.ndarray:
    from attention_cloud.embed import load_embedder

    return load_embedder(spec).embed(texts)


def embed_texts(spec: str, texts: list[str], workers: int) -> np.ndarray:
    """Vectors of ``texts``; large batches in ``workers`` processes."""
    if workers <= 1 or len(texts) < 20_000:
        return _embed_chunk(spec, texts)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    step = 20_000
    chunks = [texts[i : i + step] for i in range(0, len(texts), step)]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        return np.concatenate(list(pool.map(_embed_chunk, [spec] * len(chunks), chunks)))


def load_pool(work: Path, items_path: Path, spec: str, workers: int) -> Pool:
    """Distinct vectors of the items' distinct texts, cached as .npy beside their rows' items."""
    vectors_path, rows_path, info_path = work / "pool.npy", work / "pool.jsonl", work / "pool.json"
    if not info_path.exists():
        records = [json.loads(line) for line in items_path.open(encoding="utf-8")]
        first_of_text: dict[str, int] = {}
        for i, record in enumerate(records):
            first_of_text.setdefault(record[3], i)
        unique = sorted(first_of_text.values())
        progress(f"{len(records):,} items, {len(unique):,} distinct texts: embedding them with {spec}")
        with CpuClock() as clock:
            vectors = embed_texts(spec, [records[i][3] for i in unique], workers)
        keep, seen = [], set()
        for row, vector in enumerate(vectors):
            digest = vector.tobytes()
            if digest not in seen and np.any(vector):
                seen.add(digest)
                keep.append(row)
        info = {"items": len(records), "distinct_texts": len(unique), "distinct_vectors": len(keep),
                "embed_s": round(clock.wall, 1), "embed_cpu_s": round(clock.cpu, 1),
                "embed_workers": workers, "embedder": spec}
        np.save(vectors_path, np.ascontiguousarray(vectors[keep]))
        with rows_path.open("w", encoding="utf-8") as out:
            for row in keep:
                out.write(json.dumps(records[unique[row]]) + "\n")
        info_path.write_text(json.dumps(info, indent=1), encoding="utf-8")
        progress(f"pool: {info}")
    rows = [json.loads(line) for line in rows_path.open(encoding="utf-8")]
    return Pool(np.load(vectors_path, mmap_mode="r"), [r[0] for r in rows], [r[1] for r in rows],
                [r[2] for r in rows], [r[3] for r in rows], json.loads(info_path.read_text(encoding="utf-8")))


def split(pool: Pool, queries: int) -> tuple[np.ndarray, np.ndarray]:
    """(query rows, indexable rows in their seeded order): queries never enter any index."""
    order = np.random.default_rng(0).permutation(len(pool.handles))
    return np.sort(order[:queries]), order[queries:]


def exact_truth(pool: Pool, query_rows: np.ndarray, indexed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-K pool rows and scores of each query over the ``indexed`` rows (best first)."""
    queries = np.asarray(pool.vectors[query_rows], dtype=np.float32)
    best_rows = np.zeros((len(queries), 0), dtype=np.int64)
    best_scores = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, len(indexed), TRUTH_CHUNK):
        rows = np.sort(indexed[start : start + TRUTH_CHUNK])
        scores = queries @ np.asarray(pool.vectors[rows], dtype=np.float32).T
        top = np.argpartition(-scores, min(K, scores.shape[1] - 1), axis=1)[:, :K]
        best_rows = np.concatenate([best_rows, rows[top]], axis=1)
        best_scores = np.concatenate([best_scores, np.take_along_axis(scores, top, axis=1)], axis=1)
        keep = np.argsort(-best_scores, axis=1, kind="stable")[:, :K]
        best_rows = np.take_along_axis(best_rows, keep, axis=1)
        best_scores = np.take_along_axis(best_scores, keep, axis=1)
    return best_rows, best_scores


# -- stores ---------------------------------------------------------------------------------------
def base_store(work: Path, pool: Pool, indexed: np.ndarray, dim: int, embedder_id: str) -> Path:
    """A store of the ``indexed`` rows written under the flat policy (logs only, no saved index)."""
    from attention_cloud.embed import VectorStore
    from attention_cloud.embed.faiss_index import IndexPolicy

    size = len(indexed)
    directory = work / f"store-{size}" / "base"
    if (directory / "done.json").exists():
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    progress(f"writing a {size:,}-vector store")
    store = VectorStore.open(directory, embedder_id=embedder_id, dim=dim, policy=IndexPolicy(kind="flat"))
    try:
        for start in range(0, size, 50_000):
            rows = indexed[start : start + 50_000]
            meta = [{"record": "item", "level": "l0", "kind": pool.kinds[r], "segment": pool.segments[r]}
                    for r in rows.tolist()]
            store.add([pool.handles[r] for r in rows.tolist()], np.asarray(pool.vectors[rows]), meta)
    finally:
        store.close()
    (directory / "done.json").write_text(json.dumps({"rows": size}), encoding="utf-8")
    return directory


def policy_store(base: Path, policy: str) -> Path:
    """The store directory for ``policy``: the base logs hard-linked, its own manifest and index."""
    directory = base.parent / policy
    if directory.exists() and (directory / "manifest.json").exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    for path in base.iterdir():
        if path.name.startswith(("vectors-", "keys-")):
            target = directory / path.name
            if not target.exists():
                os.link(path, target)
    shutil.copy2(base / "manifest.json", directory / "manifest.json")
    return directory


# -- the measurement (child process) --------------------------------------------------------------
def _rss_mb() -> float:
    return bench_env.rss_mb()


def _policy_of(params: dict[str, Any]) -> Any:
    from attention_cloud.embed.faiss_index import IndexPolicy

    tuning = {"hnsw_ef_search": params.get("ef_search"), "ivf_nprobe": params.get("nprobe")}
    return IndexPolicy(kind=params["policy"], background=False,
                       **{field: value for field, value in tuning.items() if value})


def build(params: dict[str, Any]) -> dict[str, Any]:
    """Build the store's index under its forced policy, save it and record how long it took."""
    import faiss

    from attention_cloud.embed import VectorStore, load_embedder
    from attention_cloud.embed.faiss_index import configure_faiss

    embedder = load_embedder(params["embedder"])
    directory = Path(params["store"])
    policy = _policy_of(params)
    configure_faiss()
    threads = 1 if params["policy"] == "flat" else params["build_threads"]
    faiss.omp_set_num_threads(threads)
    one_add = None
    if params.get("one_add"):
        with CpuClock() as one_add:
            save_one_add_hnsw(directory, embedder.dim, policy)
    with CpuClock() as clock:
        store = VectorStore.open(directory, embedder_id=embedder.id, dim=embedder.dim, policy=policy)
        kind = store.index_kind
    with CpuClock() as save:
        store.close()  # saves an approximate index, so measuring runs load it
    built = one_add or clock
    record = {"build_s": built.wall, "build_cpu_s": built.cpu, "save_s": save.wall, "threads": threads,
              "kind": kind, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
              "git": bench_env.git_revision(), "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (directory / "build.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    return record


def measure(params: dict[str, Any]) -> dict[str, Any]:
    """Open the home and the forced-policy store, then time nearest/3 from Prolog per query."""
    from attention_cloud import Memory
    from attention_cloud.bridge import Var
    from attention_cloud.embed import VectorStore, load_embedder
    from attention_cloud.embed.faiss_index import configure_faiss

    out: dict[str, Any] = {"rss_start_mb": _rss_mb()}
    with CpuClock() as clock:
        mem = Memory.open(params["home"])
        jump = mem.jump
        embedder = load_embedder(params["embedder"])
    out.update(open_s=clock.wall, rss_memory_mb=_rss_mb())
    configure_faiss()
    directory = Path(params["store"])
    with CpuClock() as clock:
        store = VectorStore.open(directory, embedder_id=embedder.id, dim=embedder.dim, policy=_policy_of(params))
        kind = store.index_kind
    out.update(store_open_s=clock.wall, store_open_cpu_s=clock.cpu, index_kind=kind, rss_store_mb=_rss_mb())
    out["build"] = json.loads((directory / "build.json").read_text(encoding="utf-8"))
    jump._vectors = store  # nearest/3 in this Memory is now served by the forced-policy store
    texts: list[str] = params["texts"]
    fetch = K + 16  # what rules/jump.pl asks semantic_hits/4 for
    for text in texts[: params["warmup"]]:
        mem.pl.once("atc_jump:nearest", text, K, Var())
        store.search(embedder.embed([text])[0], fetch)
    rows: dict[str, list] = {"nearest": [], "nearest_cpu": [], "search": [], "search_cpu": [],
                             "embed": [], "hits": [], "search_hits": []}
    # Separate passes, so that no call finds the previous call's path of the same query in the
    # CPU caches (an HNSW walk over a 1M index touches megabytes).
    vectors = []
    for text in texts:
        wall = time.perf_counter()
        vectors.append(embedder.embed([text])[0])
        rows["embed"].append(time.perf_counter() - wall)
    for vector in vectors:
        wall, cpu = time.perf_counter(), time.process_time()
        found = store.search(vector, fetch)
        rows["search"].append(time.perf_counter() - wall)
        rows["search_cpu"].append(time.process_time() - cpu)
        rows["search_hits"].append([key for key, _ in found[:K]])
    for text in texts:
        wall, cpu = time.perf_counter(), time.process_time()
        (hits,) = mem.pl.once("atc_jump:nearest", text, K, Var())
        rows["nearest"].append(time.perf_counter() - wall)
        rows["nearest_cpu"].append(time.process_time() - cpu)
        rows["hits"].append([str(hit.args[0]) for hit in hits])
    out.update(rows)
    out["rss_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    mem.close()  # closes the store too
    return out


def save_one_add_hnsw(directory: Path, dim: int, policy: Any) -> None:
    """Build the HNSW index of a fresh store with one ``add`` call (the product adds in chunks of
    ``build_chunk`` rows so that a background build can be cancelled) and save it where the store
    loads it from. Same parameters as the product's; only the add pattern differs."""
    import faiss

    manifest_path = directory / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    rows = int(manifest["rows"])
    if rows != int(manifest["next_id"]):
        raise SystemExit(f"{directory}: row ids are not 0..rows-1; cannot build in one add")
    from attention_cloud.embed.mapped_rows import header_bytes

    log = next(directory.glob(f"vectors-{manifest['generation']}.f*"))  # float16 since format 2
    dtype = np.dtype(np.float16 if log.suffix == ".f16" else np.float32)
    offset = header_bytes(dtype)
    vectors = np.fromfile(log, dtype=dtype, offset=offset, count=rows * dim).astype(np.float32)
    vectors = vectors.reshape(rows, dim)
    inner = faiss.IndexHNSWFlat(dim, policy.hnsw_m, faiss.METRIC_INNER_PRODUCT)
    inner.hnsw.efConstruction = policy.hnsw_ef_construction
    inner.hnsw.efSearch = policy.hnsw_ef_search
    index = faiss.IndexIDMap(inner)
    index.add_with_ids(vectors, np.arange(rows, dtype=np.int64))
    faiss.write_index(index, str(directory / "index.faiss"))
    manifest["index"] = {"kind": "hnsw", "ntotal": rows, "covered": rows}
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")


def _child(command: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(bench_env.ROOT / "host"), "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run(command, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"child process failed:\n{proc.stderr[-4000:]}")
    return proc.stdout


def run_child(step: str, params: dict[str, Any], work: Path) -> dict[str, Any]:
    """:func:`build` or :func:`measure` in a fresh process (its own Prolog engine and RSS)."""
    request = work / f"{step}-request.json"
    request.write_text(json.dumps(params), encoding="utf-8")
    result = work / f"{step}-result.json"
    _child([sys.executable, str(Path(__file__).resolve()), f"--{step}", str(request), str(result)])
    return json.loads(result.read_text(encoding="utf-8"))


# -- scoring and the table ------------------------------------------------------------------------
def recall_at_k(found: list[list[str]], truth_rows: np.ndarray, truth_scores: np.ndarray, pool: Pool,
                query_rows: np.ndarray, row_of: dict[str, int]) -> float:
    """Mean fraction of the exact top K found; ties with the exact K-th score count as found."""
    total = 0.0
    for keys, rows, scores, query in zip(found, truth_rows, truth_scores, query_rows):
        exact = {pool.handles[r] for r in rows}
        query_vector = np.asarray(pool.vectors[query], dtype=np.float32)
        right = 0
        for key in keys[:K]:
            if key in exact:
                right += 1
            elif key in row_of:
                score = float(np.asarray(pool.vectors[row_of[key]], dtype=np.float32) @ query_vector)
                right += score >= float(scores[-1]) - 1e-6
        total += min(right, K) / K
    return total / len(found)


@dataclass
class Row:
    """One size x policy line of the table."""

    size: int
    policy: str
    build_s: float
    build_threads: int
    open_s: float
    rss_index_mb: float
    rss_peak_mb: float
    nearest_p50: float
    nearest_p95: float
    nearest_cpu_p50: float
    nearest_cpu_p95: float
    search_p50: float
    search_p95: float
    embed_p50: float
    overhead_p50: float
    recall_nearest: float
    recall_search: float


HEADERS = ["vectors", "policy", "build s (threads)", "store open s", "store RSS MB", "peak RSS MB",
           "nearest/3 p50 ms", "p95 ms", "CPU p50 ms", "CPU p95 ms", "VectorStore.search p50 ms", "p95 ms",
           "query embed p50 ms", "bridge + Prolog p50 ms", "nearest / search (p50)", "recall@10 nearest/3", "recall@10 search"]


def _ms(value: float) -> str:
    return "—" if value != value else f"{value:.2f}"  # NaN: not measured by that run


def table_rows(rows: list[Row]) -> list[list[Any]]:
    return [[f"{r.size:,}", r.policy, "same index" if ("efSearch" in r.policy or "nprobe" in r.policy) else f"{r.build_s:.1f} ({r.build_threads})",
             "—" if r.open_s != r.open_s else f"{r.open_s:.1f}",
             "—" if r.rss_index_mb != r.rss_index_mb else f"{r.rss_index_mb:,.0f}", f"{r.rss_peak_mb:,.0f}", f"{r.nearest_p50:.2f}", f"{r.nearest_p95:.2f}",
             f"{r.nearest_cpu_p50:.2f}", _ms(r.nearest_cpu_p95), f"{r.search_p50:.2f}", f"{r.search_p95:.2f}", f"{r.embed_p50:.2f}",
             _ms(r.overhead_p50),
             f"{r.nearest_p50 / r.search_p50:.1f}×", f"{r.recall_nearest:.3f}", f"{r.recall_search:.3f}"]
            for r in rows]


def notes(pool: Pool, sizes: dict[int, int], queries: int, home_info: dict[str, Any]) -> str:
    short = [f"{asked:,} asked, {got:,} indexed" for asked, got in sizes.items() if got < asked]
    text = (
        f"Vectors: the journal items of the cached {home_info.get('items', pool.info['items']):,}-item "
        f"ingested home of the synthetic corpus (seed {home_info.get('seed', 1)}), embedded with "
        f"`{pool.info['embedder']}`: {pool.info['items']:,} items have {pool.info['distinct_texts']:,} "
        f"distinct texts and {pool.info['distinct_vectors']:,} distinct vectors (duplicates kept once; "
        f"embedding took {pool.info['embed_s']:,} s in {pool.info['embed_workers']} processes, "
        f"{pool.info['embed_cpu_s']:,} CPU s; MiniLM itself embeds ~40 texts/s here, hours for these). "
        + (f"The corpus has too few distinct vectors for every size: {'; '.join(short)}. " if short else "")
        + "Policies as the product tunes them (faiss_index.py): HNSW M 32, efConstruction 40, "
        "efSearch 64; IVF-Flat nlist √n, nprobe 16; rows naming another efSearch or nprobe search the "
        "same saved index with that setting; *built in one add* is an HNSW index with the product's "
        "parameters built by a single faiss `add` (the product's `build_index` adds `build_chunk` = "
        "20,000 rows per call, so that background builds can be cancelled). "
        f"{queries} distinct held-out texts are the queries (never indexed). "
        "*nearest/3* is `atc_jump:nearest(Text, 10, Hits)` called from Python through the bridge "
        "(embedding the text, `semantic_hits/4` back into Python asking for 26, the liveness filter); "
        "*VectorStore.search* is the same store asked for 26 with the already embedded query: the "
        "ratio is what the bridge, Prolog and the embedding add; *bridge + Prolog* is the median per "
        "query of nearest/3 minus search minus embedding. CPU is this process's (all threads): "
        "where wall p95 is well above CPU p95 the call waited for a core (shared machine). "
        "*Store open* loads the saved index (flat: copies the log into a flat index). *Store RSS* is the process RSS after opening the store minus after "
        "opening the Memory (index, mapped vector log, key tables); *peak RSS* is the whole process, "
        "mostly the 1M-item Memory. "
        "*Build* is a store opened under the forced policy (`IndexPolicy(kind=..., background=False)`) "
        "in a process of its own, timed once, its index saved and loaded by the measuring runs; "
        "faiss threads in brackets (the product builds with one). Recall@10 is against exact search of the same vectors (boundary ties count). "
        "Each size/policy ran in a fresh process; searches use one faiss thread. "
        "— : not recorded by that run."
    )
    return text


#: Recall@10 a policy must reach to count as an answer in :func:`verdict`.
RECALL_GOAL = 0.95


def verdict(rows: list[Row]) -> str:
    """What the figures say, per size: the fastest nearest/3 that meets :data:`RECALL_GOAL`, how the
    product's defaults do, and what an exact scan costs per 100,000 vectors."""
    lines = []
    for size in sorted({r.size for r in rows}):
        here = [r for r in rows if r.size == size]
        good = [r for r in here if r.recall_nearest >= RECALL_GOAL]
        parts = []
        if good:
            best = min(good, key=lambda r: r.nearest_p50)
            parts.append(f"fastest nearest/3 with recall@10 ≥ {RECALL_GOAL}: **{best.policy}** "
                         f"({best.nearest_p50:.2f} ms p50, recall {best.recall_nearest:.3f})")
        defaults = [f"{r.policy} {r.nearest_p50:.2f} ms / {r.recall_nearest:.3f}" for r in here
                    if r.policy in POLICIES]
        parts.append("product defaults (p50 / recall): " + ", ".join(defaults))
        flat = [r for r in here if r.policy == "flat"]
        if flat:
            parts.append(f"an exact scan costs {flat[0].search_p50 / (size / 100_000):.2f} ms per 100,000 "
                         "vectors per query")
        lines.append(f"* {size:,} vectors: " + "; ".join(parts) + ".")
    return "\n".join(lines) + "\n"


def report(work: Path, queries: int, pool: Pool, home_info: dict[str, Any]) -> str:
    """The markdown of the latest run of every size measured with ``queries`` queries, smallest
    first: each with its own command and machine line, table and verdict; then the notes."""
    parts, asked = [], {}
    paths = sorted(work.glob(f"results-*-q{queries}.json"), key=lambda p: int(p.name.split("-")[1]))
    for path in paths:
        results = json.loads(path.read_text(encoding="utf-8"))
        rows = [Row(**{**{"overhead_p50": float("nan"), "nearest_cpu_p95": float("nan")}, **r})
                for r in results["rows"]]
        if not rows:
            continue
        asked[results["asked"]] = rows[0].size
        parts.append(results["header"] + "\n" + markdown_table(HEADERS, table_rows(rows)) + "\n" + verdict(rows))
    return "\n".join(parts) + "\n" + notes(pool, asked, queries, home_info) + "\n"


def summarise(size: int, policy: str, result: dict[str, Any], recall_nearest: float,
              recall_search: float) -> Row:
    return Row(size, policy, result["build"]["build_s"], result["build"]["threads"], result["store_open_s"],
               result["rss_store_mb"] - result["rss_memory_mb"], result["rss_peak_mb"],
               percentile_ms(result["nearest"], 50), percentile_ms(result["nearest"], 95),
               percentile_ms(result["nearest_cpu"], 50), percentile_ms(result["nearest_cpu"], 95),
               percentile_ms(result["search"], 50),
               percentile_ms(result["search"], 95), percentile_ms(result["embed"], 50),
               percentile_ms(list(np.subtract(np.subtract(result["nearest"], result["search"]), result["embed"])), 50),
               recall_nearest, recall_search)


def variants(args: argparse.Namespace) -> list[tuple[str, dict[str, int]]]:
    """(policy, search-time tuning) pairs to time: each policy as the product tunes it, then the
    other efSearch / nprobe values asked for (these reuse the saved index: no rebuild)."""
    out: list[tuple[str, dict[str, int]]] = []
    for policy in args.policies:
        out.append((policy, {}))
        if policy == "hnsw":
            out += [(policy, {"ef_search": ef}) for ef in args.hnsw_ef[1:]]
            if args.hnsw_one_add:
                out.append((policy, {"one_add": 1}))
        elif policy == "ivf":
            out += [(policy, {"nprobe": n}) for n in args.ivf_nprobe[1:]]
    return out


# -- main -----------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--policies", nargs="+", choices=POLICIES, default=list(POLICIES))
    parser.add_argument("--corpus-items", type=int, default=1_000_000,
                        help="items of the ingested home the texts come from (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--embedder", default="static", help="embedder spec (default static)")
    parser.add_argument("--workers", type=int, default=2, help="processes embedding the corpus")
    parser.add_argument("--hnsw-ef", type=int, nargs="+", default=[64],
                        help="efSearch values to time HNSW with (the first is the product's, 64)")
    parser.add_argument("--ivf-nprobe", type=int, nargs="+", default=[16],
                        help="nprobe values to time IVF with (the first is the product's, 16)")
    parser.add_argument("--hnsw-one-add", action="store_true",
                        help="also time an HNSW index built with one faiss add (the product adds in chunks)")
    parser.add_argument("--build-threads", type=int, default=1, help="faiss threads for index builds")
    parser.add_argument("--rebuild-index", action="store_true", help="rebuild cached indexes (re-time builds)")
    parser.add_argument("--cache", type=Path, default=bench_env.CACHE, help="cache folder (tests use a temporary one)")
    parser.add_argument("--update-md", action="store_true", help=f"write the table into BENCHMARKS.md ({SUBSECTION})")
    parser.add_argument("--md", type=Path, default=bench_env.BENCHMARKS_MD, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    parser.add_argument("--build-only", action="store_true", help="build the missing indexes, measure nothing")
    parser.add_argument("--render-only", action="store_true",
                        help="measure nothing: print (and with --update-md write) the saved results of every size")
    parser.add_argument("--measure", nargs=2, type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--build", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    for step, run in (("measure", measure), ("build", build)):
        if getattr(args, step):
            request, result = getattr(args, step)
            result.write_text(json.dumps(run(json.loads(request.read_text(encoding="utf-8")))), encoding="utf-8")
            return 0

    bench_env.CACHE = args.cache  # build_home and corpus read it at call time
    header = bench_env.run_header("nearest/3 from Prolog per index policy")
    from attention_cloud.embed import load_embedder

    embedder = load_embedder(args.embedder)
    work = _work_dir(args.cache, args.corpus_items, args.seed, args.embedder)
    work.mkdir(parents=True, exist_ok=True)
    home = private_home(work, args.corpus_items, args.seed, args.embedder)
    home_info = json.loads((work / "home.json").read_text(encoding="utf-8"))
    pool = load_pool(work, extract_items(home, work), args.embedder, args.workers)
    query_rows, order = split(pool, args.queries)
    row_of = {handle: row for row, handle in enumerate(pool.handles)}
    query_texts = [pool.texts[r] for r in query_rows]
    rows: list[Row] = []
    indexed_sizes: dict[int, int] = {}
    for size in [] if args.render_only else args.sizes:
        indexed = order[:size]
        indexed_sizes[size] = len(indexed)
        if len(indexed) < size:
            progress(f"only {len(indexed):,} distinct vectors for size {size:,}")
        truth_path = work / f"truth-{len(indexed)}-q{args.queries}.npz"
        if truth_path.exists():
            saved = np.load(truth_path)
            truth_rows, truth_scores = saved["rows"], saved["scores"]
        else:
            truth_rows, truth_scores = exact_truth(pool, query_rows, indexed)
            np.savez(truth_path, rows=truth_rows, scores=truth_scores)
        base = base_store(work, pool, indexed, embedder.dim, embedder.id)
        for policy, tuning in variants(args):
            store = policy_store(base, policy + ("-one-add" if "one_add" in tuning else ""))
            if args.rebuild_index and (not tuning or "one_add" in tuning):
                for stale in ("build.json", "index.faiss"):
                    (store / stale).unlink(missing_ok=True)
                shutil.copy2(base / "manifest.json", store / "manifest.json")
            label = policy + "".join(f" {LABELS[name]}" + (f" {value}" if name != "one_add" else "")
                                     for name, value in tuning.items())
            params = {"home": str(home), "store": str(store), "policy": policy, **tuning,
                      "embedder": args.embedder, "texts": query_texts, "warmup": args.warmup,
                      "build_threads": args.build_threads}
            if not (store / "build.json").exists():
                progress(f"{len(indexed):,} vectors, {label}: building")
                progress(f"built: {run_child('build', params, work)}")
            if args.build_only:
                continue
            progress(f"{len(indexed):,} vectors, {label}: measuring")
            result = run_child("measure", params, work)
            if result["index_kind"] != policy:
                raise SystemExit(f"the store served {result['index_kind']} instead of {policy}")
            row = summarise(len(indexed), label, result,
                            recall_at_k(result["hits"], truth_rows, truth_scores, pool, query_rows, row_of),
                            recall_at_k(result["search_hits"], truth_rows, truth_scores, pool, query_rows, row_of))
            rows.append(row)
            progress(f"{row}")
    if args.build_only:
        return 0
    for size, indexed_count in indexed_sizes.items():
        # one result file per size: a later run of one size keeps the others' latest figures
        results = {"header": header, "asked": size, "rows": [asdict(r) for r in rows if r.size == indexed_count]}
        (work / f"results-{indexed_count}-q{args.queries}.json").write_text(json.dumps(results, indent=1),
                                                                             encoding="utf-8")
    body = report(work, args.queries, pool, home_info)
    print(body)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1), encoding="utf-8")
    if args.update_md:
        bench_env.update_benchmarks(SECTION, SUBSECTION, body, args.md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
