"""LangChain and LangGraph message dumps.

Accepted shapes (those of :mod:`.openai_chat`: a JSON list, ``{"messages": [...]}`` as a
LangGraph state holds them, JSON Lines of messages or of such states), each message in one of
LangChain's three spellings:

* ``messages_to_dict``: ``{"type": "human"|"ai"|"tool"|"system", "data": {"content", "name",
  "id", "tool_calls", "tool_call_id", "status", ...}}``;
* the message's own fields, ``{"type": "human", "content": ...}`` (``model_dump``);
* ``dumpd``: ``{"lc": 1, "type": "constructor", "id": [..., "HumanMessage"], "kwargs": {...}}``.

Each becomes a chat message read as :mod:`.anthropic_messages` reads one: ``human`` the user,
``ai`` the assistant (its ``tool_calls``, ``{"name", "args", "id"}``, are the calls; content
blocks, as Anthropic models return them, are read block by block), ``tool`` the result of the
call its ``tool_call_id`` names (``status`` ``error`` makes it an error), ``system`` a system
turn; reasoning (``thinking`` blocks, ``additional_kwargs.reasoning_content``) is counted as
``thinking``. Pointers lead to the message's fields: ``<file>#/<i>/data``, ``#/<i>/kwargs``
or ``#/<i>``.
"""

from __future__ import annotations

from typing import Any

from .anthropic_messages import AnthropicMessagesParser
from .openai_chat import Conversation, time_key

_ROLES = {"human": "user", "ai": "assistant", "AIMessageChunk": "assistant",
          "tool": "tool", "system": "system", "function": "function",
          "HumanMessage": "user", "AIMessage": "assistant", "ToolMessage": "tool",
          "SystemMessage": "system", "FunctionMessage": "function",
          "HumanMessageChunk": "user", "ToolMessageChunk": "tool",
          "SystemMessageChunk": "system"}
_CLASS_TYPES = frozenset(name for name in _ROLES if name[0].isupper())


def _fields(message: Any) -> tuple[str, dict[str, Any], str] | None:
    """``(LangChain type, the message's fields, their JSON pointer below the message)``, or
    None when ``message`` is no LangChain message."""
    if not isinstance(message, dict):
        return None
    kwargs = message.get("kwargs")
    ids = message.get("id")
    if message.get("lc") == 1 and isinstance(kwargs, dict) and isinstance(ids, list) and ids:
        return (str(ids[-1]), kwargs, "/kwargs") if ids[-1] in _CLASS_TYPES else None
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in _ROLES:
        return None
    data = message.get("data")
    if isinstance(data, dict) and "content" in data:
        return kind, data, "/data"
    return (kind, message, "") if "content" in message else None


def is_langchain_message(value: Any) -> bool:
    """True for a LangChain message in any of its three spellings (module docstring)."""
    return _fields(value) is not None


def is_langchain_conversation(document: Any) -> bool:
    """True for a list of LangChain messages, or ``{"messages": [...]}`` of them (one of the
    first five is enough)."""
    if isinstance(document, dict):
        document = document.get("messages")
    return isinstance(document, list) and any(map(is_langchain_message, document[:5]))


class LangChainParser(AnthropicMessagesParser):
    """Parses LangChain or LangGraph messages into an :class:`ItemCollector`."""

    def _message(
        self,
        conversation: Conversation,
        message: dict[str, Any],
        record_no: int,
        pointer: str,
        identity: str,
    ) -> bool:
        found = _fields(message)
        if found is None:
            self.collector.skip(record_no, "not a LangChain message (no known \"type\")")
            return False
        kind, fields, below = found
        if below:
            pointer = f"{pointer}{below}" if pointer.endswith("#") or "#/" in pointer \
                else f"{pointer}#{below}"
        chat: dict[str, Any] = {"role": _ROLES[kind], "content": fields.get("content")}
        for key in ("name", "tool_call_id"):
            if fields.get(key) is not None:
                chat[key] = fields[key]
        time = _time_written(fields)
        if time is not None:
            chat["timestamp"] = time
        if fields.get("status") == "error":
            chat["is_error"] = True
        extra = fields.get("additional_kwargs")
        if isinstance(extra, dict) and extra.get("reasoning_content"):
            self.collector.ignore("thinking")
        calls = _tool_calls(fields.get("tool_calls"), chat["content"])
        if calls:
            chat["tool_calls"] = calls
            if isinstance(chat["content"], list):  # the calls are read from tool_calls
                chat["content"] = _without_thinking(self, chat["content"])
        return super()._message(conversation, chat, record_no, pointer, identity)


def _time_written(fields: dict[str, Any]) -> Any:
    """A message's time: its own ``timestamp``, else one the app kept in ``additional_kwargs``
    or the model's reply carries in ``response_metadata`` (ChatOllama's ``created_at``), under
    any of the chat formats' time keys; None when it writes none."""
    for where in (fields, fields.get("additional_kwargs"), fields.get("response_metadata")):
        if isinstance(where, dict):
            key = time_key(where)
            if key is not None:
                return where[key]
    return None


def _tool_calls(value: Any, content: Any) -> list[dict[str, Any]]:
    """An AI message's ``tool_calls`` in the OpenAI shape the chat reader reads, leaving out
    those its content blocks already hold (``tool_use`` of the same ``id``)."""
    held = {block["id"] for block in content if isinstance(block, dict)
            and block.get("type") == "tool_use" and isinstance(block.get("id"), str)} \
        if isinstance(content, list) else set()
    calls = []
    for call in value if isinstance(value, list) else ():
        if isinstance(call, dict) and isinstance(call.get("name"), str) \
                and not (isinstance(call.get("id"), str) and call["id"] in held):
            calls.append({"id": call.get("id"),
                          "function": {"name": call["name"], "arguments": call.get("args")}})
    return calls


def _without_thinking(parser: LangChainParser, content: list[Any]) -> str:
    """The text of content blocks read through the chat reader (reasoning blocks counted)."""
    texts = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") in ("thinking", "reasoning"):
            parser.collector.ignore("thinking")
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
    return "\n\n".join(texts)
