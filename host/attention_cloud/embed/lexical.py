"""BM25 over the lexical terms of each key's text: the lexical half of hybrid retrieval.

Scoring is Okapi BM25 with ``k1 = 1.2``, ``b = 0.75`` and the non-negative IDF
``log(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's), over the terms of :mod:`.terms`
(identifiers kept whole, so an exact handle or error code ranks first).

Persistence: ``LexicalIndex.open(directory)`` keeps an append-only log ``lexical.jsonl`` of
``{"k": key, "t": {term: count}, "m": meta}`` (add or replace) and ``{"d": key}`` (remove) records;
a torn final line (crash mid-write) is dropped; the log is rewritten compactly when superseded
records outnumber live ones. ``flush()`` makes the writes durable (fsync). The log is the truth.

Reopening a large index by replaying its log costs ~80 µs a record in Python (8 s at 100k
records), so ``flush()`` also keeps a **snapshot**: the index compiled into numpy arrays under
``snap-N/`` (inverted and forward postings in CSR form, lengths, meta codes, keys and terms),
named by ``snapshot.json`` together with the log offset it covers and a digest of the log's
head. Opening memory-maps the arrays and replays only the log past that offset; a snapshot that
does not match its log (a crash between compaction and snapshot, a hand-edited log) is ignored
and the whole log replayed. It is rewritten when the log has grown by a tenth since, or when
the postings past it reach ``_DELTA_MAX_POSTINGS``; it is written in bounded memory
(:mod:`.postings`).

**Readers take no lock.** Each ``flush()`` also records, in ``committed.json``, how many bytes of
which log file (its inode) are durable. ``LexicalIndex.open(directory, read_only=True)`` (any
number, in any process, beside one writer) replays the log only that far, so a batch the writer
is still appending is never seen; it truncates and writes nothing, and ``add``/``remove`` raise
UsageError. When the log was replaced by a compaction between reading ``committed.json`` and
opening the log, it reads both again. A home from before ``committed.json`` is read up to its
last complete line.

In memory, postings are the snapshot's read-only arrays plus a small delta (dicts) for what came
after. Replaced or removed documents keep their slot, marked dead, until the next snapshot
compacts them away: search masks dead slots, and document frequencies are kept exact.

A plain ``LexicalIndex()`` lives in memory only, for callers that rebuild it from elsewhere.

Contents:
    LexicalIndex -- add / remove / has / meta / search / scores / flush / close
"""
from __future__ import annotations

import hashlib
import heapq
import json
import math
import os
import shutil
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from attention_cloud.errors import HomeError, UsageError

from ..home import close_unwritten, flush_or_let_go, fsync_path, replace_durably
from .meta_columns import MetaColumns
from .postings import write_postings
from .terms import lexical_terms

__all__ = ["LexicalIndex"]

_LOG_NAME = "lexical.jsonl"
_SNAPSHOT_NAME = "snapshot.json"
_COMMITTED_NAME = "committed.json"
#: Left by a writer's open that cut damaged whole lines off the log (see :meth:`LexicalIndex.open`):
#: the entries past the cut are lost until a curate re-indexes the live records and removes it.
CUT_NAME = "cut.json"
_SNAPSHOT_VERSION = 1
_HEAD_BYTES = 4096
#: Rewrite the snapshot once the log has grown by this share past it (and at least this much).
_SNAPSHOT_GROWTH = 0.10
_SNAPSHOT_MIN_BYTES = 256 * 1024
#: ... or once the delta holds this many postings: a writer keeps each in a dict (~100 bytes),
#: so at a million documents a tenth of the log would be ~0.2 GB; a snapshot costs ~10 s there.
_DELTA_MAX_POSTINGS = 1_000_000
#: Documents whose postings a snapshot copies at a time.
_CHUNK_DOCS = 65_536

_EMPTY_SLOTS = np.zeros(0, dtype=np.int64)
_EMPTY_COUNTS = np.zeros(0, dtype=np.float64)


def _whole_line_at(handle: Any, position: int) -> bool:
    """Whether the log read through ``handle`` holds a whole line (one ending in a newline)
    from byte ``position``."""
    handle.seek(position)
    return handle.readline().endswith(b"\n")


def _note_cut(directory: Path, log_path: Path, good_bytes: int, size: int) -> None:
    """Make a cut of damaged log lines visible: one stderr line now, and ``cut.json`` (durable
    before the log is cut) for ``atc doctor`` until a curate re-indexes what it dropped."""
    import sys

    marker = directory / CUT_NAME
    marker.write_text(json.dumps({"log": str(log_path), "at": good_bytes, "bytes": size - good_bytes}),
                      encoding="utf-8")
    fsync_path(marker)
    fsync_path(directory)
    print(f"atc: warning: {cut_notice(directory)}", file=sys.stderr)


def cut_notice(directory: Path) -> str | None:
    """A line on the damaged log lines a writer cut off the BM25 index under ``directory``
    that no curate has re-indexed since, or None."""
    try:
        cut = json.loads((Path(directory) / CUT_NAME).read_text(encoding="utf-8"))
        where = f"{cut['log']} was unreadable from byte {int(cut['at'])} ({int(cut['bytes'])} bytes cut)"
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        where = f"{Path(directory) / _LOG_NAME} was cut where it was damaged"
    return (f"BM25 index log {where}: the items indexed there are not found by BM25 until "
            f"`atc curate` re-indexes them")


def clear_cut(directory: Path) -> None:
    """Remove the cut notice once a curate has re-indexed every live record."""
    marker = Path(directory) / CUT_NAME
    if marker.exists():
        marker.unlink()
        fsync_path(Path(directory))


class LexicalIndex:
    """BM25 index of texts by key (see module doc). Not thread-safe: callers serialise writes."""

    def __init__(self, *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._term_id: dict[str, int] = {}
        self._terms: list[str] = []
        self._df = np.zeros(0, dtype=np.int64)  # term id -> live documents holding it
        # Snapshot part (read-only arrays; slots below _base_docs): inverted and forward CSR.
        self._base_docs = 0
        self._inv_ptr = np.zeros(1, dtype=np.int64)
        self._inv_slots = np.zeros(0, dtype=np.int32)
        self._inv_counts = np.zeros(0, dtype=np.float64)
        self._fwd_ptr = np.zeros(1, dtype=np.int64)
        self._fwd_terms = np.zeros(0, dtype=np.int32)
        self._fwd_counts = np.zeros(0, dtype=np.float32)
        # Delta part: documents added since the snapshot.
        self._delta_fwd: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # slot -> (term ids, counts)
        self._delta_entries = 0  # postings in _delta_fwd (a writer also holds each in _delta_post)
        self._delta_post: dict[int, dict[int, float]] = {}  # term id -> slot -> count
        self._deferred = False  # a reader's load: delta postings built once at the end
        # term id -> the delta's postings as arrays (never the snapshot's: a common term's
        # merged copy would hold a second copy of its whole posting list per query term)
        self._compiled: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        # Per slot.
        self._slot_keys: list[str | None] = []
        # key -> slot of the live documents: built on first use (a reader's searches never need
        # it, so its load drops it: ~65 bytes a document), see _slots()
        self._slot_map: dict[str, int] | None = {}
        self._count = 0  # live documents
        self._lengths = np.zeros(0, dtype=np.float64)
        self._live = np.zeros(0, dtype=bool)
        self._columns = MetaColumns()
        self._total_len = 0.0
        self._norms: np.ndarray | None = None
        # Persistence.
        self._directory: Path | None = None
        self._log = None
        self._log_records = 0
        self._snapshot_bytes = 0  # log bytes the current snapshot covers
        self.read_only = False
        self._read_bytes = 0  # a reader: the log bytes applied (refresh goes on from there)
        self._log_inode: int | None = None  # a reader: the log file they were read from
        #: the log file's generation, named in committed.json: a new id for every log written
        #: anew (an inode alone may be given to the next new file once the old is deleted)
        self._log_id: str | None = None

    # ------------------------------------------------------------------ persistence

    @classmethod
    def open(cls, directory: Path, *, k1: float = 1.2, b: float = 0.75,
             read_only: bool = False) -> "LexicalIndex":
        """Open (or create) the persisted index under ``directory``: snapshot plus log tail.

        With ``read_only``: what the last ``flush()`` committed, with no lock and no write (an
        empty index when nothing was committed yet).
        """
        directory = Path(directory)
        index = cls(k1=k1, b=b)
        index._directory = directory
        if read_only:
            index.read_only = True
            index._load_committed()
            return index
        directory.mkdir(parents=True, exist_ok=True)
        log_path = directory / _LOG_NAME
        start = index._load_snapshot(log_path)
        good_bytes = start
        if log_path.exists():
            with open(log_path, "rb") as handle:
                good_bytes = index._replay_log(handle, start, None)
                size = os.fstat(handle.fileno()).st_size
                if good_bytes != size and _whole_line_at(handle, good_bytes):
                    _note_cut(directory, log_path, good_bytes, size)  # damage, not a torn tail
            if good_bytes != size:
                os.truncate(log_path, good_bytes)
        index._log = open(log_path, "a", encoding="utf-8")
        committed = index._read_committed()
        same = committed is not None and committed.get("inode") == os.fstat(index._log.fileno()).st_ino
        index._log_id = committed.get("log_id") if same else None
        index._log_id = index._log_id or uuid.uuid4().hex
        return index

    def _load_committed(self, attempts: int = 20) -> None:
        """A reader's load: snapshot plus the log up to the committed offset."""
        assert self._directory is not None
        log_path = self._directory / _LOG_NAME
        for attempt in range(attempts):
            committed = self._read_committed()
            try:
                handle = open(log_path, "rb")
            except FileNotFoundError:
                if committed is None:
                    return  # nothing written yet
                time.sleep(0.01)  # between a compaction's unlink and rename: read both again
                continue
            with handle:
                stat = os.fstat(handle.fileno())
                if committed is not None and committed.get("inode") != stat.st_ino:
                    if attempt < attempts - 1:
                        time.sleep(0.01)  # compacted since committed.json was written
                        continue
                    # The same log file for longer than any compaction takes: a copied or
                    # restored home (new inodes). Its log is read up to its last whole line.
                    committed = None
                limit = int(committed["log_bytes"]) if committed is not None else stat.st_size
                self._deferred = True
                self._read_bytes = self._replay_log(handle, self._load_snapshot(log_path, handle), limit)
                if self._read_bytes < limit and (committed is not None
                                                 or _whole_line_at(handle, self._read_bytes)):
                    # committed bytes, or a whole line (a kill tears only the last), unread
                    raise self._damaged(log_path, limit)
                self._log_inode = stat.st_ino if committed is not None else None
                self._log_id = committed.get("log_id") if committed is not None else None
            self._freeze_delta()
            self._slot_map = None  # searches do not need it; has() or meta() build it again
            return
        raise UsageError(f"lexical index {self._directory} kept changing while being opened")

    def keep_as_reader(self) -> None:
        """A writer done writing for now: flush, close the log, and go on answering as a
        reader of what it committed (:meth:`refresh` then takes in what other writers add),
        instead of closing and being opened again (~0.2 s at 100k documents). A no-op for a
        reader."""
        if self._log is None or self.read_only:
            return
        flush_or_let_go(self)  # may rewrite the log (a compaction): the inode is read after
        self._log_inode = os.fstat(self._log.fileno()).st_ino
        self._read_bytes = self._log.tell()
        self._log.close()
        self._log = None
        self.read_only = True

    def refresh(self) -> bool:
        """A reader: apply what the writer committed since this index was opened or last
        refreshed (the log's new records; the snapshot is not read again), so a process that
        answers for days follows an ingest in ~1 ms a document instead of reopening (~0.2 s at
        100k documents). False when it cannot (the log was compacted or replaced since, or this
        is not a reader): open it again then."""
        if not self.read_only or self._directory is None or self._log_inode is None:
            return False
        committed = self._read_committed()
        if (committed is None or committed.get("inode") != self._log_inode
                or committed.get("log_id") != self._log_id):
            return False
        limit = int(committed["log_bytes"])
        if limit == self._read_bytes:
            return True
        if limit < self._read_bytes:
            return False
        try:
            handle = open(self._directory / _LOG_NAME, "rb")
        except FileNotFoundError:
            return False
        with handle:
            if os.fstat(handle.fileno()).st_ino != self._log_inode:
                return False
            self._deferred = True
            try:
                self._read_bytes = self._replay_log(handle, self._read_bytes, limit)
            finally:
                self._freeze_delta()
        if self._read_bytes < limit:
            raise self._damaged(self._directory / _LOG_NAME, limit)
        return True

    def _damaged(self, log_path: Path, committed: int) -> HomeError:
        """A reader's error for a log that ends, or stops being readable, before the bytes its
        writer committed (damaged between runs): one line and the remedy, never a search over
        part of the index. A writer's open cuts the log there and curation re-indexes the rest."""
        return HomeError(f"BM25 index {self._directory} is damaged: its log {log_path} cannot be "
                         f"read past byte {self._read_bytes} of {committed}; run `atc curate` "
                         f"to rebuild it")

    def _replay_log(self, handle: Any, start: int, limit: int | None) -> int:
        """Apply the log's whole records from byte ``start`` (up to ``limit`` bytes when given);
        returns where the last one applied ends. A torn or unreadable line ends the replay."""
        handle.seek(start)
        position = start
        for line in handle:
            if (limit is not None and position + len(line) > limit) or not line.endswith(b"\n"):
                break  # not committed yet, or torn
            try:
                record = json.loads(line)
            except ValueError:
                break
            self._apply(record)
            self._log_records += 1
            position += len(line)
        return position

    def _read_committed(self) -> dict | None:
        assert self._directory is not None
        try:
            return json.loads((self._directory / _COMMITTED_NAME).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None

    def _write_committed(self, log_bytes: int) -> None:
        """Record the durable prefix of the log for readers, atomically and durably: a
        committed.json that a power cut took back to an older one would show readers an
        older prefix (a batch whose journal commit and pending file were durable never found
        by BM25 until some writer flushed again), or name a log by an inode a later one was
        given."""
        assert self._directory is not None and self._log is not None
        info = {"inode": os.fstat(self._log.fileno()).st_ino, "log_bytes": log_bytes,
                "log_id": self._log_id}
        replace_durably(self._directory / _COMMITTED_NAME, json.dumps(info))

    def _apply(self, record: dict) -> None:
        if "d" in record:
            self._drop(record["d"])
        else:
            self._put(record["k"], record["t"], record.get("m"))

    def _append(self, record: dict) -> None:
        if self._log is not None:
            self._log.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._log_records += 1

    def flush(self) -> None:
        """Make every write so far durable; compact the log when it is mostly superseded, and
        refresh the snapshot when the log has outgrown it."""
        if self._log is None:
            return
        live = self._count
        superseded = self._log_records - live
        if superseded >= 1000 and superseded > live:
            self._compact_log()
        self._log.flush()
        os.fsync(self._log.fileno())
        size = self._log.tell()
        self._write_committed(size)
        if (size - self._snapshot_bytes >= max(_SNAPSHOT_MIN_BYTES, _SNAPSHOT_GROWTH * size)
                or self._delta_entries >= _DELTA_MAX_POSTINGS):
            self._write_snapshot(size)

    def _compact_log(self) -> None:
        assert self._directory is not None and self._log is not None
        log_path = self._directory / _LOG_NAME
        temporary = log_path.with_suffix(".jsonl.tmp")
        with open(temporary, "w", encoding="utf-8") as out:
            for key, slot in self._slots().items():
                record: dict[str, Any] = {"k": key, "t": self._doc_terms(slot)}
                meta = self._columns.get(slot)
                if meta:
                    record["m"] = meta
                out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            out.flush()
            os.fsync(out.fileno())
        self._log.close()
        # The snapshot describes the old log: retire it first, so no crash can pair it with the new.
        pointer = self._directory / _SNAPSHOT_NAME
        if pointer.exists():
            pointer.unlink()
            fsync_path(self._directory)
        os.replace(temporary, log_path)
        fsync_path(self._directory)
        self._log = open(log_path, "a", encoding="utf-8")
        self._log_id = uuid.uuid4().hex  # a new file, whatever inode it was given
        self._log_records = self._count
        self._snapshot_bytes = 0  # the old snapshot no longer matches this log's head

    def purge(self) -> None:
        """Erase removed documents from the disk: rewrite the log with the live documents
        only, rebuild the index from it (so the term table holds no term that only removed
        documents had) and write a fresh snapshot, deleting the older ones. A crash at any
        step leaves the old log or the new one, and a snapshot that matches its log or none
        (the compaction's order)."""
        self._require_writable()
        if self._log is None or self._directory is None:
            return
        (self._directory / (_LOG_NAME + ".tmp")).unlink(missing_ok=True)
        self._compact_log()
        log_path = self._directory / _LOG_NAME
        fresh = LexicalIndex(k1=self.k1, b=self.b)
        fresh._directory = self._directory
        with open(log_path, "rb") as handle:
            fresh._replay_log(handle, 0, None)
        fresh._log, fresh._log_id = self._log, self._log_id
        self.__dict__.update(fresh.__dict__)
        self._log.flush()
        os.fsync(self._log.fileno())
        size = self._log.tell()
        self._write_committed(size)
        self._write_snapshot(size)

    def close(self) -> None:
        """Flush and release the log file (let go of unwritten, see :meth:`let_go`, when the
        flush fails; its error is raised)."""
        if self._log is not None:
            flush_or_let_go(self)
            self._log.close()
            self._log = None

    def let_go(self) -> None:
        """Release the log file without writing what it holds unwritten (a write the file
        system refused): those bytes never land, not even after another writer's appends. The
        documents added since the last flush that succeeded are not durable, and this index
        must not be used again: the next open reads the log as far as it is whole, and the
        ingest's pending file (or curation) indexes what is missing, as after a kill."""
        close_unwritten(self._log)
        self._log = None

    def __enter__(self) -> "LexicalIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ snapshot

    def _log_head(self, log_path: Path, handle: Any = None) -> str:
        """Digest of the log's first bytes (of the open ``handle`` when given)."""
        if handle is not None:
            return hashlib.sha256(os.pread(handle.fileno(), _HEAD_BYTES, 0)).hexdigest()
        with open(log_path, "rb") as handle:
            return hashlib.sha256(handle.read(_HEAD_BYTES)).hexdigest()

    def _load_snapshot(self, log_path: Path, handle: Any = None) -> int:
        """Load a snapshot that matches the log (the open ``handle`` of it, for a reader);
        returns the log offset to replay from."""
        assert self._directory is not None
        pointer = self._directory / _SNAPSHOT_NAME
        if not pointer.exists() or not log_path.exists():
            return 0
        try:
            info = json.loads(pointer.read_text(encoding="utf-8"))
            size = os.fstat(handle.fileno()).st_size if handle is not None else log_path.stat().st_size
            if (info.get("version") != _SNAPSHOT_VERSION or size < info["log_bytes"]
                    or self._log_head(log_path, handle) != info["log_head"]):
                return 0
            self._adopt_snapshot(self._directory / info["dir"])
        except (OSError, ValueError, KeyError, TypeError):
            read_only = self.read_only
            self.__init__(k1=self.k1, b=self.b)  # a half-read snapshot leaves nothing behind
            self._directory, self.read_only = log_path.parent, read_only
            return 0  # unreadable snapshot: the log alone is the truth
        self._snapshot_bytes = int(info["log_bytes"])
        return self._snapshot_bytes

    def _adopt_snapshot(self, folder: Path) -> None:
        """Make the snapshot in ``folder`` the whole in-memory index (its arrays memory-mapped)."""
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r")
                  for name in ("inv_ptr", "inv_slots", "inv_counts", "fwd_ptr", "fwd_terms",
                               "fwd_counts", "lengths", "df")}
        keys = json.loads((folder / "keys.json").read_text(encoding="utf-8"))
        terms = json.loads((folder / "terms.json").read_text(encoding="utf-8"))
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        columns = {field: (np.load(folder / f"meta-{i}.npy"), values)
                   for i, (field, values) in enumerate(meta)}
        n = len(keys)
        self._terms = terms
        self._term_id = {term: i for i, term in enumerate(terms)}
        self._df = np.array(arrays["df"], dtype=np.int64)
        self._inv_ptr, self._inv_slots, self._inv_counts = arrays["inv_ptr"], arrays["inv_slots"], arrays["inv_counts"]
        self._fwd_ptr, self._fwd_terms, self._fwd_counts = arrays["fwd_ptr"], arrays["fwd_terms"], arrays["fwd_counts"]
        self._delta_fwd, self._delta_post, self._compiled = {}, {}, {}
        self._delta_entries = 0
        self._base_docs = n
        self._slot_keys = list(keys)
        self._slot_map = None
        self._count = n
        capacity = max(1024, n + n // 8)  # room for a log tail; a writer grows it by doubling
        self._lengths = np.zeros(capacity)
        self._lengths[:n] = arrays["lengths"]
        self._live = np.zeros(capacity, dtype=bool)
        self._live[:n] = True
        self._total_len = float(self._lengths[:n].sum())
        self._columns.restore(columns, capacity)
        self._norms = None
        self._log_records = n

    def _write_snapshot(self, log_bytes: int) -> None:
        """Compile the live documents into a new snapshot covering ``log_bytes`` of the log."""
        assert self._directory is not None
        used = len(self._slot_keys)
        live_slots = np.flatnonzero(self._live[:used])
        generation = 1 + max((int(p.name[5:]) for p in self._directory.glob("snap-*") if p.name[5:].isdigit()),
                             default=0)
        folder = self._directory / f"snap-{generation}"
        folder.mkdir()
        # the postings a chunk of documents at a time (postings.py: bounded memory at any size)
        write_postings(folder, self._posting_sizes(live_slots), self._forward_chunks(live_slots),
                       len(self._terms))
        np.save(folder / "lengths.npy", self._lengths[live_slots])
        np.save(folder / "df.npy", self._df)
        keys = [self._slot_keys[slot] for slot in live_slots.tolist()]
        (folder / "keys.json").write_text(json.dumps(keys, ensure_ascii=False), encoding="utf-8")
        (folder / "terms.json").write_text(json.dumps(self._terms, ensure_ascii=False), encoding="utf-8")
        exported = self._columns.export(live_slots)
        for i, (codes, _) in enumerate(exported.values()):
            np.save(folder / f"meta-{i}.npy", codes)
        (folder / "meta.json").write_text(json.dumps([[f, v] for f, (_, v) in exported.items()]), encoding="utf-8")
        for path in folder.iterdir():
            fsync_path(path)
        fsync_path(folder)
        info = {"version": _SNAPSHOT_VERSION, "dir": folder.name, "log_bytes": log_bytes,
                "log_head": self._log_head(self._directory / _LOG_NAME)}
        replace_durably(self._directory / _SNAPSHOT_NAME, json.dumps(info))
        # Serve from the snapshot just written: the delta it absorbed is freed, dead slots go.
        records = self._log_records
        self._adopt_snapshot(folder)
        self._log_records = records
        for old in self._directory.glob("snap-*"):
            if old != folder:
                shutil.rmtree(old, ignore_errors=True)  # mapped arrays stay readable until unmapped
        self._snapshot_bytes = log_bytes

    def _posting_sizes(self, slots: np.ndarray) -> np.ndarray:
        """How many terms each document in ``slots`` (ascending) holds."""
        base = slots[slots < self._base_docs]
        sizes = np.empty(len(slots), dtype=np.int64)
        sizes[:len(base)] = self._fwd_ptr[base + 1] - self._fwd_ptr[base]
        sizes[len(base):] = [len(self._delta_fwd[slot][0]) for slot in slots[len(base):].tolist()]
        return sizes

    def _forward_chunks(self, slots: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(term ids, counts) of the documents in ``slots`` (ascending), ``_CHUNK_DOCS`` at a time."""
        docs = _CHUNK_DOCS
        base = slots[slots < self._base_docs]
        for start in range(0, len(base), docs):
            chunk = base[start:start + docs]
            starts = self._fwd_ptr[chunk]
            sizes = self._fwd_ptr[chunk + 1] - starts
            firsts = np.cumsum(sizes) - sizes
            entries = np.repeat(starts - firsts, sizes) + np.arange(int(sizes.sum()), dtype=np.int64)
            yield self._fwd_terms[entries], self._fwd_counts[entries]
        delta = slots[len(base):].tolist()
        for start in range(0, len(delta), docs):
            parts = [self._delta_fwd[slot] for slot in delta[start:start + docs]]
            yield (np.concatenate([p[0] for p in parts]).astype(np.int32),
                   np.concatenate([p[1] for p in parts]).astype(np.float32))

    # ------------------------------------------------------------------ updates

    def _forward(self, slot: int) -> tuple[np.ndarray, np.ndarray]:
        """(term ids, counts) of the document in ``slot``."""
        if slot < self._base_docs:
            lo, hi = int(self._fwd_ptr[slot]), int(self._fwd_ptr[slot + 1])
            return self._fwd_terms[lo:hi], self._fwd_counts[lo:hi]
        return self._delta_fwd[slot]

    def _doc_terms(self, slot: int) -> dict[str, int]:
        term_ids, counts = self._forward(slot)
        return {self._terms[t]: int(c) for t, c in zip(term_ids.tolist(), counts.tolist())}

    def _grow(self, needed: int) -> None:
        if needed <= len(self._lengths):
            return
        capacity = max(1024, 2 * len(self._lengths), needed)
        self._lengths = np.concatenate([self._lengths, np.zeros(capacity - len(self._lengths))])
        self._live = np.concatenate([self._live, np.zeros(capacity - len(self._live), dtype=bool)])
        self._columns.grow(capacity)

    def _put(self, key: str, terms: Mapping[str, int], meta: Mapping[str, Any] | None = None) -> None:
        self._drop(key)
        ids = []
        for term in terms:
            tid = self._term_id.get(term)
            if tid is None:
                tid = self._term_id[term] = len(self._terms)
                self._terms.append(term)
            ids.append(tid)
        if len(self._terms) > len(self._df):
            self._df = np.concatenate([self._df, np.zeros(max(1024, len(self._terms)), dtype=np.int64)])
        term_ids = np.array(ids, dtype=np.int64)
        counts = np.fromiter(terms.values(), dtype=np.float64, count=len(ids))
        slot = len(self._slot_keys)  # slots are never reused: dead ones may still have postings
        self._grow(slot + 1)
        self._slot_keys.append(key)
        self._slots()[key] = slot
        self._count += 1
        self._delta_fwd[slot] = (term_ids, counts)
        self._delta_entries += len(ids)
        if not self._deferred:
            for tid, count in zip(ids, counts.tolist()):
                self._delta_post.setdefault(tid, {})[slot] = count
                self._compiled.pop(tid, None)
        self._df[term_ids] += 1
        length = float(counts.sum())
        self._lengths[slot] = length
        self._live[slot] = True
        self._total_len += length
        self._columns.set(slot, meta)
        self._norms = None

    def _drop(self, key: str) -> bool:
        slot = self._slots().pop(key, None)
        if slot is None:
            return False
        self._count -= 1
        term_ids, _ = self._forward(slot)
        self._df[np.asarray(term_ids, dtype=np.int64)] -= 1
        if slot >= self._base_docs and not self._deferred:
            for tid in term_ids.tolist():
                posting = self._delta_post[tid]
                del posting[slot]
                self._compiled.pop(tid, None)
                if not posting:
                    del self._delta_post[tid]
        if slot >= self._base_docs:
            self._delta_entries -= len(term_ids)
            del self._delta_fwd[slot]
        self._total_len -= float(self._lengths[slot])
        self._lengths[slot] = 0
        self._live[slot] = False
        self._slot_keys[slot] = None
        self._columns.clear(slot)
        self._norms = None
        return True

    def add(
        self, keys: list[str], texts: list[str], meta: Sequence[Mapping[str, Any] | None] | None = None
    ) -> int:
        """Index (or re-index) each key's text, with optional meta for ``filter_meta``;
        returns how many keys were new."""
        self._require_writable()
        if isinstance(keys, str) or isinstance(texts, str):
            raise UsageError("LexicalIndex.add takes lists of keys and texts")
        if len(keys) != len(texts):
            raise UsageError(f"LexicalIndex.add got {len(keys)} keys but {len(texts)} texts")
        metas = list(meta) if meta is not None else [None] * len(keys)
        if len(metas) != len(keys):
            raise UsageError(f"LexicalIndex.add got {len(keys)} keys but {len(metas)} meta entries")
        added = 0
        for key, text, item_meta in zip(keys, texts, metas):
            terms = Counter(lexical_terms(text))
            added += key not in self._slots()
            self._put(key, terms, item_meta)
            record: dict[str, Any] = {"k": key, "t": terms}
            if item_meta:
                record["m"] = dict(item_meta)
            self._append(record)
        return added

    def remove(self, keys: Iterable[str]) -> int:
        """Forget these keys; returns how many were present."""
        self._require_writable()
        removed = 0
        for key in keys:
            if self._drop(key):
                removed += 1
                self._append({"d": key})
        return removed

    def _require_writable(self) -> None:
        if self.read_only:
            raise UsageError(f"lexical index {self._directory} is open read-only")

    def has(self, key: str) -> bool:
        """Whether ``key`` is indexed."""
        return key in self._slots()

    def keys(self) -> list[str]:
        """Every indexed key."""
        return list(self._slots())

    def __len__(self) -> int:
        return self._count

    def meta(self, key: str) -> dict:
        """The meta indexed with ``key`` (empty when none was given).

        Raises:
            KeyError: no such key.
        """
        return self._columns.get(self._slots()[key])

    # ------------------------------------------------------------------ search

    def idf(self, term: str) -> float:
        """BM25 inverse document frequency of one (already normalised) term."""
        tid = self._term_id.get(term)
        df = int(self._df[tid]) if tid is not None else 0
        n = self._count
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _posting_arrays(self, tid: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """(slots, counts) of every document, live or dead, that holds term ``tid``: the
        snapshot's part (a view of the mapped arrays) and the delta's, when it has one (no
        slot is in both)."""
        if tid + 1 < len(self._inv_ptr):
            lo, hi = int(self._inv_ptr[tid]), int(self._inv_ptr[tid + 1])
            parts = [(self._inv_slots[lo:hi], self._inv_counts[lo:hi])]
        else:
            parts = []
        compiled = self._compiled.get(tid)
        if compiled is None:
            delta = self._delta_post.get(tid)
            if not delta:
                return parts
            compiled = self._compiled[tid] = self._delta_arrays(delta)
        return [*parts, compiled]

    @staticmethod
    def _delta_arrays(posting: dict[int, float]) -> tuple[np.ndarray, np.ndarray]:
        return (np.fromiter(posting.keys(), dtype=np.int64, count=len(posting)),
                np.fromiter(posting.values(), dtype=np.float64, count=len(posting)))

    def _slots(self) -> dict[str, int]:
        """Key -> slot of every live document (dead slots hold no key in ``_slot_keys``)."""
        if self._slot_map is None:
            self._slot_map = {key: slot for slot, key in enumerate(self._slot_keys) if key is not None}
        return self._slot_map

    def _freeze_delta(self) -> None:
        """A reader's delta postings as arrays, built once from the delta's forward lists (it
        never changes): a dict entry per posting costs ~100 bytes, an array entry 16."""
        self._deferred = False
        self._delta_post, self._compiled = {}, {}
        if not self._delta_fwd:
            return
        slots = sorted(self._delta_fwd)
        parts = [self._delta_fwd[slot] for slot in slots]
        tids = np.concatenate([p[0] for p in parts])
        counts = np.concatenate([p[1] for p in parts])
        owners = np.repeat(np.array(slots, dtype=np.int64), [len(p[0]) for p in parts])
        order = np.argsort(tids, kind="stable")               # by term, then slot
        tids, owners, counts = tids[order], owners[order], counts[order]
        starts = np.flatnonzero(np.r_[True, tids[1:] != tids[:-1]])
        ends = np.r_[starts[1:], len(tids)]
        for tid, lo, hi in zip(tids[starts].tolist(), starts.tolist(), ends.tolist()):
            self._compiled[tid] = (owners[lo:hi], counts[lo:hi])

    def _slot_scores(self, text: str, filter_meta: Mapping[str, Any] | None = None,
                     stats_meta: Mapping[str, Any] | None = None,
                     within: Iterable[str] | None = None,
                     without: Iterable[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(slots, scores) of every live document sharing a term with ``text`` (and matching
        ``filter_meta``). With ``stats_meta`` the BM25 statistics (how many documents, their
        mean length, how many hold each term) are those of the documents matching it, and
        only they are scored: documents outside it then change no score. ``within`` (keys) is
        such a scope too, and wins over ``stats_meta``: a grantee's search within the records
        they see, scored by their statistics alone. ``without`` (keys) takes documents out of
        the scope (of the whole index where there is none): they are neither scored nor
        counted, so they change no score (what a label hides from a grantee whose records are
        found by segment)."""
        query = Counter(tid for tid in map(self._term_id.get, lexical_terms(text))
                        if tid is not None and self._df[tid] > 0)
        if not query or not self._count:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        used = len(self._slot_keys)
        scope = None
        if within is not None:
            scope = self._within_mask(within, used) & self._live[:used]
            in_scope = int(scope.sum())
        elif stats_meta:
            scope, in_scope = self._columns.mask(stats_meta, self._live[:used])
        if without is not None and within is None:
            kept = ~self._within_mask(without, used)
            scope = (self._live[:used] if scope is None else scope) & kept
            in_scope = int(scope.sum())
        if scope is not None:
            if not in_scope:
                return np.zeros(0, dtype=np.int64), np.zeros(0)
            average = float(self._lengths[:used][scope].sum()) / in_scope or 1.0
            norms = self.k1 * (1.0 - self.b + self.b * self._lengths[:used] / average)
        else:
            if self._norms is None or len(self._norms) != used:
                average = self._total_len / self._count or 1.0
                self._norms = self.k1 * (1.0 - self.b + self.b * self._lengths[:used] / average)
            norms = self._norms
        totals = np.zeros(used)
        for tid, query_count in query.items():
            if scope is None:
                weight = self.idf(self._terms[tid]) * query_count
            else:
                df = sum(int(scope[slots].sum()) for slots, _ in self._posting_arrays(tid))
                weight = math.log(1.0 + (in_scope - df + 0.5) / (df + 0.5)) * query_count
            for slots, counts in self._posting_arrays(tid):
                # unbuffered (a posting names a slot once, so the sums are the same): numpy's
                # `totals[slots] +=` gathers, adds and scatters in three passes, ~25 % slower
                np.add.at(totals, slots, self._term_scores(weight, slots, counts, norms))
        if filter_meta:
            mask, _ = self._columns.mask(filter_meta, self._live[:used])
        else:
            mask = self._live[:used]
        if scope is not None:
            mask = mask & scope
        # the scored documents the mask lets through, found in a boolean array: numpy finds
        # the non-zero entries of a float64 array element by element (~5 ns each, 0.5 ms a
        # query at 100k documents), of a boolean one by SIMD (~0.6 ns)
        matched = np.flatnonzero((totals != 0.0) & mask)
        return matched, totals[matched]

    def _term_scores(self, weight: float, slots: np.ndarray, counts: np.ndarray,
                     norms: np.ndarray) -> np.ndarray:
        """``weight * counts * (k1 + 1) / (counts + norms[slots])``, each posting's BM25 term
        score, the same numbers in the same order of operations, written into two arrays
        rather than five: a frame's query walks ~70,000 postings at 100k documents, and each
        temporary of that size is a fresh allocation whose pages fault in (~20 % of a search)."""
        # views as plain arrays: a slice of the snapshot's memmap makes every result a memmap
        slots, counts = slots.view(np.ndarray), counts.view(np.ndarray)
        numerators = np.multiply(counts, weight)
        np.multiply(numerators, self.k1 + 1.0, out=numerators)
        denominators = norms[slots]
        np.add(counts, denominators, out=denominators)
        # into the float64 denominators: float32 counts (an older snapshot) divide to float64
        return np.divide(numerators, denominators, out=denominators)

    def _within_mask(self, keys: Iterable[str], used: int) -> np.ndarray:
        """A mask of the slots of ``keys`` (keys the index does not hold are skipped)."""
        slots = self._slots()
        mask = np.zeros(used, dtype=bool)
        at = [slot for slot in map(slots.get, keys) if slot is not None and slot < used]
        mask[np.asarray(at, dtype=np.int64)] = True
        return mask

    def scores(self, text: str) -> dict[str, float]:
        """BM25 score of every key sharing at least one term with ``text``."""
        slots, values = self._slot_scores(text)
        keys = self._slot_keys
        return {keys[slot]: score for slot, score in zip(slots.tolist(), values.tolist())}

    def search(
        self,
        text: str,
        k: int,
        *,
        allow: Callable[[str], bool] | None = None,
        filter_meta: Mapping[str, Any] | None = None,
        stats_meta: Mapping[str, Any] | None = None,
        within: Iterable[str] | None = None,
        without: Iterable[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` best keys for ``text`` as ``(key, score)``, best first (ties by key).

        ``allow`` and ``filter_meta`` restrict the keys as in ``VectorStore.search``;
        ``stats_meta`` scores within the documents it matches, by their statistics alone
        (a grantee's search: what lies outside the segments they read moves no score);
        ``within`` scores only those keys, by their statistics alone (a grantee's search within
        the records they see: it costs what they see, and no score depends on the rest);
        ``without`` neither scores those keys nor counts them in the statistics.
        """
        if k <= 0:
            return []
        slots, values = self._slot_scores(text, filter_meta, stats_meta, within, without)
        if allow is None and len(values) > k:
            # keep the k best and everything tied with the k-th, then order those exactly
            kth = np.partition(values, len(values) - k)[len(values) - k]
            keep = values >= kth
            slots, values = slots[keep], values[keep]
        keys = self._slot_keys
        items: Iterable[tuple[str, float]] = [(keys[slot], score) for slot, score in zip(slots.tolist(), values.tolist())]
        if allow is not None:
            items = [item for item in items if allow(item[0])]
        return heapq.nsmallest(k, items, key=lambda item: (-item[1], item[0]))
