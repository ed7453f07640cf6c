"""The vector log's rows, memory-mapped and searched exactly in place (no copy in memory).

A vector log is a file of fixed-size rows. Two layouts:

* **float16** (format 2, every store written since): a ``HEADER_BYTES`` (4 KiB) header region,
  then the rows as IEEE half floats. The region starts with ``MAGIC`` and the dimension; the rest
  is zeros. Cosines of unit vectors stored as float16 differ from float32 by ~1e-3, and exact
  top-10 over float16 rows matched float32's 0.9985 (hash, 100k) and 0.9995 (MiniLM, 100k) of
  the time (``scripts/bench/vector_recall.py``).
* **float32** (format 1, older stores): rows from byte 0, no header. Still read and searched;
  the writer migrates such a log to float16 on open (a compaction, see store.py).

:class:`MappedRows` maps ``rows`` committed rows privately (``MAP_PRIVATE``: the file's pages
are shared with the page cache, only the header page is copied on write). An exact search of a
float16 log runs faiss' SIMD half-float scan over the mapped rows themselves: the header page is
overwritten, in the private mapping only, with the serialized header of a faiss
``IndexScalarQuantizer(QT_fp16)`` holding ``rows`` rows, so that ``faiss.read_index`` through a
``ZeroCopyIOReader`` yields an index whose codes *are* the mapped rows (``codes.is_owned`` is
false). A float32 log is scanned by ``faiss.knn_inner_product`` on the mapped array. Both run on
faiss' one OpenMP thread (no BLAS worker to wait for on a loaded machine) and take an id
selector over row positions, so tombstones and meta filters are skipped inside the scan.

Contents:
    MappedRows, HEADER_BYTES, MAGIC, write_header, row_offset, read_rows, read_stretches
"""
from __future__ import annotations

import mmap
import os
import struct
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from attention_cloud.embed.batch_reads import read_scattered
from attention_cloud.embed.half_floats import to_float32
from attention_cloud.errors import HomeError

__all__ = ["MappedRows", "HEADER_BYTES", "MAGIC", "write_header", "row_offset", "header_bytes", "read_rows",
           "read_stretches"]

#: Bytes before the first row of a float16 log.
HEADER_BYTES = 4096
#: First bytes of a float16 log.
MAGIC = b"ATCVEC16"
#: Rows converted at a time where a float16 log is scanned without a zero-copy faiss index
#: (a multiple of 8: the selector bitmap is sliced by bytes).
_BLOCK_ROWS = 16_384


def header_bytes(dtype: np.dtype) -> int:
    """Bytes before the first row in a log of ``dtype`` rows (none for legacy float32)."""
    return HEADER_BYTES if np.dtype(dtype) == np.float16 else 0


def row_offset(dtype: np.dtype, dim: int, rows: int) -> int:
    """The file size of a log holding exactly ``rows`` rows."""
    return header_bytes(dtype) + rows * dim * np.dtype(dtype).itemsize


def write_header(handle, dim: int) -> None:
    """Write a float16 log's header region to an empty file opened for binary writing."""
    head = MAGIC + struct.pack("<I", dim)
    handle.write(head + b"\0" * (HEADER_BYTES - len(head)))


def check_header(path: Path, dim: int) -> None:
    """Raise HomeError unless ``path`` starts with a float16 log header for ``dim``."""
    with open(path, "rb") as handle:
        head = handle.read(len(MAGIC) + 4)
    if head[: len(MAGIC)] != MAGIC or struct.unpack("<I", head[len(MAGIC):])[0] != dim:
        raise HomeError(f"vector log {path} has no float16 header for {dim}-d rows")


@lru_cache(maxsize=16)
def _faiss_header(dim: int) -> bytes:
    """The serialized header of an empty ``IndexScalarQuantizer(dim, QT_fp16, IP)``: what
    precedes the codes in faiss' file format. Its ntotal is at bytes 8-16 and the byte count of
    the codes vector in its last 8 bytes (both patched per mapping)."""
    import faiss  # here, not at the top: reading rows (cells, stats) needs no faiss

    index = faiss.IndexScalarQuantizer(dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    index.train(np.zeros((1, dim), dtype=np.float32))
    blob = faiss.serialize_index(index).tobytes()
    if struct.unpack("<q", blob[8:16])[0] != 0 or struct.unpack("<Q", blob[-8:])[0] != 0:
        raise RuntimeError("unexpected faiss IndexScalarQuantizer layout")  # a faiss format change
    return blob


#: Stretches from which :func:`read_rows` reads in one system call (:mod:`.batch_reads`)
#: rather than a ``preadv`` each: below it the batch's set-up costs more than the calls saved.
BATCH_STRETCHES = 8
#: Rows between two rows asked for that :func:`read_rows` may read through rather than skip
#: with a read of its own, where rows asked for are mostly close together (a cell's copies).
GAP_ROWS = 16


def read_rows(fd: int, positions: np.ndarray, dim: int, dtype: np.dtype, start: int, path: Any,
              gap: int = 1, scratch: np.ndarray | None = None) -> np.ndarray:
    """The rows at ``positions`` (ascending, distinct) of a file of ``dim``-wide ``dtype`` rows
    from byte ``start``, in that order (:func:`read_stretches`, whose arguments these are)."""
    buffer, at = read_stretches(fd, positions, dim, dtype, start, path, gap, scratch)
    return buffer if at is None else buffer[at]


def read_stretches(fd: int, positions: np.ndarray, dim: int, dtype: np.dtype, start: int,
                   path: Any, gap: int = 1, scratch: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """The stretches of rows holding ``positions`` (ascending, distinct) of a file of
    ``dim``-wide ``dtype`` rows from byte ``start``: one ``preadv`` per stretch whose rows are at most ``gap`` apart, into
    one buffer (no bytes object per row). Rows written one after another (a cell's members
    copied together, a session's turns) cost one read; scattered ones one read each, made
    together in one system call where the kernel allows (:func:`.batch_reads.read_scattered`).
    ``gap`` above 1 reads the rows between too: worth it where most rows asked for are close
    (:data:`GAP_ROWS`), not where they are scattered (each row read through costs a copy); the
    stretches are then read into ``scratch`` (a flat array of ``dtype`` kept by the caller)
    when it is large enough, so that a frame's reads do not leave the C heap grown. Returns
    the buffer and the row in it of each position, None where they are its rows in order
    (no row read through): a caller that scores rows scores the buffer's and picks the scores,
    rather than copying the rows out."""
    count = len(positions)
    if not count:
        return np.zeros((0, dim), dtype=dtype), None
    breaks = np.flatnonzero(np.diff(positions) > gap) + 1
    starts = np.concatenate([[0], breaks]).astype(np.int64)
    ends = np.concatenate([breaks, [count]]).astype(np.int64)
    first = positions[starts]
    spans = positions[ends - 1] + 1 - first
    total = int(spans.sum())
    if total != count and scratch is not None and scratch.size >= total * dim:
        buffer = scratch[: total * dim].reshape(total, dim)
    else:
        buffer = np.empty((total, dim), dtype=dtype)
    size = dim * np.dtype(dtype).itemsize
    whole = len(first)
    if whole >= BATCH_STRETCHES:
        places = (np.cumsum(spans) - spans) * size
        whole = read_scattered(fd, buffer, start + first * size, spans * size, places)
        if whole is False:
            whole = _read_each(fd, buffer, first, spans, start, size)
    else:
        whole = _read_each(fd, buffer, first, spans, start, size)
    if whole < len(first):
        raise HomeError(f"vector rows file {path} ends before row {int(first[whole] + spans[whole]) - 1}")
    if total == count:
        return buffer, None
    return buffer, positions - np.repeat(first - (np.cumsum(spans) - spans), ends - starts)


def _read_each(fd: int, buffer: np.ndarray, first: np.ndarray, spans: np.ndarray, start: int,
               size: int) -> int:
    """Read each stretch (rows ``first[i]`` on, ``spans[i]`` of them) into ``buffer`` one after
    another, a ``preadv`` each; the index of the first stretch the file cut short, else their
    count."""
    view = memoryview(buffer).cast("B")
    at, read = 0, os.preadv
    for i, (a, n) in enumerate(zip(first.tolist(), spans.tolist())):
        if read(fd, (view[at * size: (at + n) * size],), start + a * size) != n * size:
            return i
        at += n
    return len(first)


class MappedRows:
    """``rows`` rows of a vector log, mapped read-only; gathers and exact top-k in place."""

    def __init__(self, path: Path, dim: int, dtype: np.dtype, rows: int) -> None:
        self.dim, self.dtype, self.rows = dim, np.dtype(dtype), rows
        self.path = Path(path)
        self._mmap = None
        self._file = None
        self._index = None
        self._reader = None
        if rows == 0:
            self.array = np.zeros((0, dim), dtype=self.dtype)
            return
        start = header_bytes(self.dtype)
        needed = row_offset(self.dtype, dim, rows)
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < needed:  # cut short since its rows were committed (a damaged disk, a copy)
                raise HomeError(f"vector log {self.path} holds {size} bytes, fewer than the "
                                f"{rows} rows committed need ({needed})")
            self._mmap = mmap.mmap(handle.fileno(), needed, access=mmap.ACCESS_COPY)
        self._file = open(path, "rb", buffering=0)  # for pread: rows read without the mapping
        raw = np.frombuffer(self._mmap, dtype=np.uint8)
        self.array = raw[start:].view(self.dtype).reshape(rows, dim)
        if self.dtype == np.float16:
            self._index = self._zero_copy_index(raw, start)

    def _zero_copy_index(self, raw: np.ndarray, start: int):
        """A faiss fp16 index whose codes are the mapped rows, or None where this faiss cannot
        read one without copying (older than 1.11, or another file layout): searches then
        convert blocks of rows instead (correct, slower)."""
        import faiss

        rows, dim = self.rows, self.dim
        try:
            template = bytearray(_faiss_header(dim))
            template[8:16] = struct.pack("<q", rows)
            template[-8:] = struct.pack("<Q", rows * dim * 2)
            first = start - len(template)
            raw[first:start] = np.frombuffer(bytes(template), dtype=np.uint8)  # private page only
            self._reader = faiss.ZeroCopyIOReader(faiss.swig_ptr(raw[first:]), len(template) + rows * dim * 2)
            index = faiss.read_index(self._reader)
            if index.codes.is_owned or index.ntotal != rows:
                return None  # a copy: never silently double the vectors' memory
            return index
        except (AttributeError, RuntimeError, struct.error):
            return None

    def __len__(self) -> int:
        return self.rows

    def gather(self, positions: np.ndarray) -> np.ndarray:
        """The rows at ``positions`` as float32, (len(positions), dim)."""
        return to_float32(self.array[positions])

    def pread(self, positions: np.ndarray) -> np.ndarray:
        """:meth:`gather` of a few rows by file reads (:func:`read_rows`), not through the mapping. A page
        fault on the mapping maps the whole page-cache folio around it (tens of pages on current
        kernels), so a few hundred random rows read through it make most of a large log count as
        the process' resident memory; reads leave the pages to the page cache alone."""
        if self._file is None or not len(positions):
            return self.gather(positions)
        # each row once: a frame asks for a record's two rows and the rows of cells that
        # share members (~10 % repeats), and a read costs more than the sort that finds them
        distinct, where = np.unique(np.asarray(positions, dtype=np.int64), return_inverse=True)
        rows = self._read_rows(self._file.fileno(), distinct)
        return to_float32(rows[where])

    def products(self, positions: np.ndarray, query: np.ndarray) -> np.ndarray:
        """The inner product of ``query`` (float32) with the row at each of ``positions``:
        the numbers ``einsum`` gives over :meth:`pread`'s rows, but each distinct row read
        and scored once where it was read, and the scores (not the rows) put in the order
        asked (a frame's re-rank and window: ~0.5-2 MB of rows less copied)."""
        positions = np.asarray(positions, dtype=np.int64)
        if self._file is None or not len(positions):
            return np.einsum("ij,j->i", self.gather(positions), query)
        distinct, where = np.unique(positions, return_inverse=True)
        rows = self._read_rows(self._file.fileno(), distinct)
        # into an array of numpy's: one onnxruntime allocates leaves the C heap grown
        return np.einsum("ij,j->i", to_float32(rows, np.empty(rows.shape, np.float32)), query)[where]

    def _read_rows(self, fd: int, positions: np.ndarray) -> np.ndarray:
        """The rows at ``positions`` (ascending, distinct) read from ``fd`` (:func:`read_rows`)."""
        return read_rows(fd, positions, self.dim, self.dtype, header_bytes(self.dtype), self.path)

    def read(self, positions: np.ndarray) -> np.ndarray:
        """:meth:`gather` through file reads instead of the mapping, for whole-log passes (an
        index build): pages read this way stay in the page cache without being counted in the
        process' resident memory, as touched pages of the mapping are. ``positions`` ascending."""
        positions = np.asarray(positions, dtype=np.int64)
        if not len(positions):
            return np.zeros((0, self.dim), dtype=np.float32)
        row_bytes = self.dim * self.dtype.itemsize
        start = header_bytes(self.dtype)
        lo, hi = int(positions[0]), int(positions[-1]) + 1
        with open(self.path, "rb") as handle:
            if hi - lo <= 4 * len(positions):  # dense: one read of the span
                handle.seek(start + lo * row_bytes)
                span = np.fromfile(handle, dtype=self.dtype, count=(hi - lo) * self.dim).reshape(-1, self.dim)
                return to_float32(span[positions - lo])
            return to_float32(self._read_rows(handle.fileno(), positions))  # sparse (a training sample)

    def search(self, queries: np.ndarray, k: int, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Exact inner-product top-``k`` of each query over the rows ``allowed`` (a packed
        little-endian bitmap by position; None: every row). Returns (scores, positions), each
        (queries, k), positions -1 where fewer rows were allowed."""
        import faiss

        queries = np.ascontiguousarray(queries, dtype=np.float32)
        count = len(queries)
        k = max(1, min(k, self.rows))
        selector = faiss.IDSelectorBitmap(self.rows, faiss.swig_ptr(allowed)) if allowed is not None else None
        if self._index is not None:
            params = faiss.SearchParameters()
            if selector is not None:
                params.sel = selector
            return self._index.search(queries, k, params=params)
        scores = np.full((count, k), -np.inf, dtype=np.float32)
        positions = np.full((count, k), -1, dtype=np.int64)
        if self.rows and self.dtype == np.float32:
            matrix = np.ascontiguousarray(self.array)  # float32 log: the mapping itself, no copy
            faiss.knn_inner_product(faiss.swig_ptr(queries), faiss.swig_ptr(matrix), self.dim, count, self.rows,
                                    k, faiss.swig_ptr(scores), faiss.swig_ptr(positions), selector)
            return scores, positions
        for start in range(0, self.rows, _BLOCK_ROWS):  # float16 without a zero-copy index
            block = np.ascontiguousarray(self.array[start : start + _BLOCK_ROWS], dtype=np.float32)
            bits = allowed[start // 8 : (start + len(block) + 7) // 8] if allowed is not None else None
            found_scores = np.full((count, k), -np.inf, dtype=np.float32)
            found = np.full((count, k), -1, dtype=np.int64)
            faiss.knn_inner_product(
                faiss.swig_ptr(queries), faiss.swig_ptr(block), self.dim, count, len(block), k,
                faiss.swig_ptr(found_scores), faiss.swig_ptr(found),
                faiss.IDSelectorBitmap(len(block), faiss.swig_ptr(bits)) if bits is not None else None)
            found = np.where(found >= 0, found + start, -1)
            merged_scores = np.concatenate([scores, found_scores], axis=1)
            merged = np.concatenate([positions, found], axis=1)
            keep = np.argsort(-merged_scores, axis=1, kind="stable")[:, :k]
            scores = np.take_along_axis(merged_scores, keep, axis=1)
            positions = np.take_along_axis(merged, keep, axis=1)
        return scores, positions
