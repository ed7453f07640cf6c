"""``remember``: one memory added by hand (or by an agent), as a first-class journal item.

A remembered text becomes an item like any ingested one, with its own verbatim record: each
call appends one JSON line to ``home/remembered.jsonl`` (fsynced before the item is written),
and the item's pointer is ``<that file>:<line>``, so ``atc show HANDLE --source`` prints what
was remembered, when, and by whom. The handle is content-derived (session ``remembered``, the
kind, the segment and the text): remembering the same thing again changes nothing and appends
nothing.

Example::

    from attention_cloud import Memory
    with Memory.open() as mem:
        r = mem.remember("the staging DB is read-only on Fridays", kind="note")
        print(r.handle, r.new, r.source)
"""
from __future__ import annotations

import dataclasses
import json
import os
import time as _time
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..home import CURATION_PENDING_FILE as PENDING_FILE

from ..errors import BadArgument, InputError, UsageError
from ..ingest.frame_echo import strip_recalled
from ..ingest.records import check_segment

_SURROGATE = re.compile("[\ud800-\udfff]")

from .kinds import REMEMBER_KINDS

#: The session every remembered item belongs to (``item_session/2``).
REMEMBER_SESSION = "remembered"

#: The file in the home that holds every remembered text verbatim, one JSON line each.
REMEMBERED_FILE = "remembered.jsonl"

#: The longest text ``remember`` takes, in characters: a memory is a statement, not a file
#: (ingest a transcript or document for more).
MAX_REMEMBER_CHARS = 20_000

#: The most of standard input ``atc remember -`` reads: room for a note and a frame it quotes
#: (stripped before the length check), while a device that never ends (``< /dev/zero``) or a
#: large file piped by mistake is refused without being read into memory.
MAX_REMEMBER_STDIN_BYTES = 4 * 1024 * 1024

#: Curate a new remembered item at once when at most this many items await curation
#: (a larger backlog is left to ``atc curate``, which the result says).
CURATE_AT_ONCE_MAX = 200


@dataclass(frozen=True)
class Remembered:
    """What one ``remember`` call did."""

    handle: str
    kind: str
    segment: str
    new: bool             # False: the same text was remembered before (nothing written)
    source: str           # the pointer to its verbatim record: ``.../remembered.jsonl:N``
    curated: bool         # its rungs, vectors and BM25 entry exist (so frames find it)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return dataclasses.asdict(self)


def check_text(text: Any) -> str:
    """The text to remember, or InputError naming what is wrong with it (empty, not text,
    too long). Unicode is kept as given apart from NFC normalisation, so the same words typed
    twice get the same handle."""
    if not isinstance(text, str):
        raise InputError("the text to remember must be a string")
    # A lone surrogate (from a "\\ud800" JSON escape) is not text: it becomes U+FFFD, as the
    # journal's wire format would make it, so the handle matches what is stored.
    text = _SURROGATE.sub("\ufffd", unicodedata.normalize("NFC", text)).strip()
    if not text:
        raise BadArgument("nothing to remember: the text is empty")
    # A frame hydration injected is recalled memory: an agent that remembers text holding one
    # stores only its own words, as ingest strips envelopes before anything reads a transcript.
    # A closing tag no opening precedes is kept as written: one typed note quoting the tag is
    # no truncated frame, and would otherwise lose every word before it. What recall writes
    # outside an envelope goes too, as ingest drops it from a tool's output: the receipt line
    # after the MCP hydrate tool's envelope (an agent pasting that tool's text kept it as the
    # note's first line and goal), a frame as `atc hydrate` prints it, a printed receipt.
    text = strip_recalled(text)
    if not text:
        raise BadArgument("nothing to remember: the text is only recalled memory (a "
                          "<memory-frame> envelope, its receipt line, a frame or receipt "
                          "as atc prints it), which is not remembered again")
    if len(text) > MAX_REMEMBER_CHARS:
        raise InputError(f"the text to remember is {len(text):,} characters; at most "
                         f"{MAX_REMEMBER_CHARS:,} (ingest a file for longer material)")
    return text


def check_kind(kind: Any) -> str:
    """``kind`` when it is one of :data:`REMEMBER_KINDS`, else UsageError."""
    if kind not in REMEMBER_KINDS:
        raise UsageError(f"kind must be one of {', '.join(REMEMBER_KINDS)}, not {kind!r}")
    return kind


def remember(mem: Any, text: str, *, kind: str = "note", segment: str = "default",
             role: str = "user", goal: str | None = None, when: str | None = None,
             curate: bool = True) -> Remembered:
    """Add ``text`` to memory as one item (see :meth:`Memory.remember`)."""
    from ..ingest.collector import ItemCollector, item_handle
    from ..ingest.textutil import goal_text
    from ..ingest.timefmt import read_time
    from ..ingest_index import commit
    from ..wire import encode_item

    text = check_text(text)
    kind = check_kind(kind)
    segment = check_segment(segment)
    if role not in ("user", "assistant"):
        raise UsageError(f"role must be user or assistant, not {role!r}")
    stamp = read_time(when) if when is not None else \
        _time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime())
    if not stamp:
        raise UsageError(f"time must be a time such as 2026-05-01T12:00:00Z, not {when!r}")
    path = mem.home / REMEMBERED_FILE
    handle = item_handle(REMEMBER_SESSION, kind, segment, text)
    # one writer: the line number and the item are ours alone; and the checks below read the
    # journal as other processes left it, not this Memory's older view (a text forgotten
    # since must be refused, one remembered since must not be written twice)
    mem.acquire()
    if curate:
        _check_embedder_files(mem)
    from ..bridge import Atom

    if mem.pl.once("atc_journal:journal_refuses", Atom(handle), text) is not None:
        raise InputError("this text was forgotten (atc forget): it is not remembered again")
    existing = mem.item(handle)
    if existing is not None:
        # a remember killed in its curate left the item stored but not (wholly) curated: the
        # same command again finishes that, as it would have
        if curate and (not _is_curated(mem, handle) or (mem.home / PENDING_FILE).exists()):
            _curate_if_few(mem)
        return Remembered(handle, kind, segment, False, existing.source,
                          _is_curated(mem, handle))
    active = goal_text(goal) if goal and goal.strip() else goal_text(text)
    record = {"handle": handle, "kind": kind, "segment": segment, "role": role,
              "time": stamp, "goal": active, "text": text}
    line = _append_record(path, record)
    stamp = record["time"]              # the stored line's, when a retry reuses it
    source = str(path)
    collector = ItemCollector(format="remember")
    item = collector.add(record_no=line, session=REMEMBER_SESSION, kind=kind, role=role,
                         identity=segment, text=text, time=stamp, pointer=f"{source}:{line}",
                         links=[("remembered", kind)])
    assert item is not None and item.handle == handle
    item = dataclasses.replace(item, seq=line - 1, goal=active)
    commit(mem, [encode_item(item, source, segment)], [])  # findable by BM25 at once
    curated = False
    if curate:
        try:
            _curate_if_few(mem)
        except OSError:  # a full disk: the item is kept (committed above), only not curated;
            pass         # the same command again, or `atc curate`, curates it
        curated = _is_curated(mem, handle)
    return Remembered(handle, kind, segment, True, f"{source}:{line}", curated)


def _check_embedder_files(mem: Any) -> None:
    """EmbeddingError when the embedder the curate would load reads a file that is not there
    (``atc doctor``'s check): found before the item is written, the command fails with the
    journal as it was, rather than storing the item and then failing on its curate."""
    from ..errors import EmbeddingError
    from ..home import embedder_file_missing

    missing = embedder_file_missing(mem.embedder_spec())
    if missing:
        said = f"the embedder cannot load ({missing}): nothing remembered"
        raise EmbeddingError(f"{said} (fix config.json's embedder, or curate=False stores the "
                             "text for a later curate)").told(
            cli=f"{said} (fix config.json's embedder, or --no-curate stores the text for a "
                "later atc curate)",
            mcp=f"{said} (the home's config.json names an embedder whose model file is "
                "missing: atc doctor names it)")


def _curate_if_few(mem: Any) -> None:
    """Curate now when at most CURATE_AT_ONCE_MAX items await it (else `atc curate` does)."""
    (pending,) = mem.pl.once("atc_ladder:ladder_uncurated_count", _var())
    if int(pending) <= CURATE_AT_ONCE_MAX:
        mem.curate()


def _var() -> Any:
    from ..bridge import Var

    return Var()


def _is_curated(mem: Any, handle: str) -> bool:
    from ..bridge import Atom

    return mem.pl.once("atc_ladder:curated", Atom(handle), _var()) is not None


def _append_record(path: Path, record: dict[str, Any]) -> int:
    """Append one JSON line to ``path`` (fsynced); return its 1-based line number. A reused
    line's time is put into ``record``.

    A last line left without its newline (a crash mid-write) is ended first, so the new
    record always starts a line of its own and line numbers stay what they were. A last line
    that is this very record (a remember killed before its item was committed: the caller
    holds the lock and found no such item) is reused rather than written twice.

    Only the last line is read: the file's line count is kept beside it
    (:data:`REMEMBERED_COUNT_FILE`), and counted again only when the file is not the one the
    count was written for; reading the whole file made each note cost all before it.
    """
    data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        lines = _kept_count(path, os.fstat(fd))
        if lines is None:
            lines = _count_lines(fd, size)
        last, ended = _last_line(fd, size)
        if ended and _same_record(last, record):
            record["time"] = json.loads(last)["time"]
            _keep_count(path, os.fstat(fd), lines)
            return lines
        if size and not ended:
            os.write(fd, b"\n")
            lines += 1
        os.write(fd, data)
        os.fsync(fd)
        lines += 1
        _keep_count(path, os.fstat(fd), lines)
    finally:
        os.close(fd)
    return lines


#: Beside remembered.jsonl: ``SIZE LINES INODE`` of the file as the last remember left it,
#: so the next finds its line count without reading it. Holds no text (erasure leaves it).
REMEMBERED_COUNT_FILE = REMEMBERED_FILE + ".count"

_CHUNK = 1 << 16
_COUNT_WIDTH = 64                   # three counts of up to 20 digits, spaces and a newline


def _count_path(path: Path) -> Path:
    return path.with_name(path.name + ".count")


def _kept_count(path: Path, stat: os.stat_result) -> int | None:
    """The kept line count when it was written for the file as it is now (same size and
    inode), else None: another writer, a crash between the two writes, an erasure's rewrite
    or an older home's file without one is counted again."""
    try:
        size, lines, inode = (int(x) for x in _count_path(path).read_text("ascii").split())
    except (OSError, ValueError):
        return None
    return lines if (size, inode) == (stat.st_size, stat.st_ino) else None


def _keep_count(path: Path, stat: os.stat_result, lines: int) -> None:
    """Write the line count for the file as it is now (not fsynced: a stale one is found)."""
    # overwritten in place at a fixed width, never truncated: a truncate and rewrite made
    # ext4 flush it at close (auto_da_alloc), doubling a note's cost
    text = f"{stat.st_size} {lines} {stat.st_ino}".ljust(_COUNT_WIDTH - 1) + "\n"
    try:
        fd = os.open(_count_path(path), os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.pwrite(fd, text.encode("ascii"), 0)
        finally:
            os.close(fd)
    except OSError:
        pass                        # the next remember counts the file again


def _count_lines(fd: int, size: int) -> int:
    """Newlines in the first ``size`` bytes of ``fd``, read a chunk at a time."""
    lines, at = 0, 0
    while at < size:
        chunk = os.pread(fd, min(_CHUNK, size - at), at)
        if not chunk:
            break
        lines += chunk.count(b"\n")
        at += len(chunk)
    return lines


def _last_line(fd: int, size: int) -> tuple[bytes, bool]:
    """The file's last line (with its newline) and whether it ends with one; ``(b"", False)``
    for an empty file. Read backwards a chunk at a time, so only that line is read."""
    if size == 0:
        return b"", False
    tail, at = b"", size
    while at > 0:
        step = min(_CHUNK, at)
        at -= step
        tail = os.pread(fd, step, at) + tail
        cut = tail.rfind(b"\n", 0, len(tail) - 1)
        if cut >= 0:
            tail = tail[cut + 1:]
            break
    return tail, tail.endswith(b"\n")


def _same_record(line: bytes, record: dict[str, Any]) -> bool:
    """Whether a stored line holds ``record`` (its time aside: the retry is later)."""
    try:
        old = json.loads(line)
    except ValueError:
        return False
    return isinstance(old, dict) and {k: v for k, v in old.items() if k != "time"} == \
        {k: v for k, v in record.items() if k != "time"}
