"""Aider's chat history, ``.aider.chat.history.md``, as aider appends it in a project's root.

Aider writes each chat it starts under a line ``# aider chat started at 2025-03-02 14:05:11``
(its local time, no zone: read as UTC, like every time without one), then, as the chat goes::

    #### add a --verbose flag to cli.py          the user's message, every line after "#### "
    I'll add the flag.                           the model's reply, as it is (edit blocks too)
    > Applied edit to cli.py                     aider's own output, every line after "> "
    > Commit 3f2a9c1 feat: add --verbose flag

What each becomes:

* **Session**: each chat is its own, ``<file session>@<start>``
  (``.aider.chat.history@2025-03-02 14:05:11``); aider writes no time per turn, so every item
  of a chat carries the chat's start time (``item_seq/2`` keeps their order).
* The user's message is a ``user_goal`` (or a turn, as in every chat format); a slash command
  that drives aider (``/add cli.py``, ``/run pytest``, ``/undo``) is a turn, while ``/ask``,
  ``/code``, ``/architect`` and ``/context`` with a question carry the user's request and are
  goals.
* The reply is a ``conclusion`` (a one-line announcement of the next step a turn), kept whole,
  its SEARCH/REPLACE blocks included; a line starting with ``#`` or ``>`` inside its code fences
  stays in it.
* Aider's output: ``Applied edit to PATH`` is a ``file_op`` edit of that file, with what the
  reply's last SEARCH/REPLACE block for it changed; its bookkeeping (the start-up banner,
  ``Tokens: … Cost: …``, questions and their answers, ``Added … to the chat``) is counted as
  ``aider-notice``; the rest of a run of such lines (a commit, a lint or test report, an API
  error) is one ``tool_result``, an ``error`` when it reports a failure.

Pointers read ``<file>:<first>-<last>`` (``<file>:<line>`` for one line): a message's first line
to its last with text. A message's identity is its first line, so a history that grows (aider
only appends) keeps every earlier handle.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .classify import (
    L0Text,
    assistant_text_kind,
    message_text,
    output_text,
    tool_output_kind,
    user_message_kind,
)
from .collector import ItemCollector
from .gemini import SLASH_COMMAND
from .plain_text import FENCE
from .pointers import line_pointer
from .source import Source, fail
from .tools import ToolCall, describe_file_call

CHAT_STARTED = re.compile(r"# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)[ \t]*")
_USER_PREFIX = "####"
_NOTICE_PREFIX = ">"
#: Aider's bookkeeping lines: its banner, costs, questions and answers, chat membership.
_BOOKKEEPING = re.compile(
    r"(?:Tokens: |Cost: |Aider v\d|Main model: |Weak model: |Editor model: |Model: |Git repo: "
    r"|Repo-map: |Use /help|Newer aider version|Run pip install|Cur working dir: "
    r"|Git working dir: |Restored previous conversation history|Added .+ to the chat"
    r"|Removed .+ from the chat|Dropping .+ from the chat|https://aider\.chat/"
    r"|You can skip this check|Warning: .*(?:model|settings)|Analytics |\S*aider\b.* --"
    r"|\S*/aider\s*$|aider\s*$|.*\(Y\)es/\(N\)o)")
_APPLIED = re.compile(r"Applied edit to (.+?)\s*$")
#: A SEARCH/REPLACE block as aider's edit formats write it: the file's path on its own line,
#: an optional fence, then the two halves.
_EDIT_BLOCK = re.compile(
    r"^(?P<path>[^\n`<>=]+?)[ \t]*\n(?:```[^\n]*\n)?<<<<<<< SEARCH[ \t]*\n(?P<old>.*?)"
    r"^=======[ \t]*\n(?P<new>.*?)^>>>>>>> REPLACE", re.MULTILINE | re.DOTALL)
_REQUEST_COMMANDS = re.compile(r"/(?:ask|code|architect|context)\s+\S")
_LINES_TO_TRY = 40


def is_aider_history(text: str) -> bool:
    """True when one of the first lines is aider's ``# aider chat started at <time>``."""
    for line in text.lstrip("\ufeff").split("\n", _LINES_TO_TRY)[:_LINES_TO_TRY]:
        if CHAT_STARTED.fullmatch(line.rstrip("\r")):
            return True
    return False


@dataclass
class _Block:
    """A run of lines that make one message: the user's, the reply, or aider's output."""

    role: str
    first: int
    last: int = 0
    lines: list[str] = field(default_factory=list)

    def add(self, number: int, line: str) -> None:
        self.lines.append(line)
        if line.strip():
            self.last = number


class AiderParser:
    """Parses an aider chat history into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session
        self.session = default_session
        self.time = ""
        self.reply = ""  # the last reply, whose edit blocks "Applied edit" lines refer to
        self.chats = 0  # "# aider chat started at" lines read

    def parse(self, source: Source) -> int:
        """Read every message; return how many there were."""
        text = self.collector.text_without_envelopes(source)
        messages = 0
        for block in _blocks(text.split("\n"), self):
            messages += 1
            self._block(block, source.pointer_base)
        self.collector.records_read += messages
        if not self.chats:
            raise fail(source.name, 'no aider chat found ("# aider chat started at ..." and '
                                    '"#### " messages)')
        return messages or 1

    def start_chat(self, number: int, started: str) -> None:
        """A ``# aider chat started at`` line: a new session from here on."""
        self.chats += 1
        self.session = f"{self.default_session}@{started}"
        self.time = self.collector.time(number, started)
        self.reply = ""

    def _block(self, block: _Block, base: str) -> None:
        text = "\n".join(line.rstrip() for line in block.lines).strip()
        pointer = line_pointer(base, block.first, block.last or block.first)
        if block.role == "user":
            kind = user_message_kind(text, goal=self.collector.goal(self.session))
            if kind == "user_goal" and SLASH_COMMAND.match(text) \
                    and not _REQUEST_COMMANDS.match(text):
                kind = "turn"
            if kind is None:
                self.collector.no_item(text)
                return
            self._add(block, kind, "user", message_text(text), pointer,
                      sets_goal=kind == "user_goal")
        elif block.role == "assistant":
            self.reply = text
            kind = assistant_text_kind(text)
            if kind is None:
                self.collector.no_item(text)
                return
            self._add(block, kind, "assistant", message_text(text), pointer)
        else:
            self._notices(block, text, pointer)

    def _notices(self, block: _Block, text: str, pointer: str) -> None:
        """Aider's output: edits applied are file operations, bookkeeping is counted, the rest
        is one tool result (or error)."""
        kept = []
        for line in text.split("\n"):
            applied = _APPLIED.fullmatch(line.strip())
            if applied:
                call = self._edit(applied.group(1))
                self._add(block, "file_op", "assistant", call.file_op_text(), pointer,
                          identity=f"line{block.first}/{call.path}", links=call.file_op_links,
                          mentions_in=call.detail)
            elif _BOOKKEEPING.match(line.strip()):
                self.collector.ignore("aider-notice")
            elif line.strip():
                kept.append(line)
        if not kept:
            return
        output = "\n".join(kept)
        kind = tool_output_kind(None, output, False)
        if kind is None:
            self.collector.no_item(output)
            return
        self._add(block, kind, "tool", output_text(None, output, kind), pointer,
                  links=(("tool", "aider"),))

    def _edit(self, path: str) -> ToolCall:
        """The file operation of ``Applied edit to PATH``, with what the last reply's edit
        blocks for that file changed."""
        edits = [{"old_string": m.group("old").rstrip("\n"),
                  "new_string": m.group("new").rstrip("\n")}
                 for m in _EDIT_BLOCK.finditer(self.reply) if m.group("path").strip() == path]
        args: dict[str, object] = {"path": path}
        if len(edits) == 1:
            args.update(edits[0])
        elif edits:
            args["edits"] = edits
        return describe_file_call("aider", "edit", args)

    def _add(self, block: _Block, kind: str, role: str, text: str | L0Text, pointer: str,
             identity: str = "", **extra: Any) -> None:
        self.collector.add(record_no=block.first, session=self.session, kind=kind, role=role,
                           identity=identity or f"line{block.first}", text=text,
                           time=self.time, pointer=pointer, **extra)


def _blocks(lines: list[str], parser: AiderParser) -> Iterator[_Block]:
    """The messages of the history, in order; chat starts go to ``parser.start_chat``."""
    block: _Block | None = None
    fenced = False
    for number, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not fenced:
            started = CHAT_STARTED.fullmatch(line)
            role = ("user" if line.startswith(_USER_PREFIX + " ") or line == _USER_PREFIX
                    else "notice" if line.startswith(_NOTICE_PREFIX) else "assistant")
            if started:
                if block is not None:
                    yield block
                block = None
                parser.start_chat(number, started.group(1))
                continue
            if not line.strip() and (block is None or block.role != "assistant"):
                if block is not None:  # a blank line ends the user's message, or aider's
                    yield block
                block = None
                continue
            if block is None or role != block.role:
                if block is not None:
                    yield block
                block = _Block(role, number)
            if role == "user":
                line = line[len(_USER_PREFIX) + 1:]
            elif role == "notice":
                line = line[len(_NOTICE_PREFIX):].lstrip(" ")
        if block is None:
            block = _Block("assistant", number)
        if block.role == "assistant" and FENCE.match(line):
            fenced = not fenced
        block.add(number, line)
    if block is not None:
        yield block
