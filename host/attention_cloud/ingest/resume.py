"""Reading a JSON Lines transcript that only grew from where its last reading stopped.

An agent ingests its own session file after every turn: read whole each time, the turn's cost
grows with the session. A reader that takes its records one line at a time, and keeps all it
knows in itself and its collector (pending tool calls, the active goal, subagent launches,
sequence numbers, handles seen), reads the same from the state it had after line N and the
lines after N as from the whole file. So, at the end of the last complete line of a reading
(never inside an envelope written raw, never in a line still being written), the reader is
kept, pickled (:class:`ReadPoint`); a later reading of the same file with the same options
whose first bytes are exactly those bytes (their SHA-256 compared: a file cut back, edited
before its old end, rotated or replaced, whatever its size or mtime, is read whole) resumes a
copy of it on the bytes after them. What follows the records (a call never answered becomes
an item, notes, the item budget) is done on that copy as after a whole reading, so the result
is the one reading the whole file gives, item for item.

Only readers that declare ``resumable = True`` are kept: their state after a record depends
on nothing but the records before it (a reader that decides something from the whole file
first, such as the order of day and month in dates, or how speaker lines split turns, is
read whole). Points live in the process that read the file (a :class:`ReadPoints` per
``Memory``), never on disk, so nothing unpickled was written by anyone else. A reader's state
holds the texts of the items it read: every point is dropped at an erasure, and the point of a
file whose reading gave an item an erasure forgot (the file still holds its text) is not kept.
"""

from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from .source import Source

#: How many files' points a :class:`ReadPoints` keeps (the files read last).
KEPT_FILES = 16


@dataclass(frozen=True)
class ReadPoint:
    """A reader's state after the first ``offset`` bytes (``lines`` lines) of a file."""

    options: Hashable      # the format and options the reading used
    offset: int
    lines: int
    prefix_digest: bytes   # SHA-256 of those bytes
    state: bytes           # the pickled reader (which holds its collector)


class ReadPoints:
    """The last :class:`ReadPoint` of each file read, by its pointer base (absolute path)."""

    def __init__(self, kept: int = KEPT_FILES) -> None:
        self._points: OrderedDict[str, ReadPoint] = OrderedDict()
        self._kept = kept

    def resume(self, source: Source, options: Hashable) -> Any | None:
        """A copy of the reader kept for ``source``'s file when ``source`` begins with the
        bytes it had read, under the same ``options``; ``source.resume_at`` is set to go on
        after them. None (read it whole) otherwise."""
        point = self._points.get(source.pointer_base)
        if (point is None or point.options != options or len(source.data) < point.offset
                or hashlib.sha256(memoryview(source.data)[:point.offset]).digest()
                != point.prefix_digest):
            return None
        self._points.move_to_end(source.pointer_base)
        source.resume_at = (point.offset, point.lines)
        return pickle.loads(point.state)

    def keep_at_last_line(self, source: Source, options: Hashable, reader: Any) -> None:
        """Have ``reader``'s state kept when it reaches the last line of ``source`` (see
        :func:`~.jsonlines.json_records`), if it declares itself ``resumable``."""
        if not getattr(reader, "resumable", False):
            return

        def keep(offset: int, lines: int) -> None:
            if offset <= source.resume_at[0]:
                return  # nothing read past the point already kept
            try:
                state = pickle.dumps(reader, pickle.HIGHEST_PROTOCOL)
            except (pickle.PicklingError, TypeError, AttributeError):
                return  # a state that cannot be kept: the next reading is whole
            digest = hashlib.sha256(memoryview(source.data)[:offset]).digest()
            self._points[source.pointer_base] = ReadPoint(options, offset, lines, digest, state)
            self._points.move_to_end(source.pointer_base)
            while len(self._points) > self._kept:
                self._points.popitem(last=False)

        source.at_last_line = keep

    def drop(self, pointer_base: str) -> None:
        """Drop the point of the file read at ``pointer_base`` (its next reading is whole)."""
        self._points.pop(pointer_base, None)

    def __len__(self) -> int:
        """How many files' points are kept."""
        return len(self._points)

    def forget(self) -> None:
        """Drop every point (the next reading of each file is whole)."""
        self._points.clear()
