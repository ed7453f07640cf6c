"""Meta fields of numbered slots held as integer code columns, so a filter is one numpy mask.

The vector store and the BM25 index both keep per-record meta (segment, level, kind, record)
and both filter searches by it. Matching meta record by record in Python costs tens of
milliseconds at 100k records; a column of value codes per field turns ``{field: value}`` into
an ``np.isin`` over an int32 array, and the mask is cached until the next change.

Values are compared as JSON text, so ``1``, ``"1"`` and ``true`` stay distinct.

Contents:
    MetaColumns   -- set / clear / get / mask, export / restore for snapshots
    meta_code_key -- the JSON identity of one meta value
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

__all__ = ["MetaColumns", "meta_code_key"]


@lru_cache(maxsize=4096)
def _scalar_code_key(kind: type, value: Any) -> str:
    return json.dumps(value)


@lru_cache(maxsize=4096)
def _decoded(key: str) -> Any:
    """The value a code key stands for (scalars: safe to share between callers)."""
    return json.loads(key)


def meta_code_key(value: Any) -> str:
    """The JSON text identifying ``value`` in a column (``1``, ``"1"`` and ``true`` differ)."""
    # cached because replaying a large store meets the same few segment / level / kind values
    # millions of times
    try:
        return _scalar_code_key(type(value), value)
    except TypeError:  # unhashable (a list given as a filter value): not cacheable
        return json.dumps(value, sort_keys=True)


class MetaColumns:
    """Value codes by slot for each meta field, and cached filter masks over them."""

    def __init__(self) -> None:
        self._capacity = 0
        self._codes: dict[str, np.ndarray] = {}  # field -> code by slot (-1: absent)
        self._values: dict[str, dict[str, int]] = {}  # field -> value key -> code
        self._keys: dict[str, list[str]] = {}  # field -> code -> value key
        self.version = 0  # bumped by every change; callers changing liveness bump it too
        self._cache: dict[Any, tuple[int, np.ndarray, int]] = {}

    def grow(self, capacity: int) -> None:
        """Make room for slots below ``capacity``."""
        if capacity <= self._capacity:
            return
        for field, codes in self._codes.items():
            grown = np.full(capacity, -1, dtype=np.int32)
            grown[: self._capacity] = codes
            self._codes[field] = grown
        self._capacity = capacity

    def set(self, slot: int, meta: Mapping[str, Any] | None) -> None:
        """Record ``meta`` for ``slot`` (fields it lacks are left as they were: clear first)."""
        self.grow(slot + 1)
        for field, value in (meta or {}).items():
            values = self._values.setdefault(field, {})
            key = meta_code_key(value)
            code = values.get(key)
            if code is None:
                code = values[key] = len(values)
                self._keys.setdefault(field, []).append(key)
            codes = self._codes.get(field)
            if codes is None:
                codes = self._codes[field] = np.full(self._capacity, -1, dtype=np.int32)
            codes[slot] = code
        self.version += 1

    def clear(self, slot: int, fields: Any = None) -> None:
        """Forget the meta of ``slot`` (only ``fields`` when given)."""
        for field in fields if fields is not None else list(self._codes):
            codes = self._codes.get(field)
            if codes is not None and slot < len(codes):
                codes[slot] = -1
        self.version += 1

    def get(self, slot: int) -> dict[str, Any]:
        """The meta recorded for ``slot`` (fields it has, decoded)."""
        out: dict[str, Any] = {}
        for field, codes in self._codes.items():
            if slot < len(codes) and codes[slot] >= 0:
                out[field] = _decoded(self._keys[field][codes[slot]])
        return out

    def export(self, slots: np.ndarray) -> dict[str, tuple[np.ndarray, list[str]]]:
        """Each field's codes for ``slots`` (in that order) and its value keys by code."""
        return {field: (codes[slots] if len(slots) else np.zeros(0, dtype=np.int32), list(self._keys[field]))
                for field, codes in self._codes.items()}

    def restore(self, columns: Mapping[str, tuple[np.ndarray, list[str]]], capacity: int) -> None:
        """Replace everything with exported columns (slot i = row i), room for ``capacity``."""
        self._codes, self._values, self._keys, self._cache = {}, {}, {}, {}
        self._capacity = capacity
        for field, (codes, keys) in columns.items():
            column = np.full(capacity, -1, dtype=np.int32)
            column[: len(codes)] = codes
            self._codes[field] = column
            self._keys[field] = list(keys)
            self._values[field] = {key: code for code, key in enumerate(keys)}
        self.version += 1

    def mask(self, filter_meta: Mapping[str, Any] | None, live: np.ndarray) -> tuple[np.ndarray, int]:
        """(mask over ``live``'s slots of the live ones matching every field, their count).

        ``filter_meta`` is ``{field: value}`` or ``{field: [v1, v2]}`` (any of them); empty or
        None matches every live slot. Cached per filter until :attr:`version` changes; callers
        must not modify the returned mask.
        """
        self.grow(len(live))
        key = _filter_key(filter_meta)
        cached = self._cache.get(key)
        if cached is not None and cached[0] == self.version and len(cached[1]) == len(live):
            return cached[1], cached[2]
        mask = live.copy()
        for field, wanted in key:
            codes = self._codes.get(field)
            values = self._values.get(field, {})
            wanted_codes = [values[w] for w in wanted if w in values]
            if codes is None or not wanted_codes:
                mask[:] = False
                break
            mask &= np.isin(codes[: len(live)], wanted_codes)
        count = int(mask.sum())
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = (self.version, mask, count)
        return mask, count


def _filter_key(filter_meta: Mapping[str, Any] | None) -> tuple:
    if not filter_meta:
        return ()
    return tuple(sorted(
        (field, tuple(sorted(map(meta_code_key, wanted)))
         if isinstance(wanted, (list, tuple, set, frozenset)) else (meta_code_key(wanted),))
        for field, wanted in filter_meta.items()
    ))
