"""The vector store's keys and row ids, both ways, in numpy arrays rather than Python objects.

A store at a million items holds 1.7M keys (an item's handle, ``handle#l2`` for a rung's
distillation, arc and rollup ids). As a ``dict`` key -> row id plus a list row id -> key they
cost ~160 bytes a key in Python objects (the ``str``, the dict entry, the ``int``, the list
slot): ~270 MB. :class:`KeyTable` keeps the keys loaded from the store's key snapshot (nearly
all of them) as one fixed-width byte array by row id plus a sorted 64-bit hash of each key with
its row id: ~40 bytes a key. Keys added or removed after the load live in a small dict overlay,
so every operation a store makes keeps the dict's meaning:

- ``get(key)``, ``key in table``, ``table[key]``, ``len(table)``, ``pop(key)``,
  ``table[key] = row_id`` (the key must be absent: the store forgets a key before re-adding it);
- ``key_of(row_id)``: the key a live row id holds (``None`` for a removed or replaced row);
- ``ids(keys)``: the row id of each key (-1 when absent), hashed and looked up as arrays;
- ``keys()``: every key in row-id order (the order they were written).

The hash is a multiply-xor over the key's UTF-8 bytes padded to a multiple of 8 (computed the
same way for one key in Python and for arrays in numpy); equal hashes are confirmed by the
bytes, so a collision costs a second look, never a wrong answer. Keys longer than the widest
loaded key, or holding NUL bytes, can only be in the overlay.
"""
from __future__ import annotations

from typing import Iterable, Iterator, Sequence

import numpy as np

__all__ = ["KeyTable"]

_MASK = (1 << 64) - 1
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
                0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53, 0x27D4EB2F165667C5, 0x94D049BB133111EB)


def _mix(words: int) -> int:
    return _MULTIPLIERS[words % len(_MULTIPLIERS)]


def _hash_rows(rows: np.ndarray) -> np.ndarray:
    """Hash of each row of a (n, width) uint8 array, width a multiple of 8."""
    words = np.ascontiguousarray(rows).view("<u8")
    hashes = np.zeros(len(rows), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in range(words.shape[1]):
            hashes ^= words[:, column] * np.uint64(_mix(column))
            hashes = (hashes << np.uint64(29)) | (hashes >> np.uint64(35))
    return hashes


def _hash_one(padded: bytes) -> int:
    """:func:`_hash_rows` of one padded key."""
    value = 0
    for column in range(len(padded) // 8):
        word = int.from_bytes(padded[8 * column : 8 * column + 8], "little")
        value ^= (word * _mix(column)) & _MASK
        value = ((value << 29) | (value >> 35)) & _MASK
    return value


class KeyTable:
    """Keys and row ids both ways (see the module doc). Not thread-safe: the store locks."""

    def __init__(self) -> None:
        self._width = 0  # bytes a loaded key is padded to (a multiple of 8); 0: none loaded
        self._flat = b""  # row id -> its padded key at [row_id * width, (row_id + 1) * width)
        self._loaded = bytearray()  # row id -> 1 while it holds its loaded key
        self._hashes = np.zeros(0, dtype=np.uint64)  # sorted hashes of the loaded keys
        self._hash_ids = np.zeros(0, dtype=np.int64)  # their row ids, in the same order
        self._loaded_count = 0
        self._directory = np.zeros(1, dtype=np.int64)  # bucket -> first position in _hashes
        self._bucket_bits = 1
        self._bucket_run = 0  # the most hashes a bucket holds
        self._row_of: dict[str, int] = {}  # the overlay: keys set after the load
        self._key_of: dict[int, str] = {}

    @classmethod
    def from_blob(cls, blob: np.ndarray, ids: np.ndarray) -> "KeyTable":
        """A table of the keys in ``blob`` (their UTF-8 bytes joined by NUL, as the store's key
        snapshot holds them) under ``ids`` (distinct row ids, in the blob's order)."""
        table = cls()
        ids = np.asarray(ids, dtype=np.int64)
        if not len(ids):
            return table
        blob = np.asarray(blob, dtype=np.uint8)
        ends = np.append(np.flatnonzero(blob == 0), len(blob))
        starts = np.concatenate([[0], ends[:-1] + 1])
        if len(ends) != len(ids):
            raise ValueError(f"{len(ends)} keys for {len(ids)} row ids")
        lengths = ends - starts
        width = max(8, -(-int(lengths.max()) // 8) * 8)
        padded = np.zeros((int(ids.max()) + 1, width), dtype=np.uint8)
        for first in range(0, len(ids), 65536):  # bounded temporaries
            part = slice(first, first + 65536)
            columns = np.arange(width)
            inside = columns < lengths[part, None]
            source = np.minimum(starts[part, None] + columns, len(blob) - 1)
            padded[ids[part]] = np.where(inside, blob[source], 0)
        hashes = _hash_rows(padded[ids])
        order = np.argsort(hashes, kind="stable")
        loaded = np.zeros(len(padded), dtype=np.uint8)
        loaded[ids] = 1
        table._width, table._flat, table._loaded = width, padded.tobytes(), bytearray(loaded.tobytes())
        table._hashes, table._hash_ids = hashes[order], ids[order]
        # the directory: where each bucket of hashes (by their top bits) starts in the sorted array
        bits = max(1, min(int(len(ids)).bit_length() - 1, 30))
        bounds = np.arange(1 << bits, dtype=np.uint64) << np.uint64(64 - bits)
        table._directory = np.append(np.searchsorted(table._hashes, bounds), len(ids)).astype(np.int64)
        table._bucket_bits = bits
        table._bucket_run = int(np.diff(table._directory).max()) if len(ids) else 0
        table._loaded_count = len(ids)
        return table

    # -- lookups --------------------------------------------------------------------------------
    def _rows(self) -> np.ndarray:
        """The padded keys as a (row ids, width) uint8 array (a view, no copy)."""
        return np.frombuffer(self._flat, dtype=np.uint8).reshape(-1, self._width)

    def _loaded_array(self) -> np.ndarray:
        """The loaded flags as a bool array (a view of the bytearray, no copy)."""
        return np.frombuffer(self._loaded, dtype=np.bool_)

    def _padded(self, key: str) -> bytes | None:
        raw = key.encode("utf-8")
        if not self._width or len(raw) > self._width or b"\0" in raw:
            return None
        return raw.ljust(self._width, b"\0")

    def _lower_bounds(self, hashes: np.ndarray) -> np.ndarray:
        """For each of ``hashes``, the first position in the sorted hashes not below it (capped
        at the last position): its bucket's start in the directory, then a step at a time
        through the bucket (a few cache misses a key, where a binary search over the whole
        array takes ~20)."""
        bucket = (hashes >> np.uint64(64 - self._bucket_bits)).astype(np.int64)
        slots = self._directory[bucket].astype(np.int64)
        ends = self._directory[bucket + 1]
        last = len(self._hashes) - 1
        for _ in range(self._bucket_run):
            step = (slots < ends) & (self._hashes[np.minimum(slots, last)] < hashes)
            if not step.any():
                break
            slots[step] += 1
        return np.minimum(slots, last)

    def _loaded_id(self, key: str) -> int:
        padded = self._padded(key)
        if padded is None:
            return -1
        value = np.uint64(_hash_one(padded))
        at = int(np.searchsorted(self._hashes, value))
        while at < len(self._hashes) and self._hashes[at] == value:
            row_id = int(self._hash_ids[at])
            if self._loaded[row_id] and self._flat[row_id * self._width : (row_id + 1) * self._width] == padded:
                return row_id
            at += 1
        return -1

    def get(self, key: str, default: int | None = None) -> int | None:
        """The row id of ``key``, or ``default``."""
        row_id = self._row_of.get(key)
        if row_id is not None:
            return row_id
        row_id = self._loaded_id(key)
        return default if row_id < 0 else row_id

    def __getitem__(self, key: str) -> int:
        row_id = self.get(key)
        if row_id is None:
            raise KeyError(key)
        return row_id

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __len__(self) -> int:
        return self._loaded_count + len(self._row_of)

    def ids(self, keys: Sequence[str]) -> np.ndarray:
        """The row id of each of ``keys``, -1 for an absent key: the overlay first (a dict
        lookup a key, all of them until the store's next checkpoint), then the loaded keys
        looked up as arrays for the rest only (hashing a key costs several overlay lookups).
        A key is in one of the two at most (the overlay takes only absent keys)."""
        count = len(keys)
        if not count:
            return np.full(0, -1, dtype=np.int64)
        if not self._row_of:
            return self._loaded_ids(keys) if self._loaded_count else np.full(count, -1, dtype=np.int64)
        if not isinstance(keys, list):
            keys = list(keys)  # one pass (a HandleList decodes a key per index otherwise)
        get = self._row_of.get
        out = np.fromiter((get(key, -1) for key in keys), dtype=np.int64, count=count)
        if self._loaded_count:
            rest = np.flatnonzero(out < 0)
            if len(rest) == count:
                return self._loaded_ids(keys)
            if len(rest):
                out[rest] = self._loaded_ids([keys[i] for i in rest.tolist()])
        return out

    def _loaded_ids(self, keys: Sequence[str]) -> np.ndarray:
        """The row id of each of ``keys`` among the loaded keys (-1 for none), as arrays."""
        if not isinstance(keys, list):
            keys = list(keys)  # read once (a HandleList decodes a key per index)
        out = np.full(len(keys), -1, dtype=np.int64)
        try:
            # ASCII keys (every handle): numpy encodes them as it fills the array, and a key's
            # length in characters is its length in bytes (a frame's cells: ~1,000 keys a cell)
            padded = np.array(keys, dtype=f"S{self._width}")  # longer keys are cut: excluded below
            raw: Sequence[str] | list[bytes] = keys
        except UnicodeEncodeError:
            raw = [key.encode("utf-8") for key in keys]
            padded = np.array(raw, dtype=f"S{self._width}")
        lengths = np.fromiter(map(len, raw), dtype=np.int64, count=len(raw))
        # a key ending in NUL would pad like the key without it: excluded too (none is loaded)
        fits = (lengths <= self._width) & (np.char.str_len(padded) == lengths)
        rows = padded.view(np.uint8).reshape(len(padded), self._width)
        hashes = _hash_rows(rows)
        slots = self._lower_bounds(hashes)
        found = self._hash_ids[slots]
        same_hash = fits & (self._hashes[slots] == hashes)
        # the padded keys compared as fixed-width strings (one comparison a key, not a byte):
        # trailing NULs do not count, and only keys that end in none are compared (``fits``)
        same_key = np.frombuffer(self._flat, dtype=padded.dtype)[found] == padded
        hit = same_hash & self._loaded_array()[found] & same_key
        out[hit] = found[hit]
        for i in np.flatnonzero(same_hash & ~hit).tolist():  # a collision: look again
            out[i] = self._loaded_id(keys[i])
        return out

    def key_of(self, row_id: int) -> str | None:
        """The key row ``row_id`` holds, ``None`` for a removed or replaced row."""
        key = self._key_of.get(row_id)
        if key is not None:
            return key
        if 0 <= row_id < len(self._loaded) and self._loaded[row_id]:
            width = self._width
            return self._flat[row_id * width : (row_id + 1) * width].rstrip(b"\0").decode("utf-8")
        return None

    def keys(self) -> list[str]:
        """Every key, by row id."""
        ids = np.flatnonzero(self._loaded_array()).tolist() + list(self._key_of)
        return [self.key_of(i) for i in sorted(ids)]  # type: ignore[misc]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def nbytes(self) -> int:
        """Bytes the table holds: its arrays, and an estimate of ~160 a key for the overlay."""
        arrays = len(self._flat) + len(self._loaded) + self._hashes.nbytes + self._hash_ids.nbytes
        return arrays + self._directory.nbytes + 160 * len(self._row_of)

    # -- changes --------------------------------------------------------------------------------
    def __setitem__(self, key: str, row_id: int) -> None:
        """Give ``key`` (absent: :meth:`pop` it first) the row id ``row_id``."""
        self._row_of[key] = row_id
        self._key_of[row_id] = key

    def pop(self, key: str, default: int | None = None) -> int | None:
        """Remove ``key``; its row id, or ``default`` when it was absent."""
        row_id = self._row_of.pop(key, None)
        if row_id is not None:
            del self._key_of[row_id]
            return row_id
        row_id = self._loaded_id(key)
        if row_id < 0:
            return default
        self._loaded[row_id] = 0
        self._loaded_count -= 1
        return row_id

    def update(self, pairs: Iterable[tuple[str, int]]) -> None:
        """Set each (key, row id) of ``pairs`` (absent keys)."""
        for key, row_id in pairs:
            self[key] = row_id
