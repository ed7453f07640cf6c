"""Where the earlier part of a resumed Claude Code session may be, outside its own folder.

``claude --resume`` writes the resumed conversation to a new file; the old one is found beside
it (:mod:`.earlier_copies`, :mod:`.earlier_goals`), but a project moved between two resumes, or
a session read from a backup folder, leaves it elsewhere. Memory knows which files it read, and
when their items were said: a copy keeps each record's ``timestamp``, so the files memory read
items of those times from (the new file's first records' times) may be the one it copies; and a
file of new records alone follows on from the old file's last record, so its file is among the
sessions memory holds items of just before the new file's first record. Only those files are
looked into (their first or last records' ``uuid``), not every file memory ever read.

:func:`head_times` reads what the lookup needs from the new file's head; ``Memory.ingest`` asks
the journal (``api_sources_at_times/2``, ``api_sources_before/3``) and hands the files found to
the readers as ``Source.elsewhere``. The same times find the other way round a resumed file read
before the file it copies (:func:`resumed_from`): read again after it, its copies are that
file's items and its first reading's copies are superseded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .earlier_copies import RECORD_UUID, earlier_sessions
from .timefmt import read_time

#: How many bytes of a session file's head are read for its first records' times.
_HEAD_BYTES = 1 << 14
#: How many of its first records (with a ``uuid``) are read (as many as a copy may skip).
_HEAD_RECORDS = 16
#: How many sessions that ended before a file of new records began are looked into.
SESSIONS_BEFORE = 8


@dataclass
class HeadTimes:
    """What a session file's head says about where it may go on from."""

    times: set[str] = field(default_factory=set)   # its first records' times (UTC, seconds)
    follows_from: str = ""   # its first record's time when that record follows on from another


def head_times(path: str) -> HeadTimes:
    """The times of the first records of the JSON Lines file ``path`` that name a ``uuid``,
    and whether the first of them follows on (``parentUuid``) from a record it does not hold
    (a session resumed into a file of its own new records). Empty for an unreadable file."""
    found = HeadTimes()
    try:
        with open(path, "rb") as stream:
            head = stream.read(_HEAD_BYTES)
    except OSError:
        return found
    records = 0
    for line in head.split(b"\n"):
        if records >= _HEAD_RECORDS or RECORD_UUID.search(line) is None:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue       # the head's last line, cut at its end
        if not isinstance(record, dict) or not isinstance(record.get("uuid"), str):
            continue
        time = read_time(record.get("timestamp"))
        if not time:
            continue
        records += 1
        if records == 1 and isinstance(record.get("parentUuid"), str) and record["parentUuid"]:
            found.follows_from = time
        found.times.add(time)
    return found


def resumed_from(files: list[str], held: list[str]) -> list[str]:
    """Those of ``held`` (files memory read before, outside this call) that begin with copies
    of records an earlier file holds (:func:`.earlier_copies.earlier_sessions`), one of
    ``files`` among the files looked in: a resumed session read before the file it resumes."""
    return [later for later in held if earlier_sessions(later, files)]
