"""Turning classified pieces of a transcript into :class:`ItemRecord` values.

Every format parser feeds the same :class:`ItemCollector`, which owns what is common to all of
them: per-session sequence numbers and active goals, content-derived handles, duplicate
detection, and the entity relations every item carries.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .classify import L0Text, no_item_reason
from .entities import error_classes, file_paths
from .envelope import ENVELOPE_TAG, scan_tag_blocks
from .item_limits import DEFAULT_MAX_ITEM_CHARS, MIN_ITEM_CHARS  # noqa: F401  (re-exported)
from .records import ItemRecord, ParseResult, Relation
from .source import Source, lines_of, require_text, utf8_error
from .textutil import capped_text, goal_text, scalar_text
from .timefmt import names_a_season, read_turn_time, relative_dates, with_iso_dates
from .tools import ToolCall

# An envelope's tag in a file's bytes, open or close (``<memory-frame``, ``</Memory-Frame``):
# without one, a line-oriented file need not be scanned as one text.
_ENVELOPE_NAME = re.compile(rb"</?(?i:" + re.escape(ENVELOPE_TAG.encode()) + rb")")

#: Part types that are text: one without its text is malformed, not a part of another kind.
_TEXTUAL = frozenset({"text", "input_text", "output_text"})
#: Kinds whose text is someone speaking, where "yesterday" means a day (not tool output).
_SPOKEN_KINDS = frozenset({"user_goal", "conclusion", "turn"})

HANDLE_PREFIX = "it_"
HANDLE_HEX_DIGITS = 16


def item_handle(session: str, kind: str, identity: str, text: str) -> str:
    """``it_`` + 16 hex digits of SHA-256 over session, kind, record identity and text.

    The identity names the record within the transcript independently of anything that comes
    after it (a Claude Code ``uuid`` and block number, a line number, a message index), so a
    transcript that grows by appending keeps the handles of its earlier items, and two
    distinct records never share a handle even when their texts are equal.
    """
    digest = hashlib.sha256(
        "\x1f".join((session, kind, identity, text)).encode("utf-8", "surrogatepass")
    )
    return HANDLE_PREFIX + digest.hexdigest()[:HANDLE_HEX_DIGITS]


@dataclass
class _Session:
    next_seq: int = 0
    goal: str = ""


@dataclass
class ItemCollector:
    """Accumulates items and parse bookkeeping for one transcript.

    Attributes:
        format: the format being parsed.
        items: items so far, in transcript order.
        records_read: records seen (malformed ones included).
        skipped: ``(record number, reason)`` for records not used.
        envelopes_stripped: envelopes removed so far.
        unread_times: ``(record number, the time as written)`` for every timestamp that could
            not be read (the item is kept, without a time).
        ignored: well-formed records that produce no item by design, counted by type.
        launches: subagent id -> the goal of the turn that launched it (Claude Code).
        subagent: the agent id when the transcript is a subagent's own file, else "".
        notes: what the reader decided without the file saying (see ``ParseResult.notes``).
        day_first: whether the file's ``A/B/YEAR`` times put the day first, where its reader
            decided that from all of them (:func:`~.timefmt.day_first_order`); None: each is
            read as written (month first).
        max_item_chars: the most characters of an item's text kept (see
            :data:`DEFAULT_MAX_ITEM_CHARS`).
        user_names: people who took the user's role before this transcript (in an earlier file
            of the same ingest, or in memory): a reader whose people take roles by who speaks
            first gives it to one of them who speaks here (``ParseResult.named_roles``).
        named_roles: name -> role, as such a reader gave them (``ParseResult.named_roles``).
    """

    format: str
    items: list[ItemRecord] = field(default_factory=list)
    records_read: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)
    envelopes_stripped: int = 0
    unread_times: list[tuple[int, str]] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)
    launches: dict[str, str] = field(default_factory=dict)
    subagent: str = ""
    notes: list[str] = field(default_factory=list)
    max_item_chars: int = DEFAULT_MAX_ITEM_CHARS
    day_first: bool | None = None
    user_names: frozenset[str] = frozenset()
    named_roles: dict[str, str] = field(default_factory=dict)
    _sessions: dict[str, _Session] = field(default_factory=dict)
    _seen: dict[str, int] = field(default_factory=dict)
    # sessions whose assistant has called a tool: an agent at work, not a chat
    _agents: set[str] = field(default_factory=set)
    # handles of items made without a time where none was written (not an unread one)
    _untimed: set[str] = field(default_factory=set)
    # how many unread times were listed when an item last got a time: the items without one
    # after a later unread time are its record's (a LoCoMo session's turns, a message's blocks)
    _unread_at_timed: int = 0
    # the season each turn named whose hemisphere its time did not say ("last summer")
    _seasons_unplaced: list[str] = field(default_factory=list)

    def skip(self, record_no: int, reason: str) -> None:
        """Report a record that is not used."""
        self.skipped.append((record_no, reason))

    def note(self, text: str) -> None:
        """Say how the file was read where it did not say itself (one line)."""
        self.notes.append(text)

    def ignore(self, record_type: str) -> None:
        """Count a well-formed record that produces no item by design (``progress``, ...)."""
        self.ignored[record_type] = self.ignored.get(record_type, 0) + 1

    def parts_left_out(self, record_no: int, content: object,
                       types: frozenset[str] | None = None, noun: str = "part") -> None:
        """Count what :func:`~attention_cloud.ingest.textutil.parts_text` leaves out of a
        content list (read with the same ``types``): a part of another type, or without text
        (an image), as ``<type> <noun>``; one whose type is not a name as ``untyped <noun>``;
        a part that is not an object (a number, null, a list), or a text part whose text is
        neither a string nor a number, as skipped. Nothing read vanishes uncounted."""
        for index, part in enumerate(content if isinstance(content, list) else ()):
            if isinstance(part, str):
                continue
            if not isinstance(part, dict):
                self.skip(record_no, f"content {noun} {index} is not an object")
                continue
            kind = part.get("type", "text")
            text = part.get("text")
            if isinstance(text, dict):
                text = text.get("value")
            has_text = isinstance(text, str) or bool(scalar_text(text))
            if not isinstance(kind, str):
                self.ignore(f"untyped {noun}")
            elif types is not None and kind not in types or not has_text and kind not in _TEXTUAL:
                self.ignore(f"{kind} {noun}")
            elif not has_text:
                self.skip(record_no, f"content {noun} {index} has no text")

    def text_without_envelopes(self, source: Source, *, lone_close: bool = True) -> str:
        """The text of a line-oriented transcript with every envelope replaced by its newlines
        (so line numbers stay the file's own), counted; an envelope never closed drops the rest
        of the file, reported at its line. With ``lone_close=False`` a closing tag no opening
        precedes stays in the text, for the reader to strip from the message holding it (a
        message quoting the close must not drop the file above it)."""
        text, found, open_at = scan_tag_blocks(require_text(source), ENVELOPE_TAG,
                                               keep_newlines=True, lone_close=lone_close)
        self.envelopes_stripped += found
        if open_at >= 0:
            self.skip(text.count("\n", 0, open_at) + 1,
                      "unclosed <memory-frame> envelope: the rest of the file is dropped")
        return text

    def lines_without_envelopes(self, source: Source, *, lone_close: bool = True) -> list[str]:
        """The lines of a line-oriented transcript (a trailing CR cut) as
        :meth:`text_without_envelopes` gives them; a file that names no envelope's tag is
        decoded a line at a time, never held whole: one emoji would make Python store all of
        its text four bytes a character (a line holding one is alone in that)."""
        if not source.decoded and _ENVELOPE_NAME.search(source.data) is None:
            lines = []
            for _, line, _problem in lines_of(source):
                if line is None:
                    raise utf8_error(source)  # the first bad byte, with its line and column
                lines.append(line)
            return lines
        text = self.text_without_envelopes(source, lone_close=lone_close)
        return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]

    def no_item(self, text: str, call: ToolCall | None = None) -> None:
        """Count a message or tool output that makes no item by design (an empty message, an
        acknowledgement, a file operation's output): nothing read vanishes uncounted."""
        self.ignore(no_item_reason(text, call))

    def time(self, record_no: int, value: object) -> str:
        """``value`` read as an ISO 8601 UTC time (``""`` when absent), a
        :class:`~attention_cloud.ingest.timefmt.TurnTime` that remembers the day it was written
        on; a time that cannot be read is listed in ``unread_times`` with its record number and
        read as ``""``."""
        if self.day_first is not None and isinstance(value, str):
            value = with_iso_dates(value, self.day_first)
        time = read_turn_time(value)
        if time is None:
            if not self.unread_times or self.unread_times[-1][0] != record_no:
                self.unread_times.append((record_no, str(value)[:120]))  # once per record
            return ""
        return time

    def goal(self, session: str) -> str:
        """The goal active in ``session`` now."""
        state = self._sessions.get(session)
        return state.goal if state else ""

    def called_tool(self, session: str) -> None:
        """``session``'s assistant called a tool: it is an agent at work, not a chat (see
        :meth:`nudge_goal`)."""
        self._agents.add(session)

    def nudge_goal(self, session: str, speaker: str = "") -> str:
        """The goal that a user's prompt which only urges the agent on ("continue", "keep
        going with the rest") keeps in ``session``
        (:func:`~attention_cloud.ingest.textutil.continues_goal`): its active goal once its
        assistant has called a tool (:meth:`called_tool`), else "". In a chat, where no tool
        was called, or from a user named as a person (``speaker``), a short "more" or "what
        does nmap -T do" is conversation, as the chat and benchmark readers keep it."""
        return "" if speaker or session not in self._agents else self.goal(session)

    def go_on(self, session: str, earlier: str) -> None:
        """``session`` goes on from ``earlier`` (a conversation resumed under a new id, its
        history copied before it in the same file): it starts with ``earlier``'s active goal,
        unless it has items of its own already."""
        if session not in self._sessions and earlier in self._sessions:
            self._sessions[session] = _Session(goal=self._sessions[earlier].goal)

    def go_on_with(self, session: str, goal: str) -> None:
        """``session`` goes on with ``goal``, the goal active where it follows on from a record
        of another file (a conversation resumed into a file of its own), unless it has a goal
        of its own already."""
        state = self._sessions.setdefault(session, _Session())
        if not state.goal:
            state.goal = goal

    def add(
        self,
        *,
        record_no: int,
        session: str,
        kind: str,
        role: str,
        identity: str,
        text: str | L0Text,
        time: str,
        pointer: str,
        cwd: str = "",
        links: Iterable[tuple[str, str]] = (),
        sets_goal: bool = False,
        mentions_in: str | None = None,
        speaker: str = "",
        goal: str | None = None,
    ) -> ItemRecord | None:
        """Make and keep one item; return it, or None when it duplicates an earlier one.

        Args:
            record_no: line or message number, for the duplicate report.
            identity: the record's identity within the transcript (see :func:`item_handle`).
            text: the item's L0 text, already cleaned; an :class:`L0Text` (a message or tool
                output) also says what the handle is derived from. It is kept up to
                ``max_item_chars`` (:func:`~attention_cloud.ingest.textutil.capped_text`).
            cwd: the working directory the record was produced in ("" if unknown).
            links: extra ``(predicate, object)`` relations, e.g. ``("touches_file", path)``.
            sets_goal: the item is a user goal: it becomes the active goal of its session,
                for itself and everything after it.
            mentions_in: the part of the text to scan for mentioned files and error classes
                (default: all of it; a file operation passes only its change description).
            speaker: who spoke, when the transcript names them (a message's ``name``, a
                speaker line's name, ``subagent``): stored as ``relation(H, speaker, Name)``;
                "" leaves the role as the speaker.
            goal: the item's goal when it is not the session's active goal (a subagent's
                report belongs to the goal of the turn that launched it); the active goal is
                left unchanged.
        """
        state = self._sessions.get(session)
        if state is None:
            state = self._sessions[session] = _Session()
        basis, text = (text.basis, text.text) if isinstance(text, L0Text) else (text, text)
        handle = item_handle(session, kind, identity, basis)
        text = capped_text(text, self.max_item_chars)
        first = self._seen.get(handle)
        if first is not None:
            self.skip(record_no, f"duplicate of record {first}")
            return None
        self._seen[handle] = record_no
        if time:
            self._unread_at_timed = len(self.unread_times)
        elif len(self.unread_times) == self._unread_at_timed:
            self._untimed.add(handle)
        if sets_goal:
            state.goal = goal_text(text)
        extra = list(links)
        if speaker:
            extra.append(("speaker", speaker))
        if time and kind in _SPOKEN_KINDS:
            dates = relative_dates(text, time)
            extra.extend(("mentions_date", day) for _, day in dates)
            self._season_unplaced(dates, time)
        time = str(time)  # the journal keeps the UTC time; the day it was written on is used
        relations = _relations(
            handle, session, cwd, extra, text if mentions_in is None else mentions_in
        )
        item = ItemRecord(
            handle, session, state.next_seq, kind, role, state.goal if goal is None else goal,
            time, pointer, text, relations,
            speaker,
        )
        state.next_seq += 1
        self.items.append(item)
        return item

    def _season_unplaced(self, dates: list[tuple[str, str]], time: str) -> None:
        """Count a turn whose season ("last summer") was read as the northern hemisphere's
        because its time names no zone that says where it was written."""
        season = next((phrase for phrase, _ in dates if names_a_season(phrase)), None)
        if season is not None and getattr(time, "south", None) is None:
            self._seasons_unplaced.append(season)

    def result(self) -> ParseResult:
        """The parse result so far (before any item budget); items left without a time
        because the file writes none for them are said in a note (an unread time is
        reported in ``unread_times`` instead), so no item loses its time in silence."""
        untimed = sum(1 for item in self.items if not item.time and item.handle in self._untimed)
        notes = list(self.notes)
        if untimed:
            notes.append(f"{untimed} of {len(self.items)} items have no time: the file "
                         "writes none for them")
        if self._seasons_unplaced:
            count = len(self._seasons_unplaced)
            notes.append(f"{count} turn{'s name' if count > 1 else ' names'} a season "
                         f'("{self._seasons_unplaced[0]}"), read as the northern hemisphere\'s: '
                         "the file names no zone that says which hemisphere "
                         f"{'they were' if count > 1 else 'it was'} written in")
        return ParseResult(
            items=self.items,
            format=self.format,
            records_read=self.records_read,
            skipped=self.skipped,
            envelopes_stripped=self.envelopes_stripped,
            unread_times=self.unread_times,
            ignored=self.ignored,
            launches=self.launches,
            subagent=self.subagent,
            notes=notes,
            named_roles=dict(self.named_roles),
        )


def _relations(
    handle: str, session: str, cwd: str, links: Iterable[tuple[str, str]], text: str
) -> tuple[Relation, ...]:
    relations: list[Relation] = [(handle, "in_session", session)]
    if cwd:
        relations.append((handle, "cwd", cwd))
    known_files: set[str] = set()
    for predicate, obj in links:
        if obj:
            relations.append((handle, predicate, obj))
            if predicate == "touches_file":
                known_files.add(obj)
    for path in file_paths(text, cwd) if text else ():
        if path not in known_files:
            known_files.add(path)
            relations.append((handle, "mentions_file", path))
    for name in error_classes(text) if text else ():
        relations.append((handle, "mentions", name))
    return tuple(relations)
