"""BM25 over the lexical terms of each key's text: the lexical half of hybrid retrieval.

Scoring is Okapi BM25 with ``k1 = 1.2``, ``b = 0.75`` and the non-negative IDF
``log(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's), over the terms of :mod:`.terms`
(identifiers kept whole, so an exact handle or error code ranks first).

Persistence: ``LexicalIndex.open(directory)`` keeps an append-only log ``lexical.jsonl`` of
``{"k": key, "t": {term: count}, "m": meta}`` (add or replace) and ``{"d": key}`` (remove) records, replayed
on open; a torn final line (crash mid-write) is dropped; the log is rewritten compactly when
superseded records outnumber live ones. ``flush()`` makes the writes durable (fsync). A plain
``LexicalIndex()`` lives in memory only, for callers that rebuild it from the journal instead.

Scoring is vectorised: each term's posting list is compiled once into numpy arrays (document
slots and term counts; recompiled only after that term changes), so a query costs a few array
operations per query term instead of a Python loop over every matching document.

Contents:
    LexicalIndex -- add / remove / has / search / flush / close
"""
from __future__ import annotations

import heapq
import json
import math
import os
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from attention_cloud.errors import UsageError

from ..home import fsync_path
from .meta_columns import MetaColumns
from .terms import lexical_terms

__all__ = ["LexicalIndex"]

_LOG_NAME = "lexical.jsonl"


class LexicalIndex:
    """BM25 index of texts by key (see module doc). Not thread-safe: callers serialise writes."""

    def __init__(self, *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._doc_terms: dict[str, Counter[str]] = {}
        self._doc_meta: dict[str, dict] = {}
        self._slot_of: dict[str, int] = {}  # key -> document slot
        self._slot_keys: list[str | None] = []  # slot -> key (None: free)
        self._free_slots: list[int] = []
        self._lengths = np.zeros(0, dtype=np.float64)  # slot -> document length in terms
        self._live = np.zeros(0, dtype=bool)  # slot -> holds a document
        self._columns = MetaColumns()  # meta as code columns by slot, for filter_meta
        self._norms: np.ndarray | None = None  # BM25 length norms by slot; None: stale
        self._postings: dict[str, dict[int, int]] = {}  # term -> slot -> count
        self._compiled: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # term -> (slots, counts)
        self._total_len = 0
        self._log_path: Path | None = None
        self._log = None
        self._log_records = 0

    # ------------------------------------------------------------------ persistence

    @classmethod
    def open(cls, directory: Path, *, k1: float = 1.2, b: float = 0.75) -> "LexicalIndex":
        """Open (or create) the persisted index under ``directory``, replaying its log."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        index = cls(k1=k1, b=b)
        index._log_path = directory / _LOG_NAME
        good_bytes = 0
        if index._log_path.exists():
            with open(index._log_path, "rb") as handle:
                for line in handle:
                    if not line.endswith(b"\n"):
                        break  # torn final write
                    try:
                        record = json.loads(line)
                    except ValueError:
                        break
                    index._apply(record)
                    index._log_records += 1
                    good_bytes += len(line)
            if good_bytes != index._log_path.stat().st_size:
                os.truncate(index._log_path, good_bytes)
        index._log = open(index._log_path, "a", encoding="utf-8")
        return index

    def _apply(self, record: dict) -> None:
        if "d" in record:
            self._drop(record["d"])
        else:
            self._put(record["k"], Counter(record["t"]), record.get("m"))

    def _append(self, record: dict) -> None:
        if self._log is not None:
            self._log.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._log_records += 1

    def flush(self) -> None:
        """Make every write so far durable; compact the log when it is mostly superseded."""
        if self._log is None:
            return
        superseded = self._log_records - len(self._doc_terms)
        if superseded >= 1000 and superseded > len(self._doc_terms):
            self._compact()
        self._log.flush()
        os.fsync(self._log.fileno())

    def _compact(self) -> None:
        assert self._log_path is not None and self._log is not None
        temporary = self._log_path.with_suffix(".jsonl.tmp")
        with open(temporary, "w", encoding="utf-8") as out:
            for key, terms in self._doc_terms.items():
                record: dict[str, Any] = {"k": key, "t": terms}
                if key in self._doc_meta:
                    record["m"] = self._doc_meta[key]
                out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            out.flush()
            os.fsync(out.fileno())
        self._log.close()
        os.replace(temporary, self._log_path)
        fsync_path(self._log_path.parent)
        self._log = open(self._log_path, "a", encoding="utf-8")
        self._log_records = len(self._doc_terms)

    def close(self) -> None:
        """Flush and release the log file."""
        if self._log is not None:
            self.flush()
            self._log.close()
            self._log = None

    def __enter__(self) -> "LexicalIndex":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ updates

    def _put(self, key: str, terms: Counter[str], meta: Mapping[str, Any] | None = None) -> None:
        self._drop(key)
        self._doc_terms[key] = terms
        if meta:
            self._doc_meta[key] = dict(meta)
        if self._free_slots:
            slot = self._free_slots.pop()
            self._slot_keys[slot] = key
        else:
            slot = len(self._slot_keys)
            self._slot_keys.append(key)
            if slot >= len(self._lengths):
                capacity = max(1024, 2 * len(self._lengths))
                self._lengths = np.concatenate([self._lengths, np.zeros(capacity - len(self._lengths))])
                self._live = np.concatenate([self._live, np.zeros(capacity - len(self._live), dtype=bool)])
        self._slot_of[key] = slot
        self._live[slot] = True
        self._columns.set(slot, meta)
        self._norms = None
        length = sum(terms.values())
        self._lengths[slot] = length
        self._total_len += length
        for term, count in terms.items():
            self._postings.setdefault(term, {})[slot] = count
            self._compiled.pop(term, None)

    def _drop(self, key: str) -> bool:
        terms = self._doc_terms.pop(key, None)
        if terms is None:
            return False
        slot = self._slot_of.pop(key)
        self._total_len -= int(self._lengths[slot])
        self._lengths[slot] = 0
        self._live[slot] = False
        self._slot_keys[slot] = None
        self._free_slots.append(slot)
        self._columns.clear(slot, list(self._doc_meta.pop(key, None) or ()))
        self._norms = None
        for term in terms:
            posting = self._postings[term]
            del posting[slot]
            self._compiled.pop(term, None)
            if not posting:
                del self._postings[term]
        return True

    def add(
        self, keys: list[str], texts: list[str], meta: Sequence[Mapping[str, Any] | None] | None = None
    ) -> int:
        """Index (or re-index) each key's text, with optional meta for ``filter_meta``;
        returns how many keys were new."""
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
            added += key not in self._doc_terms
            self._put(key, terms, item_meta)
            record: dict[str, Any] = {"k": key, "t": terms}
            if item_meta:
                record["m"] = dict(item_meta)
            self._append(record)
        return added

    def remove(self, keys: Iterable[str]) -> int:
        """Forget these keys; returns how many were present."""
        removed = 0
        for key in keys:
            if self._drop(key):
                removed += 1
                self._append({"d": key})
        return removed

    def has(self, key: str) -> bool:
        """Whether ``key`` is indexed."""
        return key in self._doc_terms

    def __len__(self) -> int:
        return len(self._doc_terms)

    def meta(self, key: str) -> dict:
        """The meta indexed with ``key`` (empty when none was given).

        Raises:
            KeyError: no such key.
        """
        if key not in self._doc_terms:
            raise KeyError(key)
        return dict(self._doc_meta.get(key, {}))

    # ------------------------------------------------------------------ search

    def idf(self, term: str) -> float:
        """BM25 inverse document frequency of one (already normalised) term."""
        df = len(self._postings.get(term, ()))
        n = len(self._doc_terms)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _posting_arrays(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        compiled = self._compiled.get(term)
        if compiled is None:
            posting = self._postings[term]
            compiled = (
                np.fromiter(posting.keys(), dtype=np.int64, count=len(posting)),
                np.fromiter(posting.values(), dtype=np.float64, count=len(posting)),
            )
            self._compiled[term] = compiled
        return compiled

    def _slot_scores(self, text: str, filter_meta: Mapping[str, Any] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(slots, scores) of every document sharing a term with ``text`` (and matching
        ``filter_meta``)."""
        query = Counter(term for term in lexical_terms(text) if term in self._postings)
        if not query or not self._doc_terms:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        slots_used = len(self._slot_keys)
        if self._norms is None or len(self._norms) != slots_used:
            average = self._total_len / len(self._doc_terms) or 1.0
            self._norms = self.k1 * (1.0 - self.b + self.b * self._lengths[:slots_used] / average)
        norms, k1 = self._norms, self.k1
        totals = np.zeros(slots_used)
        for term, query_count in query.items():
            slots, counts = self._posting_arrays(term)
            weight = self.idf(term) * query_count
            totals[slots] += weight * counts * (k1 + 1.0) / (counts + norms[slots])
        if filter_meta:
            mask, _ = self._columns.mask(filter_meta, self._live[:slots_used])
            totals[~mask] = 0.0
        matched = np.flatnonzero(totals)
        return matched, totals[matched]

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
    ) -> list[tuple[str, float]]:
        """The ``k`` best keys for ``text`` as ``(key, score)``, best first (ties by key).

        ``allow`` and ``filter_meta`` restrict the keys as in ``VectorStore.search``.
        """
        if k <= 0:
            return []
        slots, values = self._slot_scores(text, filter_meta)
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


