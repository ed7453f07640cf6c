"""Tool calls still waiting for their result, so that a call the transcript never answers is
remembered all the same.

A session killed mid-call, or a log cut off, ends with a call and no output; what the agent
was running when it stopped is what a user asks about after a crash. A reader that pairs calls
with results opens each call here as it reads it and closes it when the result arrives; at the
end of the transcript every call still open becomes an item of its own, made as the reader
makes a call's result (kind ``tool_result``, role ``tool``, the call's label) with
:data:`NO_RESULT` in place of the output, linked ``relation(H, tool, Name)`` and
``relation(H, no_result, true)``, with the goal active when the call was made. File operations
are not opened: their ``file_op`` item records them, answered or not.

The item's identity is the call's own, so reading the file again gives the same handle; a
later version of the file that holds the result is paired by the reader and makes the result's
item instead (``Memory.ingest`` holds these items back while a file is still being written).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .classify import L0Text, output_text
from .tools import ToolCall

NO_RESULT = "(no result in the transcript)"
"""What stands for the output of a call the transcript never answers."""
NO_RESULT_LINK = ("no_result", "true")
"""The relation that marks an item as a call without its result."""

AddItem = Callable[[L0Text, tuple[tuple[str, str], ...]], None]
"""How a reader makes the item of a call left open: given its text and links, it adds a
``tool_result`` item placed where the call was made (its record, time and goal)."""


@dataclass
class _OpenCall:
    call: ToolCall
    add: AddItem


class OpenCalls:
    """The calls of one transcript not answered yet, in the order they were made."""

    def __init__(self) -> None:
        self._open: dict[str, _OpenCall] = {}
        self._made = 0  # calls opened, to key those that have no id of their own

    def open(self, call_id: Any, call: ToolCall, add: AddItem) -> None:
        """Remember ``call`` (id ``call_id``; None or "" when it has none) until its result;
        ``add`` makes its item if none comes (see :data:`AddItem`)."""
        self._made += 1
        if call.is_file_op:
            return
        key = call_id if isinstance(call_id, str) and call_id else f"\0{self._made}"
        if key in self._open:  # an id used twice: the earlier call stays open, under its number
            self._open[f"\0{self._made}"] = self._open.pop(key)
        self._open[key] = _OpenCall(call, add)

    def close(self, call_id: Any = None, name: str = "") -> None:
        """The result of call ``call_id`` arrived; without a known id, that of the earliest
        open call named ``name`` (a legacy function message names only its function)."""
        if isinstance(call_id, str) and self._open.pop(call_id, None) is not None:
            return
        if name:
            for key, open_call in self._open.items():
                if open_call.call.name == name:
                    del self._open[key]
                    return

    def remember(self) -> None:
        """Make an item of every call still open (the transcript has been read to its end)."""
        for open_call in self._open.values():
            call = open_call.call
            open_call.add(output_text(call, NO_RESULT, "tool_result"),
                          (("tool", call.name), NO_RESULT_LINK))
        self._open.clear()


def is_unanswered_call(relations: Any) -> bool:
    """True for the relations of an item made of a call without its result."""
    return any(tuple(rel[1:]) == NO_RESULT_LINK for rel in relations)
