"""Claude Code records repeated from an earlier file of the same conversation.

``claude --resume`` (and ``--continue``) may write the resumed conversation to a new file,
``<new id>.jsonl``, that begins with a copy of the records it resumes, rewritten with the new
``sessionId``. A record's ``uuid`` names it across files: each copy is the record the earlier
file holds, and is read under the session it was first written under, so that its item is the
earlier file's (the same handle: nothing doubled) and the records after the copies go on from
them (:meth:`.claude_code.ClaudeCodeParser._follow`).

The earlier file is found beside the new one (Claude Code writes every session of a project to
one folder): a smaller ``*.jsonl`` file among whose first records (the first
:data:`_HEAD_RECORDS` that name a ``uuid``) is the new file's first (a copy starts where the
conversation started, perhaps without the hook records before its first message), the same
record but for its ``sessionId``. Where several are (a conversation resumed more than once),
each record takes the session of the smallest file holding it: the first that wrote it.
``Memory.ingest`` also names session files of other folders that may hold it
(``Source.elsewhere``, :mod:`.earlier_files`): an earlier file among those is found the same
way (a project moved between two resumes, a session read from a backup folder).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

#: How many bytes of a file's head are read for its first records' ``uuid``.
_HEAD_BYTES = 1 << 18
#: How many of a file's first records that name a ``uuid`` may begin a copy of it.
_HEAD_RECORDS = 16
#: Files whose first uuids are remembered between readings (by path, size and mtime).
_KEPT_HEADS = 4096
_heads: dict[str, tuple[int, int, frozenset[bytes]]] = {}
#: Folders whose files' first uuids are indexed (by the folder's mtime: a file added or
#: removed, a resumed session's new file among them, makes it read again).
_KEPT_FOLDERS = 16
_folders: dict[str, tuple[int, dict[bytes, list[str]]]] = {}
#: A record's own ``"uuid": "..."`` (never ``parentUuid``, ``leafUuid``: their key differs).
RECORD_UUID = re.compile(rb'"uuid"\s*:\s*"([^"\\]{1,200})"')


def earlier_sessions(path: str, elsewhere: Iterable[str] = ()) -> dict[str, str]:
    """``uuid -> session`` for the records of ``path`` (a Claude Code session file) that an
    earlier file beside it, or one of the files ``elsewhere`` (sessions read from other
    folders), holds: the session each was first written under. ``{}`` when ``path`` is no
    file, a subagent's (``subagents/agent-*.jsonl``), or repeats none."""
    folder = os.path.dirname(path) or "."
    if os.path.basename(folder) == "subagents" or not os.path.isfile(path):
        return {}     # os.path.isfile: False for a name no file has (a source= name), too
    first = _first_record(path)
    if first is None:
        return {}
    earlier = []
    try:
        size = os.stat(path).st_size
        others = set(_folder_index(folder).get(first[0], ()))
        others.update(other for other in elsewhere if _begins_with(other, first[0]))
        for other in others:
            if not os.path.samefile(other, path) and (other_size := os.stat(other).st_size) < size:
                earlier.append((other_size, other))
    except OSError:
        return {}
    sessions: dict[str, str] = {}
    for _, other in sorted(earlier):
        for uuid, session in _record_sessions(other, first[1]):
            sessions.setdefault(uuid, session)
    return sessions


def _begins_with(path: str, uuid: bytes) -> bool:
    """Whether ``uuid`` is among the first records of the ``*.jsonl`` file ``path`` (False
    for a file no longer there)."""
    try:
        stat = os.stat(path)
    except OSError:
        return False
    return path.endswith(".jsonl") and uuid in _head_uuids(path, stat)


def _folder_index(folder: str) -> dict[bytes, list[str]]:
    """Each first uuid (:func:`_head_uuids`) of the ``*.jsonl`` files of ``folder`` -> the
    files it begins; read again when a file is added to the folder or removed."""
    mtime = os.stat(folder).st_mtime_ns
    kept = _folders.get(folder)
    if kept is not None and kept[0] == mtime:
        return kept[1]
    index: dict[bytes, list[str]] = {}
    for entry in os.scandir(folder):
        if entry.name.endswith(".jsonl") and entry.is_file():
            for uuid in _head_uuids(entry.path, entry.stat()):
                index.setdefault(uuid, []).append(entry.path)
    if len(_folders) >= _KEPT_FOLDERS:
        _folders.clear()
    _folders[folder] = (mtime, index)
    return index


def _first_record(path: str) -> tuple[bytes, dict[str, Any]] | None:
    """The ``uuid`` of the first record of ``path`` that names one, and that record (None
    when its head has none)."""
    try:
        with open(path, "rb") as stream:
            head = stream.read(1 << 14)          # mostly in the first lines
            found = RECORD_UUID.search(head)
            if found is None and len(head) == 1 << 14:
                head += stream.read(_HEAD_BYTES - len(head))
                found = RECORD_UUID.search(head)
    except OSError:
        return None
    if found is None:
        return None
    start = head.rfind(b"\n", 0, found.start()) + 1
    end = head.find(b"\n", found.end())
    record = _record(head[start:] if end < 0 else head[start:end])
    return (found.group(1), record) if record else None


def _head_uuids(path: str, stat: os.stat_result) -> frozenset[bytes]:
    """The ``uuid`` of the first :data:`_HEAD_RECORDS` records of ``path`` that name one
    (those in its first :data:`_HEAD_BYTES`), remembered while its size and mtime stay."""
    kept = _heads.get(path)
    if kept is not None and kept[:2] == (stat.st_size, stat.st_mtime_ns):
        return kept[2]
    try:
        with open(path, "rb") as stream:
            # the first records mostly fit in 16 KB: a folder of hundreds of long sessions is
            # indexed by reading that much of each, the rest of the 256 KB only where needed
            head = stream.read(1 << 14)
            found = RECORD_UUID.findall(head)
            if len(found) < _HEAD_RECORDS and len(head) == 1 << 14:
                head += stream.read(_HEAD_BYTES - len(head))
                found = RECORD_UUID.findall(head)
    except OSError:
        return frozenset()
    uuids = frozenset(found[:_HEAD_RECORDS])
    if len(_heads) >= _KEPT_HEADS:
        _heads.clear()
    _heads[path] = (stat.st_size, stat.st_mtime_ns, uuids)
    return uuids


def _record_sessions(path: str, first: dict[str, Any]) -> list[tuple[str, str]]:
    """``(uuid, sessionId)`` of every record of ``path`` that names both, when ``path`` holds
    ``first`` (the later file's first record: the same record but for its ``sessionId``, as a
    copy is); ``[]`` otherwise (another conversation whose ids happen to be the same)."""
    pairs = []
    uuid_of_first = first.get("uuid")
    holds_first = False
    try:
        with open(path, "rb") as stream:
            for line in stream:
                record = _record(line)
                uuid, session = record.get("uuid"), record.get("sessionId")
                if not (isinstance(uuid, str) and uuid and isinstance(session, str) and session):
                    continue
                if uuid == uuid_of_first:
                    holds_first = {**record, "sessionId": None} == {**first, "sessionId": None}
                pairs.append((uuid, session))
    except OSError:
        return []
    return pairs if holds_first else []


def _record(line: bytes) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: a value nested past the decoder
        return {}
    return record if isinstance(record, dict) else {}
