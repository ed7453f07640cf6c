"""Facebook Messenger and Instagram direct-message exports ("Download your information", JSON).

Each thread is a folder (``messages/inbox/<name>_<id>/``) of ``message_1.json``,
``message_2.json`` ...: ``{"participants": [{"name"}], "messages": [...], "title",
"thread_path"}``, each message ``{"sender_name", "timestamp_ms", "content"}`` with what it
shares (``photos``, ``videos``, ``audio_files``, ``gifs``, ``files``: each a ``uri``;
``share.link``; ``sticker``). Messenger's end-to-end encrypted chats export another shape:
``{"participants": ["Priya"], "threadName", "messages": [{"senderName", "timestamp", "text",
"media": [{"uri"}], "isUnsent"}]}``; both are read. Its HTML pages are read by
:mod:`.messenger_html`.

- **Text as written.** Meta writes each byte of a UTF-8 character as a character of its own
  (``"caf\\u00c3\\u00a9"`` for ``café``); every string is turned back into the text it was,
  where its characters are such bytes and they make UTF-8 (text already right is left alone).
- **Session**: the thread, by its ``thread_path`` (the same in every file of the thread and
  unique where two threads share a title), else its title; the title as ``relation(H, title,
  T)`` on each item.
- **Speakers and roles**: ``sender_name``; roles as :mod:`.chat_messages` gives them.
- **Order and time**: the export writes the newest message first; messages are read oldest
  first. ``timestamp_ms`` (older exports: ``timestamp``, epoch seconds) is the moment; the
  export names no zone, so the day is UTC's.
- **Counted, not kept**: unsent messages (``unsent``), calls (``call``), members added or
  leaving (``Subscribe``/``Unsubscribe``: ``system``), Instagram's "Liked a message" and
  "Reacted … to your message" (``reaction``), and a message of no text and no file (a sticker
  alone: ``media``).

Pointers read ``<file>#/messages/<i>``.
"""

from __future__ import annotations

from typing import Any

from .chat_messages import ChatExportParser, add_chat_message, attachment_names
from .jsonlines import json_document, strip_document_envelopes
from .messenger_html import MessengerHtmlParser, is_messenger_html
from .meta_text import REACTION, meta_text
from .source import Source, fail

_HTML_HEAD = 1_000_000  # a page's style sheet comes before its first message
_MEDIA_KEYS = ("photos", "videos", "audio_files", "gifs", "files", "media")
_SYSTEM_TYPES = frozenset({"Subscribe", "Unsubscribe"})


def _sender(message: dict[str, Any]) -> Any:
    return message.get("sender_name", message.get("senderName"))


def _moment(message: dict[str, Any]) -> Any:
    return message.get("timestamp_ms", message.get("timestamp"))


def is_messenger_export(document: Any) -> bool:
    """True for one file of a Messenger or Instagram thread: ``participants`` and
    ``messages`` whose first ones name their sender and their time."""
    if not isinstance(document, dict) or not isinstance(document.get("participants"), list):
        return False
    messages = document.get("messages")
    if not isinstance(messages, list) or "role" in document:
        return False
    head = [m for m in messages[:20] if isinstance(m, dict)]
    return not head and ("thread_path" in document or "threadName" in document) or any(
        isinstance(_sender(m), str) and _moment(m) is not None for m in head)


def _name(value: Any) -> str:
    return " ".join(meta_text(value).split())[:120]


class MessengerParser(ChatExportParser):
    """Parses a Messenger or Instagram thread file into an :class:`ItemCollector`."""

    def parse(self, source: Source) -> int:
        """Read every message of the thread, oldest first; return how many there were."""
        if source.text is not None and source.text.lstrip()[:1] == "<" \
                and is_messenger_html(source.text[:_HTML_HEAD]):  # the export's default
            return MessengerHtmlParser(self.collector, self.default_session).parse(source)
        document = json_document(source)
        if not is_messenger_export(document):
            raise fail(source.name, 'not a Messenger or Instagram export ("participants" and '
                                    '"messages" with "sender_name" and "timestamp_ms")')
        strip_document_envelopes(source, self.collector, document)
        title = _name(document.get("title", document.get("threadName")))
        path = document.get("thread_path")
        session = (" ".join(path.split())[:200] if isinstance(path, str) and path.strip()
                   else title or self.default_session)
        links = (("title", title),) if title else ()
        messages = document["messages"]
        for index, message, pointer in self.each_message(
                messages, f"{source.pointer_base}#/messages", order=_oldest_first(messages)):
            self._message(message, index, session, links, pointer)
        return len(messages)

    def _message(self, message: dict[str, Any], index: int, session: str,
                 links: tuple[tuple[str, str], ...], pointer: str) -> None:
        if message.get("is_unsent") is True or message.get("isUnsent") is True:
            self.collector.ignore("unsent")
            return
        kind = message.get("type")
        if kind == "Call" or "call_duration" in message:
            self.collector.ignore("call")
            return
        if kind in _SYSTEM_TYPES:
            self.collector.ignore("system")
            return
        text = meta_text(message.get("content", message.get("text"))).strip()
        if REACTION.match(text):
            self.collector.ignore("reaction")
            return
        share = message.get("share")
        link = meta_text(share.get("link")).strip() if isinstance(share, dict) else ""
        if link and link not in text:
            text = f"{text}\n{link}" if text else link
        attached = attachment_names(_file_names(message))
        if not text and not attached:
            self.collector.ignore("media" if message.get("sticker") or any(
                message.get(key) for key in _MEDIA_KEYS) else "empty")
            return
        sender = _name(_sender(message)) or "unknown"
        moment = _moment(message)
        add_chat_message(self.collector, self.senders, record_no=index + 1, session=session,
                         sender=sender, text=text, time=self.collector.time(index + 1, moment),
                         identity=f"m{moment}-{sender}", pointer=pointer, links=links,
                         attached=attached)


def _oldest_first(messages: list[Any]) -> list[int]:
    """The messages' indices in the order they were sent: the export's own order reversed
    when its first message is later than its last (newest first, as Meta writes it)."""
    stamps = [_moment(m) for m in messages if isinstance(m, dict)]
    stamps = [s for s in stamps if isinstance(s, (int, float)) and not isinstance(s, bool)]
    indices = list(range(len(messages)))
    return indices[::-1] if len(stamps) > 1 and stamps[0] > stamps[-1] else indices


def _file_names(message: dict[str, Any]) -> list[str]:
    """The files a message shares, by the last part of each ``uri``."""
    names = []
    for key in _MEDIA_KEYS:
        files = message.get(key)
        for item in files if isinstance(files, list) else ():
            uri = meta_text(item.get("uri")) if isinstance(item, dict) else ""
            if uri.strip():
                names.append(uri.rstrip("/").rsplit("/", 1)[-1])
    return names
