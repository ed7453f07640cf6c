"""The goal at a Claude Code record that another file holds.

A record names the record it follows (``parentUuid``). Where that record is in another file,
the goal active there goes on here:

* a session resumed into a new file that holds only the new records: its first record follows
  on from the old session's last, in the old file beside it;
* a tool hook's report that Claude Code 2.1.39 kept only in the compaction subagent's file
  (``<session>/subagents/agent-acompact-*.jsonl``): it follows the call it reports on, in the
  session's own file.

The other file is looked for where Claude Code writes it: for a file in a ``subagents`` folder,
its session's file (:func:`.subagents.parent_session_file`); else the other ``*.jsonl`` files
beside it, and the session files of other folders ``Memory.ingest`` names
(``Source.elsewhere``, :mod:`.earlier_files`), whose last records (:data:`_TAIL_BYTES`) name the record. The goal at
the record is the goal of the other file's last user turn at or before the record's line, read
as this reader reads it (what an ingest of that file holds), that file going on in turn from
the goal where its own first record follows on from (a chain of ``--continue`` files).
"""

from __future__ import annotations

import json
import os
import re
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path

from ..errors import InputError
from .earlier_copies import RECORD_UUID
from .source import DEFAULT_MAX_FILE_BYTES
from .subagents import parent_session_file

#: How many other files' readings are kept (by path, size and mtime) while files are read.
_KEPT_READINGS = 4
_readings: OrderedDict[tuple[str, int, int, tuple[str, ...]], list[tuple[int, str]]] = \
    OrderedDict()
_reading_now: set[str] = set()   # files whose lookups are under way (a cycle stops there)
#: How many bytes at the end of a file beside a resumed session are read for the record its
#: first record follows on from (the old session's last records).
_TAIL_BYTES = 1 << 18
_KEPT_TAILS = 4096
_tails: dict[str, tuple[int, int, frozenset[bytes]]] = {}
# A record's type (its first ``"type"`` key: the record's own, written before its message).
_SAID = re.compile(rb'"type"\s*:\s*"(user|attachment)"')
_TOOL_RESULT = re.compile(rb'"type"\s*:\s*"tool_result"')
_ONE_SESSION = "conversation"


class EarlierGoals:
    """Answers "which goal was active at record ``uuid``" from the files beside ``path``,
    none larger than ``max_bytes`` (None: no limit): such a file is read whole, and one over
    the limit ``path`` was read under would be read past it."""

    def __init__(self, path: str, elsewhere: Iterable[str] = (),
                 max_bytes: int | None = DEFAULT_MAX_FILE_BYTES) -> None:
        self.path = Path(path)
        self.elsewhere = tuple(elsewhere)   # session files read from other folders
        self.max_bytes = max_bytes
        self._answers: dict[str, str | None] = {}

    def goal_at(self, uuid: str) -> str | None:
        """The goal at the record ``uuid`` of another file (None: found nowhere, or no goal
        was active there); each uuid is looked for once."""
        if uuid not in self._answers:
            self._answers[uuid] = self._look_for(uuid) if len(self._answers) < 64 else None
        return self._answers[uuid]

    def _look_for(self, uuid: str) -> str | None:
        me = str(self.path)
        if me in _reading_now or not os.path.isfile(me):
            return None
        _reading_now.add(me)
        try:
            for other in self._candidates(uuid):
                if not self._within_limit(other):
                    continue
                line = _line_of(other, uuid)
                if line:
                    return _goal_at_line(other, line, self.elsewhere, self.max_bytes)
            return None
        finally:
            _reading_now.discard(me)

    def _within_limit(self, other: Path) -> bool:
        try:
            return self.max_bytes is None or other.stat().st_size <= self.max_bytes
        except OSError:
            return False

    def _candidates(self, uuid: str) -> list[Path]:
        if self.path.parent.name == "subagents":
            parent = parent_session_file(self.path)
            return [parent] if parent is not None else []
        # a resumed session follows on from the old one's last records: the files beside it
        # whose tail names the record (their tails' uuids kept while they stay as they are)
        wanted = uuid.encode("utf-8", "surrogatepass")
        try:
            beside = [Path(e.path) for e in os.scandir(self.path.parent)
                      if e.name.endswith(".jsonl") and e.path != str(self.path) and e.is_file()
                      and wanted in _tail_uuids(e.path, e.stat())]
        except OSError:
            beside = []
        return beside + [Path(other) for other in self.elsewhere
                         if other.endswith(".jsonl") and _ends_with(other, wanted)
                         and Path(other).parent != self.path.parent]


def _ends_with(path: str, uuid: bytes) -> bool:
    """Whether ``uuid`` is among the last records of ``path`` (False for no file)."""
    try:
        return uuid in _tail_uuids(path, os.stat(path))
    except OSError:
        return False


def _tail_uuids(path: str, stat: os.stat_result) -> frozenset[bytes]:
    """The ``uuid`` of every record in the last :data:`_TAIL_BYTES` of ``path``, remembered
    while its size and mtime stay."""
    kept = _tails.get(path)
    if kept is not None and kept[:2] == (stat.st_size, stat.st_mtime_ns):
        return kept[2]
    try:
        with open(path, "rb") as stream:
            stream.seek(max(0, stat.st_size - _TAIL_BYTES))
            tail = stream.read(_TAIL_BYTES)
    except OSError:
        return frozenset()
    uuids = frozenset(m.group(1) for m in RECORD_UUID.finditer(tail))
    if len(_tails) >= _KEPT_TAILS:
        _tails.clear()
    _tails[path] = (stat.st_size, stat.st_mtime_ns, uuids)
    return uuids


def _line_of(file: Path, uuid: str) -> int:
    """The line (1-based) of ``file``'s record whose ``uuid`` is ``uuid``; 0 when none."""
    needle = uuid.encode("utf-8", "surrogatepass")
    try:
        data = file.read_bytes()
    except OSError:
        return 0
    at = data.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        try:
            record = json.loads(data[start:end])
        except (ValueError, RecursionError):  # RecursionError: nested past the decoder
            record = None
        if isinstance(record, dict) and record.get("uuid") == uuid:
            return data.count(b"\n", 0, start) + 1
        at = data.find(needle, end)
    return 0


def _goal_at_line(file: Path, line: int, elsewhere: tuple[str, ...] = (),
                  max_bytes: int | None = DEFAULT_MAX_FILE_BYTES) -> str | None:
    """The goal of the last item of ``file`` read at or before ``line`` that is none of a
    subagent's; None when it has none. ``elsewhere``: where the file's own start is looked for
    beside its folder, ``max_bytes`` the largest file read for it (:class:`EarlierGoals`)."""
    goals = _goal_lines(file, elsewhere, max_bytes)
    found = None
    for at, goal in goals:
        if at > line:
            break
        found = goal
    return found or None


def _goal_lines(file: Path, elsewhere: tuple[str, ...] = (),
                max_bytes: int | None = DEFAULT_MAX_FILE_BYTES) -> list[tuple[int, str]]:
    """``(line, goal)`` of each item of ``file``'s user turns, read as a Claude Code transcript
    in order (a subagent's left out: they carry their launch's goal). Only what the user said
    sets a goal: the other records are not decoded again to learn it (:func:`_user_turns`)."""
    from .api import parse_source  # the parser imports this module
    from .source import make_source

    try:
        stat = file.stat()
        key = (str(file), stat.st_size, stat.st_mtime_ns, elsewhere, max_bytes)
        if key in _readings:
            _readings.move_to_end(key)
            return _readings[key]
        data = file.read_bytes()
    except OSError:
        return []
    # a file that is itself a resumed session's new records goes on from the goal active
    # where its first record follows on from (a chain of --continue files: C after B after A)
    start = _goal_at_start(file, data, elsewhere, max_bytes)
    try:
        # named as no file is, so that its reading looks for nothing beside it
        items = parse_source(make_source(_user_turns(data, start), name=str(file),
                                         pointer_base=f"{file} (user turns)"),
                             format="claude-code").items
    except InputError:
        items = []
    shift = 1 if start else 0   # the reading's line 1 sets the start goal (line 0 of the file)
    goals = [(int(item.pointer.rpartition(":")[2]) - shift, item.goal) for item in items
             if not any(p == "sidechain" for _, p, _ in item.relations)]
    _readings[key] = goals
    while len(_readings) > _KEPT_READINGS:
        _readings.popitem(last=False)
    return goals


def _goal_at_start(file: Path, data: bytes, elsewhere: tuple[str, ...],
                   max_bytes: int | None) -> str | None:
    """The goal active at the record that ``file``'s first record follows on from
    (``parentUuid``), when another file beside it holds that record; None otherwise (a file
    that begins a conversation, or the record is found nowhere)."""
    for line in data.split(b"\n", 64)[:64]:
        if RECORD_UUID.search(line) is None:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        parent = record.get("parentUuid") if isinstance(record, dict) else None
        if isinstance(record, dict) and isinstance(record.get("uuid"), str):
            return EarlierGoals(str(file), elsewhere, max_bytes).goal_at(parent) \
                if isinstance(parent, str) and parent else None
    return None


def _user_turns(data: bytes, start: str | None = None) -> bytes:
    """``data`` (JSON Lines) with only the user's messages left (a ``user`` record holding no
    tool result, a queued prompt's ``attachment``), every other line blank, and all of them in
    one session: the file is one conversation, a resumed one's copies included, whose goal
    goes on from one message to the next. ``start``: the goal the file goes on with (its
    first user message's record then follows on from a record that names it as a goal)."""
    lines = data.split(b"\n")
    for n, line in enumerate(lines):
        said = _SAID.search(line)
        if said is None or said.group(1) == b"user" and _TOOL_RESULT.search(line) is not None:
            lines[n] = b""
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested past the decoder
            lines[n] = b""
            continue
        if isinstance(record, dict):
            record["sessionId"] = _ONE_SESSION
            lines[n] = json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if start:   # a line 0 that sets it: the items' lines stay those of the file
        lines.insert(0, json.dumps({"type": "user", "sessionId": _ONE_SESSION, "uuid": "",
                                    "message": {"role": "user", "content": start}},
                                   ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return b"\n".join(lines)
