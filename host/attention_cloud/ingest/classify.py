"""Kind decisions shared by the formats: user messages, assistant text, tool output."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .entities import looks_like_error
from .frame_echo import strip_frame_echo
from .textutil import (
    continues_goal,
    head_and_tail,
    is_acknowledgement,
    is_bare_reply,
    strip_system_reminders,
)
from .tools import ToolCall

# The head-and-tail cuts ingestion stored as L0 before L0 kept long texts whole. Handles are
# still derived from these cuts (see L0Text): an existing home's items keep their handles.
MESSAGE_HEAD, MESSAGE_TAIL = 1200, 800
"""User and assistant texts: the handle's cut keeps the first and last characters."""
OUTPUT_HEAD, OUTPUT_TAIL = 800, 400
"""Tool output: the handle's cut keeps less of its middle than messages do."""
ERROR_HEAD, ERROR_TAIL = 600, 1000
"""Errors: the handle's cut keeps more of their end."""


@dataclass(frozen=True)
class L0Text:
    """A message's or tool output's L0 text, whole, and what its handle is derived from.

    Attributes:
        text: the whole text (the collector caps it at ``max_item_chars``).
        basis: the text the item's handle is derived from: the head-and-tail cut that earlier
            versions stored as L0 (equal to ``text`` for texts of up to about 2,000
            characters), so that re-ingesting a transcript into a home written by them finds
            the same handles (an upsert) instead of adding every long item a second time.
    """

    text: str
    basis: str

# Short assistant lines announcing the next step ("Let me read the tests.") say what the
# assistant is about to do, not what it found: they are turns, not conclusions. Sentences that
# decide something ("Let's use Postgres", "I'll cap retries at 5") do not match.
_NARRATION = re.compile(
    r"(?:(?:now|first|next|ok(?:ay)?|great|perfect|good|alright)[,!.]?\s+)?"
    r"(?:let me|i'm going to|i am going to|i need to (?:check|look|read|see|find))\b",
    re.IGNORECASE,
)
_NARRATION_MAX_CHARS = 160
_TRIVIAL_OUTPUT = frozenset(
    {"", "ok", "done", "success", "true", "null", "none", "(no output)", "(no content)", "(empty)"}
)
_TODO_RESULT = "Todos have been modified successfully"
_NO_CONTENT = "(no content)"


def user_message_kind(text: str, *, is_sidechain: bool = False, goal: str = "") -> str | None:
    """``user_goal``, ``turn`` or None (noise) for cleaned user text.

    A sidechain prompt (a subagent's task, written by the main agent) is a turn: it must not
    replace the user's goal. A bare reply ("no", "wait") is a turn for the same reason, and so
    is a prompt that only urges the agent on with the active ``goal`` (when the reader passes
    it): "continue implementation" continues the task the user set (:func:`continues_goal`).
    """
    if not text or is_acknowledgement(text):
        return None
    if is_sidechain or is_bare_reply(text) or continues_goal(text, goal):
        return "turn"
    return "user_goal"


def assistant_text_kind(text: str) -> str | None:
    """``conclusion``, ``turn`` (one-line narration of the next step) or None (empty)."""
    if not text or text == _NO_CONTENT:
        return None
    if len(text) <= _NARRATION_MAX_CHARS and "\n" not in text and _NARRATION.match(text):
        return "turn"
    return "conclusion"


def no_item_reason(text: str, call: ToolCall | None = None) -> str:
    """What a message or tool output that the ``*_kind`` functions make no item of is, as the
    ingest report counts it among the records ignored by design: ``empty`` (no text),
    ``file-op-output`` (what a file operation returned: its ``file_op`` item records it),
    ``acknowledgement`` ("thanks", "ok"), ``memory recall`` (what memory's own recall answered:
    :mod:`.frame_echo`) or ``boilerplate`` (a tool's known no-news output)."""
    if not text.strip() or text == _NO_CONTENT:
        return "empty"
    if _only_recall(text):
        return "memory recall"
    if call is not None and call.is_file_op:
        return "file-op-output"
    if is_acknowledgement(text):
        return "acknowledgement"
    return "boilerplate"


def tool_output_kind(call: ToolCall | None, output: str, is_error: bool) -> str | None:
    """``error``, ``tool_result`` or None (noise) for the output of ``call``.

    Output of a successful file operation is noise: a read returns the file (which the
    ``file_op`` item records and which may since have changed), a write or edit echoes what
    was just written; shell commands that write files still report their output, and a read
    of a command's output or a log (:attr:`ToolCall.reads_output`) returns what no file
    keeps. Known
    boilerplate ("Todos have been modified successfully") is noise too.
    """
    if is_error:
        return "error"
    if call is not None and call.is_file_op and not call.reads_output and (
            call.op == "read" or not call.shell):
        return None
    output, echoes = strip_frame_echo(output)  # what recall added says nothing of the call
    if echoes and not output:
        return None  # memory's own recall answered the call
    if looks_like_error(output):
        return "error"
    if output.strip().lower() in _TRIVIAL_OUTPUT or output.startswith(_TODO_RESULT):
        return None
    if (
        call is None
        and output.startswith(("File created successfully at:", "The file "))
        and ("has been updated" in output[:400] or output.startswith("File created"))
    ):
        return None  # the echo of a write whose call was not seen
    return "tool_result"


def clean_message(text: str) -> str:
    """Strip client-injected reminders and surrounding whitespace from message text."""
    return strip_system_reminders(text).strip()


def message_text(text: str) -> L0Text:
    """The L0 text of a user or assistant message: all of it, with its handle's basis."""
    return L0Text(text, head_and_tail(text, MESSAGE_HEAD, MESSAGE_TAIL))


def output_text(call: ToolCall | None, output: str, kind: str) -> L0Text:
    """The L0 text of tool output: the call's label, then the whole output; with its
    handle's basis (the label, then the output's head and tail)."""
    whole = strip_frame_echo(output)[0].strip()  # what recall added is not the tool's news
    head, tail = (ERROR_HEAD, ERROR_TAIL) if kind == "error" else (OUTPUT_HEAD, OUTPUT_TAIL)
    return L0Text(_labelled(call, whole), _labelled(call, head_and_tail(whole, head, tail)))


def _only_recall(output: str) -> bool:
    """Whether ``output`` holds nothing but what memory's recall wrote (a receipt line, a
    plain-text frame, a printed receipt)."""
    stripped, echoes = strip_frame_echo(output)
    return echoes > 0 and not stripped


def _labelled(call: ToolCall | None, body: str) -> str:
    if call is None:
        return body
    return f"{call.label}\n{body}" if body else call.label


def named_user_kind(text: str, speaker: str, goal: str = "") -> str | None:
    """The kind of a user's message in a transcript that names its speaker (``Priya: Go on.``,
    a JSONL message with ``name``): a chat between people, where every message with text is an
    item, a one-word reply included ("Done." says the booking is made), as the chat exports and
    the benchmark readers keep it; without a name, :func:`user_message_kind` (an agent's user
    saying "ok" carries no goal), with the ``goal`` a nudge keeps where the reader passes one
    (:meth:`~attention_cloud.ingest.collector.ItemCollector.nudge_goal`)."""
    if not speaker:
        return user_message_kind(text, goal=goal)
    return kept_turn_kind("user", text) if text else None


def kept_turn_kind(role: str, text: str) -> str:
    """The kind of a benchmark conversation's turn, where every turn is evidence and none is
    noise: what :func:`user_message_kind` or :func:`assistant_text_kind` say, and ``turn``
    where they would drop it (an acknowledgement such as "Thanks!")."""
    found = user_message_kind(text) if role == "user" else assistant_text_kind(text)
    return found or "turn"
