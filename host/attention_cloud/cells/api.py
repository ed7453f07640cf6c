"""Cells of a memory home: build, keep up to date, list, show.

The partition itself is Prolog facts (rules/cells.pl, the ``_at_cells`` namespace), written
through durable batches like every other fact; this module computes it from the items'
vectors, links and times (:mod:`.partition`) and sends whole cells to
``atc_cells:cells_store/4``. A small cache, ``home/cells/state.npz``, keeps each cell's
feature sum and count so that new items are placed without reading every member again; it
carries the partition version it matches, and is recomputed from the facts whenever it does
not match (after a forget, a rebuild by another process, or a crash).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..bridge import Atom, Term, Var
from ..api_lock import serialised
from ..store import sync_journal
from ..curate.handles import HandleList
from . import partition as P
from .counts import cells_exist, cells_stats  # noqa: F401  (re-exported)
from .files import STATE_FILE
from .listing import cell_show, cells_list, hot_cells  # noqa: F401  (re-exported)
from . import rows

#: Memory grown to this many times the items the last build partitioned is partitioned anew
#: (placing items one by one drifts from what a build would make: a home built from its first
#: session and grown a hundredfold by assignment agreed with a rebuild at ARI 0.28). Builds
#: then cost at most about twice a build of the final size, over any growth.
REBUILD_GROWTH = 2
#: How the cached feature sums were made: a cache of another version is recomputed from the
#: facts (2: an item's time clipped to the partition's range, see :mod:`.partition`).
FEATURES = 2


@dataclass
class CellsReport:
    """What a build or an incremental update did."""

    cells: int = 0
    items: int = 0
    assigned: int = 0
    split: int = 0
    merged: int = 0
    rebuilt: bool = False
    seconds: float = 0.0
    changed: list[str] = field(default_factory=list)
    #: vector rows written to the cells' copies (:mod:`.rows`)
    rows_copied: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"cells": self.cells, "items": self.items, "assigned": self.assigned,
                "split": self.split, "merged": self.merged, "rebuilt": self.rebuilt,
                "rows_copied": self.rows_copied, "seconds": round(self.seconds, 3)}


@dataclass
class _Inputs:
    handles: list[str]
    times: list[float | None]
    keys: list[list[str]]


@dataclass
class _State:
    """Feature sums and counts per cell, and the feature space: the centroids are sums/counts."""

    version: int
    space: P.FeatureSpace
    ids: list[str]
    sums: np.ndarray
    counts: np.ndarray

    def centroids(self) -> np.ndarray:
        return self.sums / np.maximum(self.counts, 1)[:, None]


# -- building -----------------------------------------------------------------------------------
#: A rebuild of more items than this streams: k-means is trained on a seeded sample of
#: :data:`SAMPLE_PER_CELL` rows per cell, every feature row is computed a chunk at a time, and
#: each item is held as a few compact rows (its handle's bytes, its time, its link keys' counts:
#: ~100 bytes), so memory does not grow with the home (a million items' features are 2.3 GB of
#: float32, held three times over by the in-memory path). Up to here the rebuild holds every
#: feature row, as it always did: smaller homes get the same cells.
STREAM_FROM = 200_000
#: Rows per cell a streamed rebuild trains k-means on (faiss' ``max_points_per_centroid``).
#: 64: at a million items the sample is 105 MB of float32 (256 rows, the most faiss itself
#: trains on, made it 418 MB, most of what the cells step added to curation). Measured on 300k
#: items (BENCHMARKS.md, "The cells step within the curate process"): the partition differs
#: from 256 rows' about as much as two seeds of 256 differ (adjusted Rand 0.52 against 0.54),
#: items 0.5 % farther from their cell's centroid on average; a cluster k-means leaves very
#: small is merged by the next curation (:func:`assign`).
SAMPLE_PER_CELL = 64
#: Items whose features are computed at once by a streamed rebuild or an update.
CHUNK = 20_000
#: Rows whose vectors a streamed rebuild gathers from the store at once.
GATHER = 4_096
#: Members per batch when cells are written: a rebuild's cells go to Prolog in batches of
#: about this many members, memory given back between them (one batch of a million members
#: grows Prolog's stacks and the batch's undo list by hundreds of MB).
STORE_MEMBERS = 50_000


@serialised
def rebuild(mem: Any) -> CellsReport:
    """Partition every live curated item anew (k-means over blended features, see
    :mod:`.partition`, started from the cells it replaces), replacing the partition as it
    was; the cells that continue old ones keep their ids. Deterministic for a given journal
    and vector store; above :data:`STREAM_FROM` items in bounded memory."""
    started = time.perf_counter()
    mem.lock.acquire()
    report = CellsReport(rebuilt=True)
    before = _old_partition(mem)   # where k-means starts, and the ids its cells keep
    (curated,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
    if len(curated) > STREAM_FROM:
        handles = HandleList()
        for start in range(0, len(curated), CHUNK):
            handles.extend(curated[start:start + CHUNK])
        del curated
        mem.give_back_memory()  # the list's copy on Prolog's stacks and in Python
        handles.sort()
        stream = _stream_inputs(mem, handles)
        del handles
        mem.give_back_memory()  # the rows read from Prolog
        cells, state = _stream_partition(
            stream, was=lambda rows: [before.cell_of.get(h) for h in stream.handles.take(rows)],
            old_cells=len(before.size))
        del stream  # the key counts and times; the cells keep the handles
    else:
        del curated
        inputs = _inputs(mem, None)
        if not inputs.handles:
            old = _cell_ids(mem)
            if old:
                _store(mem, [], old, [], [])
            _drop_state(mem)
            rows.drop(mem.home)
            report.seconds = time.perf_counter() - started
            return report
        handles = inputs.handles
        vectors, dim = _vectors(mem, inputs.handles)
        space = P.feature_space(dim, inputs.times)
        feats = space.features(vectors, inputs.keys, inputs.times)
        del vectors, inputs
        cells, state = _settled_partition(handles, feats, space,
                                          [before.cell_of.get(h) for h in handles],
                                          len(before.size))
    cells, state = _keeping_ids(before, cells, state)
    del before
    old = _cell_ids(mem)
    new_ids = set(state.ids)
    rows.note_changed(mem.home, state.ids)  # their copies, should the rebuild die
    _store_cells(mem, cells, [c for c in old if c not in new_ids],
                 _space_params(state.space) + [Term("-", [Atom("built"), int(state.counts.sum())]),
                                               Term("-", [Atom("embedder"), Atom(_embedder_id(mem))]),
                                               _LINKS_STALE])
    _store_adjacency(mem, state)
    state.version = _version(mem)
    _save_state(mem, state)
    report.cells = len(state.ids)
    report.items = report.assigned = int(state.counts.sum())
    report.changed = state.ids
    report.rows_copied = _copy_rows(mem, state.ids, state.ids)
    report.seconds = time.perf_counter() - started
    return report


#: Times a rebuild (up to :data:`STREAM_FROM` items) runs k-means again from the cells it
#: made, until they come back the same: the splits and merges that bound cell sizes leave
#: cells k-means would move a little, so a second rebuild of the same memory moved a few
#: items (and a cell's id now and then); settled, it makes the same cells.
SETTLE_ROUNDS = 3


def _settled_partition(handles: list[str], feats: np.ndarray, space: P.FeatureSpace,
                       was: list[str | None], old_cells: int) -> tuple[list[Any], _State]:
    """The cells of ``handles`` (features ``feats``): k-means started from the old cells
    (``was`` names each item's, :func:`.partition.seed_centroids`), sizes bounded, then run
    again from the cells made until they come back the same (at most :data:`SETTLE_ROUNDS`
    times more)."""
    members_of = lambda rows: [handles[i] for i in rows]   # noqa: E731
    target = P.cell_count(len(handles))
    made: tuple[list[Any], _State] | None = None
    for _ in range(1 + SETTLE_ROUNDS):
        k = P.seeded_count(target, old_cells)
        labels = P.kmeans(feats, k, init=P.seed_centroids(feats, was, k))
        cells, state = _cells_of(members_of, labels, space, lambda rows: feats[rows])
        if made is not None and state.ids == made[1].ids:
            break
        made = (cells, state)
        was = [None] * len(handles)
        for cid, members, _ in cells:
            for row in members.rows:
                was[row] = cid
        old_cells = len(cells)
    return made


@dataclass
class _OldPartition:
    """The partition a rebuild replaces: each old cell's size, and each member's old cell."""

    size: dict[str, int]
    cell_of: dict[str, str]


def _old_partition(mem: Any) -> _OldPartition:
    """Read the stored partition, a cell's member list at a time (a list of atoms a cell: a
    fourth of the CPU of Handle-Cell pairs)."""
    out = _OldPartition({}, {})
    for was in _cell_ids(mem):
        members_before = _members(mem, was)
        out.size[was] = len(members_before)
        out.cell_of.update(dict.fromkeys(members_before, was))
    return out


def _keeping_ids(before: _OldPartition, cells: list[Any],
                 state: _State) -> tuple[list[Any], _State]:
    """A rebuild's cells with the ids of the cells they continue: a new cell holding more than
    half the members of a cell of the partition it replaces, which holds more than half of
    its own, is that cell (at most one old cell can be, and at most one new cell can continue
    it), and keeps its id, so a ``--mount CELL`` saved before the rebuild mounts the same
    region after it. A cell made from members its id was not made of (grown by placements,
    or a new region) otherwise got a new id at every rebuild. Other cells keep the digest of
    their members, made unique should one equal a kept id. (k-means starts from the old
    cells' centroids, :func:`.partition.seed_centroids`, so most regions do continue.)"""
    old_size, old_of = before.size, before.cell_of
    if not old_of:
        return cells, state
    kept: dict[str, str] = {}                   # new digest id -> the old id it continues
    for cid, members, _ in cells:
        shared: dict[str, int] = {}
        for h in members.handles():
            was = old_of.get(h)
            if was is not None:
                shared[was] = shared.get(was, 0) + 1
        if shared:
            was, common = max(shared.items(), key=lambda kv: (kv[1], kv[0]))
            if 2 * common > len(members) and 2 * common > old_size[was]:
                kept[cid] = was
    taken = set(kept.values())
    ids: dict[str, str] = {}
    for cid, members, _ in cells:
        new = kept.get(cid, cid)
        salt = 0
        while cid not in kept and new in taken:   # a digest equal to a kept id: another
            salt += 1
            new = P.cell_id([*members.handles(), f"#{salt}"])
        taken.add(new)
        ids[cid] = new
    renamed = [(ids[cid], members, central) for cid, members, central in cells]
    state.ids = [ids[cid] for cid in state.ids]
    return renamed, state


def _cells_of(members_of: Any, labels: np.ndarray, space: P.FeatureSpace,
              features_of: Any) -> tuple[list[Any], _State]:
    """The cells of a k-means labelling, oversized clusters split (:func:`.partition.bounded`)
    and undersized ones merged (:func:`_merge_small_groups`), as ``(id, rows, central)`` in
    order of their first member (``rows`` the cell's item positions, ascending), and their
    feature sums; ``members_of(rows)`` gives those items' handles and ``features_of(rows)``
    their feature rows (in that order)."""
    order = np.argsort(labels, kind="stable")  # each cluster's rows ascending
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    groups = np.split(order, bounds) if len(order) else []
    del order
    bounded = P.bounded(groups, features_of, P.split_size(len(labels)))
    del groups
    made = [_Group.of(rows, members_of, features_of) for rows in bounded]
    del bounded
    made = _merge_small_groups(made, members_of, features_of, P.merge_size(len(labels)))
    made.sort(key=lambda g: g.first)
    cells = [(g.cid, _Members(members_of, g.rows), g.central) for g in made]
    state = _State(0, space, [g.cid for g in made], np.vstack([g.sum for g in made]),
                   np.array([len(g.rows) for g in made], dtype=np.float64))
    return cells, state


@dataclass
class _Group:
    """A cell in the making: its item positions (ascending), id, central members, first
    member and feature sum."""

    rows: np.ndarray
    cid: str
    central: list[str]
    first: str
    sum: np.ndarray

    @classmethod
    def of(cls, rows: np.ndarray, members_of: Any, features_of: Any) -> "_Group":
        members = members_of(rows)
        feats = features_of(rows)
        return cls(rows, P.cell_id(members), P.central(members, feats), members[0],
                   feats.sum(axis=0))


def _merge_small_groups(groups: list[_Group], members_of: Any, features_of: Any,
                        floor: int) -> list[_Group]:
    """Fold every group smaller than ``floor`` into the group whose centroid is nearest, the
    smallest first (ties by id), by the rule :func:`_merge_small` applies to placed items: a
    build is then a fixed point of the incremental step, so a curate with nothing new (and a
    resumed run, whose cells step is that step) leaves a fresh build as it is. Only the groups
    that grew are read again, for their id and central members."""
    groups = list(groups)
    grown: set[int] = set()
    while len(groups) > 1:
        small = [i for i, g in enumerate(groups) if len(g.rows) < floor]
        if not small:
            break
        i = min(small, key=lambda k: (len(groups[k].rows), groups[k].cid))
        cents = np.vstack([g.sum / len(g.rows) for g in groups])
        d = ((cents - cents[i]) ** 2).sum(axis=1)
        d[i] = np.inf
        j = int(np.argmin(d))
        into, gone = groups[j], groups[i]
        into.rows = np.sort(np.concatenate([into.rows, gone.rows]))
        into.sum = into.sum + gone.sum
        into.cid = P.cell_id(members_of(into.rows))  # the id the tie-break sees, as built
        grown.add(id(into))
        del groups[i]
    return [_Group.of(g.rows, members_of, features_of) if id(g) in grown else g for g in groups]


@dataclass
class _Members:
    """A cell's members, read when its batch is written (not every cell's at once)."""

    members_of: Any
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def handles(self) -> list[str]:
        return self.members_of(self.rows)


@dataclass
class _Stream:
    """What a streamed rebuild holds per item: its handle (UTF-8 bytes), its time (NaN for
    none) and its link keys' signed counts (int8, widened should a count pass 127); vectors
    are gathered from the store whenever features are needed."""

    mem: Any
    handles: HandleList
    times: np.ndarray
    counts: np.ndarray
    space: P.FeatureSpace

    def features(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """Feature rows of the items at ``rows``, filled :data:`GATHER` rows at a time (no
        list of chunks stacked at the end, no padded copy of the vectors)."""
        rows = np.asarray(rows, dtype=np.int64)
        space = self.space
        out = np.empty((len(rows), space.width), dtype=np.float32)
        store = _vector_store(self.mem) if space.dim else None
        for start in range(0, len(rows), GATHER):
            part = rows[start:start + GATHER]
            present, vectors = None, None
            if store is not None:
                present, found = store.vectors(self.handles.take(part), read=True)
                if found.shape[1] == space.dim:
                    vectors = found
            space.features_from(vectors, P.key_rows(self.counts[part]), self.times[part],
                                present=present, out=out[start:start + len(part)])
            del vectors, present
        return out


def _stream_inputs(mem: Any, handles: HandleList) -> _Stream:
    """Read the items' links and times once (one pass over Prolog, the slow part), kept as
    their key counts and stamps, for those of ``handles`` (sorted) that cells_inputs/2 answers
    for (as the in-memory path keeps them)."""
    kept = HandleList()
    times = np.empty(len(handles), dtype=np.float64)
    counts = np.zeros((len(handles), P.KEY_DIM), dtype=np.int8)
    for start in range(0, len(handles), CHUNK):
        inputs = _inputs(mem, handles[start:start + CHUNK])  # sorted, as handles are
        at, n = len(kept), len(inputs.handles)
        part = P.key_counts(inputs.keys)
        big = int(np.abs(part).max()) if n else 0
        if big > np.iinfo(counts.dtype).max:
            counts = counts.astype(np.int16 if big <= np.iinfo(np.int16).max else np.int32)
        counts[at:at + n] = part
        times[at:at + n] = [np.nan if t is None else t for t in inputs.times]
        kept.extend(inputs.handles)
        del inputs, part
    n = len(kept)
    store = _vector_store(mem)
    dim = 0 if store is None else store.dim
    times, counts = times[:n], counts[:n]
    return _Stream(mem, kept, times, counts, P.feature_space(dim, times))


def _stream_partition(stream: _Stream, per_cell: int | None = None,
                      seed: int = P.SEED, was: Any = None,
                      old_cells: int = 0) -> tuple[list[Any], _State]:
    """:func:`rebuild`'s partition of the items of ``stream``, a chunk of features at a time,
    k-means trained on ``per_cell`` rows a cell (:data:`SAMPLE_PER_CELL`), started from the
    old cells' centroids over that sample where ``was(rows)`` names those rows' old cells."""
    import faiss

    per_cell = per_cell or SAMPLE_PER_CELL
    n = len(stream.handles)
    k = P.cell_count(n)
    if was is not None:
        k = P.seeded_count(k, old_cells)
    k = max(1, min(k, n))
    rng = np.random.default_rng(seed)
    sample = np.sort(rng.choice(n, size=min(n, per_cell * k), replace=False))
    train = stream.features(sample)
    start = P.seed_centroids(train, was(sample), k, seed) if was is not None else None
    del sample
    seeded = start is not None and len(start) == k
    km = faiss.Kmeans(train.shape[1], k, niter=P.SEEDED_NITER if seeded else P.NITER, seed=seed,
                      verbose=False, max_points_per_centroid=per_cell, min_points_per_centroid=1)
    km.train(train, init_centroids=start if seeded else None)
    del train, start
    labels = np.zeros(n, dtype=np.int64)
    for start in range(0, n, CHUNK):
        _, found = km.index.search(stream.features(np.arange(start, min(start + CHUNK, n))), 1)
        labels[start:start + len(found)] = found[:, 0]
    del km
    return _cells_of(stream.handles.take, labels, stream.space, stream.features)


def _vector_store(mem: Any) -> Any:
    return mem.jump.read_vectors()  # read-only: the cells step writes no vectors


@serialised
def unplaced(mem: Any) -> list[str]:
    """Live curated items in no cell yet."""
    (hs,) = mem.pl.once("atc_cells:cells_unplaced", Var())
    return [str(h) for h in hs]


@serialised
def update(mem: Any) -> CellsReport:
    """Keep the partition up to date after curation: place every curated item in no cell yet
    (:func:`assign`); build the partition when there is none, or anew once memory has grown
    to :data:`REBUILD_GROWTH` times what the last build partitioned, or when the partition
    was made from other vectors than the store holds (a move to another embedder)."""
    if not cells_exist(mem) or _other_vectors(mem):
        return rebuild(mem)
    new = unplaced(mem)
    built = _built_size(mem)
    if built is not None and cells_stats(mem)["members"] + len(new) > REBUILD_GROWTH * max(built, 1):
        return rebuild(mem)
    return assign(mem, new)


def _embedder_id(mem: Any) -> str:
    """The embedder whose vectors the cells are made from ("none": no vectors)."""
    store = _vector_store(mem)
    return "none" if store is None else str(store.embedder_id)


def _other_vectors(mem: Any) -> bool:
    """Whether the partition was made from vectors other than the store's: after a move to
    another embedder (``atc curate --reembed``) the cells' centroids hold the old vectors, and
    new items would be placed against them with no vector part at all (another width) or
    with vectors of another model (the same width); a partition stored before the embedder
    was recorded is compared by width alone."""
    store = _vector_store(mem)
    dim = 0 if store is None else int(store.dim)
    built_dim = mem.pl.once("atc_cells:cells_param", Atom("dim"), Var())
    if built_dim and int(built_dim[0]) != dim:
        return True
    built_by = mem.pl.once("atc_cells:cells_param", Atom("embedder"), Var())
    return bool(built_by) and str(built_by[0]) != _embedder_id(mem)


def _built_size(mem: Any) -> int | None:
    """How many items the last build partitioned (None: a partition built before it was
    recorded; the next assignment records the items placed then)."""
    value = mem.pl.once("atc_cells:cells_param", Atom("built"), Var())
    return int(value[0]) if value else None


@serialised
def assign(mem: Any, handles: Sequence[str]) -> CellsReport:
    """Place newly curated items: each joins the cell whose centroid is nearest; cells grown
    past :func:`~.partition.split_size` split in two, cells below
    :func:`~.partition.merge_size` join their nearest neighbour; adjacency is recomputed.
    With no partition yet, builds one (:func:`rebuild`)."""
    if not cells_exist(mem):
        return rebuild(mem)
    started = time.perf_counter()
    mem.lock.acquire()
    report = CellsReport()
    wanted = set(handles)
    new = [h for h in unplaced(mem) if h in wanted]
    if not new:  # nothing to place: only a cell a forget shrank may need merging
        stats = cells_stats(mem)
        if stats["smallest"] >= P.merge_size(stats["members"]):
            if not _linked(mem):  # a step killed between storing its cells and their links
                state = _load_state(mem) or _state_from_facts(mem)
                _store_adjacency(mem, state)
                state.version = _version(mem)
                _save_state(mem, state)
            report.cells, report.items = stats["cells"], stats["members"]
            report.rows_copied = _copy_rows(mem, _cell_ids(mem), [])  # whole again after an erasure
            report.seconds = time.perf_counter() - started
            return report
    state = _load_state(mem) or _state_from_facts(mem)
    joins: dict[str, list[str]] = {}
    centroids = state.centroids()  # every new item is placed against the cells as they were
    new.sort()
    for start in range(0, len(new), CHUNK):  # features a chunk at a time (a large import)
        inputs = _inputs(mem, new[start:start + CHUNK])
        vectors, _ = _vectors(mem, inputs.handles, state.space.dim)
        feats = state.space.features(vectors, inputs.keys, inputs.times)
        labels = _nearest(centroids, feats)
        for h, label, f in zip(inputs.handles, labels, feats):
            state.sums[label] += f
            state.counts[label] += 1
            joins.setdefault(state.ids[label], []).append(h)
        report.assigned += len(inputs.handles)
    # cells that split or merge are sent whole (their members read back); the others only
    # receive the items that joined them
    members: dict[str, list[str]] = {}
    dropped: list[str] = []
    total = int(state.counts.sum())
    report.split = _split_large(mem, state, joins, members, dropped, total)
    report.merged = _merge_small(mem, state, joins, members, dropped, total)
    # a part of a split cell may have exactly the members the cell had before the items that
    # joined it, and so its id: that cell is not dropped but sent whole with those members
    live = set(state.ids)
    dropped = [c for c in dropped if c not in live]
    cells: list[Any] = [(c, sorted(ms), P.central(sorted(ms), _features_of(mem, state, sorted(ms))))
                        for c, ms in sorted(members.items()) if c in live]
    cells += [(c, hs) for c, hs in sorted(joins.items()) if c in live and c not in members]
    if cells or dropped:
        # a partition built before its size was recorded counts its growth from here
        since = [] if _built_size(mem) is not None else [Term("-", [Atom("built"), total - report.assigned])]
        since.append(_LINKS_STALE)
        rows.note_changed(mem.home, [c[0] for c in cells])  # their copies, should this step die
        _store(mem, cells, dropped, None, since)
        _store_adjacency(mem, state)
    state.version = _version(mem)
    _save_state(mem, state)
    report.cells = len(state.ids)
    report.items = total
    report.changed = [c[0] for c in cells]
    report.rows_copied = _copy_rows(mem, state.ids, report.changed)
    report.seconds = time.perf_counter() - started
    return report


def _copy_rows(mem: Any, cells: list[str], changed: list[str]) -> int:
    """Keep the cells' copies of their members' vector rows current (:mod:`.rows`)."""
    return rows.sync(mem.home, _vector_store(mem), lambda c: _members(mem, c), cells, changed)


def _nearest(centroids: np.ndarray, feats: np.ndarray) -> list[int]:
    d = ((feats ** 2).sum(axis=1)[:, None] - 2 * feats @ centroids.T
         + (centroids ** 2).sum(axis=1)[None, :])
    return [int(i) for i in np.argmin(d, axis=1)]


def _split_large(mem: Any, state: _State, joins: dict[str, list[str]],
                 members: dict[str, list[str]], dropped: list[str], total: int) -> int:
    """Split every cell that grew past split_size(total) in two, and its parts again until
    none is past it (a large import can bring a cell many times that size); the parts get
    the ids of their members and the cell is dropped."""
    done = 0
    limit = P.split_size(total)
    for cid in sorted(joins):
        if state.counts[state.ids.index(cid)] <= limit:
            continue
        hs = sorted(set(_members(mem, cid) + joins[cid]))
        feats = _features_of(mem, state, hs)
        i = state.ids.index(cid)
        for rows in P.bounded([np.arange(len(hs))], feats, limit):
            part = [hs[r] for r in rows]
            nid = P.cell_id(part)
            members[nid] = part
            state.ids.append(nid)
            state.sums = np.vstack([state.sums, feats[rows].sum(axis=0)])
            state.counts = np.append(state.counts, len(rows))
        _remove_cell(state, i)
        dropped.append(cid)
        done += 1
    return done


def _merge_small(mem: Any, state: _State, joins: dict[str, list[str]],
                 members: dict[str, list[str]], dropped: list[str], total: int) -> int:
    """Fold every cell smaller than merge_size(total) into the cell whose centroid is nearest."""
    done = 0
    floor = P.merge_size(total)
    while len(state.ids) > 1:
        small = [i for i in range(len(state.ids)) if 0 < state.counts[i] < floor]
        if not small:
            break
        i = min(small, key=lambda j: (state.counts[j], state.ids[j]))
        cid = state.ids[i]
        cents = state.centroids()
        d = ((cents - cents[i]) ** 2).sum(axis=1)
        d[i] = np.inf
        j = int(np.argmin(d))
        into = state.ids[j]
        own = members.pop(cid, None) or (_members(mem, cid) + joins.get(cid, []))
        members[into] = sorted(set((members.get(into) or (_members(mem, into) + joins.get(into, [])))
                                   + own))
        state.sums[j] += state.sums[i]
        state.counts[j] += state.counts[i]
        _remove_cell(state, i)
        dropped.append(cid)
        done += 1
    return done


def _remove_cell(state: _State, i: int) -> None:
    del state.ids[i]
    state.sums = np.delete(state.sums, i, axis=0)
    state.counts = np.delete(state.counts, i)


def _features_of(mem: Any, state: _State, handles: list[str]) -> np.ndarray:
    inputs = _inputs(mem, handles)
    vectors, _ = _vectors(mem, inputs.handles, state.space.dim)
    return state.space.features(vectors, inputs.keys, inputs.times)


# -- Prolog and the stores ----------------------------------------------------------------------
def _inputs(mem: Any, handles: Sequence[str] | None) -> _Inputs:
    arg = Atom("all") if handles is None else [Atom(h) for h in handles]
    (rows,) = mem.pl.once("atc_cells:cells_inputs", arg, Var())
    out = _Inputs([], [], [])
    for r in rows:
        h, t, keys = r.args
        out.handles.append(str(h))
        out.times.append(P.stamp(str(t)))
        out.keys.append([str(k) for k in keys])
    return out


def _vectors(mem: Any, handles: list[str], dim: int | None = None) -> tuple[np.ndarray | None, int]:
    """The items' vectors (rows of zeros for those without one) and their width; (None, 0)
    when the home has no vectors (no embedder, or nothing embedded)."""
    store = None if dim == 0 else _vector_store(mem)
    if store is None:
        return None, dim or 0
    present, found = store.vectors(handles, read=True)  # file reads: the log stays out of RSS
    width = store.dim if dim is None else dim
    if found.shape[1] != width:
        return None, width
    out = np.zeros((len(handles), width), dtype=np.float32)
    out[present] = found
    return out, width


def _members(mem: Any, cid: str) -> list[str]:
    (hs,) = mem.pl.once("atc_cells:cells_members", Atom(cid), Var())
    return [str(h) for h in hs]


def _cell_ids(mem: Any) -> list[str]:
    return sorted(str(c) for (c,) in mem.pl.solutions("atc_cells:cell", Var()))


def _version(mem: Any) -> int:
    found = mem.pl.once("atc_cells:cells_param", Atom("version"), Var())
    return int(found[0]) if found else 0


def _space_params(space: P.FeatureSpace) -> list[Term]:
    return [Term("-", [Atom("dim"), int(space.dim)]), Term("-", [Atom("t_min"), float(space.t_min)]),
            Term("-", [Atom("t_max"), float(space.t_max)])]


def _store_cells(mem: Any, cells: list[Any], dropped: list[str], params: list[Term]) -> None:
    """A rebuild's cells (``(id, members, central)``, members a :class:`_Members`), written in
    batches of about :data:`STORE_MEMBERS` members, memory given back after each: the first
    batch drops ``dropped`` and sets ``params``. A run killed between batches leaves the
    cells written so far; the next curation places the rest as new items (:func:`update`)."""
    batch: list[Any] = []
    size, first = 0, True
    for i, (cid, members, central) in enumerate(cells):
        batch.append((cid, members.handles(), central))
        size += len(members)
        if size >= STORE_MEMBERS or i == len(cells) - 1:
            _store(mem, batch, dropped if first else [], None, params if first else [])
            first, batch, size = False, [], 0
            mem.give_back_memory()
    if first:
        _store(mem, [], dropped, None, params)


def _store(mem: Any, cells: list[Any], dropped: list[str],
           adjacency: list[tuple[str, str, float]] | None, params: list[Term]) -> None:
    """One durable batch: atc_cells:cells_store/4. ``cells`` holds ``(id, members, central)``
    for cells sent whole and ``(id, handles)`` for handles joining an existing cell."""
    terms = [Term("cell", [Atom(c[0]), [Atom(h) for h in c[1]], [Atom(h) for h in c[2]]])
             if len(c) == 3 else Term("join", [Atom(c[0]), [Atom(h) for h in c[1]]])
             for c in cells]
    adj: Any = Atom("keep") if adjacency is None else [
        Term("a", [Atom(a), Atom(b), float(w)]) for a, b, w in adjacency]
    goal = Term(":", [Atom("atc_cells"), Term("cells_store", [terms, [Atom(c) for c in dropped],
                                                              adj, params])])
    mem.pl.once("atc_api:api_batch", goal)
    sync_journal(mem.home)


#: Stored with cells sent before their links (a batch of their own, made from the stored
#: cells' entities): a step killed in between leaves it, and the next curate links them.
_LINKS_STALE = Term("-", [Atom("linked"), Atom("false")])


def _linked(mem: Any) -> bool:
    """Whether the cells' links were computed after the cells last changed."""
    found = mem.pl.once("atc_cells:cells_param", Atom("linked"), Var())
    return not found or str(found[0]) != "false"


def _store_adjacency(mem: Any, state: _State) -> None:
    """Recompute every link from the centroids and the cells' top entities, and store it."""
    by_id = {r["id"]: r for r in cells_list(mem)}
    entities = [by_id.get(c, {}).get("entities", []) for c in state.ids]
    _store(mem, [], [], P.adjacency(state.ids, state.centroids(), entities),
           [Term("-", [Atom("linked"), Atom("true")])])


def _state_from_facts(mem: Any) -> _State:
    """The cache recomputed from the stored partition (every member's features)."""
    params = {str(k): v for k, v in mem.pl.solutions("atc_cells:cells_param", Var(), Var())}
    space = P.FeatureSpace(dim=int(params.get("dim", 0)), t_min=float(params.get("t_min", 0.0)),
                           t_max=float(params.get("t_max", 0.0)))
    (pairs,) = mem.pl.once("atc_cells:cells_membership", Var())
    cell_of = {str(p.args[0]): str(p.args[1]) for p in pairs}
    ids = _cell_ids(mem)
    index = {c: i for i, c in enumerate(ids)}
    width = len(space.features(None, [[]], [None])[0])
    sums = np.zeros((len(ids), width), dtype=np.float64)
    counts = np.zeros(len(ids), dtype=np.float64)
    handles = sorted(cell_of)
    for start in range(0, len(handles), 20_000):
        chunk = handles[start:start + 20_000]
        inputs = _inputs(mem, chunk)
        vectors, _ = _vectors(mem, inputs.handles, space.dim)
        feats = space.features(vectors, inputs.keys, inputs.times)
        for h, f in zip(inputs.handles, feats):
            i = index[cell_of[h]]
            sums[i] += f
            counts[i] += 1
    return _State(_version(mem), space, ids, sums, counts)


def _state_path(mem: Any) -> Path:
    return mem.home / STATE_FILE


def _save_state(mem: Any, state: _State) -> None:
    path = _state_path(mem)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(".state.tmp.npz")
    np.savez(tmp, version=state.version, features=FEATURES, dim=state.space.dim, t_min=state.space.t_min,
             t_max=state.space.t_max, ids=np.array(state.ids, dtype=object).astype(str),
             sums=state.sums, counts=state.counts)
    os.replace(tmp, path)


def _load_state(mem: Any) -> _State | None:
    """The cached sums and counts, or None when there are none or they do not match the
    stored partition's version and cells, or were made another way (:data:`FEATURES`)."""
    path = _state_path(mem)
    try:
        with np.load(path, allow_pickle=False) as data:
            if "features" not in data or int(data["features"]) != FEATURES:
                return None
            state = _State(int(data["version"]),
                           P.FeatureSpace(int(data["dim"]), float(data["t_min"]), float(data["t_max"])),
                           [str(c) for c in data["ids"]], data["sums"].astype(np.float64),
                           data["counts"].astype(np.float64))
    except (OSError, KeyError, ValueError):
        return None
    if state.version != _version(mem) or sorted(state.ids) != _cell_ids(mem):
        return None
    return state


def _drop_state(mem: Any) -> None:
    _state_path(mem).unlink(missing_ok=True)
