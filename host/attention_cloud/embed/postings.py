"""BM25's snapshot postings written in bounded memory (forward and inverted CSR arrays).

:class:`~attention_cloud.embed.lexical.LexicalIndex` compiles its live documents into a
snapshot of ``.npy`` arrays: the forward postings (each document's term ids and counts, in
document order) and the inverted ones (each term's documents and counts, by term, then
document). Built in one go, as ``argsort`` over every posting, that took about 30 bytes a
posting at once: 1.7 GB at a million items (~65M postings), the peak of a million-item curation.
:func:`write_postings` writes the same arrays a chunk at a time instead:

1. the forward arrays, streamed to their files from the caller's chunks of documents, counting
   each term's postings on the way (which gives the inverted offsets);
2. the inverted arrays in passes over term ranges of at most ``entries_per_pass`` postings:
   each pass reads the forward files back sequentially, keeps the postings of its terms and
   sorts them by term, stably (documents are read in order, so within a term they stay in
   document order): exactly ``argsort(fwd_terms, kind="stable")``'s order, range by range.

Files are written with plain writes (not through a mapping), so the pages stay in the page cache
and out of the process' resident memory. Memory: one chunk plus one pass (~16 bytes a posting
of ``entries_per_pass``).

Contents:
    write_postings, NpyWriter, ENTRIES_PER_PASS
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np

__all__ = ["write_postings", "NpyWriter", "ENTRIES_PER_PASS"]

#: Postings sorted at once for the inverted arrays (~16 bytes each while a pass runs).
ENTRIES_PER_PASS = 4_000_000
#: Postings read back from the forward files at a time.
READ_ENTRIES = 1 << 20


class NpyWriter:
    """An ``.npy`` file of ``length`` values of ``dtype`` (1-D), written a chunk at a time; the
    file np.save would write, read back by ``np.load`` alike."""

    def __init__(self, path: Path, dtype: np.dtype, length: int) -> None:
        self.dtype, self.length, self.written = np.dtype(dtype), int(length), 0
        self.path = Path(path)
        self._file = open(self.path, "wb")
        np.lib.format.write_array_header_1_0(
            self._file, {"descr": np.lib.format.dtype_to_descr(self.dtype), "fortran_order": False,
                         "shape": (self.length,)})
        self.offset = self._file.tell()  # where the values start

    def write(self, values: np.ndarray) -> None:
        values = np.ascontiguousarray(values, dtype=self.dtype)
        if self.written + len(values) > self.length:
            raise ValueError(f"{self.path.name}: more than the {self.length} values announced")
        values.tofile(self._file)
        self.written += len(values)

    def close(self) -> None:
        self._file.close()
        if self.written != self.length:
            raise ValueError(f"{self.path.name}: {self.written} values written of {self.length}")

    def __enter__(self) -> "NpyWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
        else:
            self._file.close()


def write_postings(folder: Path, sizes: np.ndarray, chunks: Iterable[tuple[np.ndarray, np.ndarray]],
                   terms: int, *, entries_per_pass: int | None = None) -> None:
    """Write ``fwd_ptr``, ``fwd_terms``, ``fwd_counts``, ``inv_ptr``, ``inv_slots`` and
    ``inv_counts`` (``.npy``) into ``folder``.

    ``sizes`` holds each document's number of postings, in document order; ``chunks`` yields
    (term ids, counts) of consecutive documents in that order, together exactly ``sizes``'s
    postings; ``terms`` is the size of the term table; ``entries_per_pass``: default
    :data:`ENTRIES_PER_PASS`. Documents are numbered 0.. in that order
    (the snapshot's slots). The arrays are those of the in-memory build: forward ``int64`` /
    ``int32`` / ``float32``, inverted ``int64`` / ``int32`` / ``float64``.
    """
    folder = Path(folder)
    entries_per_pass = entries_per_pass or ENTRIES_PER_PASS
    sizes = np.asarray(sizes, dtype=np.int64)
    fwd_ptr = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=fwd_ptr[1:])
    total = int(fwd_ptr[-1])
    np.save(folder / "fwd_ptr.npy", fwd_ptr)
    per_term = np.zeros(terms, dtype=np.int64)
    out_terms = NpyWriter(folder / "fwd_terms.npy", np.int32, total)
    out_counts = NpyWriter(folder / "fwd_counts.npy", np.float32, total)
    with out_terms, out_counts:
        for term_ids, counts in chunks:
            term_ids = np.asarray(term_ids, dtype=np.int32)
            out_terms.write(term_ids)
            out_counts.write(counts)
            per_term += np.bincount(term_ids, minlength=terms)[:terms]
    inv_ptr = np.zeros(terms + 1, dtype=np.int64)
    np.cumsum(per_term, out=inv_ptr[1:])
    np.save(folder / "inv_ptr.npy", inv_ptr)
    del per_term
    # term ranges of at most entries_per_pass postings (a larger single term: a range alone)
    bounds = [0]
    while bounds[-1] < terms:
        lo = bounds[-1]
        hi = int(np.searchsorted(inv_ptr, inv_ptr[lo] + entries_per_pass, side="right")) - 1
        bounds.append(min(terms, max(hi, lo + 1)))
    terms_at, counts_at = out_terms.offset, out_counts.offset
    with NpyWriter(folder / "inv_slots.npy", np.int32, total) as out_slots, \
            NpyWriter(folder / "inv_counts.npy", np.float64, total) as out_inv_counts, \
            open(folder / "fwd_terms.npy", "rb") as read_terms, open(folder / "fwd_counts.npy", "rb") as read_counts:
        for lo, hi in zip(bounds, bounds[1:]):
            if inv_ptr[hi] == inv_ptr[lo]:
                continue
            read_terms.seek(terms_at)
            read_counts.seek(counts_at)
            kept_terms, kept_docs, kept_counts = [], [], []
            for start in range(0, total, READ_ENTRIES):
                term_ids = np.fromfile(read_terms, dtype=np.int32, count=min(READ_ENTRIES, total - start))
                counts = np.fromfile(read_counts, dtype=np.float32, count=len(term_ids))
                mine = np.flatnonzero((term_ids >= lo) & (term_ids < hi))
                if not len(mine):
                    continue
                kept_terms.append(term_ids[mine])
                kept_counts.append(counts[mine])
                kept_docs.append((np.searchsorted(fwd_ptr, mine + start, side="right") - 1).astype(np.int32))
            term_ids = np.concatenate(kept_terms)
            order = np.argsort(term_ids, kind="stable")  # by term, then document (read in order)
            del term_ids, kept_terms
            out_slots.write(np.concatenate(kept_docs)[order])
            out_inv_counts.write(np.concatenate(kept_counts)[order].astype(np.float64))
            del order, kept_docs, kept_counts
