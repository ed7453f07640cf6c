"""What the watcher knows of each transcript file: its state on disk, when it last changed,
and what was last ingested of it; from that, which files are due for ingestion.

A file's *state* is ``(device, inode, size, mtime_ns)``: an append, a truncation, a rewrite and
a rotation (another inode under the name) all change it. A file is *due* once it changed and
then stayed quiet for the debounce time, or once it has kept changing for ``max_delay`` (a file
written without pause is still ingested that often). A file ingested while it was still being
written (changed less than ``settle`` seconds before) had its unfinished part held back
(:mod:`attention_cloud.ingest.unfinished`); it is due again once it has been quiet for
``settle`` seconds, and is then read whole (nothing new when nothing was held).
Files that disappear are forgotten, so the table holds only files that exist.
"""
from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..ingest.source import (PAGE_SUFFIXES, WALKED_SUFFIXES, HomesWithin, find_transcripts,
                             skipped_within)

State = tuple[int, int, int, int]


def file_state(path: Path) -> State | str | None:
    """The state of a regular file; why it is not read (a FIFO, ...) for any other kind of
    file; None when nothing is there."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        from ..ingest.source import not_regular

        return not_regular(info.st_mode)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


@dataclass
class Entry:
    """One file: its state now, when it last changed, and the state last ingested."""

    state: State
    changed_at: float
    first_change: float               # first change not yet ingested (for max_delay)
    ingested: State | None = None
    open_tail: bool = False           # ingested while being written: read whole once settled


class FileTable:
    """The transcript files under the watched paths and what is due (see the module doc)."""

    def __init__(self, roots: Iterable[str | os.PathLike[str]], *,
                 skip: str | os.PathLike[str] | None = None) -> None:
        self.roots = [Path(r) for r in roots]
        self.skip = skip                        # the memory home: never a transcript
        self._left_out = [p for p in (skipped_within(r, skip) for r in self.roots) if p]
        self.files: dict[Path, Entry] = {}
        self.problems: dict[Path, str] = {}     # files found that cannot be read, and why

    def watched(self, path: Path) -> bool:
        """Whether ``path`` is a transcript the watched paths cover."""
        if path.suffix.lower() not in WALKED_SUFFIXES:
            return False
        if any(path == out or out in path.parents for out in self._left_out):
            return False
        for root in self.roots:
            if path == root or (root in path.parents and root.is_dir()):
                # another memory home in the folder: its receipts and indexes are no transcripts
                return HomesWithin(root).holding(path) is None
        return False

    def scan(self, now: float) -> set[Path]:
        """Walk every watched path; returns the files whose state changed (new ones included)
        and forgets the ones that are gone."""
        present: set[Path] = set()
        for root in self.roots:
            if not root.exists():
                continue                      # a named file rotated away: wait for it
            if not root.is_dir():
                present.add(root)             # named itself: check() says why one is unread
                continue
            try:
                found = find_transcripts([root], skip=self.skip)
            except Exception:                 # vanished mid-walk: the next scan sees it
                continue
            present.update(entry.path for entry in found)
        changed = self.check(present, now)
        for gone in set(self.files) - present:
            del self.files[gone]
        for gone in set(self.problems) - present:
            del self.problems[gone]
        return changed

    def check(self, paths: Iterable[Path], now: float) -> set[Path]:
        """Stat ``paths`` (events named them); returns those whose state changed."""
        changed: set[Path] = set()
        for path in paths:
            state = file_state(path)
            if state is None:
                self.files.pop(path, None)
                self.problems.pop(path, None)
                continue
            if (isinstance(state, tuple) and path.suffix.lower() in PAGE_SUFFIXES
                    and path not in self.roots):
                # imported here: the page readers bring the date parser, and every `atc`
                # start imports this module (~0.15 s of CPU a process at module level)
                from ..ingest.chat_pages import page_problem

                state = page_problem(path) or state  # a web page beside a chat: left out
            if isinstance(state, str):
                self.files.pop(path, None)
                self.problems[path] = state
                continue
            self.problems.pop(path, None)
            entry = self.files.get(path)
            if entry is None:
                # Last written when its mtime says: a file found untouched for a while (at the
                # first walk, or moved in) is settled and read whole at once.
                written = min(now, now - (time.time() - state[3] / 1e9))
                self.files[path] = Entry(state, written, now)
                changed.add(path)
            elif entry.state != state:
                if entry.state == entry.ingested:
                    entry.first_change = now
                entry.state, entry.changed_at = state, now
                changed.add(path)
        return changed

    def due(self, now: float, debounce: float, max_delay: float, settle: float) -> list[Path]:
        """Files to ingest now, in path order."""
        out = []
        for path, e in self.files.items():
            if e.state != e.ingested:
                if now - e.changed_at >= debounce or now - e.first_change >= max_delay:
                    out.append(path)
            elif e.open_tail and now - e.changed_at >= settle:
                out.append(path)
        return sorted(out)

    def unsettled(self, paths: Iterable[Path], now: float, settle: float) -> list[Path]:
        """Of ``paths``, those that changed less than ``settle`` seconds ago: still being
        written, so an unfinished last line is held back."""
        return [p for p in paths if p in self.files and now - self.files[p].changed_at < settle]

    def ingested(self, path: Path, state: State, held: bool) -> None:
        """Record that ``path`` was ingested as it was in ``state`` (``held``: read while being
        written, so an unfinished part may have been left for later)."""
        entry = self.files.get(path)
        if entry is not None:
            entry.ingested = state
            entry.open_tail = held

    def pending(self) -> int:
        """Files changed since they were last ingested, or to be read whole once settled."""
        return sum(e.state != e.ingested or e.open_tail for e in self.files.values())

    def next_deadline(self, debounce: float, max_delay: float, settle: float) -> float | None:
        """The earliest time a file becomes due (None when nothing waits)."""
        times = []
        for e in self.files.values():
            if e.state != e.ingested:
                times.append(min(e.changed_at + debounce, e.first_change + max_delay))
            elif e.open_tail:
                times.append(e.changed_at + settle)
        return min(times) if times else None
