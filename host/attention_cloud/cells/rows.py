"""Cell rows: each cell's members' vector rows copied side by side, so a cell is one read.

A frame's cell walk scores the members of its focus cells (up to 600 records, two vectors
each: text and distillation). In the vector log those rows lie wherever curation appended them,
so each is a read of its own (1.2-2 µs; 3-5 ms of a 100k-item frame, the largest single cost in
its tail: BENCHMARKS.md, "Where the 100k tail comes from"). Here the cells step writes each
cell's rows again, member after member, so the walk reads a cell's rows in a few reads.

Files in ``HOME/cells/``::

    rows.json      which files are current, and the vector store they copy (embedder id,
                   dimension, the inode of ``HOME/vectors``); replaced atomically
    rows-G.f16     float16 rows, appended a cell at a time: a member's text row, then its
                   distillation row (zeros where it has none)
    rows-G-T.npy   the table, int64 (3, n): text row id (ascending), distillation row id
                   (-1: none), and the member's first row in ``rows-G.f16``

A copy is used only while the vector store still gives a member's text and distillation the
row ids the table recorded: a row id is never reused (a new vector is a new id), so a copy is
never stale where it is read, and a member whose copy is missing or stale is read from the log.
The files are derived data: a cells step (:func:`sync`) appends the cells it changed and
rewrites a new generation when dead rows pass the live ones; erasure deletes them (they hold the
forgotten items' vectors) and the next cells step writes them whole. A cells step names the
cells it is about to change in ``rows.pending`` (:func:`note_changed`, fsynced, before their
facts are committed) and :func:`sync` removes it once ``rows.json`` names their copies, so a
step killed in between leaves them to the next one (otherwise they were read row by row from
the log until they changed again).

Contents:
    CellRows, sync, drop, note_changed, ROWS_META
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..embed.half_floats import to_float32
from ..embed.mapped_rows import GAP_ROWS, read_rows, read_stretches
from .files import PENDING, ROWS_META, drop  # noqa: F401  (drop re-exported)

#: Dead rows a rows file may hold beyond as many as its live ones before a new generation is
#: written (a small home's would otherwise be rewritten by nearly every curate).
SLACK_ROWS = 8192
#: Rows of the buffer a reader keeps for its reads (4,096 rows of 512 float16: 4 MiB).
SCRATCH_ROWS = 4096
#: Cells whose rows are gathered and written at once (their vectors held in memory meanwhile).
WRITE_CELLS = 16


class CellRows:
    """A reader of the cell rows files, for one vector store (see the module doc)."""

    def __init__(self, folder: Path, meta: dict[str, Any]) -> None:
        self.dim = int(meta["dim"])
        self.stamp = (meta["generation"], meta["table"])
        self.table = np.load(folder / meta["table"], mmap_mode="r")
        self._file = open(folder / meta["rows_file"], "rb", buffering=0)
        if os.fstat(self._file.fileno()).st_size < int(meta["rows"]) * self.dim * 2:
            self._file.close()  # cut short: the log serves (the next cells step writes anew)
            raise ValueError(f"{self._file.name} holds fewer rows than its table names")
        #: rows read from the copies (how much of the walk they serve)
        self.rows_read = 0
        #: where a read's stretches land (a walk's pool: up to ~2,600 rows with the gaps)
        self._scratch = np.empty(SCRATCH_ROWS * self.dim, dtype=np.float16)
        self._picked = np.empty((SCRATCH_ROWS, self.dim), dtype=np.float16)

    @classmethod
    def open(cls, home: Path, store: Any) -> "CellRows | None":
        """The current files when they copy ``store``, else None."""
        meta = _read_meta(home)
        if meta is None or not _same_store(meta.get("identity"), _identity(home, store)):
            return None
        try:
            return cls(home / ROWS_META.parent, meta)
        except (OSError, ValueError, KeyError):
            return None

    @staticmethod
    def current_stamp(home: Path) -> tuple[int, int] | None:
        """A cheap token that moves when :func:`sync` or :func:`drop` replaced the files."""
        try:
            st = os.stat(home / ROWS_META)
        except OSError:
            return None
        return (st.st_ino, st.st_mtime_ns)

    def close(self) -> None:
        self._file.close()

    def copies(self, text_ids: np.ndarray, distillation_ids: np.ndarray) -> np.ndarray:
        """For members given by their row ids, the row of each one's copy (its text row; the
        distillation is the next), -1 where there is no current copy."""
        ids = self.table[0]
        text_ids = np.asarray(text_ids, dtype=np.int64)
        at = np.searchsorted(ids, text_ids)
        inside = at < len(ids)
        at = np.where(inside, at, 0)
        found = inside & (text_ids >= 0) & (np.asarray(ids[at]) == text_ids)
        found &= np.asarray(self.table[1][at]) == np.asarray(distillation_ids, dtype=np.int64)
        return np.where(found, np.asarray(self.table[2][at]), -1)

    def read(self, rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The copied rows at ``rows`` as float32, a cell's in a read or two (a walk leaves
        out a cell's seeds and its members of other segments: short gaps, read through);
        written into ``out`` (float32, C-contiguous, (len(rows), dim)) when given. The rows
        pass through buffers this reader keeps: a frame's reads leave no garbage behind."""
        distinct, where = np.unique(np.asarray(rows, dtype=np.int64), return_inverse=True)
        found = read_rows(self._file.fileno(), distinct, self.dim, np.float16, 0, self._file.name,
                          GAP_ROWS, self._scratch)
        self.rows_read += len(distinct)
        count = len(where)
        if count > SCRATCH_ROWS:
            return to_float32(found[where], out)
        # mode "clip": with the default "raise" numpy buffers a take into ``out`` (a second copy,
        # ~0.5 ms of a frame's 1,400 rows); ``where`` indexes ``found`` by construction
        picked = np.take(found, where, axis=0, out=self._picked[:count], mode="clip")
        return to_float32(picked, out if out is not None else np.empty((count, self.dim), np.float32))

    def products(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """The inner product of ``query`` (float32) with each copied row at ``rows``: the
        numbers ``einsum`` gives over :meth:`read`'s rows, but the stretches read (gaps
        included) are scored where they lie and the scores picked, not the rows copied out
        twice (a walk's focus cells: ~2 MB of rows a frame)."""
        distinct, where = np.unique(np.asarray(rows, dtype=np.int64), return_inverse=True)
        found, at = read_stretches(self._file.fileno(), distinct, self.dim, np.float16, 0,
                                   self._file.name, GAP_ROWS, self._scratch)
        self.rows_read += len(distinct)
        # into an array of numpy's: one onnxruntime allocates leaves the C heap grown
        scores = np.einsum("ij,j->i", to_float32(found, np.empty(found.shape, np.float32)), query)
        return (scores if at is None else scores[at])[where]


def _identity(home: Path, store: Any) -> dict[str, Any]:
    """What the copies are valid for: the store's embedder and dimension, the vectors folder
    and the store's own id (a re-embed exchanges the folder, a new store reuses row ids, and
    a folder made later may be given the old one's inode: the id decides where there is one,
    see :func:`_same_store`)."""
    return {"embedder_id": str(store.embedder_id), "dim": int(store.dim),
            "folder": os.stat(home / "vectors").st_ino, "store": store.store_id}


def _same_store(recorded: Any, identity: dict[str, Any]) -> bool:
    """Whether copies made for ``recorded`` (an identity in ``rows.json``) serve the store of
    ``identity``. A store named in its manifest is known by its name, embedder and dimension:
    a home copied whole (``cp -a``, a backup restored, a move to another disk) gives its vectors
    folder a new inode, and its copies, still exact, were left unread (every frame read its
    focus cells row by row, ~3 ms of a 100k-item frame) until a cells step wrote them all again.
    The folder's inode still decides for a store without a name (a reader of an older store)."""
    if not isinstance(recorded, dict):
        return False
    if identity.get("store") is None:
        return recorded == identity
    return all(recorded.get(key) == identity[key] for key in ("embedder_id", "dim", "store"))


def _read_meta(home: Path) -> dict[str, Any] | None:
    try:
        return json.loads((home / ROWS_META).read_text())
    except (OSError, ValueError):
        return None


def note_changed(home: Path, cells: Iterable[str]) -> None:
    """Record (fsynced) that ``cells`` are about to change, before their facts are committed:
    the next :func:`sync` copies them even when the step that changed them was killed first."""
    cells = list(cells)
    if not cells:
        return
    path = home / PENDING
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        out.write("".join(f"{cell}\n" for cell in cells))
        out.flush()
        os.fsync(out.fileno())


def _pending(home: Path) -> list[str]:
    """The cells :func:`note_changed` recorded (a torn last id matches no cell)."""
    try:
        return [line for line in (home / PENDING).read_text(encoding="utf-8").split("\n") if line]
    except (OSError, ValueError):
        return []


def _short(path: Path, meta: dict[str, Any]) -> bool:
    """Whether the rows file holds fewer rows than its table names (cut short in place):
    appended to, the gap would read as zeros."""
    try:
        return path.stat().st_size < int(meta["rows"]) * int(meta["dim"]) * 2
    except (OSError, KeyError, ValueError, TypeError):
        return True


def sync(home: Path, store: Any, members_of: Any, cells: Sequence[str], changed: Iterable[str]) -> int:
    """Bring the copies up to date after a cells step: append the rows of the ``changed``
    cells and of those a killed step left pending (every one of ``cells`` when there are no
    current files, they copy another store, or dead rows would pass the live ones: a new
    generation). ``members_of(cell)`` lists a cell's members. Returns the rows written. Stores
    of float32 rows (older formats) get none."""
    if store is None or np.dtype(store.row_dtype) != np.float16:
        drop(home)
        return 0
    changed = list(dict.fromkeys([*changed, *_pending(home)]))
    folder = home / ROWS_META.parent
    folder.mkdir(parents=True, exist_ok=True)
    identity = _identity(home, store)
    fetch = members_of
    meta = _read_meta(home)
    fresh = (meta is None or not _same_store(meta.get("identity"), identity)
             or not (folder / str(meta.get("rows_file", "-"))).is_file()
             or _short(folder / str(meta["rows_file"]), meta))
    if not fresh:
        known = set(cells)
        lists = {c: members_of(c) for c in dict.fromkeys(changed) if c in known}
        if not lists:
            (home / PENDING).unlink(missing_ok=True)
            return 0  # nothing changed: the files stand
        try:
            table = np.array(np.load(folder / meta["table"]))
        except (OSError, ValueError):
            table, fresh = None, True  # a table a crash left torn: written anew
        changed, members_of = list(lists), lists.__getitem__
        written = int(meta["rows"])
        if table is not None and written + 2 * sum(map(len, lists.values())) > 4 * table.shape[1] + SLACK_ROWS:
            fresh = True  # more than half the file would be dead rows: a new generation
    if fresh:
        generation = int(meta.get("generation", 0)) + 1 if meta else 1
        changed, written, table = list(cells), 0, np.zeros((3, 0), dtype=np.int64)
        members_of = fetch
    else:
        generation = int(meta["generation"])
    rows_file = f"rows-{generation}.f16"
    parts = [table]
    with open(folder / rows_file, "r+b" if not fresh else "wb") as out:
        # rows a crash left past the committed ones are written over: the table counts from here
        out.seek(written * 2 * int(store.dim))
        out.truncate()
        for start in range(0, len(changed), WRITE_CELLS):
            block, written = _copy_cells(store, members_of, changed[start:start + WRITE_CELLS], written, out)
            parts.append(block)
        out.flush()
        os.fsync(out.fileno())
    table = _merged(parts)
    table_file = f"rows-{generation}-{written}.npy"
    with open(folder / table_file, "wb") as handle:
        np.save(handle, table)
        handle.flush()
        os.fsync(handle.fileno())
    new_meta = {"generation": generation, "rows_file": rows_file, "table": table_file,
                "rows": written, "dim": int(store.dim), "identity": identity}
    tmp = folder / ".rows.json.tmp"
    tmp.write_text(json.dumps(new_meta))
    os.replace(tmp, home / ROWS_META)
    (home / PENDING).unlink(missing_ok=True)
    for path in folder.glob("rows-*"):  # earlier tables and generations (readers keep theirs open)
        if path.name not in (rows_file, table_file):
            path.unlink(missing_ok=True)
    return sum(p.shape[1] for p in parts[1:]) * 2


def _copy_cells(store: Any, members_of: Any, cells: Sequence[str], written: int, out: Any) -> tuple[np.ndarray, int]:
    """Append the rows of ``cells`` to ``out`` from row ``written`` on; their table entries."""
    names = [m for c in cells for m in members_of(c)]
    ids = store.ids(names + [f"{m}#l2" for m in names])
    text, distilled = ids[: len(names)], ids[len(names):]
    keep = np.flatnonzero(text >= 0)
    text, distilled = text[keep], distilled[keep]
    pairs = np.zeros((len(keep), 2, store.dim), dtype=np.float16)
    present, vectors = store.vectors_of_ids(np.concatenate([text, distilled]), read=True)
    both = np.zeros((2 * len(keep), store.dim), dtype=np.float32)
    both[present] = vectors
    pairs[:, 0] = both[: len(keep)]
    pairs[:, 1] = both[len(keep):]
    out.write(pairs.tobytes())
    slots = written + 2 * np.arange(len(keep), dtype=np.int64)
    return np.stack([text, distilled, slots]), written + 2 * len(keep)


def _merged(parts: list[np.ndarray]) -> np.ndarray:
    """One table from the old one and the entries appended: the latest entry of a text row id
    wins (a cell rewritten, a member moved), sorted by text row id."""
    table = np.concatenate(parts, axis=1)
    order = np.arange(table.shape[1])[::-1]  # latest first, so unique keeps the latest
    _, first = np.unique(table[0][order], return_index=True)
    return np.ascontiguousarray(table[:, order[first]])
