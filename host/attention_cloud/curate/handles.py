"""A long list of item handles held compactly: curation's to-do list and its new items, a
cells rebuild's items.

A million handles as a Python list of ``str`` take ~90 bytes each (object, text, pointer); as
UTF-8 bytes in a numpy array of fixed width, ~20. Curation keeps two such lists for a whole
run (the items still to curate, the items whose echoes are searched at the end), so at a
million items this is ~0.15 GB less held through every phase; a cells rebuild keeps one of
every item it partitions.

Contents:
    HandleList -- a Sequence of handles: append batches, index, slice, take rows (lists of
                  ``str``), sort
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Iterable, overload

import numpy as np

__all__ = ["HandleList"]


class HandleList(Sequence):
    """Handles (text) appended a batch at a time; read back by index or slice (a slice is a
    ``list[str]``)."""

    def __init__(self, handles: Iterable[str] = ()) -> None:
        self._parts: list[np.ndarray] = []
        self._whole: np.ndarray | None = None
        self._len = 0
        self.extend(handles)

    def extend(self, handles: Iterable[str]) -> None:
        """Append ``handles`` in order."""
        part = np.array([str(h).encode("utf-8") for h in handles], dtype=bytes)
        if len(part):
            if self._whole is not None:
                self._parts, self._whole = [self._whole], None
            self._parts.append(part)
            self._len += len(part)

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index):
        whole = self._array()
        if isinstance(index, slice):
            return [h.decode("utf-8") for h in whole[index].tolist()]
        if not -self._len <= index < self._len:
            raise IndexError("HandleList index out of range")
        return whole[index].decode("utf-8")

    def take(self, rows: Sequence[int] | np.ndarray) -> list[str]:
        """The handles at positions ``rows`` (an index array or list), in that order."""
        return [h.decode("utf-8") for h in self._array()[np.asarray(rows, dtype=np.int64)].tolist()]

    def sort(self) -> None:
        """Sort in place, in the order of ``sorted()`` over the handles as ``str`` (UTF-8
        bytes sort by code point)."""
        self._whole = np.sort(self._array())
        self._parts = []

    def _array(self) -> np.ndarray:
        if self._whole is None:
            self._whole = np.concatenate(self._parts) if self._parts else np.zeros(0, dtype=bytes)
            self._parts = []
        return self._whole

    def __iter__(self):
        for start in range(0, self._len, 4096):
            yield from self[start:start + 4096]
