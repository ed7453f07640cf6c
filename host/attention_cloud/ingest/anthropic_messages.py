"""Anthropic Messages API conversations, as agent builders log them with the SDK.

Accepted shapes (those of :mod:`.openai_chat`, whose reader this one extends): a JSON list of
messages; JSON Lines of messages; a request body ``{"model", "system", "messages": [...]}``
(``system`` a string or a list of text blocks: a system turn, pointer ``#/system``); JSON Lines
of such bodies, one conversation per line; a response body ``{"type": "message", "role":
"assistant", "content": [...]}``, on one line or laid out over many.

A message's ``content`` is a string or a list of blocks, read in order:

* ``text`` blocks (adjacent ones joined): the user's goal or turn, the assistant's conclusion
  or narration, as in every chat format;
* ``tool_use`` (also ``server_tool_use``, ``mcp_tool_use``): the call, remembered by its
  ``id``; a file operation (``str_replace_based_edit_tool``, ``write_file`` ...) is an item,
  other calls label their result (``$ pytest -x``);
* ``tool_result`` (also ``mcp_tool_result``): the output of the call its ``tool_use_id``
  names, its ``content`` a string or a list of blocks; ``is_error`` or output that reports a
  failure makes it an error; a result whose call is not in the file is kept, unlabelled; a
  call whose result is not in the file is kept too, as a call without its result
  (:mod:`.open_calls`);
* ``web_search_tool_result`` and other server tools' results: the titles and addresses found,
  or an error for ``*_error`` content;
* ``thinking`` and ``redacted_thinking``: the model's reasoning, counted as ``thinking``;
* any other block (``image``, ``document`` ...): counted as ``<type> block``.

Items made from a block point at it: ``<file>#/<i>/content/<j>`` in a list,
``<file>:<line>#/content/<j>`` in JSON Lines; its identity is the message's and the block's
index, so re-ingesting (or appending messages) keeps every handle.
"""

from __future__ import annotations

from typing import Any

from .classify import (
    assistant_text_kind,
    clean_message,
    message_text,
    output_text,
    tool_output_kind,
    user_message_kind,
)
from .openai_chat import ANTHROPIC_BLOCK_TYPES, Conversation, OpenAIChatParser, message_speaker
from .textutil import parts_text
from .tools import ToolCall, describe_call

_CALL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
_RESULT_TYPES = frozenset({"tool_result", "mcp_tool_result"})
_THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
_TEXT_ONLY = frozenset({"text"})


def is_anthropic_message(value: Any) -> bool:
    """True for a Messages API message: a ``role`` and a list of content blocks among which
    one carries a tool call, a result or reasoning; or a response body (``type``
    ``message``, its content a list of ``text`` blocks)."""
    if not isinstance(value, dict) or not isinstance(value.get("role"), str):
        return False
    content = value.get("content")
    if not isinstance(content, list):
        return False
    types = {block["type"] for block in content
             if isinstance(block, dict) and isinstance(block.get("type"), str)}
    if types & ANTHROPIC_BLOCK_TYPES:
        return True
    return value.get("type") == "message" and bool(types) and types <= _TEXT_ONLY | {"image"}


def is_anthropic_conversation(document: Any) -> bool:
    """True for a list of messages, or a request body, of which one message (among the first
    fifty) :func:`is_anthropic_message`; a request body with a top-level ``system`` (where
    OpenAI puts it among the messages) too."""
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        if "system" in document and "model" in document:
            return True
        document = document["messages"]
    return isinstance(document, list) and any(is_anthropic_message(m) for m in document[:50])


class AnthropicMessagesParser(OpenAIChatParser):
    """Parses one Anthropic Messages API conversation into an :class:`ItemCollector`."""

    def _preamble(self, conversation: Conversation, document: dict[str, Any], pointer: str
                  ) -> None:
        """A request body's ``system`` prompt: a system turn, never a goal."""
        text = clean_message(parts_text(document.get("system"), _TEXT_ONLY))
        if text:
            self.collector.add(
                record_no=conversation.line or 0, session=conversation.session, kind="turn",
                role="system", identity=f"{conversation.identity_prefix}system",
                text=message_text(text), time=conversation.time, pointer=f"{pointer}/system",
            )

    def _message(
        self,
        conversation: Conversation,
        message: dict[str, Any],
        record_no: int,
        pointer: str,
        identity: str,
    ) -> bool:
        content = message.get("content")
        role = message.get("role")
        if not isinstance(content, list) or role not in ("user", "assistant"):
            return super()._message(conversation, message, record_no, pointer, identity)
        reader = _BlockReader(self, conversation, message, record_no, pointer, identity)
        for index, block in enumerate(content):
            if not isinstance(block, (dict, str)):  # counted here: _runs leaves it out
                self.collector.skip(record_no, f"content block {index} is not an object")
        for index, block, text in _runs(content):
            if text is not None:
                reader.text(index, text)
            else:
                reader.block(index, block)
        return True


class _BlockReader:
    """What the items cut from one message's blocks share, and how each block becomes one."""

    def __init__(self, parser: AnthropicMessagesParser, conversation: Conversation,
                 message: dict[str, Any], record_no: int, pointer: str, identity: str) -> None:
        self.parser = parser
        self.collector = parser.collector
        self.conversation = conversation
        self.role = str(message["role"])
        self.record_no = record_no
        self.pointer = pointer
        self.identity = identity
        self.time = parser._time_of(message, record_no, conversation.time)
        self.speaker = message_speaker(message)

    def text(self, index: int, raw: str) -> None:
        text = clean_message(raw)
        if self.role == "user":
            kind = user_message_kind(text, goal=self.collector.nudge_goal(
                self.conversation.session, self.speaker))
        else:
            kind = assistant_text_kind(text)
        if kind is None:
            self.collector.no_item(text)
        else:
            self._add(index, kind, self.role, message_text(text), sets_goal=kind == "user_goal")

    def block(self, index: int, block: dict[str, Any]) -> None:
        kind = block.get("type")
        if not isinstance(kind, str):  # a list or object here would not even be hashable
            self.collector.ignore("untyped block")
        elif kind in _CALL_TYPES:
            self._call(index, block)
        elif kind in _RESULT_TYPES:
            self._result(index, block)
        elif kind in _THINKING_TYPES:
            self.collector.ignore("thinking")
        elif kind.endswith("_tool_result"):
            self._server_result(index, block)
        else:
            self.collector.ignore(f"{kind} block")

    def _call(self, index: int, block: dict[str, Any]) -> None:
        name = block.get("name")
        if not isinstance(name, str) or not name:
            self.collector.skip(self.record_no, f"{block.get('type')} block {index} has no name")
            return
        call = describe_call(name, block.get("input"), self.parser.cwd)
        self.collector.called_tool(self.conversation.session)
        if isinstance(block.get("id"), str):
            self.parser.calls[block["id"]] = call
        if call.is_file_op:
            self._add(index, "file_op", "assistant", call.file_op_text(),
                      links=call.file_op_links, mentions_in=call.detail)
        goal = self.collector.goal(self.conversation.session)
        self.parser.open_calls.open(block.get("id"), call, lambda text, links: self._add(
            index, "tool_result", "tool", text, links=links, goal=goal))

    def _result(self, index: int, block: dict[str, Any]) -> None:
        call = self._answered(block)
        output = clean_message(parts_text(block.get("content"), _TEXT_ONLY))
        self.collector.parts_left_out(self.record_no, block.get("content"), _TEXT_ONLY, "block")
        kind = tool_output_kind(call, output, block.get("is_error") is True)
        self._output(index, call, output, kind)

    def _server_result(self, index: int, block: dict[str, Any]) -> None:
        """A server tool's result (``web_search_tool_result`` ...): what it found, or its
        error (content typed ``*_error``, with an ``error_code``)."""
        call = self._answered(block)
        content = block.get("content")
        found = content if isinstance(content, list) else [content]
        lines: list[str] = []
        failed = False
        for entry in found:
            if not isinstance(entry, dict):
                continue
            if str(entry.get("type", "")).endswith("_error") or "error_code" in entry:
                failed = True
                lines.append(f"error: {entry.get('error_code', entry.get('type'))}")
                continue
            said = " — ".join(str(entry[key]) for key in ("title", "url", "text", "stdout",
                                                          "stderr") if entry.get(key))
            if said:
                lines.append(said)
        output = clean_message("\n".join(lines))
        kind = tool_output_kind(call, output, failed)
        self._output(index, call, output, kind)

    def _answered(self, block: dict[str, Any]) -> ToolCall | None:
        call_id = block.get("tool_use_id")
        self.parser.open_calls.close(call_id)
        return self.parser.calls.get(call_id) if isinstance(call_id, str) else None

    def _output(self, index: int, call: ToolCall | None, output: str, kind: str | None) -> None:
        if kind is None:
            self.collector.no_item(output, call)
            return
        links = (("tool", call.name),) if call is not None else ()
        self._add(index, kind, "tool", output_text(call, output, kind), links=links)

    def _add(self, index: int, kind: str, role: str, text: Any, **extra: Any) -> None:
        within = self.pointer.endswith("#") or "#/" in self.pointer  # already a JSON pointer
        pointer = f"{self.pointer}{'' if within else '#'}/content/{index}"
        self.collector.add(
            record_no=self.record_no, session=self.conversation.session, kind=kind, role=role,
            identity=f"{self.identity}/{index}", text=text, time=self.time, pointer=pointer,
            speaker=self.speaker if role != "tool" else "", cwd=self.parser.cwd, **extra,
        )


def _runs(content: list[Any]) -> list[tuple[int, dict[str, Any], str | None]]:
    """The blocks of a content list in order, adjacent ``text`` blocks joined into one run:
    ``(index of the first block, block, joined text)`` for a run, ``(index, block, None)``
    for any other block. A block that is not an object is left out (the caller counts it)."""
    runs: list[tuple[int, dict[str, Any], str | None]] = []
    pending: list[str] = []
    start = 0
    for index, block in enumerate(content):
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, dict):
            continue
        if block.get("type", "text") == "text" and isinstance(block.get("text"), str):
            if not pending:
                start = index
            pending.append(block["text"])
            continue
        if pending:
            runs.append((start, {}, "\n\n".join(pending)))
            pending = []
        runs.append((index, block, None))
    if pending:
        runs.append((start, {}, "\n\n".join(pending)))
    return runs
