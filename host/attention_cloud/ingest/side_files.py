"""Files beside a transcript that change what it gives: a reader that names people from the
export's ``users.json`` (a Claude.ai ``conversations.json`` beside it, a Slack day file in a
channel folder beside it) gives other items once that file is added or changed, though the
transcript itself is the same. A file is read again, not skipped as unchanged, when they
change (:func:`side_files_digest` is part of what its watermark records)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

SIDE_FILE = "users.json"
CONTINUE_INDEX = "sessions.json"  # Continue's index: when each session began
_DAY_FILE = re.compile(r"\d{4}-\d\d-\d\d\.json\Z")  # a Slack channel's day file
_MAX_SIDE_BYTES = 64 * 1024 * 1024


def side_files(path: str | Path) -> list[Path]:
    """The side files that exist for the transcript at ``path``: ``users.json`` beside a JSON
    file, and beside its folder for a day file (``general/2023-05-08.json``); ``sessions.json``
    beside a file of a ``sessions`` folder (Continue's)."""
    path = Path(path)
    if path.suffix.lower() != ".json" or path.name == SIDE_FILE:
        return []
    places = [path.parent / SIDE_FILE]
    if _DAY_FILE.match(path.name):
        places.append(path.parent.parent / SIDE_FILE)
    if path.parent.name == "sessions" and path.name != CONTINUE_INDEX:
        places.append(path.parent / CONTINUE_INDEX)  # a Continue session's times
    return [place for place in places if place.is_file()]


def side_files_digest(path: str | Path) -> str:
    """A digest of the side files of ``path`` (their names and bytes), ``""`` when it has
    none: a file read before any existed keeps its watermark."""
    found = side_files(path)
    if not found:
        return ""
    digest = hashlib.sha256()
    for side in found:
        try:
            if side.stat().st_size > _MAX_SIDE_BYTES:
                continue  # too large to be read for names: it changes nothing
            digest.update(side.name.encode() + b"\0" + side.read_bytes() + b"\0")
        except OSError:
            continue
    return digest.hexdigest()
