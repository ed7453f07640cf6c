"""The faiss index policy behind :class:`~attention_cloud.embed.store.VectorStore`.

Policy (measured with ``scripts/bench/embed_speed.py`` on this project's 2-core machines, 100k
vectors of real chat text, one query at a time; figures in BENCHMARKS.md):

* **Exact below 50,000 vectors, with no index at all.** "Flat" means the store scans its
  memory-mapped vector log in place (:class:`~attention_cloud.embed.mapped_rows.MappedRows`:
  faiss' SIMD scan over the float16 rows, a few milliseconds per query, 3.5 ms at 50k); no
  second copy of the vectors is held in memory.
* **IVF with 4-bit scalar-quantized codes at and above 50,000** (the default ``ann``):
  ``IndexIVFScalarQuantizer(QT_4bit)``, ``nlist = sqrt(n)`` lists trained on a sample of
  ``64 * nlist`` rows, ``nprobe = 16``. It holds half a byte per dimension (plus an 8-byte id)
  per vector instead of a float32 copy (1/8 of IVF-Flat's 4 bytes), and is only a candidate
  generator: the store fetches :func:`rerank_width` (4k) candidates and orders them by their
  exact cosine read from the log, so the order of what is returned is exact. Measured on 100k
  real vectors, 200 of them as queries (an IVF prototype, the same recall definition as
  ``scripts/bench/vector_recall.py``): recall@10 against exact float32 0.939 (MiniLM) and 0.961
  (hash) re-ranked from 4-bit codes, 0.939 / 0.965 from 8-bit codes, 0.939 / 0.966 with IVF-Flat;
  product quantization (``IVFPQ``, d/8 bytes) searches 10x faster but recalls 0.924 / 0.943 and
  trains 5x slower. The loss against exact search is the lists nprobe does not visit (nprobe 32
  would give 0.962 / 0.988 at twice the search time). IVF takes ids natively (the store's stable row ids, which survive log
  compaction), builds in seconds and removes rows cheaply. It is retrained when the rows
  outgrow the lists (``nlist < 0.75 * sqrt(n)``: at most 4/3 of the optimum's rows a list). The build runs in a background thread while exact
  scans keep serving; rows added meanwhile are caught up when it is adopted. A saved IVF-Flat
  index of an older store is rebuilt with 4-bit codes (:func:`is_current`).
* **HNSW** (``ann="hnsw"``; ``M = 32``, ``efConstruction = 40``, ``efSearch = 64``; wrapped in
  ``IndexIDMap`` for the row ids) is the opt-in alternative (it keeps its own float32 copy of
  the vectors, unlike the default; its candidates are re-ranked the same way): 0.3-0.5 ms a search, but as built here, in cancellable chunks of
  ``build_chunk`` rows, its recall@10 stalls at 0.95 (100k) and 0.92 (712k) whatever the
  efSearch, where one add of the same rows reaches 0.997; and it builds slowly (27 s at 100k,
  196 s at 712k on two threads). HNSW cannot delete, so removed rows stay as tombstones that
  searches skip through an ``IDSelectorBitmap`` of live ids; past 30 % tombstones it is rebuilt.
* Isotropic random vectors are the worst case for both (every vector almost equally far):
  recall@10 falls to ~0.15 there; real embeddings cluster, which is what the figures above use.
* Filtered searches whose candidates number at most ``exact_filter_limit`` (20,000) skip the
  index and score the candidates exactly from the memory-mapped vector log: graph and list
  indexes lose recall under very selective filters, and scoring 20k candidates exactly costs
  what a flat scan of 20k rows does (a few ms; a 1 % filter at 100k: 0.13 ms).
* ``faiss.omp_set_num_threads(1)``: one query is far too small to parallelise, and faiss' OpenMP
  threads would fight onnxruntime and the Prolog engine for two cores.

Contents:
    IndexPolicy       -- the tunables above, frozen
    configure_faiss   -- process-wide settings, applied once
    build_index       -- a new index of a kind over given ids and vectors (cancellable)
    add_to_index, search_index, index_kind, is_current, rerank_width, read_index, write_index
    read_mapped_ivf   -- a saved IVF index with its lists mapped from the file, for readers
    empty_like_ivf    -- a trained, empty IVF index sharing another's lists' centres and codes

**Readers map the lists.** A read-only store (every serving process) maps a saved IVF index's
lists from its file (``IO_FLAG_MMAP_IFC``) instead of reading them into memory: at a million
items those lists are 437 MB, of which a search touches the ``nprobe`` lists it visits (pages
the kernel may drop and re-read, shared by every reader of the home). A mapped index cannot
grow, so the rows a reader must add to it (written after the index was saved) go into a small
in-memory index of the same centres and codes (:func:`empty_like_ivf`), and
:func:`search_index` merges the two: the lists visited are the same (the same centres), so the
candidates are those one index holding both would give.
"""
from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import faiss
import numpy as np

__all__ = [
    "IndexPolicy",
    "configure_faiss",
    "build_index",
    "add_to_index",
    "search_index",
    "index_kind",
    "is_current",
    "rerank_width",
    "read_index",
    "read_mapped_ivf",
    "empty_like_ivf",
    "write_index",
    "KINDS",
]

#: Index kinds a policy can name.
KINDS = ("flat", "hnsw", "ivf")
#: Below this many live rows every policy uses a flat index.
MIN_ANN_ROWS = 1024
#: The scalar quantizer of IVF codes: 4 bits a dimension (re-ranked exactly, see module doc).
IVF_CODES = faiss.ScalarQuantizer.QT_4bit

#: Fewest queries a thread of a split batch search takes (below it a split costs more than it saves).
_MIN_THREAD_QUERIES = 64

_configure_lock = threading.Lock()
_configured = False


def configure_faiss() -> None:
    """Apply the process-wide faiss settings (one OpenMP thread) once."""
    global _configured
    with _configure_lock:
        if not _configured:
            faiss.omp_set_num_threads(1)
            _configured = True


def rerank_width(k: int) -> int:
    """Candidates fetched from an approximate index for ``k`` results, re-ranked exactly: four
    times as many (ten more at least) absorb the 4-bit quantization's reordering."""
    return max(4 * k, k + 10)


@dataclass(frozen=True)
class IndexPolicy:
    """Which faiss index a store uses and how (see module doc).

    Attributes:
        kind: ``"auto"`` (flat below ``flat_limit`` live rows, ``ann`` from there), or force
            ``"flat"``, ``"hnsw"`` or ``"ivf"``.
        flat_limit: live rows from which ``auto`` switches to ``ann``.
        ann: the approximate kind ``auto`` uses: ``"hnsw"`` or ``"ivf"``.
        background: build approximate indexes in a background thread.
        exact_filter_limit: filtered searches over at most this many candidates are exact.
        tombstone_rebuild: rebuild an HNSW index when this fraction of it is removed rows.
        ivf_retrain_below: retrain an IVF index once its lists fall below this fraction of
            √(live rows): a search scans ``nprobe`` lists, so lists trained on a store a
            fraction of today's size each hold that much more to scan (BENCHMARKS.md,
            "...; the IVF lists a grown store keeps (qa77)").
    """

    kind: str = "auto"
    flat_limit: int = 50_000
    ann: str = "ivf"
    hnsw_m: int = 32
    hnsw_ef_construction: int = 40
    hnsw_ef_search: int = 64
    ivf_nprobe: int = 16
    background: bool = True
    exact_filter_limit: int = 20_000
    tombstone_rebuild: float = 0.3
    ivf_retrain_below: float = 0.75
    build_chunk: int = 20_000

    def __post_init__(self) -> None:
        if self.kind not in ("auto",) + KINDS:
            raise ValueError(f"index kind must be auto, flat, hnsw or ivf, not {self.kind!r}")
        if self.ann not in ("hnsw", "ivf"):
            raise ValueError(f"ann must be hnsw or ivf, not {self.ann!r}")

    def kind_for(self, live_rows: int, current: str | None = None) -> str:
        """The kind a store with ``live_rows`` should use; ``current`` adds hysteresis so that
        a store hovering around ``flat_limit`` does not rebuild back and forth."""
        if live_rows < MIN_ANN_ROWS:
            return "flat"  # nothing to approximate: a flat scan of this few rows is microseconds
        if self.kind != "auto":
            return self.kind
        if current == self.ann and live_rows >= self.flat_limit // 2:
            return self.ann
        return self.ann if live_rows >= self.flat_limit else "flat"


def index_kind(index: faiss.Index) -> str:
    """``flat``, ``hnsw`` or ``ivf`` for an index made by :func:`build_index`."""
    inner = faiss.downcast_index(index.index) if isinstance(index, faiss.IndexIDMap) else index
    if isinstance(inner, faiss.IndexHNSW):
        return "hnsw"
    if isinstance(inner, faiss.IndexIVF):
        return "ivf"
    return "flat"


def is_current(index: faiss.Index) -> bool:
    """Whether a saved index is of the kind :func:`build_index` makes now (an IVF index holds
    4-bit codes, not the float32 vectors older stores saved)."""
    if not isinstance(index, faiss.IndexIVF):
        return True
    return isinstance(index, faiss.IndexIVFScalarQuantizer) and index.sq.qtype == IVF_CODES


def ivf_lists(index: faiss.Index) -> int:
    """Number of inverted lists of an IVF index (0 for other kinds)."""
    return int(index.nlist) if isinstance(index, faiss.IndexIVF) else 0


def _empty_index(
    kind: str, dim: int, policy: IndexPolicy, train: np.ndarray | None = None, nlist: int = 1
) -> faiss.Index:
    if kind == "hnsw":
        inner = faiss.IndexHNSWFlat(dim, policy.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        inner.hnsw.efConstruction = policy.hnsw_ef_construction
        inner.hnsw.efSearch = policy.hnsw_ef_search
        return faiss.IndexIDMap(inner)
    if kind == "ivf":
        # IVF takes ids natively and removes cheaply, so it needs no IndexIDMap around it.
        index = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(dim), dim, nlist, IVF_CODES,
                                              faiss.METRIC_INNER_PRODUCT)
        index.cp.min_points_per_centroid = 1  # small stores: no warning, no failure
        if train is None or len(train) < nlist:
            raise ValueError(f"an IVF index of {nlist} lists needs at least {nlist} training rows")
        index.train(np.ascontiguousarray(train, dtype=np.float32))
        index.nprobe = policy.ivf_nprobe
        return index
    raise ValueError(f"no faiss index is built for kind {kind!r} (flat search scans the vector log)")


def build_index(
    kind: str,
    dim: int,
    ids: np.ndarray,
    vectors_of: Callable[[np.ndarray], np.ndarray],
    policy: IndexPolicy,
    *,
    cancelled: Callable[[], bool] = lambda: False,
) -> faiss.Index | None:
    """A new index of ``kind`` holding ``ids``; ``vectors_of(id_slice)`` supplies their vectors.

    Works in chunks of ``policy.build_chunk`` rows and returns ``None`` as soon as
    ``cancelled()`` says so (background builds stop promptly on close).
    """
    configure_faiss()
    ids = np.asarray(ids, dtype=np.int64)
    train = None
    nlist = 1
    if kind == "ivf":
        if not len(ids):
            raise ValueError("an IVF index cannot be trained on no rows")
        nlist = max(1, int(math.sqrt(len(ids))))
        sample_size = min(len(ids), 64 * nlist)
        sample_ids = np.sort(np.random.default_rng(0).choice(ids, size=sample_size, replace=False))
        train = vectors_of(sample_ids)
    index = _empty_index(kind, dim, policy, train, nlist)
    for start in range(0, len(ids), policy.build_chunk):
        if cancelled():
            return None
        chunk = ids[start : start + policy.build_chunk]
        add_to_index(index, chunk, vectors_of(chunk))
    return index


def add_to_index(index: faiss.Index, ids: np.ndarray, vectors: np.ndarray) -> None:
    """Add ``vectors`` under ``ids`` (int64) to ``index``."""
    if len(ids):
        index.add_with_ids(
            np.ascontiguousarray(vectors, dtype=np.float32), np.ascontiguousarray(ids, dtype=np.int64)
        )


def search_index(
    index: faiss.Index,
    queries: np.ndarray,
    k: int,
    policy: IndexPolicy,
    allowed_bits: np.ndarray | None = None,
    threads: int = 1,
    tail: faiss.Index | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """faiss search; ``allowed_bits`` is a little-endian packed bitmap of ids that may match.

    ``threads`` above 1 splits a batch of queries into that many slices searched at once, one
    thread each (faiss releases the GIL and a CPU index answers concurrent searches); each
    query's hits are what a one-thread search gives. Every search runs with one OpenMP
    thread, whichever thread calls it. With ``tail`` (an :func:`empty_like_ivf` of ``index``
    holding further rows) both are searched over the same lists and the best ``k`` of the two
    kept, as one index holding both rows would."""
    kind = index_kind(index)
    queries = np.ascontiguousarray(queries, dtype=np.float32)

    def search(part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # OpenMP's thread count is a per-thread setting: a thread Python started (a pool's, a
        # caller's) would otherwise search with one OpenMP thread per core, all of them spinning
        faiss.omp_set_num_threads(1)
        selector = (faiss.IDSelectorBitmap(len(allowed_bits), faiss.swig_ptr(allowed_bits))
                    if allowed_bits is not None else None)
        if kind == "hnsw":
            params: faiss.SearchParameters = faiss.SearchParametersHNSW(efSearch=max(policy.hnsw_ef_search, k))
        elif kind == "ivf":
            params = faiss.SearchParametersIVF(nprobe=policy.ivf_nprobe)
        else:
            params = faiss.SearchParameters()
        if selector is not None:
            params.sel = selector
        if tail is None or tail.ntotal == 0:
            return index.search(part, k, params=params)
        # the lists to visit are chosen once (the same centres) and searched in both indexes
        centre_scores, centres = index.quantizer.search(part, policy.ivf_nprobe)
        scores, labels = _search_lists(index, part, k, centres, centre_scores, params)
        tail_scores, tail_labels = _search_lists(tail, part, k, centres, centre_scores, params)
        scores = np.concatenate([scores, tail_scores], axis=1)
        labels = np.concatenate([labels, tail_labels], axis=1)
        scores[labels < 0] = -np.inf
        best = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(scores, best, axis=1), np.take_along_axis(labels, best, axis=1)

    threads = max(1, min(threads, len(queries) // _MIN_THREAD_QUERIES))
    if threads == 1:
        return search(queries)
    from concurrent.futures import ThreadPoolExecutor

    parts = np.array_split(queries, threads)
    with ThreadPoolExecutor(threads, thread_name_prefix="atc-faiss-search") as pool:
        found = list(pool.map(search, parts))
    return np.concatenate([d for d, _ in found]), np.concatenate([i for _, i in found])


def _search_lists(index: faiss.Index, queries: np.ndarray, k: int, centres: np.ndarray,
                  centre_scores: np.ndarray, params: faiss.SearchParameters) -> tuple[np.ndarray, np.ndarray]:
    """An IVF search of the lists ``centres`` (chosen by the caller) with ``params`` (faiss'
    Python wrapper of search_preassigned takes no params: the C++ call does)."""
    n = len(queries)
    scores = np.empty((n, k), dtype=np.float32)
    labels = np.empty((n, k), dtype=np.int64)
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    centres = np.ascontiguousarray(centres, dtype=np.int64)
    centre_scores = np.ascontiguousarray(centre_scores, dtype=np.float32)
    index.search_preassigned_c(n, faiss.swig_ptr(queries), k, faiss.swig_ptr(centres),
                               faiss.swig_ptr(centre_scores), faiss.swig_ptr(scores),
                               faiss.swig_ptr(labels), False, params)
    return scores, labels


def write_index(index: faiss.Index, path: Path) -> None:
    """Write ``index`` to ``path`` atomically (temporary file, fsync, rename)."""
    temporary = path.with_name(path.name + ".tmp")
    faiss.write_index(index, str(temporary))
    with open(temporary, "rb+") as handle:
        os.fsync(handle.fileno())
    temporary.replace(path)


def read_mapped_ivf(path: Path) -> faiss.Index | None:
    """The IVF index (of the current kind, :func:`is_current`) stored at ``path`` with its
    lists mapped from the file rather than read (see the module doc), or ``None`` when it is
    missing, unreadable or of another kind. It must not be added to or removed from."""
    if not path.is_file():
        return None
    try:
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY)
    except RuntimeError:
        return None
    if not isinstance(index, faiss.IndexIVFScalarQuantizer) or not is_current(index):
        return None
    return index


def empty_like_ivf(index: faiss.Index) -> faiss.Index:
    """An empty IVF index with ``index``'s centres (its quantizer, shared: keep ``index``
    alive while this one is used), scalar quantizer and probe count: rows added to it land in
    the lists they would in ``index`` with the same codes."""
    tail = faiss.IndexIVFScalarQuantizer(index.quantizer, index.d, index.nlist, index.sq.qtype,
                                         index.metric_type, index.by_residual)
    tail.sq.trained = index.sq.trained
    tail.is_trained = True
    tail.nprobe = index.nprobe
    return tail


def read_index(path: Path) -> faiss.Index | None:
    """The index stored at ``path``, or ``None`` when it is missing or unreadable."""
    if not path.is_file():
        return None
    try:
        return faiss.read_index(str(path))
    except RuntimeError:
        return None
