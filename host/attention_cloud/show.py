"""What ``atc show`` prints: one item, arc or session rollup at a rung, or the verbatim record
behind an item."""
from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Any

from .api_lock import serialised
from .bridge import Atom, Var, to_plain
from .errors import BadArgument, InputError
from .memory import Memory, session_apart
from .ingest.pointers import parse_pointer, read_pointer
from .json_values import json_text


@serialised  # a long-open Memory first takes in other processes' writes
def show_record(mem: Memory, handle: str, level: str, verbatim: bool) -> dict[str, Any]:
    """Fields of ``handle`` plus its text at ``level`` (and the verbatim source if asked);
    ``level`` is named ``L0``..``L3`` in the record, as in receipts and ``--level``.

    An item gives its journal fields; an arc (``record: "arc"``) its session, goal and
    ``members`` in order; a session rollup (``record: "rollup"``) its session and ``members``;
    a cell (``record: "cell"``) its live ``members``, sorted. Arcs, rollups and cells have no
    L0 of their own: at ``l0`` they show L1, their most detailed rung,
    and ``level`` says so; so does an item whose L0 retention dropped, at the most detailed
    rung it has left.

    Raises:
        InputError: no such record; a rung not built yet (the item is not curated: ``atc
            curate`` builds it) or dropped by retention; ``verbatim`` for an arc or rollup.
    """
    return rung_named(_record(mem, handle, level.lower(), verbatim))


def rung_named(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its ``level`` named as users write rungs (``L2``): Prolog's ladder
    keys rungs by lower-case atoms, every output names them in upper case."""
    if record.get("level"):
        record["level"] = str(record["level"]).upper()
    return record


def _record(mem: Memory, handle: str, level: str, verbatim: bool) -> dict[str, Any]:
    h = Atom(handle)
    if mem.pl.once("atc_journal:item", h) is not None:
        return _item(mem, handle, level, verbatim)
    if mem.pl.once("atc_ladder:arc", h) is not None:
        session = mem.pl.once("atc_ladder:arc_session", h, Var())
        goal = mem.pl.once("atc_ladder:arc_goal", h, Var())
        members = [str(m) for (m,) in mem.pl.solutions("atc_ladder:arc_member", h, Var())]
        return _derived(mem, handle, "arc", level, verbatim, members,
                        session=str(session[0]) if session else "",
                        goal=str(goal[0]) if goal else "")
    rollup = mem.pl.once("atc_ladder:rollup", h, Var())
    if rollup is not None:
        members = sorted({str(m) for (m,) in mem.pl.solutions("atc_ladder:provenance", h, Var())})
        return _derived(mem, handle, "rollup", level, verbatim, members, session=str(rollup[0]))
    if mem.pl.succeeds("atc_cells:cell", h):  # a frame cites a cell summary by its handle
        (members,) = mem.pl.once("atc_cells:cells_members", h, Var())
        return _derived(mem, handle, "cell", level, verbatim, [str(m) for m in members])
    raise BadArgument(f"{handle}: no such item, arc, rollup or cell in this memory")


def _item(mem: Memory, handle: str, level: str, verbatim: bool) -> dict[str, Any]:
    if mem.pl.once("atc_ladder:rung", Atom(handle), Atom(level), Var()) is None:
        if level != "l0":
            raise InputError(_missing_rung(mem, handle, level))
        level = _most_detailed_rung(mem, handle) or level  # retention dropped L0
    found = mem.pl.once("atc_api:api_describe", Atom(handle), Atom(level), Var())
    if not found:
        raise BadArgument(f"{handle}: no such item, arc or rollup in this memory")
    record = {"record": "item", **to_plain(found[0])}
    if verbatim:
        pointer = record.get("source") or ""
        if not pointer:
            raise InputError(f"{handle}: has no source pointer")
        now = pointer = _in_this_home(mem, record, pointer)
        if _ingested(mem, str(record.get("source_name") or "")):  # not a file remember writes
            now = _current_pointer(handle, pointer, str(record.get("session") or "") or None)
        if parse_pointer(now).start != parse_pointer(pointer).start:
            record["source_now"] = now  # the file grew or changed above it: the record moved
        # else it is where it was: a home written before line ranges points at a turn's first
        # line alone, and the pointer parsed now gives the whole turn
        source = read_pointer(now)
        record["verbatim"] = source if isinstance(source, str) else json_text(source, indent=2)
    return record


def _in_this_home(mem: Memory, record: dict[str, Any], pointer: str) -> str:
    """``pointer`` read in this home: a remembered item's record is a line of the
    remembered.jsonl of the home that holds the item, wherever the home was when it was
    written (its pointer names that file by its absolute path, which a moved or copied home
    no longer has)."""
    from .agents.remember import REMEMBER_SESSION, REMEMBERED_FILE

    if record.get("session") != REMEMBER_SESSION:
        return pointer
    target = parse_pointer(pointer)
    if Path(target.path).name != REMEMBERED_FILE or target.line is None \
            or _ingested(mem, str(record.get("source_name") or "")):
        return pointer
    return f"{mem.home / REMEMBERED_FILE}:{target.line}"


def _most_detailed_rung(mem: Memory, handle: str) -> str | None:
    """The most detailed rung ``handle`` still has, for an item whose L0 retention dropped
    (it still renders, from what remains, and keeps its pointer)."""
    for level in ("l1", "l2", "l3"):
        if mem.pl.once("atc_ladder:rung", Atom(handle), Atom(level), Var()) is not None:
            return level
    return None


def _ingested(mem: Memory, source_name: str) -> bool:
    """The file was read by ``atc ingest`` (it has a watermark), so parsing it again gives its
    items' handles; remembered notes and items added through the API are not parsed back."""
    if not source_name:
        return False
    (marks,) = mem.pl.once("atc_api:api_watermarks", [Atom(source_name)], Var())
    return bool(marks) and marks[0] != "none"


def _current_pointer(handle: str, pointer: str, session: str | None) -> str:
    """Where the record ``handle`` was read from is in its source file now. The file is parsed
    again as ingest read it and the handle looked up: a pointer is a line number or a JSON
    path, so a file edited above the record would otherwise show another record without a
    word. Ingest gave the file a default session: the item's own (a file of no session of its
    own), else the file's name, or that name told apart from another file's (a reader that
    names sessions after the default, ``chat#2`` for a JSON Lines file's second conversation,
    needs the default itself); each is tried until one gives the handle.

    Raises:
        InputError: the file cannot be read, or no longer holds the record.
    """
    path = parse_pointer(pointer).path
    stem = Path(path).stem or path
    for default in dict.fromkeys((session, None, session_apart(stem, path))):
        try:
            now = _pointers_in(path, default).get(handle)
        except InputError as exc:
            moved = "" if Path(path).exists() else (
                "; moved? `atc ingest` it where it is now and its items point there")
            raise InputError(f"{handle}: its source cannot be read as it was ingested "
                             f"({exc}{moved})") from None
        if now is not None:
            return now
    raise InputError(f"{handle}: {path} changed since it was ingested and no longer holds the "
                     f"record this item was read from (it pointed at {pointer})")


#: A file modified or changed less than this long ago is parsed afresh, never cached: a write
#: within the same tick of the file system's clock as the stat (ext4's is a few milliseconds,
#: FAT's 2 s) could leave its size and times as they were (git's "racy clean" entries, the
#: same remedy).
RACY_NS = 2_000_000_000


def _pointers_in(path: str, session: str | None) -> dict[str, str]:
    """Handle -> pointer of the items ingest reads from the file at ``path`` now, with
    ``session`` as its default session. Parsing a long transcript costs a tenth of a second and
    more, paid by every ``show --source`` of it: a process that shows many (the MCP server,
    ``atc serve``, an API caller) parses each version of a file once. The version is the
    file's device, inode, size, modification and change times, read before the parse, so a
    file changed, replaced or rewritten since is parsed again; one changed within
    :data:`RACY_NS` is not cached."""
    try:
        info = os.stat(path)
    except OSError:
        info = None  # the parse says what is wrong with the path, on one line
    if info is None or time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) < RACY_NS:
        return _parse_pointers(path, session)
    version = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return _cached_pointers(path, session, version)


@functools.lru_cache(maxsize=8)
def _cached_pointers(path: str, session: str | None,
                     _version: tuple[int, ...]) -> dict[str, str]:
    return _parse_pointers(path, session)


def _parse_pointers(path: str, session: str | None) -> dict[str, str]:
    from .ingest.api import parse_path

    pointers: dict[str, str] = {}
    for item in parse_path(path, session=session, max_file_bytes=None).items:
        pointers.setdefault(item.handle, item.pointer)  # the first item of the handle
    return pointers


def _missing_rung(mem: Memory, handle: str, level: str) -> str:
    if mem.pl.once("atc_ladder:curated", Atom(handle), Var()) is None:
        return (f"{handle}: not curated yet, so it has no {level.upper()} (only L0, its text); "
                "`atc curate` builds L1-L3")
    return (f"{handle}: its {level.upper()} was dropped by retention (retention in config.json); "
            "other rungs remain")


def _derived(mem: Memory, handle: str, kind: str, level: str, verbatim: bool,
             members: list[str], **fields: str) -> dict[str, Any]:
    if verbatim:
        record = {"rollup": "a session rollup", "arc": "an arc"}.get(kind, f"a {kind}")
        raise InputError(f"{handle}: {record} has no single source record; show the source "
                         "of each of its members instead")
    shown = "l1" if level == "l0" else level
    text = mem.pl.once("atc_ladder:rung", Atom(handle), Atom(shown), Var())
    if text is None:
        raise InputError(f"{handle}: this {kind} has no {shown.upper()}")
    return {"handle": handle, "record": kind, **fields, "level": shown, "text": str(text[0]),
            "members": members}
