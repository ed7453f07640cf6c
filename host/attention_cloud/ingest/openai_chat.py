"""OpenAI-style chat transcripts.

Accepted shapes: a JSON array of messages; a JSON object ``{"messages": [...]}`` with optional
``session_id``/``conversation_id``/``id`` and ``timestamp``/``date``/``created``; JSON Lines of
messages (a ``session_id`` on a message names its session); JSON Lines of conversations, one
``{"messages": [...]}`` per line (as in fine-tuning data sets), each its own session; one
message alone (as an API returns it), on one line or laid out over many (pointer ``<file>#``).

Messages have ``role`` (``system``/``developer``, ``user``, ``assistant``, ``tool``, legacy
``function``), ``content`` as a string or a list of parts (``{"type": "text", "text": ...}``),
optional ``name`` (who spoke: kept as the item's speaker; ``author`` as a string or
``{"name": ...}`` likewise), ``tool_calls`` (``function.name`` and JSON ``function.arguments``) or legacy
``function_call``, ``tool_call_id`` on tool messages, and an optional ``timestamp`` (any form
:mod:`.timefmt` reads, under any key :func:`time_key` finds; a conversation's own time applies
to messages without one; a time that cannot be read is reported in ``unread_times`` with its
line). Content blocks of Anthropic's
Messages API (``tool_use``, ``tool_result``, ``thinking`` ...) are not read here but counted,
``<type> block (--format anthropic reads it)``: :mod:`.anthropic_messages` extends this reader.
Other parts without text (``image_url``, ``input_audio``, ``file`` ...) are counted as ``<type>
part``, and a part that is neither text nor an object (a number, null, a list) is reported
among the skipped. A call that no tool message answers (a log cut off mid-call) is kept as a
call without its result (:mod:`.open_calls`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from .classify import (
    L0Text,
    assistant_text_kind,
    clean_message,
    message_text,
    output_text,
    tool_output_kind,
    named_user_kind,
)
from .collector import ItemCollector
from .jsonlines import json_document, json_lines_head, json_records, strip_document_envelopes
from .open_calls import AddItem, OpenCalls
from .source import Source, fail, lines_of
from .textutil import parts_text
from .timefmt import (NUMERIC_DATE, OTHER_12_HOUR, clock_style, day_first_by_span, day_first_order,
                      numeric_dates, read_time)
from .tools import ToolCall, describe_call, describe_function

_DOCUMENT_SESSION_KEYS = ("session_id", "sessionId", "conversation_id", "thread_id", "id")
_MESSAGE_SESSION_KEYS = ("session_id", "sessionId", "conversation_id", "thread_id")
TIME_KEYS = ("timestamp", "created_at", "create_time", "created", "createdAt", "sent_at",
             "sentAt", "datetime", "date", "time")
"""The keys a chat message or conversation writes its time under, the first present read:
OpenAI-style logs' ``timestamp``, APIs' ``created_at``/``created``, JavaScript apps'
``createdAt``, messaging apps' ``sent_at``."""
# Other keys a conversation or message may write its time under ("session_date", "date_time",
# "start_time", "startedAt"): a key whose name says a date, a time or a stamp, or ends in "at"
# as Rails and JavaScript name moments; never one that says when something ended, changed or
# expires, or a zone (not when its turns were said).
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_MOMENT_IN_KEY = re.compile(r"date|time|stamp", re.IGNORECASE)
_NOT_WHEN_SAID = frozenset("""
    end ended ends ending update updated updates modified modify changed edit edited expire
    expires expired expiry expiration delete deleted last zone timezone tz out timeout due
    finish finished close closed stop stopped complete completed duration elapsed deadline
""".split())
_TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text"})
ANTHROPIC_BLOCK_TYPES = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
    "web_search_tool_result", "mcp_tool_use", "mcp_tool_result",
})
"""Content blocks of Anthropic's Messages API that carry tool calls, their results or the
model's reasoning: a chat holding them is read as ``anthropic`` (:mod:`.anthropic_messages`)."""


class Conversation:
    """Where a run of messages comes from and how to point into it."""

    __slots__ = ("session", "time", "pointer_prefix", "identity_prefix", "line")

    def __init__(
        self, session: str, time: str, pointer_prefix: str, identity_prefix: str, line: int | None
    ) -> None:
        self.session = session
        self.time = time
        self.pointer_prefix = pointer_prefix  # message i lives at pointer_prefix + f"/{i}"
        self.identity_prefix = identity_prefix
        self.line = line  # the JSONL line holding the conversation, None for a JSON document


class OpenAIChatParser:
    """Parses one OpenAI-style chat transcript into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session
        self.calls: dict[str, ToolCall] = {}  # tool call id (or "name:<fn>") -> call
        self.cwd = ""  # the working directory, where the transcript says (relativises paths)
        self.open_calls = OpenCalls()  # calls whose result has not been read yet

    def parse(self, source: Source) -> int:
        """Read every message; return how many were well-formed messages. A call left without
        its result at the end is kept as one (:mod:`.open_calls`)."""
        self.collector.day_first, note = _date_order(_texts_of(source))
        if note:
            self.collector.note(note)
        read = self._read(source)
        self.open_calls.remember()
        return read

    def _read(self, source: Source) -> int:
        document = self._document(source)
        if document is None:
            return self._parse_lines(source)
        base = source.pointer_base
        if isinstance(document, list):
            conversation = Conversation(self.default_session, "", f"{base}#", "", None)
            return self._conversation(conversation, document)
        if "role" in document:  # one message laid out over lines (an API response body)
            self.collector.records_read += 1
            conversation = Conversation(self.default_session, "", "", "", None)
            return int(self._message(conversation, document, 1, f"{base}#", "m0"))
        messages = document.get("messages")
        if not isinstance(messages, list):
            raise fail(source.name, 'JSON document has no "messages" list')
        conversation = Conversation(
            _session_of(document, self.default_session, _DOCUMENT_SESSION_KEYS),
            self._time_of(document, 0),
            f"{base}#/messages",
            "",
            None,
        )
        self._preamble(conversation, document, f"{base}#")
        return self._conversation(conversation, messages)

    def _preamble(self, conversation: Conversation, document: dict[str, Any], pointer: str
                  ) -> None:
        """Read what a conversation document holds beside its messages (``pointer`` is the
        document's own): nothing in an OpenAI chat."""

    def _document(self, source: Source) -> list[Any] | dict[str, Any] | None:
        """The transcript as one JSON document, or None when it is JSON Lines."""
        document = json_document(source)
        if document is None or (
            isinstance(document, dict) and "role" in document and "\n" not in source.text.strip()
        ):
            return None  # JSON Lines, or a single message on one line
        if not isinstance(document, (list, dict)):
            raise fail(source.name, "JSON document is neither a list of messages nor an object")
        strip_document_envelopes(source, self.collector, document)
        return document

    def _parse_lines(self, source: Source) -> int:
        well_formed = 0
        for number, record in json_records(source, self.collector):
            if isinstance(record.get("messages"), list):
                conversation = Conversation(
                    _session_of(record, f"{self.default_session}#{number}", _DOCUMENT_SESSION_KEYS),
                    self._time_of(record, number),
                    f"{source.pointer_base}:{number}#/messages",
                    f"line{number}/",
                    number,
                )
                self._preamble(conversation, record, f"{source.pointer_base}:{number}#")
                well_formed += self._conversation(conversation, record["messages"])
                continue
            session = _session_of(record, self.default_session, _MESSAGE_SESSION_KEYS)
            conversation = Conversation(session, "", "", "", number)
            if self._message(
                conversation, record, number, f"{source.pointer_base}:{number}", f"line{number}"
            ):
                well_formed += 1
        return well_formed

    def _conversation(self, conversation: Conversation, messages: list[Any]) -> int:
        well_formed = 0
        for index, message in enumerate(messages):
            if conversation.line is None:
                self.collector.records_read += 1  # in JSON Lines the line was counted
            record_no = index + 1 if conversation.line is None else conversation.line
            if not isinstance(message, dict):
                self.collector.skip(record_no, f"message {index} is not a JSON object")
                continue
            pointer = f"{conversation.pointer_prefix}/{index}"
            identity = f"{conversation.identity_prefix}m{index}"
            if self._message(conversation, message, record_no, pointer, identity):
                well_formed += 1
        return well_formed

    def _message(
        self,
        conversation: Conversation,
        message: dict[str, Any],
        record_no: int,
        pointer: str,
        identity: str,
    ) -> bool:
        role = message.get("role")
        if not isinstance(role, str):
            self.collector.skip(record_no, 'message has no "role"')
            return False
        role = role.lower()
        time = self._time_of(message, record_no, conversation.time)
        text = clean_message(parts_text(message.get("content"), _TEXT_PART_TYPES))
        speaker = message_speaker(message) if role in ("user", "assistant", "system") else ""
        self._count_parts_without_text(message.get("content"), record_no)

        def add(kind: str, item_role: str, item_text: str | L0Text, block: str, **extra: Any) -> None:
            self.collector.add(
                record_no=record_no,
                session=conversation.session,
                kind=kind,
                role=item_role,
                identity=f"{identity}/{block}",
                text=item_text,
                time=time,
                pointer=pointer,
                speaker=speaker,
                cwd=self.cwd,
                **extra,
            )

        if role == "user":
            kind = named_user_kind(text, speaker,
                                   self.collector.nudge_goal(conversation.session, speaker))
            if kind is None:
                self.collector.no_item(text)
            else:
                add(kind, "user", message_text(text), "0", sets_goal=kind == "user_goal")
        elif role == "assistant":
            kind = assistant_text_kind(text)
            calls = self._calls_of(message, record_no)
            if calls:
                self.collector.called_tool(conversation.session)
            if kind is not None:
                add(kind, "assistant", message_text(text), "0")
            elif not calls:  # a message of calls alone is read through them
                self.collector.no_item(text)
            goal = self.collector.goal(conversation.session)
            for block, call, call_id in calls:
                if call.is_file_op:
                    links = (("touches_file", call.path), ("file_op", call.op), ("tool", call.name))
                    add(
                        "file_op",
                        "assistant",
                        call.file_op_text(),
                        block,
                        links=links,
                        mentions_in=call.detail,
                    )
                self.open_calls.open(call_id, call, self._unanswered(
                    conversation, record_no, f"{identity}/{block}", time, pointer, goal))
        elif role in ("system", "developer"):
            if text:  # instructions and constraints: kept, but never a goal
                add("turn", "system", message_text(text), "0")
            else:
                self.collector.no_item(text)
        elif role in ("tool", "function"):
            call = self._call_answered(message)
            call_id = message.get("tool_call_id")
            known = isinstance(call_id, str) and call_id in self.calls
            self.open_calls.close(call_id, "" if known or call is None else call.name)
            kind = tool_output_kind(call, text, message.get("is_error") is True)
            if kind is None:
                self.collector.no_item(text, call)
            else:
                links = (("tool", call.name),) if call is not None else ()
                add(kind, "tool", output_text(call, text, kind), "0", links=links)
        else:
            self.collector.skip(record_no, f"unknown role {role!r}")
            return False
        return True

    def _time_of(self, record: dict[str, Any], record_no: int, absent: str = "") -> str:
        """The record's time (:func:`time_key`), ``absent`` when it has none; a time that cannot
        be read is reported with ``record_no`` and is "" (the item is kept without a time, as
        the report says, not given its conversation's)."""
        key = time_key(record)
        return absent if key is None else self.collector.time(record_no, record[key])

    def _count_parts_without_text(self, content: Any, record_no: int) -> None:
        """Count the parts of a content list that give no text, so none is lost in silence:
        Anthropic blocks (``--format anthropic`` reads them), the rest as
        :meth:`ItemCollector.parts_left_out` does (``image_url part`` ...)."""
        if not isinstance(content, list):
            return
        rest = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if isinstance(kind, str) and kind in ANTHROPIC_BLOCK_TYPES:
                self.collector.ignore(f"{kind} block (--format anthropic reads it)")
                rest.append("")  # keeps the other parts' numbers
            else:
                rest.append(part)
        self.collector.parts_left_out(record_no, rest, _TEXT_PART_TYPES)

    def _unanswered(self, conversation: Conversation, record_no: int, identity: str, time: str,
                    pointer: str, goal: str) -> AddItem:
        """How the item of a call left without its result is made: a tool result at the call's
        message, with the goal active when it was made."""
        def add(text: L0Text, links: tuple[tuple[str, str], ...]) -> None:
            self.collector.add(record_no=record_no, session=conversation.session,
                               kind="tool_result", role="tool", identity=identity, text=text,
                               time=time, pointer=pointer, cwd=self.cwd, links=links, goal=goal)
        return add

    def _calls_of(self, message: dict[str, Any], record_no: int
                  ) -> list[tuple[str, ToolCall, str | None]]:
        """``(block name, call, its id)`` for each tool call of an assistant message,
        remembered; one that names no function is reported as skipped."""
        found: list[tuple[str, ToolCall, str | None]] = []
        tool_calls = message.get("tool_calls")
        if isinstance(tool_calls, list):
            for number, entry in enumerate(tool_calls):
                call = describe_function(entry["function"]) if isinstance(entry, dict) \
                    and isinstance(entry.get("function"), dict) else None
                if call is None:
                    self.collector.skip(record_no, f"tool call {number} names no function")
                    continue
                call_id = entry.get("id") if isinstance(entry.get("id"), str) else None
                if call_id is not None:
                    self.calls[call_id] = call
                self.calls["name:" + call.name] = call
                found.append((f"call{number}", call, call_id))
        legacy = message.get("function_call")
        if isinstance(legacy, dict):
            call = describe_function(legacy)
            if call is not None:
                self.calls["name:" + call.name] = call
                found.append(("function_call", call, None))
        return found

    def _call_answered(self, message: dict[str, Any]) -> ToolCall | None:
        call_id = message.get("tool_call_id")
        if isinstance(call_id, str) and call_id in self.calls:
            return self.calls[call_id]
        name = message.get("name")
        if isinstance(name, str) and name:
            return self.calls.get("name:" + name) or describe_call(name, {})
        return None


def _session_of(record: dict[str, Any], default: str, keys: tuple[str, ...]) -> str:
    for key in keys:
        value = record.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return default


def time_key(record: dict[str, Any]) -> str | None:
    """The key ``record`` writes its time under: the first of :data:`TIME_KEYS` present, else
    the first other key that names a moment (``session_date``, ``start_time``, ``startedAt``;
    not ``end_time``, ``updated_at``, ``timezone``) and holds a readable time; None when none
    does (a value of such a key that is no time is not taken for one, nor reported)."""
    for key in TIME_KEYS:
        if record.get(key) not in (None, ""):
            return key
    for key, value in record.items():
        if _names_a_moment(key) and isinstance(value, (str, int, float)) \
                and not isinstance(value, bool) and read_time(value):
            return key
    return None


@lru_cache(maxsize=512)
def _names_a_moment(key: str) -> bool:
    """Whether a key's name says when its record was written (see :func:`time_key`); kept per
    key, as every message of a file asks it of the same few keys."""
    words = [word.lower() for word in _KEY_WORDS.findall(key)]
    return bool(words) and (_MOMENT_IN_KEY.search(key) is not None or words[-1] == "at") \
        and not any(word in _NOT_WHEN_SAID for word in words)


# A time key's string value, where a file writes its times ("timestamp": "13/05/2023 09:00").
_TIME_VALUES = re.compile(r'"(?:' + "|".join(TIME_KEYS) + r')"\s*:\s*"([^"\\]{1,80})"')
# A value that starts with a numeric date, under any key ("session_date": "08/05/2023 13:56"):
# a date the file writes in its own order. (Matching the keys that name a moment by their
# words instead cost ~10x the scan above: every quote starts a candidate key.)
_NUMERIC_VALUES = re.compile(r':\s*"(\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}[^"\\]{0,60})"')


def _texts_of(source: Source) -> Iterable[str]:
    """The text of a chat to look for its times in: JSON Lines not yet decoded a line at a
    time (a large log is never held decoded whole), else the whole text (a file with a line
    that is not UTF-8 has no text: its other lines' times still count)."""
    if not source.decoded and json_lines_head(source.data, 0) is not None:
        return (line for _, line, _ in lines_of(source) if line)
    return [source.text if source.text is not None else source.data.decode("utf-8", "replace")]


def _date_order(texts: Iterable[str]) -> tuple[bool | None, str]:
    """``(day first?, note)``: whether the file's ``A/B/YEAR`` times (in ``texts``, its whole
    text or its lines) put the day first, as all of them decide it (``13/05/2023 09:00``
    after ``08/05/2023 13:56``: 8 May, not 5 August), else as the order under which they lie
    closest together decides it (said in ``note``), else day first where the clock is written
    ``pm`` or ``p. m.`` (not the US's ``PM``); None when nothing decides it (each is then read
    month first, as written in the US, and ``note`` says so)."""
    written: dict[tuple[int, int], str] = {}
    numeric: dict[tuple[int, int], str] = {}
    for index, text in enumerate(texts):
        written.update(((index, m.start(1)), m.group(1)) for m in _TIME_VALUES.finditer(text))
        numeric.update(((index, m.start(1)), m.group(1)) for m in _NUMERIC_VALUES.finditer(text))
    written.update(numeric)
    dates = [d for value in written.values() for d in numeric_dates(value)]
    if not dates:
        return None, ""
    found = day_first_order(dates)
    if found is not None:
        return found, ""
    example = next(NUMERIC_DATE.search(v)[0] for v in written.values() if NUMERIC_DATE.search(v))
    spanned = day_first_by_span(dates, "messages", example)
    if spanned is not None:
        return spanned
    if any(a > 12 for a, _, _ in dates) or all(a == b for a, b, _ in dates):
        return None, ""  # numbers above 12 both first and second, or 05/05: no choice to say
    # "1:56 p. m.": not the US's AM/PM; read from the values holding such dates alone
    if clock_style(v for v in written.values() if NUMERIC_DATE.search(v)) == OTHER_12_HOUR:
        return True, (f"dates such as {example} could be day/month or month/day (no number "
                      "above 12, the messages in order either way): read as day/month, as a "
                      "12-hour clock written am/pm or p.m. (not the US's AM/PM) suggests")
    return None, (f"dates such as {example} could be day/month or month/day (no number above "
                  "12, the messages in order either way): read as month/day, as the US "
                  "writes them")


# Keys naming a message's writer, in the order they are trusted: OpenAI's participant name,
# then what chat logs written by other tools and bots use. A ``user`` key is read only as an
# object: as a string it is an account id (``U024BE7LH``), not a name.
_SPEAKER_KEYS = ("name", "speaker", "author", "sender", "username", "user_name",
                 "display_name", "displayName", "user")
_NAME_KEYS = ("name", "display_name", "displayName", "username", "full_name")


def message_speaker(message: dict[str, Any]) -> str:
    """Who wrote a message: its ``name`` (OpenAI's participant name), or a ``speaker`` (as
    LoCoMo's turns name theirs), ``author``, ``sender``, ``username``, ``user_name`` or
    ``display_name`` given as a string, or one of those or ``user`` given as an object with
    a ``name``, ``display_name``, ``username`` or ``full_name``; "" when the message names
    nobody."""
    for key in _SPEAKER_KEYS:
        value = message.get(key)
        if isinstance(value, dict):
            value = next((value[k] for k in _NAME_KEYS
                          if isinstance(value.get(k), str) and value[k].strip()), None)
        elif key == "user":
            continue
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())[:80]
    return ""
