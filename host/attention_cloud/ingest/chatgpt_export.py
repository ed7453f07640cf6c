"""ChatGPT data exports (``conversations.json`` from "Export data" in ChatGPT's settings).

The file is a JSON list of conversations (one conversation object on its own is read too).
Each conversation has ``title``, ``create_time`` (epoch seconds, a float), ``id`` or
``conversation_id``, ``current_node`` and ``mapping``: node id -> ``{id, message, parent,
children}``. Edits and regenerations make the mapping a tree; what the user last saw is the
ACTIVE branch, found by following ``parent`` links up from ``current_node`` (a conversation
without a ``current_node`` follows the last child from the root down). Only that branch is read;
the messages of other branches are counted as ``other-branch`` in ``ParseResult.ignored``.

A message has ``author.role`` (``user``, ``assistant``, ``system``, ``tool``), ``author.name``
(the tool's name: ``python``, ``browser``, ``web.run`` ...), ``create_time``, ``recipient``
(``all``, or the tool an assistant message calls) and ``content`` with a ``content_type``:
``text`` and ``multimodal_text`` (``parts``: strings, and images and other parts without text,
which are counted as ``<content_type> part``; a part that is neither, a number or null, is
reported among the skipped),
``code`` (a call to a tool, ``text``), ``execution_output`` and ``tether_browsing_display``
(tool output), ``tether_quote`` (a quoted page), ``system_error`` (a failed tool: an error),
``thoughts`` and ``reasoning_recap`` (reasoning: counted as ``thinking``, no item),
``user_editable_context`` (custom instructions: a system turn when visible).

Items: user text is a goal (or a turn, as elsewhere); assistant text a conclusion; a call to a
tool labels the tool's output, which is a tool result or an error (a call no output answers
is kept as a call without its result, :mod:`.open_calls`); system messages and messages
flagged ``metadata.is_visually_hidden_from_conversation`` are counted as ``system`` and
``hidden``, not kept. Each item's time is its message's ``create_time`` (the message before
it's when it has none, the conversation's for the first; one note per conversation counts
such messages), its session the conversation id, its speaker the author's ``name`` when there
is one (the tool: ``python``, ``browser``), and it carries ``relation(H, title, Title)``.
Pointers read ``<file>#/<conversation index>/mapping/<node id>``.
"""

from __future__ import annotations

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
from .jsonlines import json_document, strip_document_envelopes
from .open_calls import OpenCalls
from .source import Source, fail
from .tools import ToolCall, describe_call

_TEXT_TYPES = frozenset({"text", "multimodal_text"})
_OUTPUT_TYPES = frozenset({"execution_output", "tether_browsing_display", "tether_quote",
                           "system_error", "text", "multimodal_text", "code"})
_THINKING_TYPES = frozenset({"thoughts", "reasoning_recap"})
_TITLE_MAX_CHARS = 200


def is_chatgpt_export(document: Any) -> bool:
    """True for a ChatGPT export: a list whose first object has a ``mapping`` dict, or one
    conversation object with a ``mapping``."""
    if isinstance(document, list):
        first = next((c for c in document[:5] if isinstance(c, dict)), None)
        return first is not None and isinstance(first.get("mapping"), dict)
    return isinstance(document, dict) and isinstance(document.get("mapping"), dict)


def json_pointer_token(token: str) -> str:
    """One JSON pointer reference token (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return token.replace("~", "~0").replace("/", "~1")


def active_branch(mapping: dict[str, Any], current: Any) -> list[str]:
    """Node ids of the active branch, root first: ``current`` and its ``parent`` links up to
    the root (a cycle or a missing node ends the walk), or, without a usable ``current``, the
    last child of each node from the root down."""
    if not isinstance(current, str) or current not in mapping:
        current = _last_leaf(mapping)
    branch: list[str] = []
    seen: set[str] = set()
    node_id: Any = current
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        branch.append(node_id)
        node = mapping[node_id]
        node_id = node.get("parent") if isinstance(node, dict) else None
    branch.reverse()
    return branch


def _last_leaf(mapping: dict[str, Any]) -> str | None:
    roots = [key for key, node in mapping.items()
             if isinstance(node, dict)
             and not (isinstance(node.get("parent"), str) and node["parent"] in mapping)]
    if not roots:
        return None
    node_id, seen = roots[0], set()
    while node_id not in seen:
        seen.add(node_id)
        children = mapping[node_id].get("children") if isinstance(mapping[node_id], dict) else None
        following = [c for c in children if isinstance(c, str) and c in mapping] \
            if isinstance(children, list) else []
        if not following:
            break
        node_id = following[-1]
    return node_id


class ChatGPTExportParser:
    """Parses a ChatGPT ``conversations.json`` into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session

    def parse(self, source: Source) -> int:
        """Read the active branch of every conversation; return how many messages were read."""
        document = json_document(source)
        if not is_chatgpt_export(document):
            raise fail(source.name, 'not a ChatGPT export (a list of conversations with a "mapping")')
        strip_document_envelopes(source, self.collector, document)
        if isinstance(document, dict):
            return self._conversation(document, 1, f"{source.pointer_base}#", "")
        read = 0
        for index, conversation in enumerate(document):
            if not isinstance(conversation, dict) or not isinstance(conversation.get("mapping"), dict):
                self.collector.skip(index + 1, f"conversation {index} has no mapping")
                continue
            read += self._conversation(
                conversation, index + 1, f"{source.pointer_base}#/{index}", f"c{index}/"
            )
        return read

    def _conversation(self, conversation: dict[str, Any], number: int, prefix: str,
                      identity: str) -> int:
        mapping: dict[str, Any] = conversation["mapping"]
        session = _first_id(conversation) or (
            f"{self.default_session}#{number}" if identity else self.default_session
        )
        title = conversation.get("title")
        title = " ".join(title.split())[:_TITLE_MAX_CHARS] if isinstance(title, str) else ""
        when = self.collector.time(number, conversation.get("create_time"))
        branch = active_branch(mapping, conversation.get("current_node"))
        messages = [n for n in mapping.values() if isinstance(n, dict) and isinstance(n.get("message"), dict)]
        on_branch = [mapping[n] for n in branch
                     if isinstance(mapping[n], dict) and isinstance(mapping[n].get("message"), dict)]
        if len(messages) > len(on_branch):
            self.collector.ignored["other-branch"] = (
                self.collector.ignored.get("other-branch", 0) + len(messages) - len(on_branch)
            )
        reader = _ConversationReader(self.collector, session, title, when, number)
        for node in on_branch:
            self.collector.records_read += 1
            node_id = str(node.get("id") or "")
            reader.message(node["message"], f"{prefix}/mapping/{json_pointer_token(node_id)}",
                           f"{identity}{node_id}")
        reader.open_calls.remember()
        reader.say_borrowed_times(title)
        return len(on_branch)


class _ConversationReader:
    """Turns the messages of one conversation's active branch into items."""

    def __init__(self, collector: ItemCollector, session: str, title: str, when: str,
                 number: int) -> None:
        self.collector = collector
        self.session = session
        self.links = (("title", title),) if title else ()
        self.when = when
        self.number = number
        self.call: ToolCall | None = None  # the tool call the next tool message answers
        self.call_key = ""  # its message's identity, to close it in open_calls when answered
        self.open_calls = OpenCalls()
        self.dated = 0  # messages read for their time, and those that took another's
        self.borrowed = 0

    def say_borrowed_times(self, title: str) -> None:
        """One note for the conversation when some of its messages had no ``create_time``
        (ChatGPT writes null for some) and took the time of the message before them."""
        if self.borrowed:
            named = f' ("{title}")' if title else ""
            self.collector.note(
                f"conversation {self.session}{named}: {self.borrowed} of {self.dated} messages "
                "have no create_time: each takes the time of the message before it")

    def message(self, message: dict[str, Any], pointer: str, identity: str) -> None:
        author = message.get("author") if isinstance(message.get("author"), dict) else {}
        role = author.get("role") if isinstance(author.get("role"), str) else ""
        content = message.get("content") if isinstance(message.get("content"), dict) else {}
        content_type = content.get("content_type")
        content_type = content_type if isinstance(content_type, str) and content_type else "text"
        metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
        if metadata.get("is_visually_hidden_from_conversation") is True:
            self.collector.ignore("hidden")
            return
        if content_type in _THINKING_TYPES:
            self.collector.ignore("thinking")
            return
        written = message.get("create_time")  # unreadable: reported, kept without a time
        time = self.when if written in (None, "") else self.collector.time(self.number, written)
        self.dated += 1
        self.borrowed += bool(written in (None, "") and time)
        if time:  # a message without one (ChatGPT writes null for some) follows the last
            self.when = time
        text = clean_message(_content_text(content))
        self._count_parts_without_text(content)

        name = author.get("name") if isinstance(author.get("name"), str) else ""

        def add(kind: str, item_role: str, item_text: str | L0Text, links: tuple[tuple[str, str], ...] = (),
                **extra: Any) -> None:
            self.collector.add(record_no=self.number, session=self.session, kind=kind,
                               role=item_role, identity=identity, text=item_text, time=time,
                               pointer=pointer, links=self.links + links,
                               speaker=" ".join(name.split())[:80], **extra)

        if role == "user":
            kind = user_message_kind(text, goal=self.collector.nudge_goal(self.session, name))
            if kind is None:
                self.collector.no_item(text)
            else:
                add(kind, "user", message_text(text), sets_goal=kind == "user_goal")
        elif role == "assistant":
            recipient = message.get("recipient")
            if isinstance(recipient, str) and recipient not in ("all", ""):
                # A call to a tool (code for python, a command for the browser): it labels the
                # tool's output, like a tool call in the other formats.
                self.call = describe_call(recipient, {"query": text} if text else {})
                self.collector.called_tool(self.session)
                self.call_key = identity
                if self.call.is_file_op:
                    add("file_op", "assistant", self.call.file_op_text(),
                        (("touches_file", self.call.path), ("file_op", self.call.op),
                         ("tool", recipient)), mentions_in=self.call.detail)
                else:
                    self.collector.ignore("tool-call")
                goal = self.collector.goal(self.session)
                self.open_calls.open(identity, self.call, lambda text, links: add(
                    "tool_result", "tool", text, links, goal=goal))
                return
            kind = assistant_text_kind(text)
            if kind is None:
                self.collector.no_item(text)
            else:
                add(kind, "assistant", message_text(text))
        elif role == "tool":
            answers = self.call is not None and (not name or self.call.name == name)
            call = self.call if answers else (describe_call(name, {}) if name else None)
            if answers:
                self.open_calls.close(self.call_key)
            self.call = None
            failed = content_type == "system_error"
            kind = tool_output_kind(call, text, failed) if content_type in _OUTPUT_TYPES else None
            if kind is None:
                self.collector.no_item(text, call)
                return
            links = (("tool", call.name),) if call is not None else ()
            add(kind, "tool", output_text(call, text, kind), links)
        elif role == "system":
            if content_type == "user_editable_context" and text:
                add("turn", "system", message_text(text))  # custom instructions, shown
            else:
                self.collector.ignore("system")
        else:
            self.collector.skip(self.number, f"unknown author role {role!r}")

    def _count_parts_without_text(self, content: dict[str, Any]) -> None:
        """Count each part of ``parts`` that gives no text: an image or other object as
        ``<content_type> part``, anything else (a number, null, a list) as skipped."""
        parts = content.get("parts")
        for index, part in enumerate(parts if isinstance(parts, list) else ()):
            if isinstance(part, str) or (isinstance(part, dict)
                                         and isinstance(part.get("text"), str)):
                continue
            if isinstance(part, dict):
                kind = part.get("content_type")
                self.collector.ignore(f"{kind if isinstance(kind, str) else 'untyped'} part")
            else:
                self.collector.skip(self.number, f"content part {index} is not text or an object")


def _content_text(content: dict[str, Any]) -> str:
    """The text of a message's content, whatever its ``content_type``."""
    parts = content.get("parts")
    if isinstance(parts, list):
        texts = [part if isinstance(part, str) else part.get("text") for part in parts
                 if isinstance(part, str) or isinstance(part, dict)]  # images have no text
        return "\n".join(text for text in texts if isinstance(text, str) and text)
    content_type = content.get("content_type")
    if content_type == "tether_browsing_display":
        return "\n".join(v for v in (content.get("summary"), content.get("result"))
                         if isinstance(v, str) and v)
    if content_type == "tether_quote":
        return "\n".join(v for v in (content.get("title"), content.get("url"), content.get("text"))
                         if isinstance(v, str) and v)
    if content_type == "system_error":
        return ": ".join(v for v in (content.get("name"), content.get("text"))
                         if isinstance(v, str) and v)
    if content_type == "user_editable_context":
        return "\n".join(v for v in (content.get("user_profile"), content.get("user_instructions"))
                         if isinstance(v, str) and v)
    text = content.get("text")
    return text if isinstance(text, str) else ""


def _first_id(conversation: dict[str, Any]) -> str:
    for key in ("conversation_id", "id"):
        value = conversation.get(key)
        if isinstance(value, str) and value:
            return value
    return ""
