"""OpenHands runs: the event stream a run saved, and the evaluation harness's ``output.jsonl``.

OpenHands records a run as a stream of events. Each is a JSON object with ``id``,
``timestamp`` (ISO 8601), ``source`` (``user``, ``agent`` or ``environment``) and ``message``,
and either ``action`` with its ``args`` or ``observation`` with its ``content`` and ``extras``;
an observation's ``cause`` is the ``id`` of the action it answers, and ``tool_call_metadata``
(``function_name``, ``tool_call_id``, the model's ``model_response``) names the function call
behind an action. Two files hold such streams:

* the file ``--save-trajectory-path`` writes: a JSON list of events, one session named after
  the file;
* the evaluation harness's ``output.jsonl``: one run per line, ``{"instance_id",
  "instruction", "history", "test_result": {"git_patch"}, "metadata", "metrics", "error"}``
  (also such a run alone, or a JSON list of them); each run is a session named by its
  ``instance_id``. Older harnesses wrote the history as ``[action, observation]`` pairs.

What each event becomes:

* the first user message (``source: user``, action ``message``) is the task: the user goal,
  without the SWE-bench template around the issue (``<issue_description>``); a run whose
  history has no user message takes its ``instruction``. A later user message is a goal or a
  turn as in every format, except the harness's stock "Please continue working on the task"
  reply, a turn;
* agent ``message`` and ``think`` actions, and the ``thought`` any action carries, are
  conclusions (or turns, for narration); ``finish`` (its ``final_thought`` and ``outputs``)
  and ``reject`` (its reason) are conclusions;
* ``run`` (a shell command) and ``run_ipython`` are calls that label the observation answering
  them; a command that obviously touches a file is a file operation too. A ``run``
  observation's exit code (``extras.metadata.exit_code``, or ``extras.exit_code`` in older
  runs; -1 means none was read) is kept as ``(exit code N)`` when it is not 0, and makes the
  output an error; an ``error`` observation is an error;
* ``read``, ``write`` and ``edit`` are file operations with what changed: the old and new text
  of a ``str_replace``, the start of a written or created file, the lines read. An edit whose
  ``args`` lack the editor's arguments (older runs kept only the path) takes them from the
  function call in ``tool_call_metadata``. What they return is counted, not kept, as for
  every file tool;
* ``browse``/``browse_interactive``, ``delegate``, MCP calls and any other action are calls;
  their observations are tool results (an ``extras.error`` makes a browse an error);
* ``system`` (the system prompt), ``recall`` (workspace and microagent context),
  ``agent_state_changed``, ``null``, ``change_agent_state``, condensation events, the
  acknowledgement of a ``think`` and hidden commands are counted by type, not kept;
* ``test_result.git_patch``, the patch the run produced: a tool result labelled
  ``$ submit (git_patch)``, or ``(no patch submitted)`` when it is empty; the run's ``error``
  (why the harness stopped it) is an error.

OpenHands V1 (the software-agent-sdk) keeps a conversation as events typed by ``kind``
(:mod:`.openhands_sdk` reads their fields): a JSON list or JSON Lines of them is read as one
session named after the file; a conversation folder holds one event per file
(``events/event-<n>-<id>.json``), each read alone as an event of the conversation named by the
folder, its goal, working directory and the action it answers read from the files before it.

An action no observation answers (a run that died mid-command) is kept as a call without its
result (:mod:`.open_calls`), except in an ``events`` folder, where its observation would be a
later file's.

Times come from ``timestamp``; the working directory a command reports
(``extras.metadata.working_dir``) makes paths relative. Pointers read ``<file>#/<i>`` (a list
of events), ``<file>:<line>#/history/<i>`` (a run on a line of ``output.jsonl``;
``/history/<i>/<0|1>`` for a pair), ``<file>#/history/<i>`` (one run), ``<file>:<line>#`` (an
SDK event on a line) or ``<file>#`` (an SDK event file, the whole of it).
"""

from __future__ import annotations

import json
import re
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
from .jsonlines import json_document, json_units, strip_document_envelopes
from .open_calls import OpenCalls
from .openhands_sdk import (
    SDK_QUIET_KINDS,
    SDK_QUIET_OBSERVATIONS,
    context_events,
    conversation_of,
    describe_action,
    is_base_state,
    is_sdk_event,
    observation_result,
    working_dir,
)
from .source import Source, fail
from .textutil import parts_text
from .tools import (
    ToolCall,
    describe_call,
    describe_file_call,
    describe_function,
    describe_shell,
    function_arguments,
)
from .trajectory import submitted_text, task_statement

# Events that say how the run is kept, not what it did: counted by type, never kept.
_QUIET_ACTIONS = frozenset({
    "system", "recall", "change_agent_state", "null", "condensation", "condensation_request",
    "pause", "resume", "stop",
})
_QUIET_OBSERVATIONS = frozenset({
    "agent_state_changed", "null", "recall", "think", "condense", "microagent",
    "workspace_context", "system",
})
_FILE_ACTIONS = {"read": "read", "write": "write", "edit": "edit"}
_EDITOR_COMMANDS = {"view": "read", "create": "write"}  # every other editor command edits
# the editor's own arguments, which older runs kept only in the function call
_EDITOR_ARGS = ("command", "file_text", "old_str", "new_str", "insert_line", "view_range")
# the harness's stock reply when the agent stops to talk (SWE-bench's fake user)
_CONTINUE = re.compile(r"\A\s*Please continue working on the task\b")
_INTERPRETER_LINE = re.compile(r"\n?\[Python [Ii]nterpreter: [^\n]*\]\s*\Z")


def is_openhands_event(value: Any) -> bool:
    """True for one OpenHands event: an ``action`` with its ``args``, or an ``observation``
    with its ``content`` or ``extras``."""
    if not isinstance(value, dict) or "role" in value:
        return False
    if isinstance(value.get("action"), str):
        return isinstance(value.get("args"), dict)
    return isinstance(value.get("observation"), str) and ("content" in value or "extras" in value)


def is_event_list(document: Any) -> bool:
    """True for a saved OpenHands trajectory: a JSON list whose first entries are events
    (V0's, or the SDK's typed by ``kind``)."""
    return isinstance(document, list) and any(is_openhands_event(e) or is_sdk_event(e)
                                              for e in document[:5])


def is_openhands_run(value: Any) -> bool:
    """True for a run of the evaluation harness (a line of ``output.jsonl``): an object whose
    ``history`` holds events or ``[action, observation]`` pairs, or one with an
    ``instance_id``, a ``history`` list and a ``test_result`` (a run stopped before it
    began has an empty history)."""
    if not isinstance(value, dict):
        return False
    history = value.get("history")
    if not isinstance(history, list):
        return False
    if any(is_openhands_event(e) or _is_pair(e) for e in history[:5]):
        return True
    return not history and "instance_id" in value and isinstance(value.get("test_result"), dict)


def is_openhands(document: Any) -> bool:
    """True for an OpenHands file's document: a list of events, a run, a list of runs, or
    one SDK event (a file of a conversation's ``events`` folder)."""
    if is_event_list(document) or is_openhands_run(document) or is_sdk_event(document):
        return True
    return isinstance(document, list) and bool(document[:1]) and is_openhands_run(document[0])


class OpenHandsParser:
    """Parses OpenHands event streams and evaluation outputs into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session
        self.session = default_session
        self.cwd = ""
        self.time = ""
        self.record_no = 0  # the line of output.jsonl, else the event's number
        self.by_line = False
        self.call: ToolCall | None = None  # the last call, which the next observation answers
        self.calls: dict[Any, ToolCall] = {}  # calls by event id and by tool call id
        self.open_calls = OpenCalls()  # calls no observation has answered yet, by identity
        self.call_keys: dict[Any, str] = {}  # event id or tool call id -> the call's identity
        self.last_key = ""  # the identity of the last call (self.call)
        self.has_task = False
        self.goal: str | None = None  # the goal of an event file's conversation, read before it

    def parse(self, source: Source) -> int:
        """Read every run of the file; return how many events (and run fields) were read."""
        if is_base_state(source.name):  # the conversation's settings: its events say what it did
            self.collector.records_read += 1
            self.collector.ignore("base_state")
            return 1
        document = json_document(source)
        if is_sdk_event(document):
            return self._event_file(source, document)
        if is_event_list(document):
            strip_document_envelopes(source, self.collector, document)
            self._begin(self.default_session, document)
            read = self._run(document, f"{source.pointer_base}#")
            self.open_calls.remember()
            return read
        if document is not None and not is_openhands(document):
            raise fail(source.name, "not an OpenHands run (no list of events, no \"history\")")
        read = 0
        events = []  # JSON Lines of SDK events: one session named after the file, read whole
        for number, run, prefix, by_line in json_units(
            source, self.collector, lambda v: is_openhands_run(v) or is_sdk_event(v),
            "an OpenHands run or event"
        ):
            self.record_no, self.by_line = number, by_line
            if is_sdk_event(run):
                events.append((number, run, prefix))
                continue
            instance = run.get("instance_id")
            session = instance.strip() if isinstance(instance, str) and instance.strip() \
                else self.default_session
            read += self._output(run, prefix, session)
        if events:
            self._begin(self.default_session, [event for _, event, _ in events])
            for number, event, prefix in events:
                self.record_no = number
                read += self._event(event, number - 1, prefix, str(number - 1))
            self.open_calls.remember()
        return read

    def _event_file(self, source: Source, event: dict[str, Any]) -> int:
        """One event of a conversation's ``events`` folder: its session is the conversation,
        and the events saved before it give its goal and the call an observation answers."""
        strip_document_envelopes(source, self.collector, event)
        session = conversation_of(source.name) or self.default_session
        earlier = context_events(source.name, event)
        self._begin(session, [*earlier, event])
        if earlier:  # read apart: their items are their own files'
            context = OpenHandsParser(ItemCollector("openhands"), session)
            context._begin(session, earlier)
            for index, before in enumerate(earlier):
                if before["kind"] != "ObservationEvent":
                    context._event(before, index, "", str(index))
            self.calls, self.has_task = context.calls, context.has_task
            self.goal = context.collector.goal(session) or None
        # An action's observation is saved in a later file: its call is not cut off (no
        # open_calls.remember() here).
        return self._event(event, 0, f"{source.pointer_base}#", "0")

    def _output(self, run: dict[str, Any], prefix: str, session: str) -> int:
        """One run of the evaluation harness: its history, then its patch and its error."""
        history = run["history"]
        instruction = run.get("instruction")
        self._begin(session, history)
        read = 0
        if isinstance(instruction, str) and not any(_is_user_message(e) for e in _events(history)):
            self._task(instruction, f"{prefix}/instruction", "i")
            read += 1
        read += self._run(history, f"{prefix}/history")
        self.open_calls.remember()
        result = run.get("test_result")
        if isinstance(result, dict) and "git_patch" in result:
            patch = submitted_text(result.get("git_patch"))
            call = ToolCall("submit", "", "", "$ submit (git_patch)")
            self._add("tool_result", "tool", output_text(call, patch or "(no patch submitted)",
                                                         "tool_result"),
                      f"{prefix}/test_result/git_patch", "s", links=(("tool", "submit"),))
            read += 1
        error = run.get("error")
        if isinstance(error, str) and error.strip():
            self._add("error", "system", message_text(clean_message(error)), f"{prefix}/error",
                      "x")
            read += 1
        return read

    def _begin(self, session: str, events: list[Any]) -> None:
        """Start a run: its session, no calls yet, the working directory it reports."""
        self.session, self.call, self.calls, self.has_task = session, None, {}, False
        self.open_calls, self.call_keys, self.last_key = OpenCalls(), {}, ""
        self.goal = None
        self.cwd, self.time = _first_working_dir(events), ""

    def _run(self, events: list[Any], base: str) -> int:
        """Read a list of events (or of ``[action, observation]`` pairs)."""
        read = 0
        for index, entry in enumerate(events):
            if _is_pair(entry):
                for half, event in enumerate(entry):
                    read += self._event(event, index, f"{base}/{index}/{half}", f"{index}.{half}")
            else:
                read += self._event(entry, index, f"{base}/{index}", str(index))
        return read

    def _event(self, event: Any, index: int, pointer: str, identity: str) -> int:
        if not self.by_line:
            self.collector.records_read += 1
            self.record_no = index + 1
        if not is_openhands_event(event) and not is_sdk_event(event):
            self.collector.skip(self.record_no, f"event {identity} is not an OpenHands action "
                                                f"or observation")
            return 0
        stamp = event.get("timestamp")
        self.time = self.collector.time(self.record_no, stamp) if stamp else ""
        if is_sdk_event(event):
            if isinstance(event.get("id"), str) and event["id"]:
                identity = event["id"]  # event files are read one at a time: the id is unique
            self._sdk_event(event, pointer, identity)
        elif isinstance(event.get("action"), str):
            self._action(event, pointer, identity)
        else:
            self._observation(event, pointer, identity)
        return 1

    # -- actions -----------------------------------------------------------------------------

    def _action(self, event: dict[str, Any], pointer: str, identity: str) -> None:
        action, args, source = event["action"], event["args"], event.get("source")
        hidden = args.get("hidden") is True
        if action in _QUIET_ACTIONS or hidden:
            self.collector.ignore("hidden" if hidden else action)
            return
        if action == "message" and source == "user":
            self._user_message(_string(args.get("content")), pointer, identity)
            return
        if isinstance(args.get("reasoning_content"), str) and args["reasoning_content"]:
            self.collector.ignore("thinking")
        thought = clean_message(_string(args.get("thought")))
        said = self._assistant(thought, pointer, f"t{identity}")
        if action == "message":
            said = self._assistant(clean_message(_string(args.get("content"))), pointer,
                                   f"m{identity}") or said
        elif action in ("finish", "reject"):
            ending = _ending(action, args)
            if ending and ending != thought:
                said = self._assistant(ending, pointer, f"f{identity}") or said
        elif action != "think":  # a thought alone; every other action is a call
            self._called(self._call(action, args, event), (event.get("id"),
                                                             _tool_call_id(event)),
                         pointer, identity)
            return
        if not said:
            self.collector.no_item(thought)

    def _called(self, call: ToolCall, keys: tuple[Any, ...], pointer: str,
                identity: str) -> None:
        """Remember a call for the observation that answers it (by event id and tool call
        id); a file operation is an item of its own, with what changed."""
        self.call, self.last_key = call, identity
        for key in keys:
            if _is_key(key):
                self.calls[key] = call
                self.call_keys[key] = identity
        goal = self.goal if self.goal is not None else self.collector.goal(self.session)
        self.open_calls.open(identity, call, partial(self._unanswered, pointer, f"n{identity}",
                                                     self.record_no, self.time, goal))
        if call.is_file_op:
            self._add("file_op", "assistant", call.file_op_text(), pointer, f"a{identity}",
                      links=call.file_op_links, mentions_in=call.detail)

    def _user_message(self, content: str, pointer: str, identity: str) -> None:
        if not self.has_task:
            self._task(content, pointer, f"u{identity}")
            return
        text = clean_message(content)
        kind = "turn" if _CONTINUE.match(text) else user_message_kind(
            text, goal=self.collector.goal(self.session))
        if kind is None:
            self.collector.no_item(text)
        else:
            self._add(kind, "user", message_text(text), pointer, f"u{identity}",
                      sets_goal=kind == "user_goal")

    def _task(self, content: str, pointer: str, identity: str) -> None:
        text = clean_message(task_statement(content))
        kind = user_message_kind(text)
        if kind is None:
            self.collector.no_item(text)
            return
        self.has_task = kind == "user_goal"
        self._add(kind, "user", message_text(text), pointer, identity, sets_goal=self.has_task)

    def _assistant(self, text: str, pointer: str, identity: str) -> bool:
        kind = assistant_text_kind(text)
        if kind is not None:
            self._add(kind, "assistant", message_text(text), pointer, identity)
        return kind is not None

    def _call(self, action: str, args: dict[str, Any], event: dict[str, Any]) -> ToolCall:
        """What an action does, named after the function the model called when the event says
        (``execute_bash``, ``str_replace_editor``), else after the action."""
        metadata = event.get("tool_call_metadata")
        function = metadata.get("function_name") if isinstance(metadata, dict) else None
        name = function if isinstance(function, str) and function else action
        if action == "run":
            return describe_shell(name, _string(args.get("command")), self.cwd)
        if action in _FILE_ACTIONS:
            if action == "edit":
                args = {**_function_arguments(event), **_present(args)}
            op = _FILE_ACTIONS[action]
            command = args.get("command")
            if action == "edit" and isinstance(command, str) and command:
                op = _EDITOR_COMMANDS.get(command, "edit")
            if action == "read" and "view_range" not in args:
                args = {**args, "view_range": _line_range(args)}
            return describe_file_call(name, op, args, self.cwd)
        if action == "mcp" and isinstance(args.get("name"), str):
            found = describe_function({"name": args["name"], "arguments": args.get("arguments")},
                                      self.cwd)
            if found is not None:
                return found
        if action == "run_ipython":
            code = _string(args.get("code")).strip()
            return ToolCall(name, "", "", f">>> {code.splitlines()[0] if code else ''}"[:200])
        return describe_call(name, {k: v for k, v in args.items() if k != "thought"}, self.cwd)

    # -- observations ------------------------------------------------------------------------

    def _observation(self, event: dict[str, Any], pointer: str, identity: str) -> None:
        observation = event["observation"]
        extras = event.get("extras") if isinstance(event.get("extras"), dict) else {}
        if observation in _QUIET_OBSERVATIONS or extras.get("hidden") is True:
            self.collector.ignore("hidden" if extras.get("hidden") is True else observation)
            self._quietly_answered((event.get("cause"), _tool_call_id(event)))
            return
        call = self._answered((event.get("cause"), _tool_call_id(event)))
        text = clean_message(_INTERPRETER_LINE.sub("", _string(event.get("content"))))
        failed = observation == "error" or extras.get("error") is True
        if observation == "run":
            metadata = extras.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            code = extras.get("exit_code") if code is None else code
            if isinstance(code, int) and not isinstance(code, bool) and code not in (0, -1):
                failed = True
                text = f"{text}\n(exit code {code})".strip()
        self._output_item(call, text, failed, pointer, identity)

    def _answered(self, keys: tuple[Any, ...]) -> ToolCall | None:
        """The call an observation answers: the one its keys name, else the last one."""
        named = self._named(keys)
        call = self.calls[named] if named is not None else self.call
        self.open_calls.close(self.call_keys.get(named) if named is not None else self.last_key)
        self.call = None
        return call

    def _named(self, keys: tuple[Any, ...]) -> Any:
        """The first of an observation's keys that names a call read before, or None."""
        return next((key for key in keys if _is_key(key) and key in self.calls), None)

    def _quietly_answered(self, keys: tuple[Any, ...]) -> None:
        """An observation that makes no item answers the call its keys name, if any (the
        last call still waits for the observation that says what it did)."""
        named = self._named(keys)
        if named is not None:
            self.open_calls.close(self.call_keys.get(named))

    def _unanswered(self, pointer: str, identity: str, record_no: int, time: str, goal: str,
                    text: L0Text, links: tuple[tuple[str, str], ...]) -> None:
        """The item of a call no observation answered (:mod:`.open_calls`), at the call."""
        self.collector.add(record_no=record_no, session=self.session, kind="tool_result",
                           role="tool", identity=identity, text=text, time=time,
                           pointer=pointer, cwd=self.cwd, links=links, goal=goal)

    def _output_item(self, call: ToolCall | None, text: str, failed: bool, pointer: str,
                     identity: str) -> None:
        """What a call returned: an error, a tool result labelled by the call, or noise."""
        kind = tool_output_kind(call, text, failed)
        if kind is None:
            self.collector.no_item(text, call)
            return
        links = (("tool", call.name),) if call is not None else ()
        self._add(kind, "tool", output_text(call, text, kind), pointer, f"o{identity}",
                  links=links)

    # -- OpenHands V1 (the SDK's events, typed by kind) --------------------------------------

    def _sdk_event(self, event: dict[str, Any], pointer: str, identity: str) -> None:
        kind = event["kind"]
        if kind in SDK_QUIET_KINDS:
            self.collector.ignore(kind)
        elif kind == "MessageEvent":
            message = event.get("llm_message")
            message = message if isinstance(message, dict) else {}
            text = parts_text(message.get("content"))
            self.collector.parts_left_out(self.record_no, message.get("content"))  # images ...
            if message.get("role", event.get("source")) == "user":
                self._user_message(text, pointer, identity)
            elif not self._assistant(clean_message(text), pointer, f"m{identity}"):
                self.collector.no_item(text)
        elif kind == "ActionEvent":
            self._sdk_action(event, pointer, identity)
        elif kind == "ObservationEvent":
            observation = event.get("observation")
            observation = observation if isinstance(observation, dict) else {}
            call = self._answered((event.get("action_id"), event.get("tool_call_id")))
            if isinstance(observation.get("kind"), str) \
                    and observation["kind"] in SDK_QUIET_OBSERVATIONS:
                self.collector.ignore(str(observation["kind"]))
                return
            text, failed = observation_result(observation)
            self._output_item(call, clean_message(text), failed, pointer, identity)
        elif kind == "AgentErrorEvent":
            call = self._answered((event.get("tool_call_id"),))
            self._output_item(call, clean_message(_string(event.get("error"))), True, pointer,
                              identity)
        elif kind == "UserRejectObservation":
            call = self._answered((event.get("action_id"), event.get("tool_call_id")))
            reason = clean_message(_string(event.get("rejection_reason")))
            self._output_item(call, f"{reason}\n(action rejected)".strip(), False, pointer,
                              identity)
        else:
            self.collector.ignore(kind)

    def _sdk_action(self, event: dict[str, Any], pointer: str, identity: str) -> None:
        """A tool call with the thought before it: ``FinishAction``'s message and
        ``ThinkAction``'s thought are conclusions, every other action a call."""
        if isinstance(event.get("reasoning_content"), str) and event["reasoning_content"]:
            self.collector.ignore("thinking")
        thought = clean_message(parts_text(event.get("thought")))
        said = self._assistant(thought, pointer, f"t{identity}")
        action = event.get("action")
        kind = action.get("kind") if isinstance(action, dict) else None
        if kind in ("FinishAction", "ThinkAction"):
            ending = clean_message(_string(action.get("message" if kind == "FinishAction"
                                                      else "thought")))
            if ending and ending != thought:
                said = self._assistant(ending, pointer, f"f{identity}") or said
        elif isinstance(action, dict):
            tool = event.get("tool_name")
            call = describe_action(tool if isinstance(tool, str) else "", action, self.cwd,
                                   _EDITOR_COMMANDS)
            self._called(call, (event.get("id"), event.get("tool_call_id")), pointer, identity)
            return
        if not said:
            self.collector.no_item(thought)

    def _add(self, kind: str, role: str, text: str | L0Text, pointer: str, identity: str,
             **extra: Any) -> None:
        if self.goal is not None and not extra.get("sets_goal"):
            extra.setdefault("goal", self.goal)
        elif extra.get("sets_goal"):
            self.goal = None  # a new goal in this file: the collector's own goal from here on
        self.collector.add(record_no=self.record_no, session=self.session, kind=kind, role=role,
                           identity=identity, text=text, time=self.time, pointer=pointer,
                           cwd=self.cwd, **extra)


def _is_key(value: Any) -> bool:
    """An event id or tool call id that can name a call."""
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _is_pair(value: Any) -> bool:
    """An ``[action, observation]`` pair, as older evaluation outputs wrote the history."""
    return isinstance(value, list) and len(value) == 2 and is_openhands_event(value[0])


def _events(history: list[Any]) -> list[Any]:
    """The events of a history, its pairs opened."""
    events: list[Any] = []
    for entry in history:
        events.extend(entry if _is_pair(entry) else (entry,))
    return events


def _is_user_message(event: Any) -> bool:
    return (isinstance(event, dict) and event.get("action") == "message"
            and event.get("source") == "user")


def _ending(action: str, args: dict[str, Any]) -> str:
    """What a ``finish`` says (``final_thought``, then what ``outputs`` hold) or why a
    ``reject`` gave up."""
    outputs = args.get("outputs")
    parts = [_string(args.get("final_thought"))]
    if isinstance(outputs, dict) and outputs:
        said = outputs.get("content", outputs.get("reason"))
        parts.append(said if isinstance(said, str) else json.dumps(outputs, ensure_ascii=False,
                                                                    default=str))
    text = clean_message("\n\n".join(part for part in parts if part.strip()))
    return f"Rejected: {text}" if action == "reject" and text else text


def _tool_call_id(event: dict[str, Any]) -> Any:
    metadata = event.get("tool_call_metadata")
    return metadata.get("tool_call_id") if isinstance(metadata, dict) else None


def _function_arguments(event: dict[str, Any]) -> dict[str, Any]:
    """The editor arguments of the function call behind an action, from the model's response
    in ``tool_call_metadata`` (older runs kept only the path in ``args``)."""
    metadata = event.get("tool_call_metadata")
    response = metadata.get("model_response") if isinstance(metadata, dict) else None
    choices = response.get("choices") if isinstance(response, dict) else None
    wanted = _tool_call_id(event)
    for choice in choices if isinstance(choices, list) else ():
        message = choice.get("message") if isinstance(choice, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and call.get("id") == wanted:
                arguments = function_arguments(function)
                return {key: arguments[key] for key in _EDITOR_ARGS if key in arguments}
    return {}


def _present(args: dict[str, Any]) -> dict[str, Any]:
    """The arguments that say something: an LLM-based edit's unused fields (``""``, None)
    must not hide what the function call gives."""
    return {key: value for key, value in args.items() if value not in ("", None)}


def _line_range(args: dict[str, Any]) -> list[int] | None:
    """A read's ``start``/``end`` (0 and -1: the whole file) as a view range, or None."""
    start, end = args.get("start"), args.get("end")
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (start, end)):
        return None
    return None if (start, end) in ((0, -1), (1, -1)) else [start, end]


def _first_working_dir(events: list[Any]) -> str:
    """The working directory the first command reported, to make earlier paths relative."""
    for event in _events(events):
        if working_dir(event):
            return working_dir(event)
        extras = event.get("extras") if isinstance(event, dict) else None
        metadata = extras.get("metadata") if isinstance(extras, dict) else None
        found = metadata.get("working_dir") if isinstance(metadata, dict) else None
        if isinstance(found, str) and found:
            return found
    return ""
