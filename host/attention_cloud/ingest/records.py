"""The two result types of ingestion: one :class:`ItemRecord` per memory item, one
:class:`ParseResult` per parsed transcript."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..api_args import unicode
from ..errors import UsageError
from ..formats import FORMAT_DESCRIPTIONS, FORMATS  # noqa: F401  (re-exported)

KINDS: tuple[str, ...] = ("user_goal", "conclusion", "file_op", "error", "tool_result", "turn")
"""Item kinds, in the order the module docstring of :mod:`attention_cloud.ingest` explains them."""

ROLES: tuple[str, ...] = ("user", "assistant", "tool", "system")

Relation = tuple[str, str, str]


def check_segment(segment: object) -> str:
    """A segment name, stripped: non-empty text of at most 200 characters on one line (it is
    printed as a heading of every frame that draws on it). UsageError otherwise, and for a
    lone surrogate (a command-line byte that is not UTF-8), which no file of the home can hold:
    remember's record line failed on it with a traceback, ingest stored it as U+FFFD."""
    if not isinstance(segment, str) or not segment.strip() or len(segment) > 200 \
            or any(ch in segment for ch in "\r\n\x00"):
        raise UsageError(f"segment must be a non-empty name of at most 200 characters on one "
                         f"line, not {segment!r}")
    return unicode("segment", segment).strip()

TURN_ID = "turn_id"
"""The relation holding a benchmark's own id for a turn: LoCoMo's ``dia_id`` (``D1:3``),
LongMemEval's ``<session id>:<turn index>``, so an evaluator maps its evidence to handles."""


@dataclass(frozen=True)
class ItemRecord:
    """One memory item cut from a transcript.

    Attributes:
        handle: content-derived id (``it_`` + 16 hex digits of SHA-256 over session, kind,
            record identity and text; of a long text, its head-and-tail cut, see
            :class:`~attention_cloud.ingest.classify.L0Text`): parsing the same input again
            gives the same handle, and appending to a transcript leaves earlier handles
            unchanged.
        session: session id (Claude Code ``sessionId``, an OpenAI ``session_id``/``id``,
            otherwise the ``session=`` argument or the file stem).
        seq: 0-based position of the item within its session, stable under appends.
        kind: one of :data:`KINDS`.
        role: ``user``, ``assistant``, ``tool`` or ``system``.
        goal: whitespace-collapsed text (at most 300 characters) of the user goal active when
            the item was produced; ``""`` before the first goal.
        time: ISO 8601 UTC time (``2026-01-02T03:04:05Z``) or ``""`` when unknown.
        pointer: ``<path>:<line>`` (1-based) for line-oriented files (``<path>:<first>-<last>``
            for a text turn written over several lines), ``<path>#<JSON pointer>``
            for JSON documents, ``<path>:<line>#<JSON pointer>`` for a conversation held in one
            JSONL line.
        text: the item's L0 text: the whole message or output, up to ``max_item_chars``
            (a longer one keeps its head and tail around a line marking the cut).
        relations: entity links ``(subject, predicate, object)``; the subject is the handle.
            ``speaker`` names who spoke when the transcript says (see ``speaker``);
            ``mentions_date`` holds each day (``YYYY-MM-DD``) a relative expression in the text
            ("yesterday", "two days ago", "last Friday") names, read against ``time``.
        speaker: who spoke, when the transcript names them (an OpenAI message's ``name``, an
            ``author``, a speaker line's name, ``subagent`` for a Claude Code sidechain's
            assistant); ``""`` when only the role is known. The query vocabulary's
            ``item_speaker/2`` answers this name, or the role.
    """

    handle: str
    session: str
    seq: int
    kind: str
    role: str
    goal: str
    time: str
    pointer: str
    text: str
    relations: tuple[Relation, ...]
    speaker: str = ""


@dataclass
class ParseResult:
    """Everything one parse produced, including what it could not use.

    Attributes:
        items: kept items, in transcript order.
        format: the format parsed (one of :data:`FORMATS`).
        records_read: non-blank lines (JSONL, text speaker turns) or messages (JSON) read,
            malformed ones included.
        skipped: ``(line or record number, reason)`` for every record that was not used
            because it was malformed or a duplicate; the caller reports them.
        envelopes_stripped: ``<memory-frame>`` envelopes removed before parsing.
        evicted: items dropped by the per-session item budget, in transcript order.
        unread_times: ``(line or record number, the time as written)`` for every timestamp
            that could not be read; its item is kept without a time.
        ignored: well-formed records that produce no item by design, counted by type
            (Claude Code ``progress``, ``queue-operation``, ``file-history-snapshot``,
            ``compaction`` ...): nothing read vanishes uncounted.
        launches: Claude Code subagents this transcript launched: agent id -> the goal active
            in the turn that launched it (what the subagent's own file inherits).
        subagent: the agent id when this transcript is a Claude Code subagent's own file
            (``subagents/agent-<id>.jsonl``); its items have goal ``""`` until
            :func:`~attention_cloud.ingest.subagents.inherit_goal` gives them the launching
            turn's goal (``Memory.ingest`` does).
        notes: how the reader read what the file left open, one line each (a WhatsApp export
            whose dates could be day/month or month/day: which it chose); the caller reports
            them.
        named_roles: for a transcript whose people take their roles by who speaks first (plain
            text with named speaker lines): each name -> the role it took (``user`` or
            ``assistant``); empty for every other transcript. ``Memory.ingest`` reads it to
            keep a person in one role across files (:func:`.plain_text.named_role`).
    """

    items: list[ItemRecord]
    format: str
    records_read: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)
    envelopes_stripped: int = 0
    evicted: list[ItemRecord] = field(default_factory=list)
    unread_times: list[tuple[int, str]] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)
    launches: dict[str, str] = field(default_factory=dict)
    subagent: str = ""
    notes: list[str] = field(default_factory=list)
    named_roles: dict[str, str] = field(default_factory=dict)
