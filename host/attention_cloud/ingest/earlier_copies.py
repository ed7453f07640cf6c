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
conversation started, perhaps without the hook records before its first message). Where several are (a conversation
resumed more than once), each record takes the session of the smallest file holding it: the
first that wrote it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

#: How many bytes of a file's head are read for its first record's ``uuid``.
_HEAD_BYTES = 1 << 18
#: How many of a file's first records that name a ``uuid`` may begin a copy of it.
_HEAD_RECORDS = 64
#: Files whose first uuids are remembered between readings (by path, size and mtime).
_KEPT_HEADS = 4096
_heads: dict[str, tuple[int, int, tuple[str, ...]]] = {}


def earlier_sessions(path: str) -> dict[str, str]:
    """``uuid -> session`` for the records of ``path`` (a Claude Code session file) that an
    earlier file beside it holds: the session each was first written under. ``{}`` when
    ``path`` is no file, a subagent's (``subagents/agent-*.jsonl``), or repeats none."""
    file = Path(path)
    if file.parent.name == "subagents" or not file.is_file():
        return {}
    head = _head_uuids(file)
    if not head:
        return {}
    first = head[0]
    size = file.stat().st_size
    earlier = []
    try:
        siblings = list(os.scandir(file.parent))
    except OSError:
        return {}
    for entry in siblings:
        if not entry.name.endswith(".jsonl") or entry.path == str(file) or not entry.is_file():
            continue
        other = Path(entry.path)
        if entry.stat().st_size < size and first in _head_uuids(other):
            earlier.append((entry.stat().st_size, other))
    sessions: dict[str, str] = {}
    for _, other in sorted(earlier):
        for uuid, session in _record_sessions(other):
            sessions.setdefault(uuid, session)
    return sessions


def _head_uuids(file: Path) -> tuple[str, ...]:
    """The ``uuid`` of the first :data:`_HEAD_RECORDS` records of ``file`` that name one
    (those in its first :data:`_HEAD_BYTES`), remembered while its size and mtime stay."""
    try:
        stat = file.stat()
    except OSError:
        return ()
    key = str(file)
    kept = _heads.get(key)
    if kept is not None and kept[:2] == (stat.st_size, stat.st_mtime_ns):
        return kept[2]
    try:
        with open(file, "rb") as stream:
            head = stream.read(_HEAD_BYTES)
    except OSError:
        return ()
    lines = head.split(b"\n")
    if len(head) == _HEAD_BYTES:
        lines.pop()                     # cut inside a record
    uuids: list[str] = []
    for line in lines:
        if b'"uuid"' in line:
            uuid = _record(line).get("uuid")
            if isinstance(uuid, str) and uuid:
                uuids.append(uuid)
                if len(uuids) == _HEAD_RECORDS:
                    break
    if len(_heads) >= _KEPT_HEADS:
        _heads.clear()
    _heads[key] = (stat.st_size, stat.st_mtime_ns, tuple(uuids))
    return tuple(uuids)


def _record_sessions(file: Path) -> list[tuple[str, str]]:
    """``(uuid, sessionId)`` of every record of ``file`` that names both."""
    pairs = []
    try:
        with open(file, "rb") as stream:
            for line in stream:
                record = _record(line)
                uuid, session = record.get("uuid"), record.get("sessionId")
                if isinstance(uuid, str) and uuid and isinstance(session, str) and session:
                    pairs.append((uuid, session))
    except OSError:
        return []
    return pairs


def _record(line: bytes) -> dict:
    try:
        record = json.loads(line)
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}
