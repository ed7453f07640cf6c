"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

One JSON object per line. Records of ``type`` ``user``, ``assistant`` and ``system`` are read,
and of the ``attachment`` records the ``queued_command`` ones (below); ``summary`` records (client-generated session titles that restate the session) and other types
(``progress``, ``queue-operation``, ``file-history-snapshot`` ...) are well-formed but produce
no items: each is counted by type in ``ParseResult.ignored``, as are the records gated out as
noise (``meta``, ``compact-summary``, ``compaction``, ``system/<subtype>``).
``message.content`` is a string or a list of blocks: ``text``, ``tool_use``, ``tool_result``;
``thinking`` and ``redacted_thinking`` are counted as ``thinking``, any other block (``image``,
``document`` ...) as ``<type> block``; the client's notes in user turns (``[Request
interrupted by user]``, the local-command caveat) as ``interrupted`` and ``caveat``. A call
whose result never comes (a session killed mid-call) is kept as a call without its result
(:mod:`.open_calls`). Fields used: ``uuid`` (record identity), ``sessionId``, ``timestamp``,
``cwd``, ``isSidechain``, ``agentId``, ``isMeta`` and ``isCompactSummary`` (client-injected
text: skipped), ``isApiErrorMessage``, ``toolUseResult.agentId`` and
``toolUseResult.backgroundTaskId``.

Claude Code 2.1:

* ``<task-notification>`` messages the client injects as user turns (a background command or
  an async agent finished) are tool results (errors when the task failed or exited non-zero),
  never user goals: the user's goal stays active.
* A ``Task``/``Agent`` call launches a subagent whose transcript is its own file,
  ``<session>/subagents/agent-<id>.jsonl``. The goal active when the call was made is recorded
  per agent id (``launches``; the id comes from the call's result, ``toolUseResult.agentId``
  or ``agentId: <id>`` in its text, or from ``progress`` records' ``data.agentId`` and
  ``parentToolUseID``); the call's result item carries that goal and the link
  ``relation(H, launched_agent, Id)``. A subagent's own file names its ``agentId``
  (``subagent``; each item links ``relation(H, agent, Id)``); its items get the launching goal
  from whoever resolves it (:mod:`.subagents`). Every item of it is said by ``subagent`` (its
  words, file operations, its calls' output and errors) but its prompt, said by ``assistant``
  (the main agent wrote it).
* A call that memory's own recall answered (the MCP ``hydrate`` or ``receipt`` tool, ``atc
  hydrate`` or ``atc receipt`` in a shell) makes no item, counted as ``memory recall``: the
  envelope is stripped before, and the receipt line, plain-text frame or printed receipt
  around it by :mod:`.frame_echo` (:func:`.classify.tool_output_kind`, as for every format);
  other output of the same call stays.
* A prompt the user typed while the agent worked is folded into the running turn and written
  only as an ``attachment`` record, ``{"type": "queued_command", "commandMode": "prompt",
  "origin": {"kind": "human"}, "prompt": …}`` (text or blocks): it is read as the user's
  message (a goal, like any other), and a queued ``task-notification`` as the notification.
  Queued text of another origin (another session's, ``isMeta``) or mode (``bash``) and every
  other attachment (hook output, among it the prompt hook's frame, reminders) make no item,
  counted as ``attachment/<type>``.
* A tool hook's additional context (``PostToolUse:Edit hook additional context: [COMPILE
  ERROR] …``: a check run after a call), a meta user record holding a reminder in 2.1.39 (in
  the real sessions only in the compaction subagent's file) or a ``hook_additional_context``
  attachment, is the session's tool output (a subagent's in its own file), linked ``relation(H, hook, 'PostToolUse:Edit')``;
  a check that passed ("[FORMAT] ok") is no news. Kept in the compaction subagent's file, it
  has the goal active at the call it follows in the session's own file (:mod:`.earlier_goals`). Other meta text and other hooks' context
  (the prompt hook's frame, a session start's primer) are not read.
* What the user chose when the agent asked (an ``AskUserQuestion`` call) is the user's turn,
  one line per question (``question → answer``, from ``toolUseResult.answers`` or the result's
  text), never a tool's output; it sets no goal. A question declined stays the call's result.
* A session resumed into a new file (``claude --resume``): copies of the old records rewritten
  with the new ``sessionId`` are read under the session that first wrote them
  (:mod:`.earlier_copies`: the same items), and a file of new records alone goes on with the
  goal active at the record it follows on from in the old file (:mod:`.earlier_goals`). The
  old file is looked for beside the new one and in ``Source.elsewhere`` (:mod:`.earlier_files`).
* Compaction runs as a subagent (``agentId`` ``acompact-*``, file ``agent-acompact-*.jsonl``):
  its prompt and the summary it writes restate the session and are gated out, counted as
  ``compaction``.
"""

from __future__ import annotations

import re
from collections import deque
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
from .earlier_copies import earlier_sessions
from .earlier_goals import EarlierGoals
from .jsonlines import json_records
from .open_calls import OpenCalls
from .source import Source
from .textutil import is_acknowledgement, parts_text
from .tools import ToolCall, describe_call

_WRAPPER = re.compile(
    r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr"
    r"|bash-input|bash-stdout|bash-stderr)>(.*?)</\1>",
    re.DOTALL,
)
_NOTIFICATION = re.compile(r"<task-notification>(.*?)(?:</task-notification>|\Z)", re.DOTALL)
_NOTIFICATION_FIELD = re.compile(r"<(task-id|status|summary|result)>(.*?)</\1>", re.DOTALL)
_FAILED_STATUSES = frozenset({"failed", "error", "errored"})
_NONZERO_EXIT = re.compile(r"exit code [1-9]\d*")
_AGENT_ID_TEXT = re.compile(r"\bagentId: ([\w-]{1,64})")
_LAUNCH_TOOLS = frozenset({"Task", "Agent"})
_ASK_TOOL = "AskUserQuestion"
_ANSWERED = re.compile(r'"((?:[^"\\]|\\.)+)"="((?:[^"\\]|\\.)*)"')
_COMPACTION_AGENT = "acompact"
_FOLLOWED_WINDOW = 256  # how many of a session's last record uuids a new session may follow
_THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
_TEXT_BLOCK = frozenset({"text"})
_CAVEAT = "Caveat: The messages below were generated by the user while running local commands"
# A tool hook's additional context (a check run after an edit: a compile error, a linter's
# finding), as Claude Code 2.1 hands it to the model: a meta user record holding a reminder.
_TOOL_HOOK_EVENTS = ("PostToolUse", "PostToolUseFailure", "PreToolUse")
_HOOK_TAGS = re.compile(r"^(?:\s*\[[\w .:-]{1,40}\])+")   # the checks' names: "[COMPILE ERROR]"
_HOOK_CONTEXT = re.compile(
    r"\s*(?:<system-reminder>\s*)?((?:%s)(?::[^\s:]+)?) hook additional context:\s*(.*?)"
    r"\s*(?:</system-reminder>\s*)?\Z" % "|".join(_TOOL_HOOK_EVENTS), re.DOTALL)
_INTERRUPTED = "[Request interrupted by user"


def strip_command_wrappers(text: str) -> str:
    """Remove slash-command and local-shell wrappers that Claude Code writes as user text.

    A slash command with arguments keeps them as the message (``/review the retry module``):
    the arguments are what the user asked for. Output of commands the user ran locally is not.
    """
    if "<command-" not in text and "<local-command-" not in text and "<bash-" not in text:
        return text
    parts: dict[str, str] = {}

    def remember(match: re.Match[str]) -> str:
        parts.setdefault(match.group(1), match.group(2).strip())
        return ""

    rest = _WRAPPER.sub(remember, text).strip()
    if rest or not parts.get("command-args"):
        return rest
    return f"{parts.get('command-name', '')} {parts['command-args']}".strip()


class _Record:
    """What every item cut from one Claude Code record shares (worked out only when needed:
    many records, such as file reads and thinking blocks, produce no item)."""

    __slots__ = ("number", "record", "base", "default_session", "sidechain", "agent")

    def __init__(
        self, number: int, record: dict[str, Any], default_session: str, base: str
    ) -> None:
        self.number = number
        self.record = record
        self.base = base
        self.default_session = default_session
        self.sidechain = record.get("isSidechain") is True
        agent = record.get("agentId")
        self.agent = agent if isinstance(agent, str) else ""

    @property
    def session(self) -> str:
        session = self.record.get("sessionId")
        return session if isinstance(session, str) and session else self.default_session

    @property
    def uuid(self) -> str:
        uuid = self.record.get("uuid")
        return uuid if isinstance(uuid, str) and uuid else f"line{self.number}"

    @property
    def cwd(self) -> str:
        cwd = self.record.get("cwd")
        return cwd if isinstance(cwd, str) else ""


class ClaudeCodeParser:
    """Parses one Claude Code transcript into an :class:`ItemCollector`."""

    # A record's items depend on this reader's state and the record alone: a grown file is
    # read on from where the last reading stopped (:mod:`.resume`).
    resumable = True

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.well_formed = 0  # well-formed records read so far
        self.default_session = default_session
        self.calls: dict[str, ToolCall] = {}  # tool_use id -> call, to label its result
        self.launch_goals: dict[str, str] = {}  # Task/Agent tool_use id -> goal when called
        self.tasks: dict[str, ToolCall] = {}  # background task or agent id -> its call
        self.compaction_file = False
        self.open_calls = OpenCalls()  # calls whose result has not been read yet
        self.last_session = ""  # the session of the last record that names one
        # the uuids of the last records read since it began: a resumed conversation's first
        # record follows on from its copy's last (a bounded window, so the state kept between
        # readings of a growing file stays small)
        self.session_uuids: deque[str] = deque(maxlen=_FOLLOWED_WINDOW)
        self._readers = {"user": self._user, "assistant": self._assistant, "system": self._system,
                         "attachment": self._attachment}
        # uuid -> the session an earlier file beside this one wrote the record under (a
        # resumed session's copies, rewritten with its new id: :mod:`.earlier_copies`)
        self.earlier: dict[str, str] = {}
        # the goal at a record another file beside this one holds (:mod:`.earlier_goals`)
        self.earlier_goals: EarlierGoals | None = None

    def __getstate__(self) -> dict[str, Any]:
        # The copies open the file: a reading resumed after them meets none (and the map of
        # the earlier file's records would make the state kept between readings large); the
        # other files' goals are looked for again when a reading needs them.
        return {**self.__dict__, "earlier": {}, "earlier_goals": None}

    def parse(self, source: Source) -> int:
        """Read every record; return how many were well-formed Claude Code records."""
        self.compaction_file = source.stem.startswith("agent-" + _COMPACTION_AGENT)
        if source.resume_at[0] == 0:
            self.earlier = earlier_sessions(source.pointer_base, source.elsewhere)
        self.earlier_goals = EarlierGoals(source.pointer_base, source.elsewhere,
                                          source.size_limit)
        for number, record in json_records(source, self.collector):
            record_type = record.get("type")
            if not isinstance(record_type, str):
                self.collector.skip(number, 'not a Claude Code record (no "type")')
                continue
            self.well_formed += 1
            if self.earlier:
                record = self._as_first_written(record)
            self._follow(record)
            read = self._readers.get(record_type)
            if read is None:  # other types produce no items by design, but are counted
                self.collector.ignore(record_type)
                if record_type == "progress":
                    self._progress(record)
                continue
            rec = _Record(number, record, self.default_session, source.pointer_base)
            compaction = self._is_compaction(rec)
            if rec.sidechain and rec.agent and not compaction and not self.collector.subagent:
                self.collector.subagent = rec.agent
            if (record_type == "user" and record.get("isMeta") is True
                    and self._hook_context(rec, compaction)):
                continue
            if compaction:
                self.collector.ignore("compaction")
                continue
            read(rec, record)
        self.open_calls.remember()
        return self.well_formed

    def _as_first_written(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` under the session an earlier file wrote it under, when it is a copy."""
        uuid = record.get("uuid")
        first = self.earlier.get(uuid) if isinstance(uuid, str) else None
        return record if first is None or first == record.get("sessionId") \
            else {**record, "sessionId": first}

    def _follow(self, record: dict[str, Any]) -> None:
        """A resumed session (``claude --resume``) is written to a new file under a new id,
        after a copy of the records it resumes (which keep their old id, so their items are
        the ones read before): the new id goes on with the goal the old one had when its first
        record follows on (``parentUuid``) from one of the old id's last records read (copies
        rewritten with the new id are given back their old one first: ``_as_first_written``).
        A session with no goal yet whose record follows on from a record another file beside
        this one holds goes on with the goal active there. Records of another conversation
        written into the file (no such link) start with no goal."""
        session = record.get("sessionId")
        if isinstance(session, str) and session and session != self.last_session:
            parents = (record.get("parentUuid"), record.get("logicalParentUuid"))
            if self.last_session and any(p in self.session_uuids for p in parents
                                         if isinstance(p, str)):
                self.collector.go_on(session, self.last_session)
            self.last_session = session
            self.session_uuids.clear()
        # (a subagent's records, the compaction subagent's among them, take theirs otherwise)
        if (isinstance(session, str) and session and not self.collector.goal(session)
                and record.get("isSidechain") is not True and not self.compaction_file):
            goal = self._goal_elsewhere(record)
            if goal:
                self.collector.go_on_with(session, goal)
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            self.session_uuids.append(uuid)

    def _goal_elsewhere(self, record: dict[str, Any]) -> str | None:
        """The goal at the record ``record`` follows on from, when another file beside this
        one holds it (a session resumed into a file holding only its new records; the
        session's own file, for the compaction subagent's); None otherwise."""
        parent = record.get("parentUuid")
        if (not isinstance(parent, str) or not parent or parent in self.session_uuids
                or self.earlier_goals is None):
            return None
        return self.earlier_goals.goal_at(parent)

    def _hook_context(self, rec: _Record, compaction: bool) -> bool:
        """Read a tool hook's additional context (``PostToolUse:Edit hook additional context:
        [COMPILE ERROR] …``), which Claude Code writes as a meta user record; True when it was
        one. A subagent's hook reports on the subagent's call; in the compaction subagent's
        file (where 2.1.39 kept the session's own) it is the session's, not a subagent's.
        Other meta text (a skill's, the prompt hook's frame, a hook's blocking error that the
        call's own result repeats) is not read here."""
        found = _HOOK_CONTEXT.match(_joined_text(_content(rec.record)))
        if found is None:
            return False
        goal = None
        if compaction:   # the session's report, on the call it follows in the session's file
            rec.sidechain, rec.agent = False, ""
            goal = self._goal_elsewhere(rec.record)
        self._hook_item(rec, found.group(1), found.group(2), goal)
        return True

    def _hook_item(self, rec: _Record, hook: str, context: str,
                   goal: str | None = None) -> None:
        """The item of a tool hook's additional ``context``, said by ``hook`` (its event and
        tool, ``PostToolUse:Edit``); ``goal``: its goal, where not the session's active one."""
        news = _HOOK_TAGS.sub("", context).strip()   # "[FORMAT] ok": a check that passed
        kind = tool_output_kind(None, context, False)
        if kind is None or not news or is_acknowledgement(news):
            self.collector.no_item(news)
            return
        self._add(rec, 0, kind, "tool", output_text(None, f"{hook} hook: {context}", kind),
                  links=(("hook", hook),), goal=goal)

    def _is_compaction(self, rec: _Record) -> bool:
        """True for a record of the compaction subagent: its prompt, or the summary it wrote."""
        return rec.sidechain and (
            self.compaction_file or rec.agent.startswith(_COMPACTION_AGENT)
        )

    def _progress(self, record: dict[str, Any]) -> None:
        """An ``agent_progress`` record names the agent a Task call started, while it runs."""
        data = record.get("data")
        if not isinstance(data, dict) or data.get("type") != "agent_progress":
            return
        self._launched(data.get("agentId"), record.get("parentToolUseID"))

    def _launched(self, agent: Any, call_id: Any) -> str | None:
        """Record that the Task call ``call_id`` launched ``agent``; return the goal active
        when the call was made (None when the call is not one seen in this transcript)."""
        if not isinstance(agent, str) or not agent or not isinstance(call_id, str):
            return None
        goal = self.launch_goals.get(call_id)
        if goal is None:
            return None
        self.collector.launches.setdefault(agent, goal)
        call = self.calls.get(call_id)
        if call is not None:
            self.tasks.setdefault(agent, call)
        return self.collector.launches[agent]

    # -- records ---------------------------------------------------------------------------

    def _user(self, rec: _Record, record: dict[str, Any]) -> None:
        if record.get("isMeta") is True:
            self.collector.ignore("meta")  # text the client injected
            return
        if record.get("isCompactSummary") is True:
            self.collector.ignore("compact-summary")  # a summary restating earlier items
            return
        content = _content(record)
        if isinstance(content, str):
            self._user_text(rec, 0, content)
            return
        if not self._blocks_readable(rec, content):
            return
        for index, block, text in _runs(content):
            if text is not None:
                self._user_text(rec, index, text)
            elif block.get("type") == "tool_result":
                self._tool_result(rec, index, block)
            else:
                self._other_block(block)

    def _assistant(self, rec: _Record, record: dict[str, Any]) -> None:
        content = _content(record)
        if record.get("isApiErrorMessage") is True:
            text = _joined_text(content)
            if text:
                self._add(rec, 0, "error", "system", message_text(text))
            else:
                self.collector.no_item(text)
            return
        if isinstance(content, str):
            self._assistant_text(rec, 0, content)
            return
        if not self._blocks_readable(rec, content):
            return
        for index, block, text in _runs(content):
            if text is not None:
                self._assistant_text(rec, index, text)
            elif block.get("type") == "tool_use":
                self._tool_use(rec, index, block)
            else:
                self._other_block(block)

    def _blocks_readable(self, rec: _Record, content: Any) -> bool:
        """True when ``content`` is a list of blocks; counts each block that is not an object
        (``_runs`` leaves it out), and content that is missing (``empty``) or of another shape."""
        if not isinstance(content, list):
            if content is None:
                self.collector.no_item("")
            else:
                self.collector.skip(rec.number, "message content is neither text nor a list")
            return False
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                self.collector.skip(rec.number, f"content block {index} is not an object")
        return True

    def _other_block(self, block: dict[str, Any]) -> None:
        """Count a block that makes no item: reasoning as ``thinking``, any other (an image,
        a block of a type this reader does not know) as ``<type> block``."""
        kind = block.get("type")
        if not isinstance(kind, str):
            self.collector.ignore("untyped block")
        elif kind in _THINKING_TYPES:
            self.collector.ignore("thinking")
        else:
            self.collector.ignore(f"{kind} block")

    def _system(self, rec: _Record, record: dict[str, Any]) -> None:
        content = record.get("content")
        text = clean_message(content) if isinstance(content, str) else ""
        # Hook notices and compaction markers are noise; failures the client reports are not.
        if text and (
            record.get("level") == "error" or tool_output_kind(None, text, False) == "error"
        ):
            self._add(rec, 0, "error", "system", message_text(text))
            return
        subtype = record.get("subtype")
        self.collector.ignore(f"system/{subtype}" if isinstance(subtype, str) else "system")

    def _attachment(self, rec: _Record, record: dict[str, Any]) -> None:
        """A prompt the user typed while the agent worked (a ``queued_command`` of mode
        ``prompt``, or a queued ``task-notification``): Claude Code folds it into the running
        turn and writes no ``user`` record for it, so it is read as one. Every other attachment
        (hook output, the prompt hook's frame, reminders, queued text of another origin) is
        counted as ``attachment/<type>``."""
        attachment = record.get("attachment")
        kind = attachment.get("type") if isinstance(attachment, dict) else None
        hook = _tool_hook(attachment) if kind == "hook_additional_context" else None
        if hook is not None:
            context = _joined_text(attachment.get("content"))
            if context:
                self._hook_item(rec, hook, context)
            else:
                self.collector.no_item(context)
            return
        if kind != "queued_command" or not _typed_by_user(attachment):
            self.collector.ignore(f"attachment/{kind}" if isinstance(kind, str) else "attachment")
            return
        prompt = attachment.get("prompt")
        text = _joined_text(prompt)
        self.collector.parts_left_out(rec.number, prompt, _TEXT_BLOCK, "block")
        if text:
            self._user_text(rec, 0, text)
        else:
            self.collector.no_item(text)

    # -- blocks ----------------------------------------------------------------------------

    def _user_text(self, rec: _Record, index: int, raw: str) -> None:
        text = clean_message(strip_command_wrappers(clean_message(raw)))
        if text.startswith(_CAVEAT):
            self.collector.ignore("caveat")  # the client's note before local command output
            return
        if text.startswith(_INTERRUPTED):
            self.collector.ignore("interrupted")
            return
        if text.startswith("<task-notification>"):
            self._task_notification(rec, index, text)
            return
        kind = user_message_kind(text, is_sidechain=rec.sidechain,
                                 goal=self.collector.goal(rec.session))
        if kind is None:
            self.collector.no_item(text)
        else:
            self._add(rec, index, kind, "user", message_text(text), sets_goal=kind == "user_goal")

    def _task_notification(self, rec: _Record, index: int, text: str) -> None:
        """A background task or async agent finished: its result, never the user's goal."""
        body = _NOTIFICATION.match(text)
        fields = dict(_NOTIFICATION_FIELD.findall(body.group(1) if body else text))
        task = fields.get("task-id", "").strip()
        status = fields.get("status", "").strip()
        summary = fields.get("summary", "").strip()
        result = fields.get("result", "").strip()
        head = " ".join(part for part in ("task", task, status) if part)
        output = "\n".join(part for part in (f"{head}: {summary}" if summary else head, result) if part)
        if status.lower() in _FAILED_STATUSES or _NONZERO_EXIT.search(summary):
            kind = "error"
        else:
            kind = "error" if tool_output_kind(None, result, False) == "error" else "tool_result"
        call = self.tasks.get(task)
        links: tuple[tuple[str, str], ...] = (("task", task),) if task else ()
        if call is not None:
            links += (("tool", call.name),)
        self._add(
            rec,
            index,
            kind,
            "tool",
            output_text(call, output, kind),
            links=links,
            goal=self.collector.launches.get(task),  # an agent's report serves its launch
        )

    def _assistant_text(self, rec: _Record, index: int, raw: str) -> None:
        text = clean_message(raw)
        kind = assistant_text_kind(text)
        if kind is None:
            self.collector.no_item(text)
        else:
            self._add(rec, index, kind, "assistant", message_text(text))

    def _tool_use(self, rec: _Record, index: int, block: dict[str, Any]) -> None:
        name = block.get("name")
        if not isinstance(name, str) or not name:
            self.collector.skip(rec.number, f"tool_use block {index} has no name")
            return
        call = describe_call(name, block.get("input"), rec.cwd)
        call_id = block.get("id")
        if isinstance(call_id, str):
            self.calls[call_id] = call
            if name in _LAUNCH_TOOLS:
                self.launch_goals[call_id] = self.collector.goal(rec.session)
        goal = self.collector.goal(rec.session)
        self.open_calls.open(call_id, call, partial(self._unanswered, rec, index, goal))
        if call.is_file_op:
            links = (("touches_file", call.path), ("file_op", call.op), ("tool", name))
            self._add(
                rec,
                index,
                "file_op",
                "assistant",
                call.file_op_text(),
                links=links,
                mentions_in=call.detail,
            )

    def _tool_result(self, rec: _Record, index: int, block: dict[str, Any]) -> None:
        call_id = block.get("tool_use_id")
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        self.open_calls.close(call_id)
        output = clean_message(_joined_text(block.get("content")))
        self.collector.parts_left_out(rec.number, block.get("content"), _TEXT_BLOCK, "block")
        outcome = rec.record.get("toolUseResult")
        outcome = outcome if isinstance(outcome, dict) else {}
        background = outcome.get("backgroundTaskId")
        if call is not None and isinstance(background, str) and background:
            self.tasks.setdefault(background, call)
        if call is not None and call.name == _ASK_TOOL and block.get("is_error") is not True:
            answered = _answers(outcome, output)
            if answered:  # the user's choices: what they said, not a tool's output
                self._add(rec, index, "turn", "user", message_text(answered),
                          links=(("tool", call.name),))
                return
        agent = outcome.get("agentId")
        if not isinstance(agent, str) and isinstance(call_id, str) and call_id in self.launch_goals:
            found = _AGENT_ID_TEXT.search(output)
            agent = found.group(1) if found else None
        launch_goal = self._launched(agent, call_id)
        kind = tool_output_kind(call, output, block.get("is_error") is True)
        if kind is None and launch_goal is not None:
            kind = "tool_result"  # the link to the subagent's own file must be kept
        if kind is None:
            self.collector.no_item(output, call)
            return
        links: tuple[tuple[str, str], ...] = (("tool", call.name),) if call is not None else ()
        if launch_goal is not None:
            links += (("launched_agent", str(agent)),)
        self._add(
            rec, index, kind, "tool", output_text(call, output, kind), links=links, goal=launch_goal
        )

    def _unanswered(self, rec: _Record, index: int, goal: str, text: L0Text,
                    links: tuple[tuple[str, str], ...]) -> None:
        """The item of a call the transcript never answered (see :mod:`.open_calls`); a
        method, not a closure, so that the reader can be kept between readings."""
        self._add(rec, index, "tool_result", "tool", text, links=links, goal=goal)

    def _add(
        self,
        rec: _Record,
        index: int,
        kind: str,
        role: str,
        text: str | L0Text,
        *,
        links: tuple[tuple[str, str], ...] = (),
        sets_goal: bool = False,
        mentions_in: str | None = None,
        goal: str | None = None,
    ) -> None:
        speaker = ""
        if rec.sidechain:
            links = links + (("sidechain", "true"),)
            if rec.agent:  # joins the launching call's relation(_, launched_agent, Id)
                links = links + (("agent", rec.agent),)
            # A sidechain is a subagent's own transcript: its "user" is the main agent's prompt,
            # and all else in it (its words, its calls' output, its errors) is the subagent's
            # work, so a frame does not pass it off as the main agent's.
            speaker = "assistant" if role == "user" else "subagent"
        self.collector.add(
            record_no=rec.number,
            session=rec.session,
            kind=kind,
            role=role,
            identity=f"{rec.uuid}/{index}",
            text=text,
            time=self.collector.time(rec.number, rec.record.get("timestamp")),
            pointer=f"{rec.base}:{rec.number}",
            cwd=rec.cwd,
            links=links,
            sets_goal=sets_goal,
            mentions_in=mentions_in,
            speaker=speaker,
            goal=goal,
        )


def _tool_hook(attachment: dict[str, Any]) -> str | None:
    """The hook (``PostToolUse:Edit``) of a ``hook_additional_context`` attachment when a
    tool's hook wrote it; None for another event's (the prompt hook's frame, a session
    start's primer)."""
    name = attachment.get("hookName")
    event = attachment.get("hookEvent")
    name = name if isinstance(name, str) else ""
    event = event if isinstance(event, str) else name.split(":", 1)[0]
    if event not in _TOOL_HOOK_EVENTS:
        return None
    return name if name.startswith(event) else event


def _typed_by_user(attachment: dict[str, Any]) -> bool:
    """Whether a ``queued_command`` attachment is to be read: what the user typed (mode
    ``prompt`` from a ``human`` origin) or a task's notification, not text another session or
    the client queued (``isMeta``, another ``origin``, another mode: ``bash``, ``coordinator``)."""
    mode = attachment.get("commandMode")
    if attachment.get("isMeta") is True or mode not in (None, "prompt", "task-notification"):
        return False
    origin = attachment.get("origin")
    return mode == "task-notification" or not isinstance(origin, dict) or origin.get("kind") in (
        None, "human")


def _answers(outcome: dict[str, Any], output: str) -> str:
    """What the user chose when the agent asked (``AskUserQuestion``): one line per question,
    ``question → answer``, from the call's ``toolUseResult.answers`` (a list of choices joined
    by commas), else from the result's text (``User has answered your questions: "Q"="A",
    …``); "" when it holds no answer."""
    answers = outcome.get("answers")
    if isinstance(answers, dict):
        pairs = [(q, ", ".join(str(x) for x in a) if isinstance(a, list) else a)
                 for q, a in answers.items()]
    else:
        pairs = _ANSWERED.findall(output)
    return "\n".join(f"{q.strip()} → {a.strip()}" for q, a in pairs
                     if isinstance(q, str) and isinstance(a, str) and q.strip() and a.strip())


def _content(record: dict[str, Any]) -> Any:
    message = record.get("message")
    if isinstance(message, dict):
        return message.get("content")
    return record.get("content") if isinstance(record.get("content"), (str, list)) else None


def _joined_text(content: Any) -> str:
    """Text of a content value: a string, or the ``text`` blocks of a list joined by newlines
    (what it leaves out is counted by ``ItemCollector.parts_left_out``)."""
    return parts_text(content, _TEXT_BLOCK) if isinstance(content, (str, list)) else ""


def _runs(content: Any) -> list[tuple[int, dict[str, Any], str | None]]:
    """Blocks of a content list, with adjacent ``text`` blocks merged into one run.

    Returns ``(index of the first block, block, merged text or None)``; text runs come with
    their text, other blocks (calls, results, thinking, images ...) with None. A block that is
    not an object is left out (the caller counts it).
    """
    if not isinstance(content, list):
        return []
    runs: list[tuple[int, dict[str, Any], str | None]] = []
    pending: list[str] = []
    pending_index = 0
    pending_block: dict[str, Any] = {}
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            if not pending:
                pending_index, pending_block = index, block
            pending.append(block["text"])
            continue
        if pending:
            runs.append((pending_index, pending_block, "\n\n".join(pending)))
            pending = []
        runs.append((index, block, None))
    if pending:
        runs.append((pending_index, pending_block, "\n\n".join(pending)))
    return runs
