"""OpenAI Responses API items, and the Codex CLI's session rollouts made of them.

Accepted shapes: a JSON list of items; JSON Lines of items; a request body ``{"instructions",
"input": [...]}`` or a response ``{"id", "output": [...]}`` (``instructions`` is a system turn,
pointer ``#/instructions``; ``input`` is read before ``output``); a Codex CLI rollout
(``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): lines ``{"timestamp", "type", "payload"}``
where ``response_item`` payloads are items, ``session_meta`` names the session (``id``) and its
working directory (``cwd``, also from ``turn_context``), ``event_msg`` payloads (which repeat
the items for the terminal: ``user_message``, ``agent_message``, ``token_count`` ...) are counted
as ``event/<type>`` except an ``error``, which is kept; and the older rollout without the
envelope (a first line ``{"id", "timestamp", "instructions"}``, then items, and
``{"record_type": "state"}`` lines, counted).

Items, by ``type``:

* ``message`` (or no type, with a ``role``): read as an OpenAI chat message (content a string or
  ``input_text``/``output_text`` parts): the user's goal, the assistant's conclusion, a system or
  developer turn. The context Codex injects as user messages is never a goal:
  ``<environment_context>`` is counted as ``environment-context``, ``<user_instructions>`` and
  ``AGENTS.md`` instructions are a system turn;
* ``function_call`` (``name``, JSON ``arguments``, ``call_id``), ``custom_tool_call``
  (``input``), ``local_shell_call`` (``action.command``): the call, remembered by ``call_id``; a
  shell command given as a list (``["bash", "-lc", "pytest -q"]``) reads as the command, and
  ``apply_patch`` as a file operation on each file its patch adds, updates or deletes;
* ``function_call_output``, ``custom_tool_call_output``: the output of the call ``call_id``
  names (a result whose call is not in the file is kept, unlabelled); Codex's
  ``{"output", "metadata": {"exit_code"}}`` is unwrapped, and a non-zero exit code (also
  ``Exit code: N`` or ``Process exited with code N`` in the text) makes it an error;
* ``mcp_call``: the call and its ``output`` (an ``error`` makes it an error item);
* a call whose output is not in the file (a rollout cut off mid-call; an ``mcp_call`` with
  neither ``output`` nor ``error``) is kept as a call without its result (:mod:`.open_calls`);
* ``reasoning``: the model's reasoning, counted as ``thinking``;
* anything else (``web_search_call``, ``item_reference``, ``compaction`` ...): counted by type.

Times come from the rollout envelope's ``timestamp`` (or an item's own ``created_at`` ...).
Pointers: ``<file>:<line>#/payload`` in a rollout, ``<file>:<line>`` in JSON Lines of items,
``<file>#/<i>``, ``<file>#/input/<i>`` or ``<file>#/output/<i>`` in a document.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from .classify import output_text, tool_output_kind
from .collector import ItemCollector
from .jsonlines import json_records
from .openai_chat import Conversation, OpenAIChatParser
from .source import Source, fail
from .textutil import parts_text
from .tools import ToolCall, describe_call, describe_file_call, function_arguments

ROLLOUT_LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context",
                                "compacted"})
"""The ``type`` of a Codex rollout line, whose ``payload`` holds what it records."""
_CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "mcp_call"})
_OUTPUT_TYPES = frozenset({"function_call_output", "custom_tool_call_output",
                           "local_shell_call_output"})
ITEM_TYPES = _CALL_TYPES | _OUTPUT_TYPES | {"reasoning"}
"""Item types only the Responses API writes (a ``message`` may be a chat message too)."""
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "refusal"})
_ENVIRONMENT = "<environment_context>"
_INSTRUCTIONS = ("<user_instructions>", "# AGENTS.md instructions", "<INSTRUCTIONS>")
_EXIT_LINE = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.MULTILINE)
_EXEC_HEADER = re.compile(r"\A(?:(?:Chunk ID|Wall time|Process exited with code|Exit code"
                          r"|Original token count|Process running with session ID)\b[^\n]*\n)+"
                          r"Output:\n")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$", re.MULTILINE)
_PATCH_OPS = {"Add": "write", "Update": "edit", "Delete": "write"}
_SHELL_WRAPPERS = ({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"},
                   {"-c", "-lc", "-l", "-ic"})


def is_responses_item(value: Any) -> bool:
    """True for a Responses API item: a call, an output or reasoning, or a ``message`` whose
    content is ``input_text``/``output_text`` parts."""
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if isinstance(kind, str) and kind in ITEM_TYPES:
        return True
    content = value.get("content")
    return kind == "message" and isinstance(content, list) and any(
        isinstance(part, dict) and isinstance(part.get("type"), str)
        and part["type"] in _RESPONSES_PARTS for part in content)


def is_rollout_line(value: Any) -> bool:
    """True for a line of a Codex CLI rollout: a known ``type`` and an object ``payload``."""
    return (isinstance(value, dict) and isinstance(value.get("type"), str)
            and value["type"] in ROLLOUT_LINE_TYPES
            and isinstance(value.get("payload"), dict))


def is_responses_document(document: Any) -> bool:
    """True for a list of items, a request body (``input``) or a response (``output``) of
    which an item among the first fifty :func:`is_responses_item`, or a request (``model`` or
    ``instructions``) whose ``input`` is text or messages of ``role`` and ``content``."""
    if isinstance(document, dict):
        if document.get("object") == "response" and isinstance(document.get("output"), list):
            return True
        lists = [document.get(key) for key in ("input", "output")]
        if any(isinstance(found, list) and any(map(is_responses_item, found[:50]))
               for found in lists):
            return True
        # a request whose input is text or messages without "type" ({"role", "content"})
        given = document.get("input")
        return ("model" in document or isinstance(document.get("instructions"), str)) \
            and "messages" not in document and (isinstance(given, str) or (
                isinstance(given, list) and bool(given) and all(
                    isinstance(m, dict) and isinstance(m.get("role"), str) for m in given[:50])))
    return isinstance(document, list) and any(map(is_responses_item, document[:50]))


class ResponsesParser(OpenAIChatParser):
    """Parses Responses API items, or a Codex CLI rollout, into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        super().__init__(collector, default_session)
        self.session = default_session

    def _read(self, source: Source) -> int:
        """Read every item; return how many were well-formed items or rollout lines."""
        document = self._document(source)
        base = source.pointer_base
        if document is None or is_rollout_line(document):  # a rollout of one line, too
            return self._parse_lines(source)
        if isinstance(document, list):
            return self._conversation(Conversation(self.session, "", f"{base}#", "", None),
                                      document)
        if isinstance(document.get("type"), str) and document["type"] != "response":
            self.collector.records_read += 1  # one item laid out over lines
            return int(self._message(Conversation(self.session, "", "", "", None), document, 1,
                                     f"{base}#", "m0"))
        lists = [key for key in ("input", "output") if isinstance(document.get(key), list)]
        prompt = document.get("input")
        if not lists and not isinstance(prompt, str):
            raise fail(source.name, 'JSON document has no "input" or "output" list of items')
        time = self._time_of(document, 0)
        self._instructions(document.get("instructions"), time, f"{base}#/instructions", 0)
        read = 0
        if isinstance(prompt, str):  # a request's input given as text: the user's message
            self.collector.records_read += 1
            read += self._chat_message(Conversation(self.session, time, "", "", None),
                                       {"role": "user", "content": prompt}, 1,
                                       f"{base}#/input", "input")
        for key in lists:
            conversation = Conversation(self.session, time, f"{base}#/{key}", f"{key}/", None)
            read += self._conversation(conversation, document[key])
        return read

    def _parse_lines(self, source: Source) -> int:
        read = 0
        base = source.pointer_base
        for number, record in json_records(source, self.collector):
            read += 1
            if is_rollout_line(record):
                self._rollout_line(record, number, f"{base}:{number}#/payload")
            elif "record_type" in record:  # the older rollout's state lines
                self.collector.ignore(str(record["record_type"]))
            elif "type" not in record and "role" not in record and "id" in record:
                self._session_meta(record, number, f"{base}:{number}#")  # an older rollout
            else:
                conversation = Conversation(self.session, "", "", "", number)
                if not self._message(conversation, record, number, f"{base}:{number}",
                                     f"line{number}"):
                    read -= 1
        return read

    def _rollout_line(self, record: dict[str, Any], number: int, pointer: str) -> None:
        kind, payload = record["type"], record["payload"]
        if kind == "response_item":
            time = self._time_of(record, number)
            conversation = Conversation(self.session, time, "", "", number)
            self._message(conversation, payload, number, pointer, f"line{number}")
        elif kind == "session_meta":
            self._session_meta(payload, number, pointer)
        elif kind == "turn_context":
            if isinstance(payload.get("cwd"), str):
                self.cwd = payload["cwd"]
            self.collector.ignore("turn_context")
        elif kind == "event_msg" and payload.get("type") == "error":
            message = payload.get("message")
            if isinstance(message, str) and message.strip():
                self.collector.add(
                    record_no=number, session=self.session, kind="error", role="system",
                    identity=f"line{number}", text=message.strip(),
                    time=self._time_of(record, number), pointer=pointer, cwd=self.cwd)
        elif kind == "event_msg":
            self.collector.ignore(f"event/{payload.get('type')}")
        else:
            self.collector.ignore(kind)  # compacted: a summary restating earlier items

    def _session_meta(self, meta: dict[str, Any], number: int, pointer: str) -> None:
        session = meta.get("id")
        if isinstance(session, str) and session:
            self.session = session
        if isinstance(meta.get("cwd"), str):
            self.cwd = meta["cwd"]
        if isinstance(meta.get("instructions"), str):
            self._instructions(meta["instructions"], self._time_of(meta, number),
                               f"{pointer}/instructions", number)
        self.collector.ignore("session_meta")

    def _instructions(self, value: Any, time: str, pointer: str, record_no: int) -> None:
        text = value.strip() if isinstance(value, str) else ""
        if text:
            self.collector.add(record_no=record_no, session=self.session, kind="turn",
                               role="system", identity="instructions", text=text, time=time,
                               pointer=pointer, cwd=self.cwd)

    def _message(
        self,
        conversation: Conversation,
        message: dict[str, Any],
        record_no: int,
        pointer: str,
        identity: str,
    ) -> bool:
        conversation.session = self.session
        kind = message.get("type")
        if kind in (None, "message"):
            return self._chat_message(conversation, message, record_no, pointer, identity)
        if not isinstance(kind, str):
            self.collector.skip(record_no, f"item type is a {type(kind).__name__}, not a name")
            return False
        time = self._time_of(message, record_no, conversation.time)
        if kind in _CALL_TYPES:
            calls = self._calls(message)
            if not calls:
                self.collector.skip(record_no, f"{kind} has no name")
                return False
            self.collector.called_tool(self.session)
            for number, call in enumerate(calls):
                if call.is_file_op:
                    self._add(record_no, "file_op", "assistant", call.file_op_text(), time,
                              pointer, f"{identity}/call{number}", links=call.file_op_links,
                              mentions_in=call.detail)
            if kind == "mcp_call" and (message.get("output") or message.get("error")):
                self._output(message, calls[0], record_no, time, pointer, identity)
            else:
                goal = self.collector.goal(self.session)
                self.open_calls.open(
                    message.get("call_id", message.get("id")), calls[0],
                    lambda text, links: self._add(record_no, "tool_result", "tool", text, time,
                                                  pointer, f"{identity}/out", links=links,
                                                  goal=goal))
        elif kind in _OUTPUT_TYPES:
            call_id = message.get("call_id")
            call = self.calls.get(call_id) if isinstance(call_id, str) else None
            self.open_calls.close(call_id)
            self._output(message, call, record_no, time, pointer, identity)
        elif kind == "reasoning":
            self.collector.ignore("thinking")
        else:
            self.collector.ignore(str(kind))
        return True

    def _chat_message(self, conversation: Conversation, message: dict[str, Any],
                      record_no: int, pointer: str, identity: str) -> bool:
        """A ``message`` item, read as a chat message; Codex's injected context is no goal."""
        if message.get("role") == "user":
            text = parts_text(message.get("content")).lstrip()
            if text.startswith(_ENVIRONMENT):
                self.collector.ignore("environment-context")
                return True
            if text.startswith(_INSTRUCTIONS):
                message = {**message, "role": "system"}
        return super()._message(conversation, message, record_no, pointer, identity)

    def _calls(self, item: dict[str, Any]) -> list[ToolCall]:
        """What a call item does (an ``apply_patch``: one file operation per file), remembered
        by its ``call_id``; [] when it names no tool."""
        kind = item.get("type")
        if kind == "local_shell_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            name, args = "local_shell", {"command": action.get("command")}
        elif kind == "custom_tool_call":
            name, args = item.get("name"), {"input": item.get("input")}
        else:
            name, args = item.get("name"), function_arguments(item)
        if not isinstance(name, str) or not name:
            return []
        command = shell_command(args.get("command", args.get("cmd")))
        patch = _patch_text(name, args, command)
        if patch:
            calls = self._patch_calls(name, patch)
        else:
            if command:
                args = {**args, "command": command}
            calls = [describe_call(name, args, self.cwd)]
        call_id = item.get("call_id", item.get("id"))
        if isinstance(call_id, str):
            self.calls[call_id] = calls[0]
        return calls

    def _patch_calls(self, name: str, patch: str) -> list[ToolCall]:
        """An ``apply_patch`` call: a file operation for each file its patch touches."""
        calls = []
        heads = list(_PATCH_FILE.finditer(patch))
        for number, head in enumerate(heads):
            verb, path = head.group(1), head.group(2)
            end = heads[number + 1].start() if number + 1 < len(heads) else len(patch)
            added = sum(1 for line in patch[head.end():end].splitlines() if line.startswith("+"))
            call = describe_file_call(name, _PATCH_OPS[verb], {"path": path}, self.cwd)
            lines = "1 line" if added == 1 else f"{added} lines"
            detail = "deleted" if verb == "Delete" else f"patch, {lines} added"
            calls.append(ToolCall(call.name, call.op, call.path, call.label, detail))
        return calls or [ToolCall(name, "", "", name)]

    def _output(self, item: dict[str, Any], call: ToolCall | None, record_no: int, time: str,
                pointer: str, identity: str) -> None:
        text, failed = _output_text(item.get("output"))
        self.collector.parts_left_out(record_no, item.get("output"))  # an image it returned ...
        if item.get("type") == "mcp_call" and item.get("error"):
            text, failed = f"{text}\n{item['error']}".strip(), True
        kind = tool_output_kind(call, text, failed)
        if kind is None:
            self.collector.no_item(text, call)
            return
        links = (("tool", call.name),) if call is not None else ()
        self._add(record_no, kind, "tool", output_text(call, text, kind), time, pointer,
                  f"{identity}/out", links=links)

    def _add(self, record_no: int, kind: str, role: str, text: Any, time: str, pointer: str,
             identity: str, **extra: Any) -> None:
        self.collector.add(record_no=record_no, session=self.session, kind=kind, role=role,
                           identity=identity, text=text, time=time, pointer=pointer,
                           cwd=self.cwd, **extra)


def shell_command(value: Any) -> str:
    """A shell command given as a list of words (``["bash", "-lc", "pytest -q"]``) as the
    command line it runs (``pytest -q``); a string as it is; "" for anything else."""
    if isinstance(value, str):
        return value
    if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
        return ""
    shells, flags = _SHELL_WRAPPERS
    if len(value) == 3 and value[0] in shells and value[1] in flags:
        return value[2]
    return shlex.join(value)


def _patch_text(name: str, args: dict[str, Any], command: str) -> str:
    """The patch of an ``apply_patch`` call (its ``input``, or the command ``apply_patch``
    runs), "" for any other call."""
    if name == "apply_patch":
        for key in ("input", "patch"):
            if isinstance(args.get(key), str):
                return args[key]
    if command.startswith("apply_patch") and "*** Begin Patch" in command:
        return command
    return ""


def _output_text(output: Any) -> tuple[str, bool]:
    """The text of a call's output and whether it failed: Codex's ``{"output", "metadata":
    {"exit_code"}}`` unwrapped (a non-zero code appended as ``(exit code N)``), or an ``Exit
    code: N`` line in the text."""
    if isinstance(output, list):
        return parts_text(output).strip(), False
    if not isinstance(output, str):
        return ("" if output is None else json.dumps(output, ensure_ascii=False)), False
    text = output.strip()
    if text.startswith("{") and '"metadata"' in text:
        try:
            wrapped = json.loads(text)
        except (ValueError, RecursionError):
            wrapped = None
        if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
            metadata = wrapped.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            text = wrapped["output"].strip()
            if isinstance(code, int) and code != 0:
                return f"{text}\n(exit code {code})".strip(), True
            return text, False
    found = _EXIT_LINE.search(text[:2000])
    code = int(found.group(1)) if found else 0
    header = _EXEC_HEADER.match(text)
    if header:  # Codex's exec_command: bookkeeping lines, then "Output:" and the output
        text = text[header.end():].strip()
        text = f"{text}\n(exit code {code})".strip() if code else text
    return text, code != 0
