"""Telegram Desktop chat exports ("Export chat history", machine-readable JSON: ``result.json``).

One chat is ``{"name", "type": "private_group" | "personal_chat" | ..., "id", "messages":
[...]}``; an export of the whole account holds its chats in ``{"chats": {"list": [...]},
"left_chats": {"list": [...]}}``. Each chat is a session named by its ``name`` (a chat without
one by ``telegram-<id>``; a name two chats share gets `` (<id>)``).

- **Messages** (``"type": "message"``): the sender is ``from`` (``Deleted Account`` when Telegram
  wrote none; a channel's signed post: its ``author``), roles as :mod:`.chat_messages` gives them; the text is ``text``, a string or a
  list of strings and entities (``{"type": "link", "text": …}``), read whole. A forwarded
  message says whose it was (``[forwarded from Priya] …``); a reply links the message it answers
  (``relation(H, reply_to, <session>#<id>)``) and its own id is ``relation(H, message_id,
  <session>#<id>)``; one edited links when (``relation(H, edited, TIME)``, from
  ``edited_unixtime``), its text the last written. A message without text (a photo, a sticker, a voice note) is counted as
  ``media``; ``service`` messages (group created, members added, pinned) as ``service``.
- **Time**: ``date_unixtime`` is the moment (UTC); ``date`` is the local time as written, which
  gives the day the message was written on (so "yesterday" counts back from the sender's day).
  Without ``date_unixtime``, ``date`` is read as written (as UTC, as every zoneless time is).

Pointers read ``<file>#/messages/<i>`` (``#/chats/list/<c>/messages/<i>`` in a full export).
"""

from __future__ import annotations

from typing import Any

from .chat_messages import ChatExportParser, add_chat_message, attachment_names
from .collector import ItemCollector
from .jsonlines import json_document, strip_document_envelopes
from .source import Source, fail, first_byte
from .telegram_html import TelegramHtmlReader
from .timefmt import TurnTime, read_time

_CHAT_KEYS = ("name", "type", "id")


def _is_chat(value: Any) -> bool:
    """A Telegram chat: ``messages`` a list, and ``type``/``id``/``name`` beside it, its messages
    typed ``message`` or ``service``, dated (one without its ``date`` is reported when the chat
    is read, not a reason to lose the chat)."""
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        return False
    if not any(key in value for key in _CHAT_KEYS) or "role" in value:
        return False
    head = [m for m in value["messages"][:20] if isinstance(m, dict)]
    return not head or all(m.get("type") in ("message", "service") for m in head) \
        and any("date" in m for m in head)


def is_telegram_export(document: Any) -> bool:
    """True for a Telegram Desktop export: one chat, or an account's ``chats.list``."""
    if _is_chat(document):
        return True
    chats = document.get("chats") if isinstance(document, dict) else None
    return isinstance(chats, dict) and isinstance(chats.get("list"), list) and all(
        _is_chat(chat) for chat in chats["list"][:5])


def telegram_text(text: Any, addresses: bool = True) -> str:
    """A message's ``text`` as one string: a string, or a list of strings and entities (a
    link under words, ``text_link``, as its words then its address: ``the route
    (https://…)``)."""
    if isinstance(text, str):
        return text
    if isinstance(text, list):
        return "".join(_entity_text(part, addresses) for part in text)
    return ""


def _entity_text(part: Any, addresses: bool) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, dict) or not isinstance(part.get("text"), str):
        return ""
    href = part.get("href")
    if addresses and isinstance(href, str) and href.strip() \
            and href.strip() != part["text"].strip():
        return f"{part['text']} ({href.strip()})"
    return part["text"]


class TelegramParser(ChatExportParser):
    """Parses a Telegram Desktop export into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        super().__init__(collector, default_session)
        self._names: dict[str, int] = {}

    def parse(self, source: Source) -> int:
        """Read every message of every chat; return how many there were."""
        if first_byte(source.data) == b"<":  # the HTML export, Telegram Desktop's default
            return TelegramHtmlReader(self.collector, self.default_session,
                                      self.senders).parse(source)
        document = json_document(source)
        if not is_telegram_export(document):
            raise fail(source.name, 'not a Telegram export (a chat with "messages" of type '
                                    '"message" or "service")')
        strip_document_envelopes(source, self.collector, document)
        base = f"{source.pointer_base}#"
        if _is_chat(document):
            return self._chat(document, base)
        read = 0
        for group in ("chats", "left_chats"):
            chats = document.get(group)
            listed = chats.get("list") if isinstance(chats, dict) else None
            for index, chat in enumerate(listed if isinstance(listed, list) else ()):
                if _is_chat(chat):
                    read += self._chat(chat, f"{base}/{group}/list/{index}")
                else:
                    self.collector.skip(index + 1, f"{group} {index} is not a chat with messages")
        return read

    def _session(self, chat: dict[str, Any]) -> str:
        name = chat.get("name")
        name = " ".join(name.split())[:120] if isinstance(name, str) and name.strip() else ""
        chat_id = chat.get("id")
        if not name:
            return f"telegram-{chat_id}" if chat_id is not None else self.default_session
        self._names[name] = self._names.get(name, 0) + 1
        return name if self._names[name] == 1 else f"{name} ({chat_id})"

    def _chat(self, chat: dict[str, Any], prefix: str) -> int:
        session = self._session(chat)
        messages = chat["messages"]
        for index, message, pointer in self.each_message(messages, f"{prefix}/messages"):
            self._message(message, index, session, pointer)
        return len(messages)

    def _message(self, message: dict[str, Any], index: int, session: str, pointer: str) -> None:
        if message.get("type") != "message":
            self.collector.ignore("service" if message.get("type") == "service"
                                  else f"{message.get('type')} message")
            return
        text = telegram_text(message.get("text")).strip()
        words = telegram_text(message.get("text"), addresses=False).strip()
        attached = attachment_names(_attached(message))
        if not text and not attached:
            self.collector.ignore("media" if any(
                key in message for key in ("photo", "file", "media_type", "sticker_emoji",
                                           "poll", "location_information", "contact_information"))
                else "empty")
            return
        # a channel's signed post names the admin who wrote it (`author`); `from` is the
        # channel itself, which the session already names
        sender = message.get("author")
        if not (isinstance(sender, str) and sender.strip()):
            sender = message.get("from")
        sender = " ".join(sender.split())[:80] if isinstance(sender, str) and sender.strip() \
            else "Deleted Account"
        forwarded = message.get("forwarded_from")
        if isinstance(forwarded, str) and forwarded.strip():
            text = f"[forwarded from {forwarded.strip()}] {text}".rstrip()
            words = f"[forwarded from {forwarded.strip()}] {words}".rstrip()
        links = []
        if isinstance(message.get("id"), int):
            links.append(("message_id", f"{session}#{message['id']}"))
        if isinstance(message.get("reply_to_message_id"), int):
            links.append(("reply_to", f"{session}#{message['reply_to_message_id']}"))
        edited = read_time(message.get("edited_unixtime") or message.get("edited")) \
            if message.get("edited_unixtime") or message.get("edited") else ""
        if edited:
            links.append(("edited", edited))  # its text is the last one written
        add_chat_message(self.collector, self.senders, record_no=index + 1, session=session,
                         sender=sender, text=text, time=self._time(message, index),
                         identity=f"m{message.get('id', index)}", pointer=pointer, links=links,
                         attached=attached, handle_text=words)  # the handle links gave before

    def _time(self, message: dict[str, Any], index: int) -> str:
        """The message's moment from ``date_unixtime``, on the day ``date`` was written; else
        ``date`` as written."""
        written = message.get("date")
        epoch = message.get("date_unixtime")
        moment = read_time(epoch) if isinstance(epoch, (str, int)) and epoch != "" else None
        if moment:
            day = written[:10] if isinstance(written, str) and read_time(written) else moment[:10]
            return TurnTime(moment, day)
        return self.collector.time(index + 1, written)


def _attached(message: dict[str, Any]) -> list[str]:
    """The file a Telegram message shares, by name: ``file_name``, else the exported path's
    last part; a file the export left out (``(File not included. …)``) by its media type."""
    name = message.get("file_name")
    if isinstance(name, str) and name.strip():
        return [name]
    for key in ("file", "photo"):
        path = message.get(key)
        if isinstance(path, str) and path.strip():
            if path.startswith("("):  # "(File not included. Change data exporting settings…)"
                media = message.get("media_type")
                return [media if isinstance(media, str) and media else key]
            return [path.rsplit("/", 1)[-1]]
    return []
