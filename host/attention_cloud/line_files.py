"""Appending to the home's line files (``audit.jsonl``, ``hooks.log``) beside an erasure.

An erasure rewrites such a file whole (read, redact, write a new file, rename it over the old
one) under ``flock`` on the file. An append must take the same lock and then write only to the
file that is still the log: a line written to the replaced file is lost with it.
"""
from __future__ import annotations

import fcntl
import os
from pathlib import Path


def append_line(path: Path, line: bytes, *, fsync: bool = True, rotate_past: int | None = None,
                rotated: Path | None = None) -> None:
    """Append ``line`` (bytes ending in a newline) to ``path`` under its lock, to the file that
    is ``path`` once the lock is held; with ``fsync`` durable before returning. With
    ``rotate_past`` and ``rotated``, a file over that many bytes is first renamed to
    ``rotated`` (under the same lock, so no append goes to the renamed file)."""
    while True:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
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
            os.write(fd, line)
            if fsync:
                os.fsync(fd)
            return
        finally:
            os.close(fd)  # closing releases the lock
