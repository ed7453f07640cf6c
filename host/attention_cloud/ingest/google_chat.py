"""Google Chat conversations from Google Takeout: ``Google Chat/Groups/<DM … | Space …>/
messages.json``, ``{"messages": [...]}``, each message ``{"creator": {"name", "email",
"user_type"}, "created_date", "text", "topic_id", "message_id"}``.

- **Session**: ``Google Chat/<the conversation's folder>`` (``Google Chat/Space AAAAxyz``), the
  same whatever the export's language; else the file's name.
- **Speakers and roles**: ``creator.name``, else its ``email``; roles as :mod:`.chat_messages`
  gives them.
- **Time**: ``created_date``, as Takeout writes it in the account's language and zone
  ("Monday, May 8, 2023 at 1:56:03 PM UTC", "Montag, 8. Mai 2023 um 13:56:03 UTC"; read by
  :mod:`.timefmt`, the month names by :mod:`.date_words`). A message edited later
  keeps its text as last written and links when (``relation(H, edited, TIME)``).
- **Threads**: each message ``relation(H, message_id, '<session>#<id>')``; a message after the
  first of its thread (``topic_id``) ``relation(H, reply_to, …)`` the thread's first message.
- **Files**: ``attached_files`` named on a line of their own (``[attached: minutes.pdf]``, each
  ``original_name``, else ``export_name``), so a message of nothing but a file is an item.
- **Counted, not kept**: deleted messages (``deleted``), and a message of no text and no file
  (a call, a card: ``media``, else ``empty``); ``group_info.json`` and ``user_info.json``
  (``google-chat group_info.json``), so the unzipped ``Google Chat`` folder ingests whole; a
  conversation with no messages left (``{"messages": []}`` in its ``DM …``/``Space …`` folder)
  is skipped as a Google Chat export that holds none, not misread as an empty chat API record.

Pointers read ``<file>#/messages/<i>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .chat_messages import ChatExportParser, add_chat_message, attachment_names, one_line_name
from .collector import ItemCollector
from .jsonlines import json_document, strip_document_envelopes
from .source import Source, fail
from .timefmt import read_time

METADATA_FILES = frozenset({"group_info.json", "user_info.json"})
CONVERSATION_FOLDERS = ("DM ", "Space ")  # Takeout's folder of one conversation


def is_google_chat_metadata(name: str, text: str) -> bool:
    """True for the files Takeout writes beside the messages (``group_info.json``, the
    conversation's name and members; ``user_info.json``): counted, not read for items."""
    return Path(name).name in METADATA_FILES and text.lstrip()[:1] in ("[", "{")


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("creator"), dict) \
        and "created_date" in value


def is_google_chat_export(document: Any) -> bool:
    """True for a Takeout ``messages.json``: ``messages`` whose first ones name their
    ``creator`` and ``created_date`` (one that lost either is reported when it is read)."""
    if not isinstance(document, dict) or not isinstance(document.get("messages"), list):
        return False
    if "role" in document:
        return False
    head = [m for m in document["messages"][:20] if isinstance(m, dict)]
    return bool(head) and any(_is_message(m) for m in head) and not any(
        "role" in m for m in head)


def _holds_no_messages(document: Any) -> bool:
    return isinstance(document, dict) and document.get("messages") == [] and "role" not in document


def is_empty_google_chat(path: str, text: str) -> bool:
    """True for a Takeout conversation with no messages left (``{"messages": []}``): told from
    any chat API's empty record only by where Takeout puts it, a ``messages.json`` in a
    conversation's folder (``DM …``, ``Space …``, whatever the export's language) or beside its
    ``group_info.json``."""
    where = Path(path)
    if where.name != "messages.json" or text.lstrip()[:1] != "{" or len(text) > 4096:
        return False
    try:
        if not _holds_no_messages(json.loads(text)):
            return False
    except (ValueError, RecursionError):
        return False
    return where.parent.name.startswith(CONVERSATION_FOLDERS) or (
        where.parent / "group_info.json").is_file()


class GoogleChatParser(ChatExportParser):
    """Parses a Google Chat ``messages.json`` into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        super().__init__(collector, default_session)
        self._topics: dict[str, str] = {}  # topic id -> its first message's link

    def parse(self, source: Source) -> int:
        """Read every message of the conversation; return how many there were."""
        document = json_document(source)
        if Path(source.name).name in METADATA_FILES and isinstance(document, dict):
            self.collector.records_read += 1
            self.collector.ignore(f"google-chat {Path(source.name).name}")
            return 1
        if _holds_no_messages(document):
            return 0  # a conversation emptied by deletions: "it holds none"
        if not is_google_chat_export(document):
            raise fail(source.name, 'not a Google Chat export ("messages" with a "creator" '
                                    'and a "created_date")')
        strip_document_envelopes(source, self.collector, document)
        folder = Path(source.pointer_base).parent.name
        session = f"Google Chat/{folder}" if folder and Path(source.name).stem == "messages" \
            else self.default_session
        messages = document["messages"]
        for index, message, pointer in self.each_message(messages,
                                                         f"{source.pointer_base}#/messages"):
            self._message(message, index, session, pointer)
        return len(messages)

    def _message(self, message: dict[str, Any], index: int, session: str, pointer: str) -> None:
        if message.get("deletion_metadata"):
            self.collector.ignore("deleted")
            return
        text = message.get("text").strip() if isinstance(message.get("text"), str) else ""
        files = message.get("attached_files")
        attached = attachment_names(
            f.get("original_name") or f.get("export_name") for f in files
            if isinstance(f, dict)) if isinstance(files, list) else []
        if not text and not attached:
            self.collector.ignore("media" if message.get("annotations") else "empty")
            return
        creator = message.get("creator") if isinstance(message.get("creator"), dict) else {}
        sender = (one_line_name(creator.get("name"), 120)
                  or one_line_name(creator.get("email"), 120) or "unknown")
        links = []
        own = message.get("message_id")
        if isinstance(own, str) and own:
            links.append(("message_id", f"{session}#{own}"))
        topic = message.get("topic_id")
        if isinstance(topic, str) and topic:
            first = self._topics.setdefault(topic, f"{session}#{own}" if own else "")
            if first and own and first != f"{session}#{own}":
                links.append(("reply_to", first))
        edited = read_time(message.get("updated_date")) if message.get("updated_date") else ""
        if edited:
            links.append(("edited", edited))
        add_chat_message(self.collector, self.senders, record_no=index + 1, session=session,
                         sender=sender, text=text,
                         time=self.collector.time(index + 1, message.get("created_date")),
                         identity=f"m{own or index}", pointer=pointer, links=links,
                         attached=attached)
