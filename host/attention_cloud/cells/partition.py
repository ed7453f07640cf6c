"""Partitioning memory into cells: features, k-means, adjacency, splits, and a distance.

Pure functions over numpy arrays (no Prolog, no home): :mod:`.api` gathers the inputs and
stores the result. Everything here is deterministic for the same inputs in the same order
(fixed seeds; callers sort by handle).

**Features.** An item is placed by what memory already knows of it, blended into one vector:
its embedding (unit length, weight ``VECTOR_WEIGHT``), the entity-graph links that pick out
something specific (files, mentions, names, speaker, session; hashed into ``KEY_DIM`` signed
buckets, unit length, weight ``KEY_WEIGHT``), and its time (position in the memory's time
range, 0..1, weight ``TIME_WEIGHT``; an item placed later outside that range sits at its
nearer end). Items without a vector are placed by links and time.

**Cells.** k-means (faiss, fixed seed) with ``k = cell_count(n)`` ~ sqrt(n / 2): about as many
cells as items per cell, so both a cell's member list and the map of cells stay small. The
cells nearest each other are adjacent (``ADJACENT`` per cell, symmetric), weighted by centroid
cosine blended with the overlap of the cells' top entities.

**Incremental.** A new item joins the cell whose centroid is nearest; a cell that grows past
``split_size(n)`` splits in two (2-means of its members), its parts again until none is past
it; a cell that falls below ``merge_size(n)`` joins its nearest neighbour.
:func:`adjusted_rand` measures how far an incremental partition is from a full rebuild (1 =
the same co-memberships, 0 = chance).
"""
from __future__ import annotations

import hashlib
import math
import zlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Sequence

import numpy as np

VECTOR_WEIGHT = 1.0
KEY_WEIGHT = 0.5
TIME_WEIGHT = 0.3
KEY_DIM = 64
#: Neighbours kept per cell before the adjacency is made symmetric.
ADJACENT = 6
#: Share of an adjacency weight that comes from shared entities (the rest: centroid cosine).
ENTITY_SHARE = 0.25
#: Members per cell recorded as central (nearest its centroid): they speak for it in its ladder.
CENTRAL = 5
SEED = 1234
NITER = 20
#: Iterations of a k-means started from the cells it replaces (:func:`seed_centroids`): the
#: start already fits most items, and a rebuild runs k-means again from its own cells until
#: they settle, so the iterations add up over its runs.
SEEDED_NITER = 8


def cell_count(n: int) -> int:
    """How many cells a partition of ``n`` items has: round(sqrt(n / 2)), at least 1, at most
    4096 (about sqrt(2n) items per cell)."""
    if n <= 0:
        return 0
    return max(1, min(4096, round(math.sqrt(n / 2))))


def target_size(n: int) -> float:
    """The mean cell size a rebuild of ``n`` items aims at."""
    return n / max(1, cell_count(n))


def split_size(n: int) -> int:
    """A cell with more members than this splits in two (twice the target, at least 8)."""
    return max(8, int(2 * target_size(n)))


def merge_size(n: int) -> int:
    """A cell with fewer members than this joins its nearest neighbour (an eighth of the
    target; 0 below 16 target size, so a small memory keeps its small cells)."""
    return int(target_size(n) / 8)


def stamp(iso: str) -> float | None:
    """POSIX seconds of an ISO 8601 time, or None when there is none."""
    if not iso:
        return None
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def key_vectors(keys: Sequence[Sequence[str]]) -> np.ndarray:
    """Signed hashed bags of each item's link keys, unit length (rows of zeros for none)."""
    return key_rows(key_counts(keys))


def key_counts(keys: Sequence[Sequence[str]]) -> np.ndarray:
    """The signed counts behind :func:`key_vectors` (int32, one row of ``KEY_DIM`` per item):
    kept in a narrow integer type by a large rebuild, 64 bytes an item instead of 256."""
    out = np.zeros((len(keys), KEY_DIM), dtype=np.int32)
    for row, ks in enumerate(keys):
        for k in ks:
            h = zlib.crc32(k.encode("utf-8"))
            out[row, h % KEY_DIM] += 1 if (h >> 16) & 1 else -1
    return out


def key_rows(counts: np.ndarray) -> np.ndarray:
    """:func:`key_counts` rows as :func:`key_vectors` gives them: float32, unit length."""
    out = counts.astype(np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


@dataclass(frozen=True)
class FeatureSpace:
    """How features are made: the embedding width and the time range (kept with the
    partition so that later items are placed in the same space)."""

    dim: int
    t_min: float
    t_max: float

    def features(self, vectors: np.ndarray | None, keys: Sequence[Sequence[str]],
                 times: Sequence[float | None]) -> np.ndarray:
        """Blended features, one row per item: ``vectors`` (rows of zeros where an item has
        none; None when no item has one), link keys and times."""
        return self.features_from(vectors, key_vectors(keys), times)

    @property
    def width(self) -> int:
        """Columns of a feature row: the embedding, the hashed link keys, the time."""
        return self.dim + KEY_DIM + 1

    def features_from(self, vectors: np.ndarray | None, keyed: np.ndarray,
                      times: Sequence[float | None] | np.ndarray, *, present: np.ndarray | None = None,
                      out: np.ndarray | None = None) -> np.ndarray:
        """:meth:`features` with the link keys already hashed (``key_vectors``). ``times`` may
        be an array with NaN for no time; ``vectors`` may hold only the rows where ``present``
        is true (the others are zeros); ``out`` (rows x :attr:`width`, float32) is filled in
        place of a new array."""
        n = len(keyed)
        if out is None:
            out = np.empty((n, self.width), dtype=np.float32)
        vec = out[:, :self.dim]
        vec[:] = 0.0
        if vectors is not None and self.dim:
            if present is None:
                vec[:] = vectors
            else:
                vec[present] = vectors
            norms = np.linalg.norm(vec, axis=1, keepdims=True)
            np.divide(vec, norms, out=vec, where=norms > 0)
            np.multiply(vec, VECTOR_WEIGHT, out=vec)
        np.multiply(keyed, KEY_WEIGHT, out=out[:, self.dim:self.dim + KEY_DIM])
        span = max(self.t_max - self.t_min, 1.0)
        mid = 0.5
        if isinstance(times, np.ndarray):
            t = np.where(np.isnan(times), mid, (times - self.t_min) / span).astype(np.float32)
        else:
            t = np.array([mid if s is None else (s - self.t_min) / span for s in times], dtype=np.float32)
        # An item placed later may lie outside the range the space was made for (an older
        # archive ingested after an hour of work would be thousands of spans away, and its
        # time would outweigh everything else): it sits at the nearer end.
        np.clip(t, 0.0, 1.0, out=t)
        np.multiply(t.reshape(n), TIME_WEIGHT, out=out[:, -1])
        return out


def feature_space(dim: int, times: Iterable[float | None] | np.ndarray) -> FeatureSpace:
    """The space of a rebuild: its embedding width and the range of its items' times (an
    array of times has NaN for none)."""
    if isinstance(times, np.ndarray):
        known = times[~np.isnan(times)]
        return FeatureSpace(dim=dim, t_min=float(known.min()) if len(known) else 0.0,
                            t_max=float(known.max()) if len(known) else 0.0)
    known = [t for t in times if t is not None]
    return FeatureSpace(dim=dim, t_min=min(known) if known else 0.0,
                        t_max=max(known) if known else 0.0)


def kmeans(features: np.ndarray, k: int, seed: int = SEED,
           init: np.ndarray | None = None) -> np.ndarray:
    """Cluster labels (0..k-1) of each row: faiss k-means with a fixed seed, then each row
    assigned to its nearest centroid. ``k`` is capped at the number of rows. ``init`` (k rows,
    :func:`seed_centroids`) starts the iterations there instead of at a seeded sample of rows."""
    import faiss

    n = features.shape[0]
    k = max(1, min(k, n))
    if k == 1:
        return np.zeros(n, dtype=np.int64)
    x = np.ascontiguousarray(features, dtype=np.float32)
    seeded = init is not None and len(init) == k
    km = faiss.Kmeans(x.shape[1], k, niter=SEEDED_NITER if seeded else NITER, seed=seed,
                      verbose=False, max_points_per_centroid=256, min_points_per_centroid=1)
    km.train(x, init_centroids=init if seeded else None)
    _, labels = km.index.search(x, 1)
    return labels[:, 0].astype(np.int64)


def seeded_count(k: int, old_cells: int) -> int:
    """How many clusters a rebuild started from an old partition of ``old_cells`` cells asks
    k-means for, ``k`` being :func:`cell_count`: the old count, within ``k`` and twice ``k``
    (a partition's splits leave it a few more cells than ``k``; asking for fewer would fold
    those regions into others at every rebuild)."""
    return max(k, min(old_cells, 2 * k))


def seed_centroids(features: np.ndarray, was: Sequence[str | None], k: int,
                   seed: int = SEED) -> np.ndarray | None:
    """Where a rebuild's k-means starts (``k`` rows), from the partition it replaces: the
    centroid, in the rebuild's feature space, of each old cell's members among ``features``'
    rows (``was`` names each row's old cell, None for an item in none), the ``k`` cells with
    most such members (ties by id); should there be fewer, seeded rows of ``features`` for the
    rest. None when no row was in a cell (k-means starts from a seeded sample, as for a first
    build; ``k`` is :func:`seeded_count`). k-means run afresh moves most boundaries even when
    a few items were added (two seeds agree at an adjusted Rand index of ~0.55), so a region
    that persisted got another cell and another id; started from where the cells were, it
    moves them only as far as the items now ask, and the cells it gives continue the old ones
    (:func:`cells.api._keeping_ids`)."""
    rows_of: dict[str, list[int]] = {}
    for row, cell in enumerate(was):
        if cell is not None:
            rows_of.setdefault(cell, []).append(row)
    n = features.shape[0]
    k = max(1, min(k, n))
    if not rows_of or k == 1:
        return None
    ranked = sorted(rows_of, key=lambda c: (-len(rows_of[c]), c))[:k]
    out = np.empty((k, features.shape[1]), dtype=np.float32)
    for i, cell in enumerate(ranked):
        out[i] = features[np.asarray(rows_of[cell], dtype=np.int64)].mean(axis=0)
    if len(ranked) < k:   # memory grew: the cells it needs more of start at seeded items
        rng = np.random.default_rng(seed)
        extra = np.sort(rng.choice(n, size=k - len(ranked), replace=False))
        out[len(ranked):] = features[extra]
    return out


def cell_id(members: Iterable[str]) -> str:
    """A cell's id, from its members when it was made: ``cell_`` and 12 hex digits."""
    digest = hashlib.sha1("\n".join(sorted(members)).encode("utf-8")).hexdigest()
    return "cell_" + digest[:12]


def central(members: Sequence[str], features: np.ndarray) -> list[str]:
    """The members nearest the centroid of their features (``CENTRAL`` of them), nearest
    first, ties by handle."""
    centroid = features.mean(axis=0)
    d = ((features - centroid) ** 2).sum(axis=1)
    order = sorted(range(len(members)), key=lambda i: (round(float(d[i]), 6), members[i]))
    return [members[i] for i in order[:CENTRAL]]


def split(members: Sequence[Any], features: np.ndarray) -> list[list[int]]:
    """Two groups of row indices (2-means, fixed seed), each non-empty; halves by order when
    the members cannot be told apart."""
    labels = kmeans(features, 2)
    groups = [[i for i in range(len(members)) if labels[i] == g] for g in (0, 1)]
    if not groups[0] or not groups[1]:
        half = len(members) // 2
        groups = [list(range(half)), list(range(half, len(members)))]
    return groups


def bounded(groups: Sequence[Sequence[int]], features: Any, limit: int) -> list[np.ndarray]:
    """The groups (row indices) with every group larger than ``limit`` split in two, again
    and again, until none is: k-means leaves some clusters several times the mean size, and a
    cell's cost in a frame's walk grows with its size. Each group comes back as an int64 array
    of its rows, ascending. ``features`` is the feature matrix, or ``features(rows)`` gives
    those rows of it."""
    rows_of = features if callable(features) else (lambda rows: features[rows])
    out: list[np.ndarray] = []
    todo = [np.sort(np.asarray(g, dtype=np.int64)) for g in groups]
    while todo:
        rows = todo.pop()
        if len(rows) <= limit:
            out.append(rows)
            continue
        for half in split(rows, rows_of(rows)):
            todo.append(rows[np.asarray(half, dtype=np.int64)])
    return out


def adjacency(ids: Sequence[str], centroids: np.ndarray,
              entities: Sequence[Sequence[str]]) -> list[tuple[str, str, float]]:
    """Weighted links between cells: each cell to its ``ADJACENT`` best, the weight
    ``(1 - ENTITY_SHARE) * cosine + ENTITY_SHARE * jaccard(top entities)`` (cosine of centroids
    clipped at 0). Each unordered pair once, with the larger weight found for it."""
    k = len(ids)
    if k < 2:
        return []
    c = centroids / np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    cos = np.clip(c @ c.T, 0.0, 1.0)
    sets = [set(e) for e in entities]
    best: dict[tuple[str, str], float] = {}
    for i in range(k):
        weights = []
        for j in range(k):
            if i == j:
                continue
            union = sets[i] | sets[j]
            jac = len(sets[i] & sets[j]) / len(union) if union else 0.0
            w = (1 - ENTITY_SHARE) * float(cos[i, j]) + ENTITY_SHARE * jac
            weights.append((-round(w, 4), ids[j], w))
        for _, other, w in sorted(weights)[:ADJACENT]:
            if w <= 0:
                continue
            pair = (ids[i], other) if ids[i] < other else (other, ids[i])
            best[pair] = max(best.get(pair, 0.0), round(w, 4))
    return [(a, b, w) for (a, b), w in sorted(best.items())]


def adjusted_rand(a: Sequence[str], b: Sequence[str]) -> float:
    """The adjusted Rand index of two partitions of the same items (labels in the same item
    order): 1.0 when they group every pair alike, about 0 for unrelated partitions."""
    if len(a) != len(b):
        raise ValueError("partitions of different items")
    n = len(a)
    if n < 2:
        return 1.0
    la = {x: i for i, x in enumerate(sorted(set(a)))}
    lb = {x: i for i, x in enumerate(sorted(set(b)))}
    table = np.zeros((len(la), len(lb)), dtype=np.int64)
    for x, y in zip(a, b):
        table[la[x], lb[y]] += 1

    def pairs(v: np.ndarray) -> float:
        return float((v * (v - 1) // 2).sum())

    index = pairs(table)
    ra, rb = pairs(table.sum(axis=1)), pairs(table.sum(axis=0))
    total = n * (n - 1) / 2
    expected = ra * rb / total
    top = (ra + rb) / 2
    if top == expected:
        return 1.0
    return (index - expected) / (top - expected)
