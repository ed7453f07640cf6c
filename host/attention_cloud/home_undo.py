"""A memory home that a refused command made is taken away again.

A writing command opens its home (making the folder, the write lock and an empty journal)
before it can check what it was given: ``atc goal g --depends-on typo`` or ``atc source add x
--type nope`` were refused, exit 2, and still left a new home behind wherever a mistyped
``--home`` pointed, which the next command then took for a real one. The command line notes
the folders it made (:func:`folders_to_make`, before opening) and, when the command fails,
removes them again (:func:`undo_made_home`) if the home is still untouched: nothing but an
empty ``journal.pl`` and the lock file, the lock free. Anything written there keeps it.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

#: What opening a home writes before anything is committed: the write lock and the journal.
_FRESH_FILES = frozenset({".lock", "journal.pl"})


def folders_to_make(home: Path) -> list[Path]:
    """The folders that opening ``home`` will make, outermost first: the missing ancestors
    and the home itself; empty when the home exists."""
    missing: list[Path] = []
    folder = home
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


def undo_made_home(made: list[Path]) -> bool:
    """Remove the home ``made[-1]`` and the folders above it that ``made`` lists, when the
    home holds nothing a command committed (see the module docstring); True when removed.
    A folder that holds something else by now stays, and so does every folder above it."""
    if not made:
        return False
    home = made[-1]
    try:
        entries = {entry.name for entry in os.scandir(home)}
    except OSError:
        return False
    if not entries <= _FRESH_FILES:
        return False
    journal = home / "journal.pl"
    if journal.exists() and journal.stat().st_size:
        return False
    with _lock_taken(home / ".lock") as taken:
        if ".lock" in entries and not taken:
            return False             # another process opened it meanwhile: it is theirs now
        # held while the files go: a writer that opened the lock file before sees it removed
        # once it gets the lock (WriteLock takes the one the path names), never writes in a
        # home removed under it
        for name in entries:
            with contextlib.suppress(FileNotFoundError):
                (home / name).unlink()
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            break
    return True


@contextlib.contextmanager
def _lock_taken(path: Path) -> Iterator[bool]:
    """Hold the write lock ``path`` (exclusive, without waiting) for the block: True when
    taken, False when another process holds it or it cannot be opened."""
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
        else:
            yield True
    finally:
        os.close(fd)
