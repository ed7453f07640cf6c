"""Continue's saved sessions (the VS Code and JetBrains extension, and its CLI):
``~/.continue/sessions/<sessionId>.json``, ``{"sessionId", "title", "workspaceDirectory",
"history": [...]}``, beside the index ``sessions.json`` (``[{"sessionId", "title",
"dateCreated", "workspaceDirectory"}]``).

- **Session**: the ``sessionId`` (else the file's name).
- **Messages**: each history item's ``message`` is an OpenAI-style chat message and is read as
  :mod:`.openai_chat` reads one: ``role`` ``user``, ``assistant``, ``system`` or ``tool``,
  ``content`` a string or parts (``{"type": "text", "text"}``), ``toolCalls`` (file reads and
  edits kept as file operations, as ``tool_calls`` are) and ``toolCallId`` on a tool's result.
  The files and snippets a user message brought as context (``contextItems``: their
  ``description``, else ``name``) are named on a line of their own (``[attached:
  src/export.py]``); their contents are not kept. ``thinking`` messages are counted as
  ``thinking``; ``promptLogs``, ``editorState`` and ``toolCallState`` are not read.
- **Time**: the session file writes none; ``dateCreated`` (epoch milliseconds) of its entry in
  ``sessions.json`` beside it is every message's time, the moment the session began (no message
  is earlier). Without that index the messages keep no time and the report says so.
- **The index** ``sessions.json`` is counted (``continue sessions.json``), so the folder ingests
  whole.

Pointers read ``<file>#/history/<i>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .chat_messages import attachment_names, with_attachments
from .jsonlines import json_document, strip_document_envelopes
from .openai_chat import Conversation, OpenAIChatParser
from .source import Source, fail

INDEX = "sessions.json"
_MAX_INDEX_BYTES = 64 * 1024 * 1024


def _is_history_item(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("message"), dict) \
        and isinstance(value["message"].get("role"), str)


def is_continue_session(document: Any) -> bool:
    """True for a Continue session: a ``sessionId`` and a ``history`` list whose items (the
    first ones that are objects) each wrap a ``message`` with a ``role``."""
    if not isinstance(document, dict) or not isinstance(document.get("sessionId"), str) \
            or not isinstance(document.get("history"), list):
        return False
    head = [item for item in document["history"][:20] if isinstance(item, dict)]
    return all(_is_history_item(item) for item in head)


def is_continue_index(name: str, document: Any) -> bool:
    """True for Continue's ``sessions.json``: a list of entries with a ``sessionId`` and a
    ``dateCreated``."""
    return Path(name).name == INDEX and isinstance(document, list) and all(
        isinstance(entry, dict) and "sessionId" in entry and "dateCreated" in entry
        for entry in document[:20])


def _message_of(item: Any) -> Any:
    """A history item's message as :mod:`.openai_chat` reads one (its ``toolCalls`` and
    ``toolCallId`` under their API names, its context named in its text); an item that is no
    such object as it is, for the reader to report."""
    if not _is_history_item(item):
        return item.get("message", item) if isinstance(item, dict) else item
    message = dict(item["message"])
    if "toolCalls" in message and "tool_calls" not in message:
        message["tool_calls"] = message["toolCalls"]
    if "toolCallId" in message and "tool_call_id" not in message:
        message["tool_call_id"] = message["toolCallId"]
    context = item.get("contextItems")
    names = attachment_names(
        c.get("description") or c.get("name") for c in context if isinstance(c, dict)
    ) if isinstance(context, list) and message.get("role") == "user" else []
    if names:
        content = message.get("content")
        if isinstance(content, list):
            message["content"] = content + [{"type": "text", "text": with_attachments("", names)}]
        else:
            message["content"] = with_attachments(content if isinstance(content, str) else "",
                                                  names)
    return message


class ContinueParser(OpenAIChatParser):
    """Parses a Continue session (or counts its ``sessions.json``) into an
    :class:`ItemCollector`."""

    def _read(self, source: Source) -> int:
        document = json_document(source)
        if is_continue_index(source.name, document):
            self.collector.records_read += 1
            self.collector.ignore(f"continue {INDEX}")
            return 1
        if not is_continue_session(document):
            raise fail(source.name, 'not a Continue session (a "sessionId" and a "history" of '
                                    'items each with a "message")')
        strip_document_envelopes(source, self.collector, document)
        session = document["sessionId"].strip() or self.default_session
        begun = self._date_created(source, document["sessionId"])
        conversation = Conversation(session, begun, f"{source.pointer_base}#/history", "", None)
        return self._conversation(conversation, [_message_of(i) for i in document["history"]])

    def _message(self, conversation: Conversation, message: dict[str, Any], record_no: int,
                 pointer: str, identity: str) -> bool:
        if message.get("role") == "thinking":  # the model's reasoning, shown folded
            self.collector.ignore("thinking")
            return True
        return super()._message(conversation, message, record_no, pointer, identity)

    def _date_created(self, source: Source, session_id: str) -> str:
        """The session's ``dateCreated`` from ``sessions.json`` beside its file, as an ISO
        time; ``""`` when there is no index, or it does not list the session."""
        created = _index_dates(Path(source.pointer_base).parent / INDEX).get(session_id)
        if created is None:
            return ""
        if isinstance(created, str) and created.strip().isdigit():
            created = int(created.strip())  # epoch milliseconds written as text
        return self.collector.time(0, created)


# The last index read: (its path, (mtime, size, inode), sessionId -> dateCreated). A folder of
# sessions is read file after file, each asking the one index beside it: decoded once, not once
# per session. One kept, so a watcher running for days holds no more than one index.
_last_index: tuple[Path, tuple[int, int, int], dict[str, Any]] | None = None


def _index_dates(index: Path) -> dict[str, Any]:
    """Each session's ``dateCreated`` in the index ``sessions.json`` at ``index`` (empty when
    it is missing, too big or not an index); read again whenever the file changed."""
    global _last_index
    try:
        stat = index.stat()
        if not index.is_file() or stat.st_size > _MAX_INDEX_BYTES:
            return {}
        version = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        if _last_index is not None and _last_index[:2] == (index, version):
            return _last_index[2]
        entries = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    dates: dict[str, Any] = {}
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("sessionId"), str):
            dates.setdefault(entry["sessionId"], entry.get("dateCreated"))
    _last_index = (index, version, dates)
    return dates
