"""VectorStore: one vector per key under a directory, searched in its memory-mapped log.

On disk (everything the store owns lives in its directory)::

    manifest.json     format, embedder id, dimension, generation, committed rows and key-log
                      bytes, next row id, and which saved index file holds what; replaced
                      atomically on flush
    vectors-G.f16     append-only log of float16 rows after a 4 KiB header, one row per write,
                      memory-mapped for reads (see :mod:`.mapped_rows`); manifest format 2.
                      A store of format 1 (older versions) has ``vectors-G.f32``, float32 rows
                      from byte 0: readers read it as it is, and a writer's open migrates it to
                      float16 with a compaction (below), so it is crash-safe the same way.
    keys-G.jsonl      append-only log, one line per write: {"r": id, "k": key, "m": meta}
                      for an upsert (its vector is the same-numbered row of the vector log)
                      and {"d": key} for a removal
    index-N.faiss     the approximate (HNSW / IVF) index, when there is one (N: the row ids
                      it covers; the manifest names the file, older ones are deleted after it)
    keys-G-B.npz      key-table snapshot: the live row ids, their log positions, keys and meta
                      codes as arrays, covering the first B bytes of keys-G.jsonl; an open loads
                      it and replays only the log after B (0.2 s instead of 2 s at 168k keys).
                      Written by flush once the key log grew by a tenth (at least 4 MiB) past
                      the last one; named by the manifest like the index; ignored (the whole
                      log replayed) when unreadable or of another generation
    .lock             advisory lock (flock): one writing handle per store, in any process

Every write gets a fresh, never reused row id; an upsert makes the key's previous row a
tombstone. Each ``add``/``remove`` hands its bytes to the operating system before returning,
so a killed process loses nothing; ``flush()`` is the durability point against power loss: it
fsyncs both logs, then the manifest. On open the logs are replayed; a torn final row or line
(a crash mid-write) and any row whose partner in the other log is missing are cut off, so a
crash never yields a half-written vector. When tombstones pass a quarter of the log,
``flush()`` compacts: live rows are copied to generation G+1 files (fsynced), the manifest
switches to them, the old files are deleted. Row ids survive compaction, so faiss indexes
(keyed by row id) stay valid.

**No copy of the vectors in memory.** Below the policy's ``flat_limit`` there is no faiss index:
a search scans the mapped log exactly (faiss' SIMD scan over the mapped float16 rows, tombstones
and meta filters as an id selector over log positions). From there an IVF index of 4-bit codes
(policy in :mod:`.faiss_index`) proposes candidates, which are re-ranked by their exact cosine
read from the log. The index is derived data: saved on flush (when it gained many rows or is
new); on open it is reloaded when the manifest says it matches, caught up with rows written
after it was saved, and rebuilt when missing, unreadable, stale (its row count differs from the
manifest's) or of an older kind (a float32 IVF-Flat). Vectors read back (``vector``,
``vectors``) are the float16 rows as float32: within ~1e-3 of what was added.

In memory per key: its bytes and hash in a :class:`~.key_table.KeyTable` (numpy arrays, ~40
bytes a key; a dict overlay for keys written since the key snapshot); liveness, log positions
and meta (as value codes, :mod:`.meta_columns`) are numpy arrays too.

Re-adding a key with an identical vector and meta writes nothing, so re-ingestion is cheap.

**Readers take no lock.** ``VectorStore.open(..., read_only=True)`` (any number of them, in any
process, while one writer appends) sees the store as the manifest last committed it: the rows
and key-log bytes the last ``flush()`` made durable, never a batch the writer is still writing.
It truncates nothing and writes nothing; its files are opened (the vector log memory-mapped)
before the manifest is read again to confirm their generation, so a compaction that deletes them
afterwards does not disturb it. A saved index is read by the name the manifest gives it (a
writer never rewrites a file a manifest names). A reader is a snapshot: reopen it to see later
writes.

Contents:
    VectorStore, handle_of, META_TYPES
"""
from __future__ import annotations

import dataclasses
import fcntl
import json
import math
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import faiss
import numpy as np

from attention_cloud.errors import EmbeddingError, HomeError, UsageError

from ..home import close_unwritten, flush_or_let_go, fsync_path, replace_durably
from .meta_columns import MetaColumns
from .mapped_rows import MappedRows, check_header, header_bytes, row_offset, write_header
from .faiss_index import (
    IndexPolicy,
    add_to_index,
    build_index,
    configure_faiss,
    empty_like_ivf,
    index_kind,
    is_current,
    ivf_lists,
    read_index,
    read_mapped_ivf,
    rerank_width,
    search_index,
    write_index,
)
from .key_table import KeyTable

__all__ = ["VectorStore", "handle_of", "META_TYPES"]

#: Manifest format -> the vector log's row type: 2 (written now) float16 rows after a header,
#: 1 (older stores, read and migrated on a writer's open) float32 rows.
ROW_TYPES = {1: np.dtype(np.float32), 2: np.dtype(np.float16)}
FORMAT = 2
_SUFFIX = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}
MANIFEST = "manifest.json"
INDEX_FILE = "index.faiss"
#: Types a meta value may have (JSON scalars).
META_TYPES = (str, int, float, bool, type(None))
_COMPACT_MIN_DEAD = 1024
#: From this many queries in one call an exact search multiplies matrices (faiss' BLAS threshold),
#: over blocks of this many rows.
_BATCH_QUERIES = 20
_BATCH_BLOCK = 16_384
#: Gathers of at most this many rows read them with pread when an approximate index serves.
_PREAD_ROWS = 4096
#: Key-log growth (bytes) below which no key-table snapshot is written (see flush).
KEY_SNAPSHOT_MIN_BYTES = 4 << 20
#: ... and at a checkpoint flush (the end of a curation), once it grew by this much (~1,500 keys).
KEY_SNAPSHOT_CHECKPOINT_BYTES = 256 << 10
_COMPACT_FRACTION = 0.25
#: Rows an approximate index may have beyond its saved copy before a flush rewrites it: at least
#: this many, and a share of it (a large file is not rewritten per batch; readers add the rows
#: past it at open). A checkpoint (the end of a curation) saves past the floor alone.
_SAVE_MIN_ROWS = 10_000
_SAVE_FRACTION = 0.05


def handle_of(key: str) -> str:
    """The item handle a key stands for: ``"it_3fa2#l1"`` -> ``"it_3fa2"``."""
    return key.split("#", 1)[0]




#: A vector log at least this large is read into the page cache when the store opens (~44k
#: vectors of 384 dimensions): smaller ones are cheap to fault in as they are touched.
WARM_LOG_BYTES = 64 << 20


def _damaged(directory: Path, why: str) -> HomeError:
    """The error for a store whose files lost what its manifest committed (cut short or garbled
    between runs): one line naming the folder and the remedy, never an answer from part of it.
    Its vectors derive from the journal, so a curation rebuilds a folder moved away."""
    return HomeError(f"vector store {directory} is damaged: {why}; its vectors derive from the "
                     f"journal: move the folder away and run `atc curate` to rebuild it")


#: What every manifest holds (a store's first manifest included), each an integer but for
#: the embedder's id.
_MANIFEST_INTEGERS = ("dim", "generation", "next_id", "rows")


def read_manifest(directory: Path) -> dict | None:
    """The manifest of the store in ``directory`` (None when it has none and no vector log:
    a store not written yet): a file that is no manifest a store wrote (cut short, garbled,
    replaced), or none beside vector logs (a writer writes its manifest before any log), raises
    the store's damaged error, which names the remedy."""
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if _vector_logs(directory):
            raise _damaged(directory, "it has vector logs but no manifest") from None
        return None
    except (ValueError, UnicodeDecodeError) as exc:
        raise _damaged(directory, f"its manifest {path} is not valid JSON") from exc
    lacks = _manifest_lacks(manifest)
    if lacks:
        raise _damaged(directory, f"its manifest {path} {lacks}")
    return manifest


def _vector_logs(directory: Path) -> list[Path]:
    return [*directory.glob("vectors-*.f32"), *directory.glob("vectors-*.f16")]


def check_store(directory: Path) -> None:
    """Open the store in ``directory`` as a reader does, with the embedder its manifest names,
    and close it: raises its damaged error (:class:`HomeError`) when a frame would stop on it;
    nothing to check without the folder."""
    if not directory.is_dir():
        return
    manifest = read_manifest(directory)
    if manifest is None:
        return
    VectorStore.open(directory, embedder_id=manifest["embedder_id"], dim=manifest["dim"],
                     read_only=True).close()


def _manifest_lacks(manifest: Any) -> str:
    """Why ``manifest`` (parsed JSON) is no manifest a store wrote, else "": one damaged in
    place (a key or value garbled while the file stayed JSON) or replaced by another file."""
    if not isinstance(manifest, dict):
        return "is not a JSON object"
    if not isinstance(manifest.get("embedder_id"), str):
        return "names no embedder_id"
    for key in _MANIFEST_INTEGERS:
        value = manifest.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            return f"holds no count {key}"
    return ""


def _read_into_page_cache(path: Path, stop: threading.Event, chunk: int = 8 << 20) -> None:
    """Read ``path`` once, front to back, so that the kernel caches it. Cosines looked up by key
    (``Jump.similarity``) touch random rows of the memory-mapped log, and a cold page costs a
    disk read: 96 random rows of a million-row log take 15 ms cold, 0.6 ms once it is cached
    (``scripts/bench/cosine_lookup.py``)."""
    try:
        with open(path, "rb", buffering=0) as handle:
            while not stop.is_set() and handle.read(chunk):
                pass
    except OSError:
        pass  # only a warm-up: searching never depends on it


def _write_json_atomically(path: Path, payload: dict) -> None:
    replace_durably(path, json.dumps(payload, indent=1, sort_keys=True))


class VectorStore:
    """Vectors by key with upsert, removal, filtered top-k search and crash-safe persistence.

    Open with :meth:`open`; use as a context manager or call :meth:`close`. All public
    methods are thread-safe (one lock); faiss builds for large stores run in a background
    thread. Scores are inner products of the stored rows and the query: cosine similarity
    for the unit-length vectors every :class:`~attention_cloud.embed.Embedder` returns.
    """

    # ------------------------------------------------------------------ opening

    def __init__(self, directory: Path, embedder_id: str, dim: int, policy: IndexPolicy) -> None:
        # Use VectorStore.open(); this only sets up empty state.
        self.directory = directory
        self.embedder_id = embedder_id
        self.dim = dim
        self.policy = policy
        self._lock = threading.RLock()
        self._generation = 0
        self._rows = 0  # rows in the current vector log
        self._next_id = 0
        self._keys = KeyTable()  # key <-> live row id, as arrays (see key_table)
        self._changes = 0  # keys added or removed since opening (see ``changes``)
        # meta lives in self._columns, positions and liveness in numpy arrays: no Python object
        # per key but for keys added since the key snapshot (the table's overlay)
        self._capacity = 0
        self._live = np.zeros(0, dtype=bool)  # by row id
        self._position = np.zeros(0, dtype=np.int64)  # row id -> row in the vector log
        self._id_at = np.zeros(0, dtype=np.int64)  # row in the vector log -> row id
        self._dtype = ROW_TYPES[FORMAT]  # the vector log's row type (float32 in older stores)
        self._allowed_cache: tuple | None = None  # (version key, mask, packed bitmap by log position)
        self._columns = MetaColumns()  # meta fields as code columns by row id, for filters
        self._bits_cache: dict[int, tuple[int, np.ndarray, np.ndarray]] = {}  # id(mask) -> bitmap
        self._mapped: MappedRows | None = None
        self._vector_log = None
        self._key_log = None
        self._lock_file = None
        self._index: faiss.Index | None = None  # the approximate index; None: exact scans
        self._tail: faiss.Index | None = None  # a reader's rows past its mapped index (see _open_index)
        self._index_dead = 0  # tombstoned ids still inside the index
        self._saved_index: dict | None = None  # what index.faiss holds, per the manifest
        self._key_snapshot: dict | None = None  # the key-table snapshot the manifest names
        self._index_unsaved = True
        self._index_rebuilt = False  # the index is not the saved one caught up: save it whole
        self._builder: threading.Thread | None = None
        self._built: tuple[faiss.Index, int] | None = None
        self._build_cancel = threading.Event()
        self._build_generation = 0
        self._committed_rows = 0
        self._committed_key_bytes = 0
        self._warm_stop = threading.Event()
        self.read_only = False
        self._open = False  # a read-only store has no logs to write; this says it is open
        self._folder_inode: int | None = None  # a reader: the folder it was read from (refresh)
        #: named in the manifest when the store is made: tells this store from one made later in
        #: its place (a re-embed and back), which a reused folder inode cannot
        self._store_id: str | None = None

    @classmethod
    def open(
        cls,
        directory: Path,
        *,
        embedder_id: str,
        dim: int,
        policy: IndexPolicy | None = None,
        read_only: bool = False,
    ) -> "VectorStore":
        """Open the store in ``directory``, creating it when empty.

        With ``read_only`` no lock is taken and nothing is created or written: the store is what
        its manifest last committed (empty when there is none yet); ``add``, ``remove`` and
        ``flush`` raise UsageError.

        Raises:
            EmbeddingError: the store holds vectors of another embedder id or dimension.
            HomeError: another process has the store open for writing, or its files are damaged.
        """
        configure_faiss()
        if not isinstance(dim, int) or dim <= 0:
            raise UsageError(f"vector dimension must be a positive integer, not {dim!r}")
        if not embedder_id:
            raise UsageError("a vector store needs the id of the embedder that made its vectors")
        directory = Path(directory)
        store = cls(directory, embedder_id, dim, policy or IndexPolicy())
        if read_only:
            store.read_only = True
            try:
                store._load_read_only()
            except BaseException:
                store._release_files()
                raise
            store._warm_page_cache()
            return store
        directory.mkdir(parents=True, exist_ok=True)
        store._take_lock()
        try:
            store._load()
        except BaseException:
            store._release_files()
            raise
        store._warm_page_cache()
        return store

    def _warm_page_cache(self) -> None:
        """A large vector log is read once in the background (see _read_into_page_cache)."""
        path = self._vector_path()
        if path.exists() and path.stat().st_size >= WARM_LOG_BYTES:
            threading.Thread(target=_read_into_page_cache, args=(path, self._warm_stop),
                             name="atc-vector-warm", daemon=True).start()

    def _take_lock(self) -> None:
        self._lock_file = open(self.directory / ".lock", "a+")
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            self._lock_file.close()
            self._lock_file = None
            raise HomeError(f"vector store {self.directory} is open in another process or handle") from exc

    def _vector_path(self, generation: int | None = None, dtype: np.dtype | None = None) -> Path:
        generation = self._generation if generation is None else generation
        return self.directory / f"vectors-{generation}.{_SUFFIX[dtype or self._dtype]}"

    def _vector_logs(self) -> list[Path]:
        return _vector_logs(self.directory)

    def _key_path(self, generation: int | None = None) -> Path:
        return self.directory / f"keys-{self._generation if generation is None else generation}.jsonl"

    def _load(self) -> None:
        manifest = self._read_manifest()
        if manifest is not None:
            self._generation = int(manifest["generation"])
            self._next_id = int(manifest["next_id"])
            self._committed_rows = int(manifest["rows"])
            self._saved_index = manifest.get("index")
            self._dtype = ROW_TYPES[manifest["format"]]
            self._key_snapshot = manifest.get("key_snapshot")
            self._store_id = manifest.get("store_id") or uuid.uuid4().hex  # older stores: named now
        else:
            self._store_id = uuid.uuid4().hex
            self._write_manifest()
        self._replay()
        self._open_logs()
        self._committed_key_bytes = os.fstat(self._key_log.fileno()).st_size
        self._open = True
        if self._dtype != ROW_TYPES[FORMAT]:
            # an older store's float32 log: rewritten as float16 by a compaction (crash-safe: the
            # manifest names the old files or the new ones)
            self._compact()
        self._open_index()

    def _open_logs(self) -> None:
        """Open the current generation's logs for appending (a new float16 log gets its header)."""
        self._vector_log = open(self._vector_path(), "ab")
        if self._vector_log.tell() == 0 and header_bytes(self._dtype):
            write_header(self._vector_log, self.dim)
            self._vector_log.flush()
        self._key_log = open(self._key_path(), "a", encoding="utf-8")

    def _read_manifest(self) -> dict | None:
        manifest = read_manifest(self.directory)
        if manifest is None:
            return None
        if manifest.get("format") not in ROW_TYPES:
            raise HomeError(f"vector store {self.directory} has format {manifest.get('format')}, expected "
                            f"{' or '.join(map(str, ROW_TYPES))}")
        if manifest["embedder_id"] != self.embedder_id or manifest["dim"] != self.dim:
            raise EmbeddingError(
                f"vector store {self.directory} holds {manifest['dim']}-d vectors of embedder "
                f"{manifest['embedder_id']!r}, not {self.dim}-d vectors of {self.embedder_id!r}; "
                "re-embed into a new store or choose the same embedder"
            )
        return manifest

    def _load_read_only(self, attempts: int = 20) -> None:
        """Load what the manifest committed, without a lock (see the module doc, Readers)."""
        self._open = True
        self._folder_inode = os.stat(self.directory).st_ino if self.directory.exists() else None
        for _ in range(attempts):
            manifest = self._read_manifest()
            if manifest is None:
                return  # nothing committed yet: an empty store
            self._generation = int(manifest["generation"])
            self._dtype = ROW_TYPES[manifest["format"]]
            self._store_id = manifest.get("store_id")
            rows = int(manifest["rows"])
            keys = None
            try:
                keys = open(self._key_path(), "rb") if rows or manifest.get("key_bytes") else None
                mapped = MappedRows(self._vector_path(), self.dim, self._dtype, rows) if rows else None
                again = self._read_manifest()
                current = again is not None and int(again["generation"]) == self._generation
            except FileNotFoundError:
                current = False  # compacted away between the manifest and the open
            except HomeError as exc:  # the vector log is shorter than its committed rows
                if keys is not None:
                    keys.close()
                raise _damaged(self.directory, str(exc)) from exc
            if not current:
                if keys is not None:
                    keys.close()
                time.sleep(0.01)
                continue
            self._next_id = int(manifest["next_id"])
            self._committed_rows = rows
            self._saved_index = manifest.get("index")
            self._key_snapshot = manifest.get("key_snapshot")
            self._mapped = mapped
            if keys is not None:
                with keys:
                    done, done_bytes = self._load_key_snapshot(keys, rows)
                    done, self._committed_key_bytes = self._replay_records(
                        keys, rows, manifest.get("key_bytes"), done, done_bytes)
                if done < rows:  # a line garbled or cut short: the rest would be unsearchable
                    raise _damaged(self.directory, f"its key log names {done} rows, its "
                                   f"manifest committed {rows}")
            self._open_index()
            return
        raise HomeError(f"vector store {self.directory} kept changing generation while being opened")

    def refresh(self) -> bool:
        """A reader: take in what the writer committed since this store was opened or last
        refreshed (the key log's new records, the rows they name; the index gains the new
        rows), instead of reopening (~0.27 s at 168k keys, most of it the key log past the
        snapshot). False when it cannot (the writer compacted the logs or saved a new index
        since, or this is not a reader): open it again then. :attr:`changes` moves when
        anything was taken in."""
        with self._lock:
            if not self.read_only or not self._open:
                return False
            try:
                if os.stat(self.directory).st_ino != self._folder_inode:
                    return False  # another store moved in (a re-embed exchanges the folders)
            except OSError:
                return False
            manifest = self._read_manifest()
            if manifest is None:
                return self._committed_rows == 0
            if (int(manifest["generation"]) != self._generation
                    or manifest.get("store_id") != self._store_id
                    or manifest.get("embedder_id") != self.embedder_id
                    or int(manifest["dim"]) != self.dim
                    or manifest.get("index") != self._saved_index
                    or ROW_TYPES[manifest["format"]] != self._dtype):
                return False
            rows, key_bytes = int(manifest["rows"]), manifest.get("key_bytes")
            if rows == self._committed_rows and key_bytes == self._committed_key_bytes:
                return True
            if rows < self._committed_rows or (key_bytes or 0) < self._committed_key_bytes:
                return False
            first_new = self._next_id
            try:
                keys = open(self._key_path(), "rb")
            except FileNotFoundError:
                return False  # compacted away after the manifest was read
            with keys:
                keys.seek(self._committed_key_bytes)
                done, done_bytes = self._replay_records(keys, rows, key_bytes, self._rows,
                                                        self._committed_key_bytes)
            if done != rows:
                raise _damaged(self.directory, f"its key log names {done} rows, its manifest "
                               f"committed {rows}")
            self._committed_rows, self._committed_key_bytes = rows, done_bytes
            self._next_id = max(self._next_id, int(manifest["next_id"]))
            self._saved_index = manifest.get("index")
            self._key_snapshot = manifest.get("key_snapshot")
            newer = self._live_ids()
            newer = newer[newer >= first_new]
            target = self._tail if self._tail is not None else self._index
            if target is not None and len(newer):
                add_to_index(target, newer, self._read_ids(newer))
                self._index_unsaved = True
            if self._index is not None:
                self._maintain_index()
            self._changes += 1
            return True

    def _replay(self) -> None:
        """Replay the logs into memory (the writer: all of them) and cut a torn tail."""
        vector_path, key_path = self._vector_path(), self._key_path()
        row_bytes = self._dtype.itemsize * self.dim
        header = header_bytes(self._dtype)
        size = vector_path.stat().st_size if vector_path.exists() else 0
        if size >= header > 0:
            check_header(vector_path, self.dim)
        available = (size - header) // row_bytes if size >= header else 0
        rows, good_bytes = 0, 0
        if key_path.exists():
            with open(key_path, "rb") as keys:
                rows, good_bytes = self._load_key_snapshot(keys, available)
                rows, good_bytes = self._replay_records(keys, available, None, rows, good_bytes)
        if rows < self._committed_rows:
            raise _damaged(self.directory, f"its logs hold {rows} rows, its manifest "
                           f"committed {self._committed_rows}")
        # Cut what the crash left half-done, so new writes append to a clean log.
        if key_path.exists() and key_path.stat().st_size != good_bytes:
            os.truncate(key_path, good_bytes)
        good_size = row_offset(self._dtype, self.dim, rows) if size >= header else 0  # 0: a torn header
        if vector_path.exists() and size != good_size:
            os.truncate(vector_path, good_size)

    def _replay_records(self, handle, limit_rows: int | None, limit_bytes: int | None,
                        rows: int = 0, good_bytes: int = 0) -> tuple[int, int]:
        """Apply the key log's records from ``handle``'s position (``rows`` upserts and
        ``good_bytes`` bytes already applied) until a torn line, ``limit_rows`` upserts or
        ``limit_bytes`` bytes; returns (rows, bytes) applied."""
        max_id = self._next_id - 1
        for line in handle:
            if limit_bytes is not None and good_bytes + len(line) > limit_bytes:
                break  # written after the last flush
            if not line.endswith(b"\n"):
                break  # torn final line
            try:
                record = json.loads(line)
            except ValueError:
                break
            if "d" in record:
                self._forget(record["d"])
            else:
                if limit_rows is not None and rows >= limit_rows:
                    break  # its vector never reached the disk, or was not committed
                row_id = int(record["r"])
                self._remember(record["k"], row_id, rows, record.get("m") or {})
                max_id = max(max_id, row_id)
                rows += 1
            good_bytes += len(line)
        self._rows = rows
        self._next_id = max(self._next_id, max_id + 1)
        return rows, good_bytes

    # ------------------------------------------------------------------ in-memory tables

    def _grow(self, needed: int) -> None:
        if needed <= self._capacity:
            return
        capacity = max(needed, 2 * self._capacity, 1024)
        live = np.zeros(capacity, dtype=bool)
        live[: self._capacity] = self._live
        position = np.full(capacity, -1, dtype=np.int64)
        position[: self._capacity] = self._position
        self._columns.grow(capacity)
        self._live, self._position, self._capacity = live, position, capacity

    def _remember(self, key: str, row_id: int, position: int, meta: Mapping[str, Any]) -> None:
        self._forget(key)
        self._grow(row_id + 1)
        self._changes += 1
        self._keys[key] = row_id
        self._live[row_id] = True
        self._position[row_id] = position
        if position >= len(self._id_at):
            grown = np.full(max(position + 1, 2 * len(self._id_at), 1024), -1, dtype=np.int64)
            grown[: len(self._id_at)] = self._id_at
            self._id_at = grown
        self._id_at[position] = row_id
        self._columns.set(row_id, meta)

    def _forget(self, key: str) -> bool:
        row_id = self._keys.pop(key, None)
        if row_id is None:
            return False
        self._changes += 1
        self._live[row_id] = False
        self._columns.clear(row_id)
        if self._index is not None:
            self._index_dead += 1
        return True

    def _matrix(self) -> MappedRows:
        """The vector log's rows, memory-mapped (remapped when rows were written since)."""
        if self._mapped is None or len(self._mapped) < self._rows:
            if self._vector_log is not None:
                self._vector_log.flush()
            self._mapped = MappedRows(self._vector_path(), self.dim, self._dtype, self._rows)
        return self._mapped

    def _vectors_of_ids(self, ids: np.ndarray) -> np.ndarray:
        """The rows of ``ids`` as float32. While exact scans serve, the mapping is touched whole
        anyway; with an approximate index a few rows (re-ranking, cosines by key) are read with
        pread, so that the log's pages do not become this process' resident memory."""
        if self._index is not None and len(ids) <= _PREAD_ROWS:
            return self._matrix().pread(self._position[ids])
        return self._matrix().gather(self._position[ids])

    def _products_of_ids(self, ids: np.ndarray, query: np.ndarray) -> np.ndarray:
        """``einsum`` of :meth:`_vectors_of_ids` with ``query``, the rows read by pread scored
        where they are read (:meth:`MappedRows.products`)."""
        if self._index is not None and len(ids) <= _PREAD_ROWS:
            return self._matrix().products(self._position[ids], query)
        return np.einsum("ij,j->i", self._matrix().gather(self._position[ids]), query)

    def _read_ids(self, ids: np.ndarray) -> np.ndarray:
        """:meth:`_vectors_of_ids` by file reads (whole-log passes: builds, compaction)."""
        return self._matrix().read(self._position[ids])

    # ------------------------------------------------------------------ writing

    def _check_vectors(self, vectors: np.ndarray, count: int) -> np.ndarray:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1 and count == 1:
            matrix = matrix[None, :]
        if matrix.ndim != 2 or matrix.shape[0] != count:
            raise UsageError(f"expected {count} vectors, got an array of shape {np.shape(vectors)}")
        if matrix.shape[1] != self.dim:
            raise EmbeddingError(
                f"vector store {self.directory} holds {self.dim}-d vectors; got {matrix.shape[1]}-d ones"
            )
        if not np.isfinite(matrix).all():
            raise EmbeddingError("vectors contain NaN or infinity")
        return np.ascontiguousarray(matrix)

    @staticmethod
    def _check_meta(meta: Any) -> dict:
        if meta is None:
            return {}
        if not isinstance(meta, Mapping):
            raise UsageError(f"meta must be a dict, not {type(meta).__name__}")
        for field, value in meta.items():
            if not isinstance(field, str) or not isinstance(value, META_TYPES):
                raise UsageError(f"meta {field!r}: values must be str, int, float, bool or None, not {type(value).__name__}")
        return dict(meta)

    def add(self, keys: Sequence[str], vectors: np.ndarray, meta: Sequence[Mapping[str, Any] | None] | None = None) -> int:
        """Insert or replace the vector (and meta) of each key; returns the rows written.

        A key whose vector and meta are unchanged is skipped (not counted). When a key occurs
        twice in one call, the later occurrence wins.

        Raises:
            UsageError: mismatched lengths, non-string keys, meta that is not a dict of scalars.
            EmbeddingError: vectors of the wrong dimension, or not finite.
        """
        if isinstance(keys, str):
            raise UsageError("VectorStore.add takes a list of keys, not a single string")
        keys = list(keys)
        matrix = self._check_vectors(vectors, len(keys))
        metas = [None] * len(keys) if meta is None else list(meta)
        if len(metas) != len(keys):
            raise UsageError(f"VectorStore.add got {len(keys)} keys but {len(metas)} meta entries")
        last = {}
        for index, key in enumerate(keys):
            if not isinstance(key, str) or not key:
                raise UsageError(f"keys must be non-empty strings, not {key!r}")
            last[key] = index
        checked = [self._check_meta(m) for m in metas]
        with self._lock:
            self._require_writable()
            self._adopt_build()
            picked = self._changed(last, matrix, checked)
            if not picked:
                return 0
            first_id = self._next_id
            ids = np.arange(first_id, first_id + len(picked), dtype=np.int64)
            lines = []
            for row_id, i in zip(ids.tolist(), picked):
                record: dict[str, Any] = {"r": row_id, "k": keys[i]}
                if checked[i]:
                    record["m"] = checked[i]
                lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
            # Vectors first: a key line is only honoured on replay if its vector row exists.
            self._vector_log.write(matrix[picked].astype(self._dtype).tobytes())
            self._vector_log.flush()
            self._key_log.write("\n".join(lines) + "\n")
            self._key_log.flush()
            for offset, (row_id, i) in enumerate(zip(ids.tolist(), picked)):
                self._remember(keys[i], row_id, self._rows + offset, checked[i])
            self._rows += len(picked)
            self._next_id += len(picked)
            if self._index is not None:
                add_to_index(self._index, ids, matrix[picked])
                self._index_unsaved = True
            self._maintain_index()
            return len(picked)

    def _changed(self, last: dict[str, int], matrix: np.ndarray, metas: list[dict]) -> list[int]:
        """Indexes (ascending) of the keys whose vector or meta differ from what is stored."""
        changed, existing = [], []
        for key, i in last.items():
            row_id = self._keys.get(key)
            if row_id is None or self._columns.get(row_id) != metas[i]:
                changed.append(i)
            else:
                existing.append((i, row_id))
        if existing:
            indexes = np.array([i for i, _ in existing])
            stored = self._vectors_of_ids(np.array([row_id for _, row_id in existing]))
            given = matrix[indexes].astype(self._dtype).astype(np.float32)  # as it would be stored
            differs = ~np.all(stored == given, axis=1)
            changed.extend(indexes[differs].tolist())
        return sorted(changed)

    def remove(self, keys: Iterable[str]) -> int:
        """Remove these keys; returns how many were present."""
        if isinstance(keys, str):
            raise UsageError("VectorStore.remove takes a list of keys, not a single string")
        with self._lock:
            self._require_writable()
            self._adopt_build()
            lines = []
            for key in keys:
                if self._forget(key):
                    lines.append(json.dumps({"d": key}, ensure_ascii=False, separators=(",", ":")))
            if lines:
                self._key_log.write("\n".join(lines) + "\n")
                self._key_log.flush()
                self._maintain_index()
            return len(lines)

    # ------------------------------------------------------------------ reading

    def has(self, key: str) -> bool:
        """Whether ``key`` has a vector."""
        with self._lock:
            return key in self._keys

    def __len__(self) -> int:
        with self._lock:
            return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.has(key)

    def keys(self) -> list[str]:
        """Every key, in write order."""
        with self._lock:
            return self._keys.keys()

    def meta(self, key: str) -> dict:
        """The meta stored with ``key``.

        Raises:
            KeyError: no such key.
        """
        with self._lock:
            return self._columns.get(self._keys[key])

    def vector(self, key: str) -> np.ndarray:
        """A copy of the vector stored for ``key``.

        Raises:
            KeyError: no such key.
        """
        with self._lock:
            return self._vectors_of_ids(np.array([self._keys[key]]))[0].copy()

    def vectors(self, keys: Sequence[str], *, read: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Which of ``keys`` have a vector (a boolean mask over ``keys``) and their vectors as
        one (present, dim) array in the order of ``keys``: one gather, not a lookup per key.
        ``read``: by file reads rather than through the mapping, for passes over much of the
        store (a cells rebuild): the log's pages stay in the page cache, out of this process'
        resident memory (at a million items the mapping's touched pages counted ~1.1 GB)."""
        with self._lock:
            return self.vectors_of_ids(self.ids(keys), read=read)

    @property
    def store_id(self) -> str | None:
        """This store's name in its manifest, made with it (None: a reader of an older store
        not yet written since)."""
        return self._store_id

    @property
    def row_dtype(self) -> np.dtype:
        """The vector log's row type: float16 (float32 in stores of format 1)."""
        return self._dtype

    @property
    def changes(self) -> int:
        """A counter that moves whenever a key is added, replaced or removed: row ids from
        :meth:`ids` stay valid while it stands still (compaction keeps ids)."""
        return self._changes

    def ids(self, keys: Sequence[str]) -> np.ndarray:
        """The row id of each of ``keys``, -1 for a key without a vector (for
        :meth:`vectors_of_ids`; a caller may keep them while :attr:`changes` stands still)."""
        with self._lock:
            return self._keys.ids(keys)

    def ids_matching(self, ids: np.ndarray, filter_meta: Mapping[str, Any]) -> np.ndarray:
        """For each row id of ``ids`` (from :meth:`ids`; -1 for none), whether it is a live row
        whose meta matches ``filter_meta`` (as in :meth:`search`): one mask over the meta
        columns, not a lookup per row."""
        with self._lock:
            mask, _ = self._columns.mask(filter_meta, self._live[: self._next_id])
            ids = np.asarray(ids, dtype=np.int64)
            out = np.zeros(len(ids), dtype=bool)
            known = (ids >= 0) & (ids < len(mask))
            out[known] = mask[ids[known]]
            return out

    def vectors_of_ids(self, ids: np.ndarray, *, read: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`vectors`, for row ids from :meth:`ids`: the mask of ids >= 0 and their
        vectors."""
        with self._lock:
            present = ids >= 0
            if not present.any():
                return present, np.zeros((0, self.dim), dtype=np.float32)
            if not read:
                return present, self._vectors_of_ids(ids[present])
            positions = self._position[ids[present]]
            order = np.argsort(positions, kind="stable")  # MappedRows.read: ascending positions
            out = np.empty((len(positions), self.dim), dtype=np.float32)
            out[order] = self._matrix().read(positions[order])
            return present, out

    def products_of_ids(self, ids: np.ndarray, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For row ids from :meth:`ids`: the mask of ids >= 0 and the inner product of
        ``query`` (float32) with each of their vectors, the numbers ``einsum`` gives over
        :meth:`vectors_of_ids`' rows without those rows being gathered in order."""
        with self._lock:
            present = ids >= 0
            if not present.any():
                return present, np.zeros(0, dtype=np.float32)
            return present, self._products_of_ids(ids[present], query)

    @property
    def index_kind(self) -> str | None:
        """``flat``, ``hnsw`` or ``ivf``: the faiss index serving searches now."""
        with self._lock:
            self._adopt_build()
            return self._kind() if self._open else None

    def wait_for_index(self, timeout: float | None = None) -> str | None:
        """Wait for a background index build to finish and adopt it; returns the index kind."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
        return self.index_kind

    # ------------------------------------------------------------------ search

    def _as_queries(self, query: np.ndarray) -> np.ndarray:
        matrix = np.asarray(query, dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix[None, :]
        if matrix.ndim != 2 or matrix.shape[1] != self.dim:
            raise EmbeddingError(f"query has shape {np.shape(query)}; this store holds {self.dim}-d vectors")
        return np.ascontiguousarray(matrix)

    def _candidates(self, filter_meta: Mapping[str, Any] | None) -> tuple[np.ndarray | None, np.ndarray | None, int]:
        """(mask by row id or None for "every live row", packed bitmap or None, candidate count)."""
        if not filter_meta and self._index_dead == 0:
            return None, None, len(self._keys)
        mask, count = self._columns.mask(filter_meta, self._live[: self._next_id])
        cached = self._bits_cache.get(id(mask))
        if cached is None or cached[1] is not mask or cached[0] != self._columns.version:
            if len(self._bits_cache) > 64:
                self._bits_cache.clear()
            cached = self._bits_cache[id(mask)] = (self._columns.version, mask,
                                                   np.packbits(mask, bitorder="little"))
        return mask, cached[2], count

    def _allowed_positions(self, ids: np.ndarray, rows: int, mask: np.ndarray | None) -> np.ndarray:
        """Packed bitmap over log positions of ``ids``, the rows of ``mask`` (None: every live
        row); cached for the last mask until the store changes."""
        key = (self._columns.version, rows, self._next_id)
        cached = self._allowed_cache
        if cached is None or cached[0] != key or cached[1] is not mask:
            allowed = np.zeros(rows, dtype=bool)
            allowed[self._position[ids]] = True
            cached = self._allowed_cache = (key, mask, np.packbits(allowed, bitorder="little"))
        return cached[2]

    @staticmethod
    def _ranked(ids: np.ndarray, scores: np.ndarray, fetch: int) -> list[tuple[int, float]]:
        """Best ``fetch`` of ``ids`` by score, ties by row id (results do not depend on the scan)."""
        order = np.lexsort((ids, -scores))[:fetch]
        return [(int(i), float(v)) for i, v in zip(ids[order], scores[order])]

    def _exact(self, queries: np.ndarray, ids: np.ndarray, fetch: int, mask: np.ndarray | None = None
               ) -> list[list[tuple[int, float]]]:
        """Exact top ``fetch`` among ``ids``: a scan of the mapped log in place (faiss, one
        thread) when they are a large share of it, else over their gathered rows; a batch of
        queries goes through matrix products over blocks of gathered rows instead."""
        matrix = self._matrix()
        results = []
        if len(queries) >= _BATCH_QUERIES:
            return self._exact_batched(queries, ids, fetch)
        if len(ids) * 4 >= len(matrix):
            allowed = None if len(ids) == len(matrix) else self._allowed_positions(ids, len(matrix), mask)
            scores, positions = matrix.search(queries, fetch, allowed)
            for row_scores, row_positions in zip(scores, positions):
                found = row_positions >= 0
                results.append(self._ranked(self._id_at[row_positions[found]], row_scores[found], fetch))
            return results
        vectors = self._vectors_of_ids(ids)
        scores, positions = faiss.knn(queries, vectors, min(fetch, len(ids)), faiss.METRIC_INNER_PRODUCT)
        for row_scores, row_positions in zip(scores, positions):
            found = row_positions >= 0
            results.append(self._ranked(ids[row_positions[found]], row_scores[found], fetch))
        return results

    def _exact_batched(self, queries: np.ndarray, ids: np.ndarray, fetch: int) -> list[list[tuple[int, float]]]:
        """:meth:`_exact` for many queries (echo detection): faiss' BLAS product per block of
        ``_BATCH_BLOCK`` gathered rows (one block of float32 in memory at a time), best
        ``fetch`` kept across blocks."""
        best_scores = np.full((len(queries), 0), -np.inf, dtype=np.float32)
        best_ids = np.zeros((len(queries), 0), dtype=np.int64)
        for start in range(0, len(ids), _BATCH_BLOCK):
            block = ids[start : start + _BATCH_BLOCK]
            scores, found = faiss.knn(queries, self._vectors_of_ids(block), min(fetch, len(block)),
                                      faiss.METRIC_INNER_PRODUCT)
            best_scores = np.concatenate([best_scores, scores], axis=1)
            best_ids = np.concatenate([best_ids, np.where(found >= 0, block[np.maximum(found, 0)], -1)], axis=1)
            if best_scores.shape[1] > fetch:
                keep = np.argsort(-best_scores, axis=1, kind="stable")[:, :fetch]
                best_scores = np.take_along_axis(best_scores, keep, axis=1)
                best_ids = np.take_along_axis(best_ids, keep, axis=1)
        results = []
        for row_scores, row_ids in zip(best_scores, best_ids):
            found = row_ids >= 0
            results.append(self._ranked(row_ids[found], row_scores[found], fetch))
        return results

    def _rerank(self, queries: np.ndarray, labels: np.ndarray, fetch: int) -> list[list[tuple[int, float]]]:
        """Candidates of the compressed index, ordered by their exact cosine from the log."""
        results = []
        for query, row_ids in zip(queries, labels):
            row_ids = row_ids[row_ids >= 0]
            scores = self._products_of_ids(row_ids, query) if len(row_ids) else np.zeros(0)
            results.append(self._ranked(row_ids, scores.astype(np.float32), fetch))
        return results

    def _search_ids(self, queries: np.ndarray, fetch: int, filter_meta: Mapping[str, Any] | None,
                    nprobe: int | None = None, threads: int = 1) -> list[list[tuple[int, float]]]:
        mask, bits, count = self._candidates(filter_meta)
        if count == 0 or fetch <= 0:
            return [[] for _ in range(len(queries))]
        fetch = min(fetch, count)
        if self._index is None or (mask is not None and filter_meta and count <= self.policy.exact_filter_limit):
            ids = np.flatnonzero(mask) if mask is not None else self._live_ids()
            return self._exact(queries, ids, fetch, mask)
        policy = self.policy if nprobe is None else dataclasses.replace(self.policy, ivf_nprobe=nprobe)
        _, labels = search_index(self._index, queries, min(count, rerank_width(fetch)), policy, bits,
                                 threads=threads, tail=self._tail)
        return self._rerank(queries, labels, fetch)

    def search(
        self,
        query: np.ndarray,
        k: int,
        *,
        allow: Callable[[str], bool] | None = None,
        filter_meta: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest keys to ``query`` as ``(key, score)``, best first.

        Args:
            query: one vector (``dim`` floats).
            k: how many results at most.
            allow: a predicate on keys (e.g. grants); results it rejects are skipped and the
                search widens until ``k`` pass or no candidates remain.
            filter_meta: ``{field: value}`` (or ``{field: [v1, v2]}`` for any of them); every
                field must match. Applied inside the index through an id bitmap.
        """
        queries = self._as_queries(query)
        if queries.shape[0] != 1:
            raise UsageError("search() takes one query vector; use search_many() for several")
        if k <= 0:
            return []
        with self._lock:
            self._require_open()
            self._adopt_build()
            if allow is None:
                return [(self._keys.key_of(i), s) for i, s in self._search_ids(queries, k, filter_meta)[0]]
            _, _, count = self._candidates(filter_meta)
            fetch = min(count, max(4 * k, 32))
            while True:
                hits = self._search_ids(queries, fetch, filter_meta)[0]
                passed = [(self._keys.key_of(i), s) for i, s in hits if allow(self._keys.key_of(i))]
                if len(passed) >= k or len(hits) < fetch or fetch >= count:
                    return passed[:k]
                fetch = min(count, fetch * 4)

    def search_many(
        self, queries: np.ndarray, k: int, *, filter_meta: Mapping[str, Any] | None = None,
        nprobe: int | None = None, threads: int = 1,
    ) -> list[list[tuple[str, float]]]:
        """:meth:`search` for a batch of query vectors (one faiss call), without ``allow``;
        ``nprobe`` overrides the IVF lists visited (the policy's, 16, by default): a search for
        near-duplicates (echo detection) finds them in the query's nearest lists. ``threads``
        splits the approximate index's search of a large batch over that many threads (the
        same hits; exact scans ignore it)."""
        matrix = self._as_queries(queries)
        if k <= 0:
            return [[] for _ in range(len(matrix))]
        with self._lock:
            self._require_open()
            self._adopt_build()
            return [[(self._keys.key_of(i), s) for i, s in hits]
                    for hits in self._search_ids(matrix, k, filter_meta, nprobe, threads)]

    # ------------------------------------------------------------------ the index

    def _live_ids(self) -> np.ndarray:
        return np.flatnonzero(self._live[: self._next_id]).astype(np.int64)

    def _open_index(self) -> None:
        """Load the saved index when the manifest vouches for it, else build one."""
        saved = self._saved_index
        live = len(self._keys)
        target = self.policy.kind_for(live, saved["kind"] if saved else None)
        if saved and saved.get("kind") == target and target != "flat":
            path = self.directory / saved.get("file", INDEX_FILE)
            if self.read_only and target == "ivf":
                # a reader maps the saved lists; the rows written since go into a small tail
                index = read_mapped_ivf(path)
                if index is not None and index.ntotal == saved["ntotal"]:
                    covered = int(saved["covered"])
                    newer = self._live_ids()
                    newer = newer[newer >= covered]
                    self._tail = empty_like_ivf(index)
                    add_to_index(self._tail, newer, self._read_ids(newer))
                    self._index = index
                    self._index_dead = int(index.ntotal) + len(newer) - live
                    self._index_unsaved = len(newer) > 0
                    self._maintain_index()
                    return
            index = read_index(path)
            # an index of an older kind still answers (its candidates are re-ranked alike): a
            # reader uses it, a writer rebuilds it (and saves the new one on flush)
            if (index is not None and index.ntotal == saved["ntotal"] and index_kind(index) == target
                    and (is_current(index) or self.read_only)):
                covered = int(saved["covered"])
                newer = self._live_ids()
                newer = newer[newer >= covered]
                add_to_index(index, newer, self._read_ids(newer))
                self._index = index
                self._index_dead = int(index.ntotal) - live
                self._index_unsaved = len(newer) > 0
                self._maintain_index()
                return
        self._rebuild(target)

    def _rebuild(self, target: str) -> None:
        """Replace the index by a fresh one of ``target`` kind: none for flat (searches scan the
        mapped log exactly); at once when the store is small or background builds are off;
        otherwise in the background while the current index (or exact scans) serve."""
        if target == "flat":
            self._index, self._tail, self._index_dead, self._index_unsaved = None, None, 0, True
            return
        ids = self._live_ids()
        if not self.policy.background or len(ids) < 2 * self.policy.build_chunk:
            self._tail = None  # only beside a mapped index, which this one replaces
            self._index = build_index(target, self.dim, ids, self._read_ids, self.policy)
            self._index_dead = 0
            self._index_unsaved = self._index_rebuilt = True
            return
        self._start_build(target, ids)

    def _start_build(self, target: str, ids: np.ndarray) -> None:
        matrix = self._matrix()
        positions = self._position.copy()
        covered = self._next_id
        cancel = self._build_cancel = threading.Event()
        self._build_generation += 1
        generation = self._build_generation

        def vectors_of(chunk: np.ndarray) -> np.ndarray:
            return matrix.read(positions[chunk])

        def run() -> None:
            index = build_index(target, self.dim, ids, vectors_of, self.policy, cancelled=cancel.is_set)
            if index is not None:
                with self._lock:
                    if generation == self._build_generation:
                        self._built = (index, covered)

        self._builder = threading.Thread(target=run, name=f"atc-faiss-{target}-build", daemon=True)
        self._builder.start()

    def _adopt_build(self) -> None:
        """Swap in a finished background index, adding the rows written since it started."""
        if self._built is None:
            return
        index, covered = self._built
        self._built = None
        self._builder = None
        newer = self._live_ids()
        newer = newer[newer >= covered]
        add_to_index(index, newer, self._read_ids(newer))
        self._index, self._tail = index, None
        self._index_dead = int(index.ntotal) - len(self._keys)
        self._index_unsaved = self._index_rebuilt = True

    def _maintain_index(self) -> None:
        """Start a rebuild when the store outgrew (or shrank below) its index kind, when HNSW
        carries too many tombstones, or when IVF has too few lists for its rows."""
        if self._builder is not None and self._builder.is_alive():
            return
        live = len(self._keys)
        current = self._kind()
        target = self.policy.kind_for(live, current)
        ntotal = max(1, int(self._index.ntotal)) if self._index is not None else 1
        if target != current:
            self._rebuild(target)
        elif current == "hnsw" and self._index_dead > self.policy.tombstone_rebuild * ntotal:
            self._rebuild("hnsw")
        elif current == "ivf" and (ivf_lists(self._index)
                                   < self.policy.ivf_retrain_below * math.sqrt(max(live, 1))):
            self._rebuild("ivf")

    def _kind(self) -> str:
        return "flat" if self._index is None else index_kind(self._index)

    def _drop_index_tombstones(self) -> None:
        """Physically remove dead ids from flat and IVF indexes (HNSW cannot; it is rebuilt)."""
        if self._index is None or self._index_dead == 0 or index_kind(self._index) == "hnsw":
            return
        dead = np.flatnonzero(~self._live[: self._next_id]).astype(np.int64)
        self._index.remove_ids(faiss.IDSelectorBatch(dead))
        self._index_dead = 0
        self._index_unsaved = True

    # ------------------------------------------------------------------ durability

    def _require_open(self) -> None:
        if not self._open:
            raise UsageError(f"vector store {self.directory} is closed")

    def _require_writable(self) -> None:
        self._require_open()
        if self.read_only:
            raise UsageError(f"vector store {self.directory} is open read-only")

    def _manifest(self) -> dict:
        return {
            "format": next(f for f, t in ROW_TYPES.items() if t == self._dtype),
            "embedder_id": self.embedder_id,
            "dim": self.dim,
            "generation": self._generation,
            "rows": self._committed_rows,
            "key_bytes": self._committed_key_bytes,
            "live": len(self._keys),
            "next_id": self._next_id,
            "index": self._saved_index,
            "key_snapshot": self._key_snapshot,
            "store_id": self._store_id,
        }

    def _write_manifest(self) -> None:
        _write_json_atomically(self.directory / MANIFEST, self._manifest())

    def flush(self, *, checkpoint: bool = False) -> None:
        """Make every write so far durable (fsync logs, then the manifest); compact the logs
        when tombstones pass a quarter of them; save an approximate index that changed a lot.

        ``checkpoint``: the end of a run of writes (a curation). The index is saved when it has
        ``_SAVE_MIN_ROWS`` rows past its saved copy, whatever the index's size: otherwise a
        large store leaves up to 5 % of its rows (84k of 1.68M vectors at 1M items; 840k at
        10M) for every reader to index again, in memory, when it first searches."""
        with self._lock:
            self._require_writable()
            self._adopt_build()
            dead_rows = self._rows - len(self._keys)
            if dead_rows >= _COMPACT_MIN_DEAD and dead_rows > _COMPACT_FRACTION * self._rows:
                self._compact()
            else:
                for log in (self._vector_log, self._key_log):
                    log.flush()
                    os.fsync(log.fileno())
                self._committed_rows = self._rows
                self._committed_key_bytes = os.fstat(self._key_log.fileno()).st_size
            self._save_index_if_due(checkpoint=checkpoint)
            self._save_key_snapshot_if_due(checkpoint=checkpoint)
            self._write_manifest()
            self._delete_unnamed_index_files()

    def purge(self) -> int:
        """Erase removed vectors from the disk, not only from the live bitmap: rewrite the logs
        with live rows only (a compaction, whatever the share of tombstones), rebuild and save
        an approximate index afresh (a saved one holds the removed rows' vectors), and delete
        every log and index file of other generations, a crashed compaction's included.
        Returns the rows dropped. Crash-safe as a compaction is: the manifest names the old
        files or the new ones."""
        with self._lock:
            self._require_writable()
            self._build_cancel.set()
            if self._builder is not None:
                self._builder.join()
            self._built, self._builder = None, None
            self._build_cancel = threading.Event()
            dropped = self._rows - len(self._keys)
            if dropped:
                self._compact()
            self._saved_index = None  # a saved index holds the removed rows' (quantized) vectors
            if self._index is not None:
                self._index = build_index(self._kind(), self.dim, self._live_ids(), self._read_ids,
                                          self.policy)
                self._index_dead = 0
                self._index_unsaved = True
                self._save_index_if_due()
            self.flush()
            self._maintain_index()  # a cancelled background build starts again, from live rows
            current = {self._vector_path().name, self._key_path().name, (self._key_snapshot or {}).get("file")}
            for path in [*self._vector_logs(), *self.directory.glob("keys-*.jsonl"),
                         *self.directory.glob("keys-*.npz")]:
                if path.name not in current:
                    path.unlink(missing_ok=True)
            fsync_path(self.directory)
            return dropped

    def _save_index_if_due(self, *, checkpoint: bool = False) -> None:
        index = self._index
        # the rows of removed (or replaced) keys an IVF index still holds: every search scans
        # their codes and every reader masks them out, so they count as change, as new rows do
        dead = self._index_dead if index is not None and index_kind(index) != "hnsw" else 0
        if index is None or not (self._index_unsaved or dead):
            return
        saved = self._saved_index
        grown = int(index.ntotal) - (saved["ntotal"] if saved else 0)
        due = _SAVE_MIN_ROWS if checkpoint else max(_SAVE_MIN_ROWS, _SAVE_FRACTION * index.ntotal)
        if (saved and not self._index_rebuilt and saved["kind"] == index_kind(index)
                and 0 <= grown and grown + dead < due):
            return  # cheap to catch up on open; not worth rewriting a large file now
        self._drop_index_tombstones()  # the file is written anyway: without the dead rows
        # A new name each time: a reader that read the manifest may be about to open the file
        # it names; the writer deletes it only once a newer manifest names another. (An index
        # saved again without new rows, its dead ones dropped or rebuilt, has the same next id.)
        name = f"index-{self._next_id}.faiss"
        if saved and saved.get("file") == name:
            name = f"index-{self._next_id}-{uuid.uuid4().hex[:8]}.faiss"
        write_index(index, self.directory / name)
        self._saved_index = {"kind": index_kind(index), "ntotal": int(index.ntotal), "covered": self._next_id,
                             "file": name}
        self._index_unsaved = self._index_rebuilt = False

    def _delete_unnamed_index_files(self) -> None:
        """Delete saved index and key-snapshot files the manifest no longer names (after it is
        written)."""
        named = (self._saved_index or {}).get("file", INDEX_FILE if self._saved_index else None)
        for path in [self.directory / INDEX_FILE, *self.directory.glob("index-*.faiss")]:
            if path.name != named:
                path.unlink(missing_ok=True)
        snapshot = (self._key_snapshot or {}).get("file")
        for path in self.directory.glob("keys-*.npz"):
            if path.name != snapshot:
                path.unlink(missing_ok=True)

    # ------------------------------------------------------------------ key-table snapshots

    def _save_key_snapshot_if_due(self, *, checkpoint: bool = False) -> None:
        """Write the key tables as arrays once the key log has grown past the last snapshot by
        a tenth (and ``KEY_SNAPSHOT_MIN_BYTES``), or at a checkpoint (the end of a curation) by
        ``KEY_SNAPSHOT_CHECKPOINT_BYTES``: an open then loads them and replays only the log's
        tail (an agent curating a turn at a time otherwise left every open of a 100k-key store
        ~15,000 records to replay, ~0.4 s). Called by flush, after the logs are durable: the
        snapshot is exactly the committed state. Its file is named by generation and key-log
        bytes, written whole (temporary file, fsync, rename) before the manifest names it."""
        covered = (self._key_snapshot or {}).get("key_bytes", 0)
        grown = self._committed_key_bytes - covered
        due = KEY_SNAPSHOT_CHECKPOINT_BYTES if checkpoint else max(KEY_SNAPSHOT_MIN_BYTES, 0.1 * covered)
        if grown < due:
            return
        ids = self._live_ids()
        keys = [self._keys.key_of(i) for i in ids.tolist()]
        if any("\0" in key for key in keys):
            return  # the blob's separator: such a store replays its log
        columns = self._columns.export(ids)
        name = f"keys-{self._generation}-{self._committed_key_bytes}.npz"
        temporary = self.directory / (name + ".tmp")
        with open(temporary, "wb") as handle:
            np.savez(handle, ids=ids, positions=self._position[ids],
                     keys=np.frombuffer("\0".join(keys).encode("utf-8"), dtype=np.uint8),
                     meta=np.frombuffer(json.dumps([[f, v] for f, (_, v) in columns.items()]).encode("utf-8"),
                                        dtype=np.uint8),
                     **{f"codes{i}": codes for i, (codes, _) in enumerate(columns.values())})
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.directory / name)
        self._key_snapshot = {"file": name, "generation": self._generation,
                              "key_bytes": self._committed_key_bytes, "rows": self._committed_rows,
                              "next_id": self._next_id}

    def _load_key_snapshot(self, key_log, available_rows: int) -> tuple[int, int]:
        """Load the snapshot the manifest names into the (empty) tables and seek ``key_log``
        past what it covers; returns (rows, key-log bytes) covered, (0, 0) when there is none
        or it does not fit this generation's logs (then the whole log is replayed)."""
        info = self._key_snapshot
        if not info or info.get("generation") != self._generation or info["rows"] > available_rows:
            return 0, 0
        try:
            with np.load(self.directory / info["file"]) as arrays:
                ids, positions = arrays["ids"], arrays["positions"]
                keys = KeyTable.from_blob(arrays["keys"], ids)
                fields = json.loads(bytes(arrays["meta"]).decode("utf-8"))
                codes = [arrays[f"codes{i}"] for i in range(len(fields))]
        except (OSError, ValueError, KeyError):
            return 0, 0  # unreadable: the log alone is the truth
        if len(keys) != len(ids) or len(positions) != len(ids):
            return 0, 0
        self._next_id = max(self._next_id, int(info["next_id"]))
        self._grow(self._next_id)
        self._keys = keys
        self._changes += 1  # row ids kept by callers (see ``changes``) are no longer valid
        self._live[ids] = True
        self._position[ids] = positions
        # sized for the rows the log holds past the snapshot too (its tail is replayed next)
        self._id_at = np.full(max(int(info["rows"]), available_rows, 1024), -1, dtype=np.int64)
        self._id_at[positions] = ids
        by_id = {}
        for (field, values), column in zip(fields, codes):
            full = np.full(self._next_id, -1, dtype=np.int32)
            full[ids] = column
            by_id[field] = (full, values)
        self._columns.restore(by_id, self._capacity)
        key_log.seek(int(info["key_bytes"]))
        return int(info["rows"]), int(info["key_bytes"])

    def _compact(self) -> None:
        """Copy live rows to the next generation's logs (always in the current row type: this is
        also how an older float32 log becomes float16) and switch the manifest to them."""
        generation = self._generation + 1
        ids = self._live_ids()
        dtype = ROW_TYPES[FORMAT]
        vector_path, key_path = self._vector_path(generation, dtype), self._key_path(generation)
        with open(vector_path, "wb") as vectors, open(key_path, "w", encoding="utf-8") as keys:
            write_header(vectors, self.dim)
            for start in range(0, len(ids), 50_000):
                chunk = ids[start : start + 50_000]
                vectors.write(self._read_ids(chunk).astype(dtype).tobytes())
                for row_id in chunk.tolist():
                    record: dict[str, Any] = {"r": row_id, "k": self._keys.key_of(row_id)}
                    meta = self._columns.get(row_id)
                    if meta:
                        record["m"] = meta
                    keys.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            for handle in (vectors, keys):
                handle.flush()
                os.fsync(handle.fileno())
        old_vectors, old_keys = self._vector_path(), self._key_path()
        self._vector_log.close()
        self._key_log.close()
        self._generation, self._dtype = generation, dtype
        self._rows = self._committed_rows = len(ids)
        self._committed_key_bytes = key_path.stat().st_size
        self._position[ids] = np.arange(len(ids))
        self._position[~self._live[: self._capacity]] = -1
        self._id_at = ids.copy()
        self._mapped = None
        self._allowed_cache = None
        self._drop_index_tombstones()
        self._key_snapshot = None  # it describes the old generation's logs
        self._write_manifest()  # the switch: from here on the new generation is the store
        for old in (old_vectors, old_keys):
            old.unlink(missing_ok=True)
        self._open_logs()

    def keep_as_reader(self) -> None:
        """A writer done writing for now: flush, give the logs and the store's lock back, and
        go on answering as a reader of what it committed (:meth:`refresh` then takes in what
        other writers add), instead of closing and being opened again (~0.1-0.5 s at 168k
        keys). A background index build is cancelled. A no-op for a reader or a closed store."""
        if not self._open or self.read_only:
            return
        self._build_cancel.set()
        builder = self._builder
        if builder is not None:
            builder.join()
        with self._lock:
            self._built = self._builder = None
            flush_or_let_go(self)
            for handle in (self._vector_log, self._key_log):
                if handle is not None:
                    handle.close()
            self._vector_log = self._key_log = None
            if self._lock_file is not None:
                fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
                self._lock_file.close()
                self._lock_file = None
            self.read_only = True
            self._folder_inode = os.stat(self.directory).st_ino

    def _release_files(self, *, unwritten: bool = False) -> None:
        """Close the logs (dropping what they hold unwritten when ``unwritten``), the store's
        lock and its mapping."""
        for handle in (self._vector_log, self._key_log):
            if unwritten:
                close_unwritten(handle)
            elif handle is not None:
                handle.close()
        self._vector_log = self._key_log = None
        self._mapped = None
        self._open = False
        if self._lock_file is not None:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    def close(self) -> None:
        """Flush (a writer), stop any background build, and release the files and the lock."""
        if not self._open:
            return
        self._stop_background()
        with self._lock:
            self._built = None
            if not self.read_only:
                flush_or_let_go(self)
            self._release_files()

    def let_go(self) -> None:
        """Release the files and the lock without writing what the logs hold unwritten (a
        write the file system refused): those bytes never land, not even after another
        writer's appends (a vector row landing after other rows would give every later key
        another key's vector). Rows added since the last flush that succeeded are not durable,
        and this store must not be used again: the next open replays the logs as far as they
        are whole, and curation embeds what is missing, as after a kill."""
        self._stop_background()
        with self._lock:
            self._built = self._builder = None
            self._release_files(unwritten=True)

    def _stop_background(self) -> None:
        """Stop the page-cache warmer and any index build, waiting for the build to end."""
        self._warm_stop.set()
        self._build_cancel.set()
        builder = self._builder
        if builder is not None:
            builder.join()

    def __enter__(self) -> "VectorStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"VectorStore({str(self.directory)!r}, {self.embedder_id!r}, dim={self.dim}, keys={len(self._keys)})"
