"""Open WebUI chat exports (Settings → Chats → Export, or a chat's Download → Export chat):
a JSON list of chats, each ``{"id", "title", "chat": {"history": {"messages": {ID: message},
"currentId"}, "messages": [...]}, "created_at"}`` (one chat alone is read too).

- **Session**: the chat's ``id``; its ``title`` as ``relation(H, title, T)`` on each item.
- **Branches**: a message edited or a reply regenerated makes ``history`` a tree (``parentId``,
  ``childrenIds``); what the user last saw is the branch from ``currentId`` up the
  ``parentId`` links, and only it is read; the other branches' messages are counted as
  ``other-branch``. A chat without ``history`` is its ``messages`` list.
- **Messages**: ``role`` ``user`` (a goal or a turn, as elsewhere), ``assistant`` (a conclusion;
  the model that wrote it, ``modelName`` else ``model``, as ``relation(H, model, M)``),
  ``system`` (a system turn); ``content`` a string; files sent with a message (``files``, each
  ``name``) named on a line of their own (``[attached: notes.pdf]``).
- **Time**: each message's ``timestamp`` (epoch seconds); one without it takes the time of the
  message before it, the chat's ``created_at`` for the first.

Pointers read ``<file>#/<i>/chat/history/messages/<id>`` (``…/chat/messages/<j>`` without
``history``).
"""

from __future__ import annotations

from typing import Any

from .chat_messages import attachment_names, with_attachments
from .chatgpt_export import json_pointer_token
from .classify import assistant_text_kind, clean_message, message_text, user_message_kind
from .collector import ItemCollector
from .jsonlines import json_document, strip_document_envelopes
from .source import Source, fail

_TITLE_MAX_CHARS = 200


def _is_chat(value: Any) -> bool:
    """One exported chat: ``chat`` holding a ``history`` of ``messages`` or a ``messages``
    list."""
    if not isinstance(value, dict) or not isinstance(value.get("chat"), dict):
        return False
    chat = value["chat"]
    history = chat.get("history")
    return (isinstance(history, dict) and isinstance(history.get("messages"), dict)) \
        or isinstance(chat.get("messages"), list)


def is_open_webui_export(document: Any) -> bool:
    """True for an Open WebUI export: a list of chats (its first ones such), or one chat."""
    if isinstance(document, list):
        head = [c for c in document[:5] if isinstance(c, dict)]
        return bool(head) and all(_is_chat(c) for c in head)
    return _is_chat(document)


def active_branch(messages: dict[str, Any], current: Any) -> list[str]:
    """The ids of the branch the user last saw, root first: from ``current`` up the
    ``parentId`` links (a cycle or a missing parent ends it)."""
    branch: list[str] = []
    seen: set[str] = set()
    node = current if isinstance(current, str) else None
    while node is not None and node in messages and node not in seen:
        seen.add(node)
        branch.append(node)
        parent = messages[node].get("parentId") if isinstance(messages[node], dict) else None
        node = parent if isinstance(parent, str) else None
    return branch[::-1]


class OpenWebUIParser:
    """Parses an Open WebUI chat export into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.default_session = default_session

    def parse(self, source: Source) -> int:
        """Read the active branch of every chat; return how many messages were read."""
        document = json_document(source)
        if not is_open_webui_export(document):
            raise fail(source.name, 'not an Open WebUI export (a list of chats, each a "chat" '
                                    'with a "history" or "messages")')
        strip_document_envelopes(source, self.collector, document)
        if isinstance(document, dict):
            return self._chat(document, 1, f"{source.pointer_base}#")
        read = 0
        for index, record in enumerate(document):
            if not _is_chat(record):
                self.collector.skip(index + 1, f"chat {index} has no history or messages")
                continue
            read += self._chat(record, index + 1, f"{source.pointer_base}#/{index}")
        return read

    def _chat(self, record: dict[str, Any], number: int, prefix: str) -> int:
        chat = record["chat"]
        chat_id = record.get("id") or chat.get("id")
        session = chat_id if isinstance(chat_id, str) and chat_id.strip() else (
            f"{self.default_session}#{number}")
        title = record.get("title") or chat.get("title")
        title = " ".join(title.split())[:_TITLE_MAX_CHARS] if isinstance(title, str) else ""
        links = (("title", title),) if title else ()
        when = self.collector.time(number, record.get("created_at")) \
            if record.get("created_at") is not None else ""
        history = chat.get("history")
        if isinstance(history, dict) and isinstance(history.get("messages"), dict):
            messages = history["messages"]
            branch = active_branch(messages, history.get("currentId"))
            others = sum(isinstance(m, dict) for m in messages.values()) - len(branch)
            if others > 0:
                self.collector.ignored["other-branch"] = (
                    self.collector.ignored.get("other-branch", 0) + others)
            on_branch = [(messages[i], f"{prefix}/chat/history/messages/{json_pointer_token(i)}",
                          i) for i in branch]
        else:
            on_branch = [(m, f"{prefix}/chat/messages/{j}", str(m.get("id") or j))
                         for j, m in enumerate(chat["messages"]) if isinstance(m, dict)]
        for message, pointer, identity in on_branch:
            self.collector.records_read += 1
            written = message.get("timestamp")
            time = when if written in (None, "") else self.collector.time(number, written)
            when = time or when
            self._message(message, session, links, time, pointer, identity, number)
        return len(on_branch)

    def _message(self, message: dict[str, Any], session: str, links: tuple[tuple[str, str], ...],
                 time: str, pointer: str, identity: str, number: int) -> None:
        role = message.get("role")
        content = message.get("content")
        text = clean_message(content) if isinstance(content, str) else ""
        files = message.get("files")
        attached = attachment_names(f.get("name") for f in files if isinstance(f, dict)) \
            if isinstance(files, list) else []

        def add(kind: str, item_role: str, extra: tuple[tuple[str, str], ...] = (),
                **more: Any) -> None:
            self.collector.add(record_no=number, session=session, kind=kind, role=item_role,
                               identity=identity,
                               text=message_text(with_attachments(text, attached)), time=time,
                               pointer=pointer, links=links + extra, **more)

        if role == "user":
            kind = user_message_kind(text) if text else ("turn" if attached else None)
            if kind is None:
                self.collector.no_item(text)
            else:
                add(kind, "user", sets_goal=kind == "user_goal")
        elif role == "assistant":
            kind = assistant_text_kind(text)
            model = message.get("modelName") or message.get("model")
            if kind is None:
                self.collector.no_item(text)
            else:
                add(kind, "assistant", (("model", " ".join(model.split())[:80]),)
                    if isinstance(model, str) and model.strip() else ())
        elif role == "system":
            if text:
                add("turn", "system")
            else:
                self.collector.no_item(text)
        else:
            self.collector.skip(number, f"unknown role {role!r}")
