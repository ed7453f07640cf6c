"""Gemini CLI sessions and Gemini API conversations.

Accepted shapes:

* a **Gemini CLI session** as its chat recording writes it
  (``~/.gemini/tmp/<project hash>/chats/session-*.json``): ``{"sessionId", "projectHash",
  "startTime", "lastUpdated", "messages": [...]}``, each message ``{"id", "timestamp", "type",
  "content"}`` (``content`` a string or a list of parts). ``type`` ``user`` is the user's
  message, ``gemini`` the model's (its ``thoughts`` counted as ``thinking``; each of its
  ``toolCalls`` holds the call, ``name`` and ``args``, and its ``result``, the
  ``functionResponse`` parts, so every call is paired with its output in place; ``status``
  ``error`` makes the output an error); ``error`` is an error item; ``info`` and ``warning``
  (the CLI's own notices) are counted;
* **Gemini API contents**: a JSON list of ``{"role": "user"|"model", "parts": [...]}`` (what
  Gemini CLI's ``/chat save TAG`` writes to ``checkpoint-TAG.json``; the older API's
  ``function`` role holds responses), JSON Lines of them (a content a line, pointer
  ``<file>:<line>``, its ``timestamp`` read), or a request body
  ``{"contents": [...], "systemInstruction": {...}}`` (``system_instruction`` too; a system
  turn). Parts: ``text`` (a ``thought: true`` part is the model's reasoning, counted as
  ``thinking``), ``functionCall`` paired with the ``functionResponse`` that answers it (by
  ``id``, else the earliest open call of that name), ``inlineData``/``fileData`` counted as
  ``<key> part``. The context Gemini CLI opens a chat with ("This is the Gemini CLI. We are
  setting up the context for our chat ...", and the model's "Got it" after it) is counted as
  ``environment-context``, never a goal; the working directory it names relativises paths;
  the files an ``@path`` read into a user's message (after ``--- Content from referenced
  files ---``) are counted as ``referenced-files``, the message kept as the user wrote it;
* Gemini CLI's prompt log, ``logs.json`` (``{"sessionId", "messageId", "type", "message",
  "timestamp"}`` records): every prompt in it is also in the session's own recording, so its
  records are counted as ``prompt-log``, never kept twice.

Shell output (``run_shell_command``) is read without the lines that report nothing
(``Stderr: (empty)``, ``Error: (none)`` ...); ``Exit Code: N`` other than 0 or a real ``Error:``
line makes it an error. A message starting with a slash command (``/memory add ...``) is a turn,
not a goal. A call with no output (a session cut off mid-call) is kept as a call without its
result (:mod:`.open_calls`).

Pointers: ``<file>#/messages/<i>`` (a tool call's output ``#/messages/<i>/toolCalls/<j>``), or
``<file>#/<i>`` and ``<file>#/contents/<i>`` for API contents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
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
from .jsonlines import json_document, json_records, strip_document_envelopes
from .open_calls import OpenCalls
from .pointers import line_pointer
from .source import Source, fail
from .tools import ToolCall, describe_call

_SESSION_TYPES = frozenset({"user", "gemini"})
_API_ROLES = frozenset({"user", "model"})  # and "function" for responses, in the older API
_NOTICE_TYPES = frozenset({"info", "warning"})
_DATA_PARTS = ("inlineData", "inline_data", "fileData", "file_data", "executableCode",
               "codeExecutionResult")
_ENVIRONMENT = "This is the Gemini CLI. We are setting up the context for our chat."
_CONTEXT_REPLY = "Got it. Thanks for the context!"
_REFERENCED_FILES = "--- Content from referenced files ---"
_RECORDING_MAX_BYTES = 64 * 1024 * 1024  # a session recording read to compare a checkpoint
#: A section of a conversation shared as Markdown: "## USER 🧑‍💻", "## MODEL ✨".
_SHARED_HEADING = re.compile(r"## (?:USER|MODEL)(?:[ \t]+[^\w\s][^\n]*)?[ \t]*")
_SHARED_TOOL = re.compile(r"\*\*Tool (Command|Response)\*\*:\n```json\n(.*?)\n```", re.DOTALL)
_WORKING_DIRECTORY = re.compile(r"working in the directory: (\S[^\n]*)")
#: Lines of Gemini CLI's shell output that report nothing: "Stderr: (empty)", "Error: (none)".
_EMPTY_FIELD = re.compile(r"^[A-Z][A-Za-z ]{1,20}: \((?:none|empty)\)[ \t]*\n?", re.MULTILINE)
#: ... and its bookkeeping: the command (the call's label names it), the default directory,
#: the process group.
_BOOKKEEPING = re.compile(r"\ACommand: [^\n]*\n|^(?:Directory: \(root\)|Process Group PGID: "
                          r"\d+)[ \t]*(?:\n|\Z)", re.MULTILINE)
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)", re.MULTILINE)
_ERROR_FIELD = re.compile(r"^Error: \S", re.MULTILINE)
#: A message that starts with a slash command ("/memory add ...", "/run pytest") drives the
#: tool rather than asking something: a turn, not a goal.
SLASH_COMMAND = re.compile(r"\A/[a-z][a-z-]*(?:\s|\Z)")


def is_gemini_session(document: Any) -> bool:
    """True for a Gemini CLI session recording: ``messages`` typed ``user``/``gemini`` (no
    ``role``), or a ``sessionId`` with ``projectHash`` beside the messages."""
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        return False
    head = [m for m in document["messages"][:20] if isinstance(m, dict)]
    typed = [m for m in head if isinstance(m.get("type"), str) and m["type"] in _SESSION_TYPES
             and "role" not in m]
    return bool(typed) or ("projectHash" in document and "sessionId" in document
                           and not any("role" in m for m in head))


def is_gemini_contents(document: Any) -> bool:
    """True for Gemini API contents: a list of ``{"role", "parts"}`` whose roles are ``user``
    and ``model`` (the older API's ``function`` too; one ``model`` at least, or a part only
    Gemini writes), or a request body ``{"contents": [...]}``."""
    if isinstance(document, dict):
        if isinstance(document.get("history"), list):  # what /chat save writes now
            return is_gemini_contents(document["history"])
        contents = document.get("contents")
        return isinstance(contents, list) and any(is_gemini_content(c) for c in contents[:20])
    if not isinstance(document, list):
        return False
    head = [c for c in document[:20] if isinstance(c, dict)]
    return bool(head) and all(is_gemini_content(c) or c.get("role") == "function"
                              and isinstance(c.get("parts"), list) for c in head) and any(
        c.get("role") == "model" or any(isinstance(p, dict) and (
            "functionCall" in p or "functionResponse" in p) for p in c["parts"]) for c in head)


def is_gemini_shared_markdown(text: str) -> bool:
    """True for what Gemini CLI's ``/chat share FILE.md`` writes: it opens with a ``## USER``
    or ``## MODEL`` heading (the role in capitals, then its icon)."""
    start = len(text) - len(text.lstrip("\ufeff \t\r\n")) if text[:1].isspace() \
        or text[:1] == "\ufeff" else 0
    end = text.find("\n", start)
    first = text[start:end if end >= 0 else len(text)].rstrip("\r")
    return _SHARED_HEADING.fullmatch(first) is not None


def is_gemini_prompt_log(document: Any) -> bool:
    """True for Gemini CLI's ``logs.json``: a list of ``{"sessionId", "messageId", "type",
    "message"}`` records."""
    return isinstance(document, list) and bool(document) and all(
        isinstance(r, dict) and "sessionId" in r and "messageId" in r and "message" in r
        for r in document[:20])


def is_gemini_content(value: Any) -> bool:
    """True for one Gemini API content: ``role`` ``user`` or ``model`` and a ``parts`` list
    (a line of a log of contents)."""
    return (isinstance(value, dict) and isinstance(value.get("role"), str)
            and value["role"] in _API_ROLES and isinstance(value.get("parts"), list))


class GeminiParser:
    """Parses a Gemini CLI session, Gemini API contents or a prompt log into an
    :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session
        self.cwd = ""
        self.open_calls = OpenCalls()
        # calls of API contents not answered yet: id or "name:<fn>" -> the calls, oldest first
        self.waiting: dict[str, list[ToolCall]] = {}

    def parse(self, source: Source) -> int:
        """Read every message; return how many were well-formed."""
        if source.text is not None and is_gemini_shared_markdown(source.text):
            read = self._shared_markdown(source)
            self.open_calls.remember()
            return read
        document = json_document(source)
        read = self._content_lines(source) if document is None else self._document(
            source, document)  # None: JSON Lines, a content a line
        self.open_calls.remember()
        return read

    def _document(self, source: Source, document: Any) -> int:
        strip_document_envelopes(source, self.collector, document)
        base = source.pointer_base
        if is_gemini_prompt_log(document):
            self.collector.records_read += len(document)
            for _ in document:
                self.collector.ignore("prompt-log")
            read = len(document)
        elif isinstance(document, dict) and isinstance(document.get("messages"), list):
            read = self._session(document, base)
        elif isinstance(document, dict) and isinstance(document.get("contents"), list):
            system = document.get("systemInstruction", document.get("system_instruction"))
            self._system(system, f"{base}#/systemInstruction")
            read = self._contents(document["contents"], f"{base}#/contents")
        elif isinstance(document, dict) and isinstance(document.get("history"), list):
            read = self._saved_contents(source, document["history"], f"{base}#/history")
        elif isinstance(document, list):
            read = self._saved_contents(source, document, f"{base}#")
        else:
            raise fail(source.name, 'not a Gemini CLI session ("messages") or Gemini API '
                                    'contents (a list of "role" and "parts")')
        return read

    # -- Gemini CLI session recordings ---------------------------------------------------------

    def _session(self, document: dict[str, Any], base: str) -> int:
        if isinstance(document.get("sessionId"), str) and document["sessionId"].strip():
            self.session = document["sessionId"].strip()
        started = document.get("startTime")
        session_time = self.collector.time(0, started) if started not in (None, "") else ""
        read = 0
        for index, message in enumerate(document["messages"]):
            self.collector.records_read += 1
            number = index + 1
            if not isinstance(message, dict):
                self.collector.skip(number, f"message {index} is not an object")
                continue
            kind = message.get("type")
            if not isinstance(kind, str):
                self.collector.skip(number, 'message has no "type"')
                continue
            read += 1
            pointer = f"{base}#/messages/{index}"
            # one without its own time takes the message's before it (the session's start
            # only for the first): never sorted before the question it answers; an unread one
            # stays without a time, as reported
            time = self._time(message, number, session_time)
            session_time = time or session_time
            identity = f"m{message['id']}" if isinstance(message.get("id"), (str, int)) \
                else f"m{index}"
            text = clean_message(_content_text(message.get("content"), self.collector))
            if kind == "user":
                self._user(text, number, time, pointer, identity)
            elif kind in ("gemini", "model", "assistant"):
                if message.get("thoughts"):
                    self.collector.ignore("thinking")
                calls = message.get("toolCalls")
                if text or not calls:  # a message of calls alone is read through them
                    self._model_text(text, number, time, pointer, identity)
                for place, call in enumerate(calls if isinstance(calls, list) else ()):
                    self._recorded_call(call, number, time, f"{pointer}/toolCalls/{place}",
                                        f"{identity}/call{place}")
            elif kind == "error" and text:
                self._add(number, "error", "system", text, time, pointer, identity)
            else:
                self.collector.ignore(kind if kind in _NOTICE_TYPES or not text else "other")
        return read

    def _recorded_call(self, record: Any, number: int, time: str, pointer: str,
                       identity: str) -> None:
        """One entry of a message's ``toolCalls``: the call and, in place, its output."""
        if not isinstance(record, dict) or not isinstance(record.get("name"), str):
            self.collector.skip(number, "tool call has no name")
            return
        call = describe_call(record["name"], record.get("args"), self.cwd)
        time = self._time(record, number, time)
        if call.is_file_op:
            self._add(number, "file_op", "assistant", call.file_op_text(), time, pointer,
                      identity, links=call.file_op_links, mentions_in=call.detail)
        texts, failed = _responses(record.get("result"))
        display = record.get("resultDisplay")
        if not texts and isinstance(display, str) and display.strip():
            texts = [display]
        status = record.get("status")
        if not texts and status not in ("error", "cancelled"):
            goal = self.collector.goal(self.session)
            self.open_calls.open(None, call, lambda text, links: self._add(
                number, "tool_result", "tool", text, time, pointer, f"{identity}/out",
                links=links, goal=goal))
            return
        text = "\n".join(texts) or f"({status})"
        self._output(call, text, failed or status == "error", number, time, pointer,
                     f"{identity}/out")

    # -- Gemini API contents (checkpoints, request bodies) -------------------------------------

    def _contents(self, contents: list[Any], prefix: str) -> int:
        self.collector.records_read += len(contents)
        return self._read_contents((index + 1, content, f"{prefix}/{index}", f"c{index}")
                                   for index, content in enumerate(contents))

    def _saved_contents(self, source: Source, contents: list[Any], prefix: str) -> int:
        """A checkpoint's contents, unless a session recording beside it holds every one of
        its user's messages: ``/chat save`` copies the history of the session the CLI records
        anyway, so reading both would keep each turn twice (once without its time)."""
        recording = _recording_holding(Path(source.pointer_base), contents)
        if recording is None:
            return self._contents(contents, prefix)
        self.collector.records_read += 1
        self.collector.ignore("checkpoint (its session recording is read)")
        self.collector.note(f"its turns are those of the session recorded in {recording}: "
                            "read there, with their times, not twice")
        return 1

    def _shared_markdown(self, source: Source) -> int:
        """A conversation ``/chat share`` wrote as Markdown, read as the contents it was
        written from: each ``## USER``/``## MODEL`` section a content, its ``**Tool
        Command**``/``**Tool Response**`` JSON blocks its calls and responses."""
        text = self.collector.text_without_envelopes(source)
        lines = [line.rstrip("\r") for line in text.split("\n")]
        starts = [n for n, line in enumerate(lines) if _SHARED_HEADING.fullmatch(line)
                  and (not any(x.strip() for x in lines[:n])
                       or next(x for x in reversed(lines[:n]) if x.strip()).strip() == "---")]
        entries = []
        for at, start in enumerate(starts):
            end = starts[at + 1] if at + 1 < len(starts) else len(lines)
            body = lines[start + 1:end]
            while body and body[-1].strip() in ("", "---") and (
                    at + 1 < len(starts) or not body[-1].strip()):
                body.pop()  # the separator before the next section
            last = start + 1 + max((i for i, x in enumerate(body) if x.strip()), default=-1)
            role = "user" if lines[start].startswith("## USER") else "model"
            entries.append((start + 1, {"role": role, "parts": _shared_parts("\n".join(body))},
                            line_pointer(source.pointer_base, start + 1, last + 1),
                            f"line{start + 1}"))
        self.collector.records_read += len(entries)
        return self._read_contents(entries)

    def _content_lines(self, source: Source) -> int:
        """Contents written one a line (a log of the turns): each line's pointer is its own."""
        base = source.pointer_base
        return self._read_contents((number, record, f"{base}:{number}", f"line{number}")
                                   for number, record in json_records(source, self.collector))

    def _read_contents(self, entries: Iterable[tuple[int, Any, str, str]]) -> int:
        """Read ``(record number, content, pointer, identity)`` entries in order; return how
        many were contents."""
        read = 0
        context = False  # the message before was the CLI's opening context
        for number, content, pointer, identity in entries:
            role = content.get("role") if isinstance(content, dict) else None
            if role not in ("user", "model", "function") or not isinstance(
                    content.get("parts"), list):
                self.collector.skip(number, "content has no user or model role and parts")
                continue
            read += 1
            parts = [p for p in content["parts"] if isinstance(p, dict)]
            if len(parts) < len(content["parts"]):
                self.collector.skip(number, "a part of the content is not an object")
            text = clean_message("".join(  # a content's text parts are one text, streamed
                p["text"] for p in parts
                if isinstance(p.get("text"), str) and not p.get("thought")))
            if any(p.get("thought") for p in parts):
                self.collector.ignore("thinking")
            for part in parts:
                for key in _DATA_PARTS:
                    if key in part:
                        self.collector.ignore(f"{key} part")
            time = self._time(content, number, "")
            if role == "model":
                if context and text.startswith(_CONTEXT_REPLY):
                    self.collector.ignore("environment-context")
                elif text or not any("functionCall" in p for p in parts):
                    self._model_text(text, number, time, pointer, identity)
                context = False
                for place, part in enumerate(parts):
                    function = part.get("functionCall")
                    if isinstance(function, dict):
                        self._api_call(function, number, time, pointer,
                                       f"{identity}/call{place}")
                continue
            if text.startswith(_ENVIRONMENT):
                found = _WORKING_DIRECTORY.search(text)
                self.cwd = found.group(1).strip() if found else self.cwd
                self.collector.ignore("environment-context")
                context = True
            else:  # the user's words; a "function" content holds responses alone
                self._user(text, number, time, pointer, identity, quiet=not text)
                context = False
            self._responses_in(parts, number, time, pointer, identity)
        return read

    def _api_call(self, function: dict[str, Any], number: int, time: str, pointer: str,
                  identity: str) -> None:
        name = function.get("name")
        if not isinstance(name, str) or not name:
            self.collector.skip(number, "functionCall has no name")
            return
        call = describe_call(name, function.get("args"), self.cwd)
        if call.is_file_op:
            self._add(number, "file_op", "assistant", call.file_op_text(), time, pointer,
                      identity, links=call.file_op_links, mentions_in=call.detail)
        key = function.get("id") if isinstance(function.get("id"), str) else f"name:{name}"
        self.waiting.setdefault(key, []).append(call)
        goal = self.collector.goal(self.session)
        self.open_calls.open(key, call, lambda text, links: self._add(
            number, "tool_result", "tool", text, time, pointer, f"{identity}/out", links=links,
            goal=goal))

    def _responses_in(self, parts: list[dict[str, Any]], number: int, time: str, pointer: str,
                      identity: str) -> None:
        for place, part in enumerate(parts):
            response = part.get("functionResponse")
            if not isinstance(response, dict):
                continue
            name = response.get("name") if isinstance(response.get("name"), str) else ""
            call = self._answered(response.get("id"), name)
            texts, failed = _responses([part])
            self._output(call, "\n".join(texts), failed, number, time, pointer,
                         f"{identity}/out{place}")

    def _answered(self, call_id: Any, name: str) -> ToolCall | None:
        """The call a response answers (by id, else the oldest open one of its name),
        closed."""
        for key in ((call_id,) if isinstance(call_id, str) else ()) + (f"name:{name}",):
            waiting = self.waiting.get(key)
            if waiting:
                call = waiting.pop(0)
                self.open_calls.close(key)
                return call
        if name:
            self.open_calls.close(None, name)
            return describe_call(name, {}, self.cwd)
        return None

    def _system(self, value: Any, pointer: str) -> None:
        text = value if isinstance(value, str) else _content_text(
            value.get("parts") if isinstance(value, dict) else None, self.collector)
        text = clean_message(text)
        if text:
            self.collector.records_read += 1
            self._add(0, "turn", "system", message_text(text), "", pointer, "system")

    # -- shared ----------------------------------------------------------------------------

    def _user(self, text: str, number: int, time: str, pointer: str, identity: str,
              quiet: bool = False) -> None:
        said, _, files = text.partition(_REFERENCED_FILES)
        if files:  # the files an @path named, read in after what the user wrote
            self.collector.ignore("referenced-files")
            text = said.strip()
        kind = user_message_kind(text, goal=self.collector.goal(self.session))
        if kind == "user_goal" and SLASH_COMMAND.match(text):
            kind = "turn"
        if kind is None:
            if not quiet:
                self.collector.no_item(text)
            return
        self._add(number, kind, "user", message_text(text), time, pointer, identity,
                  sets_goal=kind == "user_goal")

    def _model_text(self, text: str, number: int, time: str, pointer: str,
                    identity: str) -> None:
        kind = assistant_text_kind(text)
        if kind is None:
            self.collector.no_item(text)
        else:
            self._add(number, kind, "assistant", message_text(text), time, pointer, identity)

    def _output(self, call: ToolCall | None, text: str, failed: bool, number: int, time: str,
                pointer: str, identity: str) -> None:
        text, shell_failed = _shell_output(text) if call is not None and call.shell \
            else (text.strip(), False)
        kind = tool_output_kind(call, text, failed or shell_failed)
        if kind is None:
            self.collector.no_item(text, call)
            return
        links = (("tool", call.name),) if call is not None else ()
        self._add(number, kind, "tool", output_text(call, text, kind), time, pointer, identity,
                  links=links)

    def _time(self, record: dict[str, Any], number: int, absent: str) -> str:
        value = record.get("timestamp")
        return absent if value in (None, "") else self.collector.time(number, value)

    def _add(self, number: int, kind: str, role: str, text: str | L0Text, time: str,
             pointer: str, identity: str, **extra: Any) -> None:
        self.collector.add(record_no=number, session=self.session, kind=kind, role=role,
                           identity=identity, text=text, time=time, pointer=pointer,
                           cwd=self.cwd, **extra)


def _shared_parts(body: str) -> list[dict[str, Any]]:
    """A shared section's text as content parts: its text, and each JSON block of a call or a
    response as that part (a block that is not JSON stays text)."""
    parts: list[dict[str, Any]] = []
    at = 0
    for block in _SHARED_TOOL.finditer(body):
        try:
            value = json.loads(block.group(2))
        except (ValueError, RecursionError):
            continue
        if body[at:block.start()].strip():
            parts.append({"text": body[at:block.start()].strip("\n")})
        key = "functionCall" if block.group(1) == "Command" else "functionResponse"
        parts.append({key: value})
        at = block.end()
    if body[at:].strip():
        parts.append({"text": body[at:].strip("\n")})
    return parts


def _said(text: str) -> str:
    """A user's message as compared across files: its own words (not the files an ``@path``
    read into it), spaces folded."""
    return " ".join(text.split(_REFERENCED_FILES, 1)[0].split())


def _recording_holding(path: Path, contents: list[Any]) -> Path | None:
    """The Gemini CLI session recording beside ``path`` (in its folder or the ``chats/``
    folder under it, where the CLI records sessions) whose user messages include every user
    message of ``contents`` (the CLI's opening context aside); None when there is none."""
    wanted = {_said(text) for text in (
        "".join(p["text"] for p in c["parts"] if isinstance(p, dict)
                and isinstance(p.get("text"), str) and not p.get("thought"))
        for c in contents if isinstance(c, dict) and c.get("role") == "user"
        and isinstance(c.get("parts"), list)) if text.strip() and not text.startswith(_ENVIRONMENT)}
    if not wanted or not path.is_file():
        return None
    for recording in sorted([*path.parent.glob("session-*.json"),
                             *path.parent.glob("chats/session-*.json")]):
        if recording == path or recording.stat().st_size > _RECORDING_MAX_BYTES:
            continue
        try:
            document = json.loads(recording.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if not is_gemini_session(document):
            continue
        said = {_said(_parts_text(m.get("content"))) for m in document["messages"]
                if isinstance(m, dict) and m.get("type") == "user"}
        if wanted <= said:
            return recording
    return None


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p["text"] for p in content if isinstance(p, dict)
                   and isinstance(p.get("text"), str)) if isinstance(content, list) else ""


def _content_text(content: Any, collector: ItemCollector) -> str:
    """A session message's ``content``: a string, or the text of its parts (other parts
    counted)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    texts = []
    for part in content if isinstance(content, list) else ():
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            if part.get("thought"):
                collector.ignore("thinking")
            else:
                texts.append(part["text"])
        elif isinstance(part, dict):
            collector.ignore(f"{next(iter(part), 'empty')} part")
    return "".join(texts)


def _responses(result: Any) -> tuple[list[str], bool]:
    """The texts of ``functionResponse`` parts (a list of parts, one part, or text) and
    whether one reported an error (its ``response`` holds ``error`` rather than ``output``)."""
    if isinstance(result, str):  # a result is a list of parts, one part, or text
        return ([result] if result.strip() else []), False
    texts: list[str] = []
    failed = False
    for part in result if isinstance(result, list) else [result]:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            error = body.get("error")
            if error not in (None, ""):
                failed = True
                texts.append(error if isinstance(error, str)
                             else json.dumps(error, ensure_ascii=False))
                continue
            value = body.get("output", body.get("content", body.get("result")))
            if value is None:
                value = body
        else:
            value = body
        if isinstance(value, str):
            texts.append(value)
        elif value not in (None, "", {}, []):
            texts.append(json.dumps(value, ensure_ascii=False))
    return [t for t in texts if t.strip()], failed


def _shell_output(text: str) -> tuple[str, bool]:
    """Gemini CLI's shell report without the fields that report nothing and its bookkeeping
    (the ``Command:`` line, which the call's label names; the process group); failed when its
    exit code is not 0 or its ``Error:`` field says something."""
    kept = _BOOKKEEPING.sub("", _EMPTY_FIELD.sub("", text.strip())).strip()
    code = _EXIT_CODE.search(kept)
    return kept, bool(code and code.group(1) != "0") or bool(_ERROR_FIELD.search(kept))

