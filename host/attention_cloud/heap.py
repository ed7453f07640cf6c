"""Giving the C heap's free pages back to the system.

glibc keeps the pages of freed memory for reuse rather than returning them, so a process that
parses a large file into temporary objects (the key and term tables of a home's indexes at a
million items: hundreds of MB of JSON and Python strings, freed once the tables are arrays)
keeps that peak resident for its lifetime. :func:`give_back_c_heap` asks glibc to return them
(``malloc_trim``); elsewhere it does nothing.
"""
from __future__ import annotations

import ctypes

__all__ = ["give_back_c_heap"]

_libc: ctypes.CDLL | None | bool = None


def give_back_c_heap() -> None:
    """Return the C heap's free pages to the system (glibc; a no-op on other C libraries)."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL("libc.so.6")
            _libc.malloc_trim  # noqa: B018 - glibc only
        except (OSError, AttributeError):
            _libc = False
    if _libc:
        _libc.malloc_trim(0)
