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
import os
from pathlib import Path

from .home import flock_held

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
    if ".lock" in entries and not _lock_is_free(home / ".lock"):
        return False                 # another process opened it meanwhile: it is theirs now
    for name in entries:
        with contextlib.suppress(FileNotFoundError):
            (home / name).unlink()
    for folder in reversed(made):
        try:
            folder.rmdir()
        except OSError:
            break
    return True


def _lock_is_free(path: Path) -> bool:
    try:
        return flock_held(path, exclusive=True) is False
    except OSError:
        return False          # a lock that cannot be probed is taken for held
