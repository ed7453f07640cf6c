"""Appending to the home's line files (``audit.jsonl``, ``hooks.log``) beside an erasure.

An erasure rewrites such a file whole (read, redact, write a new file, rename it over the old
one) under ``flock`` on the file. An append must take the same lock and then write only to the
file that is still the log: a line written to the replaced file is lost with it.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Callable


def append_line(path: Path, line: bytes, *, fsync: bool = True, rotate_past: int | None = None,
                rotated: Path | None = None) -> None:
    """Append ``line`` (bytes ending in a newline) to ``path`` under its lock, to the file that
    is ``path`` once the lock is held; with ``fsync`` durable before returning. With
    ``rotate_past`` and ``rotated``, a file over that many bytes is first renamed to
    ``rotated`` (under the same lock, so no append goes to the renamed file)."""
    append_composed(path, lambda: line, fsync=fsync, rotate_past=rotate_past, rotated=rotated)


def append_composed(path: Path, compose: Callable[[], bytes], *, fsync: bool = True,
                    rotate_past: int | None = None, rotated: Path | None = None) -> None:
    """As :func:`append_line`, the bytes given by ``compose()`` called once the lock is held
    (so what it reads of ``path`` is what the bytes follow: no other append comes between).
    After a torn last line (a crash mid-write) the bytes start a line of their own: joined to
    it they were one garbled line, and lost with it."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if os.fstat(fd).st_ino != os.stat(path).st_ino:
                    continue  # rewritten or rotated while we waited: open the new one
            except FileNotFoundError:
                continue
            if rotate_past is not None and rotated is not None and \
                    os.fstat(fd).st_size > rotate_past:
                os.replace(path, rotated)
                continue
            size = os.fstat(fd).st_size
            torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
            os.write(fd, (b"\n" if torn else b"") + compose())
            if fsync:
                os.fsync(fd)
            return
        finally:
            os.close(fd)  # closing releases the lock
