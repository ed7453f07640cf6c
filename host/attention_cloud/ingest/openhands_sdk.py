"""OpenHands V1 (``openhands-sdk``, the software-agent-sdk): what its events say.

A V1 conversation is a stream of typed events, each a JSON object with a ``kind``
discriminator, ``id``, ``timestamp`` and ``source`` (``user``, ``agent``, ``environment``):

* ``MessageEvent``: ``llm_message`` ``{role, content: [{type: text, text}]}``;
* ``ActionEvent``: ``thought`` (text parts), ``reasoning_content``, ``tool_name``,
  ``tool_call_id`` and ``action``, itself typed by ``kind`` (``TerminalAction`` or the older
  ``ExecuteBashAction`` with a ``command``; ``FileEditorAction``/``StrReplaceEditorAction``
  with ``command``, ``path``, ``old_str``, ``new_str``, ``file_text``, ``view_range``;
  ``FinishAction`` with a ``message``; ``ThinkAction`` with a ``thought``); ``action`` is
  null when the call could not be executed;
* ``ObservationEvent``: ``observation`` (``content`` text parts, or the older ``output``
  string; ``is_error`` or ``error``; a terminal's ``exit_code`` and ``metadata``
  ``{exit_code, working_dir}``), the ``action_id`` and ``tool_call_id`` it answers;
* ``AgentErrorEvent`` (``error``) and ``UserRejectObservation`` (``rejection_reason``)
  answer a call too;
* ``SystemPromptEvent``, ``ConversationStateUpdateEvent``, ``Condensation``,
  ``CondensationRequest``, ``CondensationSummaryEvent``, ``PauseEvent`` and other
  bookkeeping say how the conversation is kept, not what it did.

The SDK persists a conversation as a folder: ``base_state.json`` (the agent's settings and
state, no events) and ``events/event-<index>-<event id>.json``, one event per file. The same
events are also found saved together as a JSON list or as JSON Lines.

This module only reads fields; :mod:`.openhands` turns the events into items.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .textutil import parts_text
from .tools import ToolCall, describe_call, describe_file_call, describe_shell

EVENT_KINDS = frozenset({
    "MessageEvent", "ActionEvent", "ObservationEvent", "AgentErrorEvent",
    "UserRejectObservation", "SystemPromptEvent", "PauseEvent", "Condensation",
    "CondensationRequest", "CondensationSummaryEvent", "ConversationStateUpdateEvent",
    "ConversationErrorEvent", "TokenEvent",
})
# events that say how the conversation is kept, counted by kind, never kept
SDK_QUIET_KINDS = frozenset({
    "SystemPromptEvent", "PauseEvent", "Condensation", "CondensationRequest",
    "CondensationSummaryEvent", "ConversationStateUpdateEvent", "TokenEvent",
})
# observations of actions whose meaning the action already holds
SDK_QUIET_OBSERVATIONS = frozenset({"FinishObservation", "ThinkObservation"})
# ``event-00003-<id>.json`` in a conversation's ``events`` folder
EVENT_FILE = re.compile(r"\Aevent-(?P<index>\d{5,})-(?P<id>[^.]+)\.json\Z")
BASE_STATE = "base_state.json"


def is_sdk_event(value: Any) -> bool:
    """True for one V1 event: an object whose ``kind`` names an SDK event and which has a
    ``source`` (a V0 event has ``action`` or ``observation`` strings instead)."""
    return (isinstance(value, dict) and isinstance(value.get("kind"), str)
            and value["kind"] in EVENT_KINDS
            and isinstance(value.get("source"), str))


def is_base_state(name: str) -> bool:
    """True for a conversation folder's ``base_state.json`` (beside its ``events`` folder)."""
    path = Path(name)
    return path.name == BASE_STATE and (path.parent / "events").is_dir()


def conversation_of(name: str) -> str | None:
    """The conversation folder's name for a file of its ``events`` folder, else None."""
    path = Path(name)
    if EVENT_FILE.match(path.name) and path.parent.name == "events" and path.parent.parent.name:
        return path.parent.parent.name
    return None


def context_events(name: str, event: dict[str, Any]) -> list[dict[str, Any]]:
    """What the event file ``name`` needs from the files saved before it in its folder, oldest
    first: the user's first message (the goal), the first event reporting a working
    directory, and the action an observation answers (found by its id in the file name).
    Files that cannot be read are left out: each is reported when its own file is ingested."""
    path = Path(name)
    found = EVENT_FILE.match(path.name)
    if not found:
        return []
    before = sorted((int(match["index"]), sibling) for sibling in path.parent.glob("event-*.json")
                    if (match := EVENT_FILE.match(sibling.name))
                    and int(match["index"]) < int(found["index"]))
    chosen: dict[int, dict[str, Any]] = {}
    answered = event.get("action_id")
    for index, sibling in before:
        if isinstance(answered, str) and sibling.name.endswith(f"-{answered}.json"):
            read = _event_in(sibling)
            if read is not None:
                chosen[index] = read
    goal = cwd = False
    for index, sibling in before:  # usually a few files: the task is said first
        if goal and cwd:
            break
        read = _event_in(sibling)
        if read is None:
            continue
        if not goal and read["kind"] == "MessageEvent" and read.get("source") == "user":
            chosen[index], goal = read, True
        elif not cwd and working_dir(read):
            chosen[index], cwd = read, True
    return [chosen[index] for index in sorted(chosen)]


def _event_in(path: Path) -> dict[str, Any] | None:
    try:
        event = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return event if is_sdk_event(event) else None


def describe_action(tool: str, action: dict[str, Any], cwd: str,
                    editor_op: dict[str, str]) -> ToolCall:
    """What an ``ActionEvent``'s action does: a shell command, a file editor operation
    (``editor_op`` maps its ``command`` to ``read`` or ``write``, every other one edits) or
    another call, named after the tool the model called."""
    args = {key: value for key, value in action.items() if key not in ("kind", "summary")}
    name = tool or str(action.get("kind", "action"))
    command = args.get("command")
    if isinstance(args.get("path"), str) and isinstance(command, str):
        return describe_file_call(name, editor_op.get(command, "edit"), args, cwd)
    if isinstance(command, str) and re.search(r"Bash|Terminal", str(action.get("kind"))):
        return describe_shell(name, command, cwd)
    return describe_call(name, args, cwd)


def observation_result(observation: dict[str, Any]) -> tuple[str, bool]:
    """An observation's text and whether it failed: ``is_error`` (``error`` in older
    releases), or a command's exit code other than 0 (-1: still running, none read), kept
    as ``(exit code N)``."""
    text = parts_text(observation.get("content")) or parts_text(observation.get("output"))
    failed = observation.get("is_error") is True or observation.get("error") is True
    code = observation.get("exit_code")
    metadata = observation.get("metadata")
    if code is None and isinstance(metadata, dict):
        code = metadata.get("exit_code")
    if isinstance(code, int) and not isinstance(code, bool) and code not in (0, -1):
        failed = True
        text = f"{text}\n(exit code {code})".strip()
    return text, failed


def working_dir(event: Any) -> str:
    """The working directory an observation reports (``metadata.working_dir``), or ""."""
    observation = event.get("observation") if isinstance(event, dict) else None
    metadata = observation.get("metadata") if isinstance(observation, dict) else None
    found = metadata.get("working_dir") if isinstance(metadata, dict) else None
    return found if isinstance(found, str) else ""
