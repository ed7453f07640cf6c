"""ShareGPT conversations, as fine-tuning data sets and chat scrapers write them.

A record is ``{"id": ..., "conversations": [{"from": ..., "value": ...}, ...]}``, optionally
with a ``system`` prompt and a time (``timestamp``, ``create_time``, ``created_at``, ``date``);
a file holds a JSON list of records, one record, or JSON Lines of records. Each record is a
session (its ``id``, else ``<file stem>#<n>``).

``from`` names the speaker: ``human``/``user`` (a goal, or a turn), ``gpt``/``assistant``/
``chatgpt``/``bard``/``bing``/``model``/``claude`` (a conclusion), ``system`` (a turn, never a
goal), ``function_call`` (a call: ``{"name", "arguments"}`` JSON, a file operation when it is
one; it labels the output after it), ``observation``/``function_response``/``tool``/
``function``/``ipython`` (tool output: a tool result or an error; a call that no output
follows is kept as a call without its result, :mod:`.open_calls`). A person's name
(``Priya``, ``Tomás Ruiz``: a chat between people) is that speaker, the first named in the file
taking the user's role, the others the assistant's. Another ``from`` is skipped and reported. A turn's own ``timestamp`` wins over the record's; the speaker named in a turn's
``name`` is kept. Pointers read ``<file>#/<record>/conversations/<turn>`` (JSON) or
``<file>:<line>#/conversations/<turn>`` (JSON Lines).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from .classify import (
    L0Text,
    assistant_text_kind,
    clean_message,
    message_text,
    output_text,
    tool_output_kind,
    user_message_kind,
)
from .collector import ItemCollector
from .jsonlines import json_document, json_records, strip_document_envelopes
from .open_calls import OpenCalls
from .openai_chat import time_key
from .speech_lines import is_label_word
from .source import Source, fail
from .tools import ToolCall, describe_call
from .textutil import scalar_text

ROLES_BY_FROM: dict[str, str] = {
    **dict.fromkeys(("human", "user", "prompter"), "user"),
    **dict.fromkeys(("gpt", "assistant", "chatgpt", "bard", "bing", "model", "claude", "bot"),
                    "assistant"),
    "system": "system",
    "function_call": "call",
    **dict.fromkeys(("observation", "function_response", "tool", "function", "ipython"), "tool"),
}
"""What each ShareGPT ``from`` value is: ``user``, ``assistant``, ``system``, ``call``, ``tool``."""



def is_sharegpt_record(value: Any) -> bool:
    """True for ``{"conversations": [{"from": ..., "value": ...}, ...]}``."""
    if not isinstance(value, dict) or not isinstance(value.get("conversations"), list):
        return False
    first = next((t for t in value["conversations"][:5] if isinstance(t, dict)), None)
    return first is not None and "from" in first and "value" in first


class ShareGPTParser:
    """Parses ShareGPT records into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session
        self.people: dict[str, str] = {}  # a person's name in `from` -> the role their turns take

    def parse(self, source: Source) -> int:
        """Read every turn of every record; return how many turns were read."""
        document = json_document(source)
        base = source.pointer_base
        if document is None:
            read = 0
            for number, record in json_records(source, self.collector):
                if not is_sharegpt_record(record):
                    self.collector.skip(number, 'not a ShareGPT record (no "conversations")')
                    continue
                read += self._record(record, number, f"{base}:{number}#", f"line{number}/",
                                     f"{self.default_session}#{number}", line=number)
            return read
        strip_document_envelopes(source, self.collector, document)
        if isinstance(document, dict):
            if not is_sharegpt_record(document):
                raise fail(source.name, 'not a ShareGPT record (no "conversations" of from/value)')
            return self._record(document, 1, f"{base}#", "", self.default_session, line=None)
        if not isinstance(document, list):
            raise fail(source.name, "JSON document is neither a list of records nor a record")
        read = 0
        for index, record in enumerate(document):
            if not is_sharegpt_record(record):
                self.collector.skip(index + 1, f"record {index} has no from/value conversations")
                continue
            read += self._record(record, index + 1, f"{base}#/{index}", f"r{index}/",
                                 f"{self.default_session}#{index + 1}", line=None)
        return read

    def _record(self, record: dict[str, Any], number: int, prefix: str, identity: str,
                default_session: str, *, line: int | None) -> int:
        session = _session_of(record, default_session)
        when = self._time_of(record, number)
        system = record.get("system")
        if isinstance(system, str) and clean_message(system):
            self.collector.add(record_no=number, session=session, kind="turn", role="system",
                               identity=f"{identity}system", text=message_text(clean_message(system)),
                               time=when, pointer=f"{prefix}/system")
        call: ToolCall | None = None
        open_calls = OpenCalls()  # a call is answered by the output right after it, or by none
        call_key = ""  # the turn of the call that the next output answers
        read = 0
        for index, turn in enumerate(record["conversations"]):
            if line is None:
                self.collector.records_read += 1
            record_no = number if line is None else line
            if not isinstance(turn, dict) or not isinstance(turn.get("value"), (str, int, float)) \
                    or isinstance(turn.get("value"), bool):
                self.collector.skip(record_no, f"turn {index} has no text value")
                continue
            speaker = str(turn.get("from", "")).lower()
            role = ROLES_BY_FROM.get(speaker)
            person = _person_named(turn.get("from")) if role is None else ""
            if person:  # the first person named in the file is the user, the others assistants
                role = self.people.setdefault(person, "assistant" if self.people else "user")
            if role is None:
                self.collector.skip(record_no, f"turn {index}: unknown from {turn.get('from')!r}")
                continue
            read += 1
            text = clean_message(scalar_text(turn["value"]))
            time = self._time_of(turn, record_no, when)
            name = turn.get("name") if role in ("user", "assistant") else None
            if person and not (isinstance(name, str) and name.strip()):
                name = person

            def add(kind: str, item_role: str, item_text: str | L0Text, **extra: Any) -> None:
                self.collector.add(
                    record_no=record_no, session=session, kind=kind, role=item_role,
                    identity=f"{identity}t{index}", text=item_text, time=time,
                    pointer=f"{prefix}/conversations/{index}",
                    speaker=name.strip()[:80] if isinstance(name, str) else "", **extra)

            if role == "user":
                kind = user_message_kind(text, goal=self.collector.nudge_goal(
                    session, name.strip() if isinstance(name, str) else ""))
                if kind is None:
                    self.collector.no_item(text)
                else:
                    add(kind, "user", message_text(text), sets_goal=kind == "user_goal")
            elif role == "assistant":
                kind = assistant_text_kind(text)
                if kind is None:
                    self.collector.no_item(text)
                else:
                    add(kind, "assistant", message_text(text))
            elif role == "system":
                if text:
                    add("turn", "system", message_text(text))
                else:
                    self.collector.no_item(text)
            elif role == "call":
                call = _call_of(text)
                self.collector.called_tool(session)
                if call is not None and call.is_file_op:
                    add("file_op", "assistant", call.file_op_text(),
                        links=(("touches_file", call.path), ("file_op", call.op), ("tool", call.name)),
                        mentions_in=call.detail)
                else:
                    self.collector.ignore("tool-call")  # read through the output that follows
                call_key = f"t{index}"
                if call is not None:  # made later: placed by values, not by this loop's names
                    open_calls.open(call_key, call, partial(
                        self._unanswered, record_no, session, f"{identity}t{index}", time,
                        f"{prefix}/conversations/{index}", self.collector.goal(session)))
                continue  # the call stays known for the output that follows
            else:
                if call is not None:
                    open_calls.close(call_key)
                kind = tool_output_kind(call, text, False)
                if kind is None:
                    self.collector.no_item(text, call)
                else:
                    links = (("tool", call.name),) if call is not None else ()
                    add(kind, "tool", output_text(call, text, kind), links=links)
            call = None
        open_calls.remember()
        return read

    def _unanswered(self, record_no: int, session: str, identity: str, time: str, pointer: str,
                    goal: str, text: L0Text, links: tuple[tuple[str, str], ...]) -> None:
        """The item of a call no output answered (:mod:`.open_calls`), at the call's turn."""
        self.collector.add(record_no=record_no, session=session, kind="tool_result",
                           role="tool", identity=identity, text=text, time=time,
                           pointer=pointer, links=links, goal=goal)

    def _time_of(self, value: dict[str, Any], record_no: int, absent: str = "") -> str:
        """The time of ``value`` (:func:`~.openai_chat.time_key`), ``absent`` when it has none;
        one that cannot be read is reported and is "" (the item is kept without a time)."""
        key = time_key(value)
        return absent if key is None else self.collector.time(record_no, value[key])


def _person_named(value: Any) -> str:
    """The person a ``from`` names that is no role ("Priya", "Tomás Ruiz": a chat between
    people written as ShareGPT), or "": a name is capitalised or in a script without capitals,
    up to three words of letters, and no label word ("Note"); "narrator" names no one."""
    if not isinstance(value, str):
        return ""
    name = " ".join(value.split())
    words = name.split(" ")
    if not name or len(name) > 40 or len(words) > 3 or is_label_word(name):
        return ""
    if any(not word[0].isalpha() or word[0].islower() for word in words):
        return ""
    return name if all(c.isalpha() or c in "'.-" for word in words for c in word) else ""


def _call_of(text: str) -> ToolCall | None:
    """A ``function_call`` turn's call: ``{"name": ..., "arguments": {...} or "<JSON>"}``."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            arguments = {}
    return describe_call(value["name"], arguments)


def _session_of(record: dict[str, Any], default: str) -> str:
    for key in ("id", "conversation_id", "session_id"):
        value = record.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    return default
