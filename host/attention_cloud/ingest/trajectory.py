"""Agent trajectories: SWE-agent's ``.traj`` files and the same shape from other harnesses.

A trajectory is one JSON object with ``history`` (the messages the model saw: ``role``,
``content``, and on assistant messages ``thought`` and ``action``; flags ``is_demo`` and
``message_type``) and/or ``trajectory`` (one step per action: ``thought``, ``action``,
``observation``, ``state``), plus ``environment`` and ``info``. It is one session, named after
the file.

mini-swe-agent's ``.traj.json`` is read the same way: ``{"info", "messages",
"trajectory_format"}``, the messages in the shape of the history; older releases saved the
messages alone, a JSON list, read as a trajectory only when its marks are unmistakable (a shell
block in an assistant message and a ``<returncode>`` user message; otherwise it is a chat).

The environment speaks as role ``user``: after the task, every user message is an observation
(the output of the last action), so it is a tool result or an error (a traceback, a failing
test), never a user goal. What is read:

* ``system`` messages: a system turn;
* demonstrations (``is_demo``: a worked example of another task) are counted as
  ``demonstration`` and not kept;
* the first user message is the task (SWE-agent 1.x types it ``observation`` like the
  environment's messages): the user goal. The template around the issue (SWE-agent's
  ``ISSUE:`` ... ``INSTRUCTIONS:`` or ``<pr_description>``, mini-swe-agent's
  ``Please solve this issue:`` or ``<pr_description>`` with ``Consider the following PR
  description:``) is cut away, so the goal is the issue itself;
* assistant messages (and a Responses API reply, ``output``: its ``message`` text and
  ``function_call`` items): the thought is a conclusion (or a turn, for narration); the model's
  reasoning (``thinking_blocks``, ``reasoning_content``, ``reasoning`` items) is counted as
  ``thinking``; the action (``action``, the function calls of ``tool_calls``, or
  mini-swe-agent's shell block, fenced or in ``<mswea_bash_command>`` tags) is a file
  operation when it is one (``open``/``create``/``edit N:M`` of SWE-agent's editor,
  ``str_replace_editor view|create|str_replace|insert``, shell commands that obviously touch a
  file), otherwise a call that labels the observation after it (``$ python reproduce.py``);
* later user messages, ``tool`` messages, ``function_call_output`` items and messages of
  ``message_type`` ``observation``: the observation (answering the call its ``tool_call_ids``,
  ``tool_call_id`` or ``call_id`` names, else the last action), without SWE-agent's
  ``(Open file: …)``/``(Current directory: …)`` footer or the ``OBSERVATION:`` line 1.x puts
  before it; mini-swe-agent's ``<returncode>N</returncode><output>…</output>`` is unwrapped
  (an ``<exception>`` before it is kept), and a non-zero exit code (kept as
  ``(exit code N)``) makes it an error;
* ``info.submission``, the patch the agent submitted: a tool result labelled with
  ``info.exit_status`` (the history ends before it); mini-swe-agent 2.x's last message (role
  ``exit``) holds them again in its ``extra``, read when ``info`` lacks them, and is counted
  as ``exit``. A run that submitted nothing (``submission`` null or empty) keeps its exit
  status (``$ submit (exit_cost)`` / ``(no patch submitted)``): why it ended is the news.

A file with ``history`` reads it and counts the ``trajectory`` steps (the same steps again) as
``trajectory-step``; a file with only ``trajectory`` reads the steps (no task statement, so no
goal). The working directory (a step's ``state``, or the footer) makes paths relative.
SWE-agent's retry loop writes every run in ``attempts`` (each with its own history, steps and
info) and copies the one it chose (``info.best_attempt_idx``) to the top: that copy is counted
as ``attempt``, and every other attempt is read as a session of its own, ``<session>/attempt-<n>``,
so the approaches that failed are kept. SWE-agent writes no times; mini-swe-agent 2.x's
``extra.timestamp`` (seconds since 1970) is the message's time. Pointers read
``<file>#/history/<i>``, ``<file>#/trajectory/<i>`` or ``<file>#/attempts/<n>/history/<i>``.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
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
from .entities import relative_path
from .jsonlines import json_document, strip_document_envelopes
from .source import Source, fail
from .textutil import parts_text
from .tools import ToolCall, describe_call, describe_function

_FOOTER = re.compile(
    r"\s*\(Open file: (?P<file>[^\n]*)\)\s*\(Current directory: (?P<cwd>[^\n]*)\)\s*(?:bash-\$\s*)?\Z"
)
# SWE-agent 1.x's next-step template puts this line before every observation
_OBSERVATION_LABEL = re.compile(r"\A\s*OBSERVATION:[ \t]*\n?")
# mini-swe-agent's observation template: the exit code, then the output
_RETURNCODE = re.compile(r"<returncode>\s*(?P<code>-?\d+)\s*</returncode>\s*")
_OUTPUT = re.compile(r"\A<output>\n?(?P<output>.*?)\n?</output>\s*\Z", re.DOTALL)
_ISSUE = re.compile(r"\bISSUE:\s*\n(?P<issue>.*?)(?:\n\s*INSTRUCTIONS:|\Z)", re.DOTALL)
_PR_DESCRIPTION = re.compile(r"<pr_description>\s*(?:Consider the following PR description:\s*)?"
                             r"(?P<issue>.*?)\s*(?:</pr_description>|\Z)", re.DOTALL)
# OpenHands' SWE-bench template: <uploaded_files>, a line on the repository, then the issue
_ISSUE_DESCRIPTION = re.compile(r"<issue_description>\s*(?P<issue>.*?)\s*"
                                r"(?:</issue_description>|\Z)", re.DOTALL)
_MINI_TASK = re.compile(r"\A\s*Please solve this issue:\s*(?P<issue>.*?)"
                        r"(?:\n\s*\nYou can execute bash commands|\Z)", re.DOTALL)
_ACTION_FENCE = re.compile(r"\n*```[^\n]*\n.*?```\s*\Z", re.DOTALL)
# mini-swe-agent's action: the one shell block of the reply (```bash, or ```mswea_bash_command
# from 2.0 on, or its XML form <mswea_bash_command>...</mswea_bash_command>)
_SHELL_BLOCK = re.compile(r"\n*(?:```(?:bash|sh|mswea_bash_command)[ \t]*\n(?P<action>.*?)\n?```"
                          r"|<mswea_bash_command>\s*(?P<tagged>.*?)\s*</mswea_bash_command>)",
                          re.DOTALL)
_THOUGHT_LABEL = re.compile(r"\A\s*(?:THOUGHT|DISCUSSION):[ \t]*")
_EDIT = re.compile(r"edit\s+(?P<start>\d+):(?P<end>\d+)\s*\n(?P<text>.*?)(?:\nend_of_edit\s*)?\Z",
                   re.DOTALL)
_EDITOR_OPS = {"view": "read", "create": "write", "str_replace": "edit", "insert": "edit",
               "undo_edit": "edit"}
_NEW_TEXT_CHARS = 240
# shlex takes time quadratic in a token's length (a 1 MB line: 17 s); a command line longer
# than this is split on whitespace instead.
_SHLEX_MAX_CHARS = 10_000


def is_bare_messages(document: Any) -> bool:
    """True for the messages of an older mini-swe-agent run saved alone (a JSON list): role
    messages among whose first ones an assistant message holds a shell block and a user
    message a ``<returncode>``; a chat that only mentions either stays a chat."""
    if not isinstance(document, list):
        return False
    head = [m for m in document[:20] if isinstance(m, dict) and isinstance(m.get("content"), str)]
    return any(m.get("role") == "assistant" and _SHELL_BLOCK.search(m["content"])
               for m in head) and any(
        m.get("role") == "user" and _RETURNCODE.match(m["content"].lstrip()) for m in head)


def is_trajectory(document: Any) -> bool:
    """True for an agent trajectory: an object with a ``history`` of role messages that has
    SWE-agent's marks (``action``, ``agent``, ``is_demo``, ``message_type``, or a
    ``trajectory`` beside it), a ``trajectory`` of steps with ``action`` and
    ``observation``, mini-swe-agent's ``messages`` with its ``trajectory_format`` or an
    ``info`` that holds ``exit_status`` or ``submission``, or ``attempts`` of such runs."""
    if isinstance(document, list):
        return is_bare_messages(document)
    if not isinstance(document, dict):
        return False
    attempts = document.get("attempts")  # SWE-agent's retry loop: one run per attempt
    if isinstance(attempts, list) and attempts[:1] and is_trajectory(attempts[0]):
        return True
    messages = document.get("messages")
    info = document.get("info")
    if isinstance(messages, list) and (
        isinstance(document.get("trajectory_format"), str)
        or (isinstance(info, dict) and {"exit_status", "submission"} & info.keys())
    ):
        return True
    history = document.get("history")
    if isinstance(history, list) and any(isinstance(m, dict) and "role" in m for m in history[:5]):
        if "trajectory" in document or any(
            isinstance(m, dict) and ({"action", "agent", "is_demo", "message_type"} & m.keys())
            for m in history[:20]
        ):
            return True
    steps = document.get("trajectory")
    return isinstance(steps, list) and any(
        isinstance(s, dict) and "action" in s and "observation" in s for s in steps[:5]
    )


def task_statement(text: str) -> str:
    """The issue inside the harness's task template (SWE-agent's ``ISSUE:`` …
    ``INSTRUCTIONS:``, ``<pr_description>``, OpenHands' ``<issue_description>``,
    mini-swe-agent's ``Please solve this issue:``), or the whole text when it has no
    template."""
    for pattern in (_ISSUE, _PR_DESCRIPTION, _ISSUE_DESCRIPTION, _MINI_TASK):
        found = pattern.search(text)
        if found and found.group("issue").strip():
            return found.group("issue").strip()
    return text


class TrajectoryParser:
    """Parses one agent trajectory into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session
        self.base = ""
        self.cwd = ""
        self.open_file = ""  # SWE-agent's editor edits the file it has open
        self.call: ToolCall | None = None  # the last action, which the next observation answers
        self.calls: dict[str, ToolCall] = {}  # tool calls by id, for observations that name theirs
        self.has_task = False
        self.time = ""  # the message's time, where the harness writes one
        self.exit: tuple[dict[str, Any], str] | None = None  # mini-swe-agent's exit message

    def parse(self, source: Source) -> int:
        """Read the history (or the steps), and each attempt of a retry loop; return how many
        messages or steps were read."""
        document = json_document(source)
        if not is_trajectory(document):
            raise fail(source.name, 'not an agent trajectory (no "history" or "trajectory")')
        strip_document_envelopes(source, self.collector, document)
        if isinstance(document, list):
            return self._run(document, f"{source.pointer_base}#")
        read = self._run(document, f"{source.pointer_base}#") if _is_run(document) else 0
        attempts = document.get("attempts")
        info = document.get("info")
        best = info.get("best_attempt_idx") if isinstance(info, dict) else None
        session = self.session
        for number, attempt in enumerate(attempts if isinstance(attempts, list) else ()):
            if read and number == best:  # the run above is a copy of the attempt chosen
                self.collector.ignore("attempt")
            elif not isinstance(attempt, dict) or not _is_run(attempt):
                self.collector.skip(number + 1, f"attempt {number} is not an agent run")
            else:
                self.session = f"{session}/attempt-{number}"
                read += self._run(attempt, f"{source.pointer_base}#/attempts/{number}")
        self.session = session
        return read

    def _run(self, document: dict[str, Any] | list[Any], base: str) -> int:
        """Read one run: its history or steps, then its submission."""
        if isinstance(document, list):  # an older mini-swe-agent's messages saved alone
            self.base, self.open_file, self.call, self.calls = base, "", None, {}
            self.has_task, self.exit, self.time, self.cwd = False, None, "", ""
            return self._messages(document, "")
        self.base, self.open_file, self.call, self.calls = base, "", None, {}
        self.has_task, self.exit, self.time = False, None, ""
        steps = document.get("trajectory") if isinstance(document.get("trajectory"), list) else []
        self.cwd = _first_working_dir(steps)
        key = "history" if isinstance(document.get("history"), list) else "messages"
        history = document.get(key)
        if isinstance(history, list) and history:
            for _ in steps:
                self.collector.ignore("trajectory-step")
            read = self._messages(history, key)
            self._submission(document.get("info"), len(history))
            return read
        for index, step in enumerate(steps):
            self.collector.records_read += 1
            if not isinstance(step, dict):
                self.collector.skip(index + 1, f"step {index} is not a JSON object")
                continue
            pointer = f"{self.base}/trajectory/{index}"
            self._assistant(parts_text(step.get("thought")), parts_text(step.get("action")), index,
                            pointer)
            self._observation(parts_text(step.get("observation")), index, pointer, "o")
        self._submission(document.get("info"), len(steps))
        return len(steps)

    def _submission(self, info: Any, index: int) -> None:
        """The patch the agent submitted (``info.submission``, else the ``extra.submission``
        of mini-swe-agent's exit message), which the history does not show: a tool result
        labelled with the exit status."""
        sources = [(info, f"{self.base}/info/submission")]
        if self.exit is not None:
            sources.append((self.exit[0], f"{self.exit[1]}/extra/submission"))
        runs = [(found, pointer) for found, pointer in sources if isinstance(found, dict)]
        for found, pointer in runs:
            patch = submitted_text(found.get("submission"))
            if patch:
                break
        else:  # nothing submitted: how the run ended (out of budget, an error) is still news
            ended = [(found, pointer) for found, pointer in runs
                     if isinstance(found.get("exit_status"), str) and found["exit_status"]]
            if not ended:
                return
            found, pointer = ended[0]
            patch, pointer = "(no patch submitted)", pointer.replace("/submission", "/exit_status")
        status = found.get("exit_status")
        label = f"$ submit ({status})" if isinstance(status, str) and status else "$ submit"
        call = ToolCall("submit", "", "", label)
        self.call = None
        self._add(index, "tool_result", "tool", output_text(call, patch, "tool_result"),
                  pointer, "s", links=(("tool", "submit"),))

    def _messages(self, history: list[Any], key: str) -> int:
        """Read the messages found under ``key`` ("" for a list saved alone)."""
        for index, message in enumerate(history):
            self.collector.records_read += 1
            if not isinstance(message, dict):
                self.collector.skip(index + 1, f"message {index} is not a JSON object")
                continue
            self._message(message, index, key)
        return len(history)

    def _message(self, message: dict[str, Any], index: int, key: str) -> None:
        pointer = f"{self.base}/{key}/{index}" if key else f"{self.base}/{index}"
        extra = message.get("extra")  # mini-swe-agent 2.x: extra.timestamp, seconds since 1970
        stamp = extra.get("timestamp") if isinstance(extra, dict) else None
        self.time = self.collector.time(index + 1, stamp) if stamp else ""
        if message.get("is_demo") is True:
            self.collector.ignore("demonstration")
            return
        role = message.get("role")
        content = parts_text(message.get("content"))
        self.collector.parts_left_out(index + 1, message.get("content"))  # images ...
        if role is None and isinstance(message.get("output"), list):
            self._response(message["output"], index, pointer)
        elif role is None and message.get("type") == "function_call_output":
            self._observation(parts_text(message.get("output")), index, pointer, "m",
                              _answered_ids(message))
        elif role == "tool" or (self.has_task and message.get("message_type") == "observation"):
            self._observation(content, index, pointer, "m", _answered_ids(message))
        elif role == "system":
            text = clean_message(content)
            if text:
                self._add(index, "turn", "system", message_text(text), pointer, "m")
        elif role == "user":
            if self.has_task:
                self._observation(content, index, pointer, "m", _answered_ids(message))
                return
            # the task, even where SWE-agent 1.x types it ``observation`` as it does every
            # message of the environment
            text = clean_message(task_statement(content))
            kind = user_message_kind(text)
            if kind is None:
                self.collector.no_item(text)
            else:
                self.has_task = kind == "user_goal"
                self._add(index, kind, "user", message_text(text), pointer, "m",
                          sets_goal=self.has_task)
        elif role == "assistant":
            blocks = message.get("thinking_blocks")  # the model's reasoning: counted, not kept
            for _ in blocks if isinstance(blocks, list) else ():
                self.collector.ignore("thinking")
            if isinstance(message.get("reasoning_content"), str) and message["reasoning_content"]:
                self.collector.ignore("thinking")
            thought = message.get("thought")
            action = parts_text(message.get("action"))
            tool_calls = message.get("tool_calls")
            if not isinstance(thought, str):  # the content holds the thought, then the action
                thought = _ACTION_FENCE.sub("", content) if action else content
            if "action" not in message and not tool_calls:  # mini-swe-agent: the shell block
                block = _last_shell_block(content)
                if block is not None:
                    thought = content[: block.start()] + content[block.end():]
                    action = block.group("action") or block.group("tagged") or ""
            self._assistant(_THOUGHT_LABEL.sub("", thought), action, index, pointer, tool_calls)
        elif role == "exit":  # mini-swe-agent 2.x ends with the exit status and the submission
            extra = message.get("extra")
            self.exit = (extra if isinstance(extra, dict) else {}, pointer)
            self.collector.ignore("exit")
        else:
            self.collector.skip(index + 1, f"unknown role {role!r}")

    def _response(self, output: list[Any], index: int, pointer: str) -> None:
        """A reply from OpenAI's Responses API, as mini-swe-agent 2.x keeps it: the text of its
        ``message`` items, then its ``function_call`` items; reasoning items are counted as
        ``thinking``."""
        items = [item for item in output if isinstance(item, dict)]
        text = "\n\n".join(parts_text(item.get("content")) for item in items
                            if item.get("type") == "message")
        for item in items:
            if item.get("type") == "reasoning":
                self.collector.ignore("thinking")
        calls = [item for item in items if item.get("type") == "function_call"]
        self._assistant(_THOUGHT_LABEL.sub("", text), "", index, pointer, calls)

    def _assistant(self, thought: str, action: str, index: int, pointer: str,
                   tool_calls: Any = None) -> None:
        text = clean_message(thought)
        kind = assistant_text_kind(text)
        if kind is not None:
            self._add(index, kind, "assistant", message_text(text), pointer, "t")
        # a function call's arguments say more than the command line SWE-agent writes for it
        # (an edit's old and new text)
        calls = self._function_calls(tool_calls)
        if not calls and action.strip():
            calls = [self._describe(action.strip())]
        if not calls:
            if kind is None:
                self.collector.no_item(text)
            return
        self.call = calls[-1]
        for number, call in enumerate(calls):
            if call.is_file_op:
                self._add(index, "file_op", "assistant", call.file_op_text(), pointer,
                          f"a{number}." if number else "a",
                          links=call.file_op_links, mentions_in=call.detail)

    def _function_calls(self, tool_calls: Any) -> list[ToolCall]:
        """The calls of an assistant message's ``tool_calls`` (``{"id", "function": {"name",
        "arguments"}}``, or a Responses API ``function_call``, ``{"call_id", "name",
        "arguments"}``), remembered by id."""
        found: list[ToolCall] = []
        for entry in tool_calls if isinstance(tool_calls, list) else ():
            function = entry.get("function", entry) if isinstance(entry, dict) else None
            call = describe_function(function, self.cwd) if isinstance(function, dict) else None
            if call is None:
                continue
            if call.name in ("open", "create") and call.is_file_op:
                self.open_file = call.path  # the file SWE-agent's windowed editor edits next
            call_id = entry.get("call_id", entry.get("id"))
            if isinstance(call_id, str):
                self.calls[call_id] = call
            found.append(call)
        return found

    def _observation(self, raw: str, index: int, pointer: str, block: str,
                     answered: tuple[str, ...] = ()) -> None:
        footer = _FOOTER.search(raw)
        if footer:
            raw = raw[: footer.start()]
            opened = footer.group("file").strip()
            self.open_file = "" if opened in ("", "n/a") else opened
            self.cwd = self.cwd or footer.group("cwd").strip()
        call = next((self.calls[i] for i in answered if i in self.calls), self.call)
        self.call = None
        text = clean_message(_OBSERVATION_LABEL.sub("", raw, count=1))
        failed = False
        returncode = _RETURNCODE.search(text)  # after an <exception> line, if any
        if returncode:  # a command that exits non-zero failed, whatever it printed
            output = text[returncode.end():]
            inner = _OUTPUT.match(output)
            output = inner.group("output") if inner else output
            text = clean_message(f"{text[:returncode.start()].rstrip()}\n{output}")
            code = int(returncode.group("code"))
            if code != 0:
                failed = True
                text = f"{text}\n(exit code {code})".strip()
        kind = tool_output_kind(call, text, failed)
        if kind is None:
            self.collector.no_item(text, call)
            return
        links = (("tool", call.name),) if call is not None else ()
        self._add(index, kind, "tool", output_text(call, text, kind), pointer, block, links=links)

    def _describe(self, action: str) -> ToolCall:
        """What an action does: SWE-agent's editor commands, else a shell command."""
        first_line = action.split("\n", 1)[0]
        words = first_line.split()
        if len(first_line) <= _SHLEX_MAX_CHARS:
            with contextlib.suppress(ValueError):  # unbalanced quotes: split on whitespace
                words = shlex.split(first_line)
        command = words[0] if words else ""
        label = f"$ {first_line}"[:200]
        if command == "open" and len(words) > 1:
            self.open_file = words[1]
            return self._file_call(command, "read", words[1], label)
        if command == "create" and len(words) > 1:
            self.open_file = words[1]
            return self._file_call(command, "write", words[1], label)
        edit = _EDIT.match(action)
        if edit and self.open_file:
            new = " ".join(edit.group("text").split())[:_NEW_TEXT_CHARS]
            detail = f'lines {edit.group("start")}-{edit.group("end")} -> "{new}"'
            return self._file_call("edit", "edit", self.open_file, label, detail)
        if command == "str_replace_editor" and len(words) > 2 and words[1] in _EDITOR_OPS:
            return self._file_call(command, _EDITOR_OPS[words[1]], words[2], label)
        if command in ("find_file", "search_dir", "search_file", "goto", "scroll_up",
                       "scroll_down", "submit", "exit_forfeit", "filemap"):
            return ToolCall(command, "", "", label)
        return describe_call("bash", {"command": action}, self.cwd)

    def _file_call(self, name: str, op: str, path: str, label: str, detail: str = "") -> ToolCall:
        return ToolCall(name, op, relative_path(path, self.cwd), label, detail)

    def _add(self, index: int, kind: str, role: str, text: str | L0Text, pointer: str, block: str,
             **extra: Any) -> None:
        self.collector.add(record_no=index + 1, session=self.session, kind=kind, role=role,
                           identity=f"{block}{index}", text=text, time=self.time, pointer=pointer,
                           cwd=self.cwd, **extra)


def submitted_text(value: Any) -> str:
    """A submission as text: the patch, or a JSON value (SWE-agent's info allows one)."""
    if isinstance(value, (dict, list)) and value:
        value = json.dumps(value, ensure_ascii=False)
    return clean_message(value) if isinstance(value, str) else ""


def _is_run(document: dict[str, Any]) -> bool:
    """True when ``document`` holds a run itself (a history, messages or steps), not only
    attempts."""
    return any(isinstance(document.get(key), list) and document[key]
               for key in ("history", "messages", "trajectory"))


def _last_shell_block(content: str) -> re.Match[str] | None:
    found = None
    for found in _SHELL_BLOCK.finditer(content):
        pass
    return found


def _answered_ids(message: dict[str, Any]) -> tuple[str, ...]:
    """The tool calls an observation answers: SWE-agent's ``tool_call_ids``, the
    ``tool_call_id`` of an OpenAI-style tool message, or the ``call_id`` of a Responses API
    ``function_call_output``."""
    ids = message.get("tool_call_ids")
    if not isinstance(ids, list):
        ids = [message.get("tool_call_id", message.get("call_id"))]
    return tuple(i for i in ids if isinstance(i, str))


def _first_working_dir(steps: list[Any]) -> str:
    for step in steps:
        state = step.get("state") if isinstance(step, dict) else None
        if isinstance(state, str):
            try:
                state = json.loads(state)
            except (ValueError, RecursionError):
                continue
        if isinstance(state, dict) and isinstance(state.get("working_dir"), str):
            return state["working_dir"]
    return ""
