"""Discord channel exports written by DiscordChatExporter (``--format Json``): ``{"guild",
"channel", "messages": [...]}``, one channel (or thread, or direct-message chat) a file; its
CSV export (``--format Csv``) is read by :mod:`.discord_csv`, its HTML export (``--format
HtmlDark``, the default) by :mod:`.discord_html`, its text export (``--format PlainText``) by
:mod:`.discord_text`.

- **Session**: ``<guild>/#<channel>`` by their names (``Direct Messages/#Dana`` for a DM, as
  the exporter names it), else the file's name.
- **Speakers**: a message's ``author``: its ``nickname`` (the name the server shows), else its
  ``name``; roles as :mod:`.chat_messages` gives them.
- **Messages**: types ``Default`` and ``Reply`` (and any other with text that is not an event)
  are items, ``content`` whole; a message whose text is empty (an attachment, a sticker, an
  embed alone) is counted as ``attachment``; member joins, pins, calls, thread creations and
  channel changes as their ``type``. A reply links the message it answers (``relation(H, reply_to,
  '<channel id>#<message id>')``; each message ``relation(H, message_id, …)``); one edited
  links when (``relation(H, edited, TIME)``, its ``timestampEdited``).
- **Time**: ``timestamp``, ISO 8601 with its offset, read as written (the day it was written on
  is the writer's own).

Pointers read ``<file>#/messages/<i>``.
"""

from __future__ import annotations

from typing import Any

from .chat_messages import ChatExportParser, add_chat_message, attachment_names, one_line_name
from .discord_csv import HEADER as CSV_HEADER, DiscordCsvParser, is_discord_csv
from .discord_html import DiscordHtmlParser, is_discord_html
from .discord_text import DiscordTextParser, is_discord_text
from .jsonlines import json_document, strip_document_envelopes
from .message_words import comparable_words
from .source import Source, fail
from .timefmt import read_time

_HTML_HEAD = 1_000_000  # the page's style sheet and preamble come before its first message
_SYSTEM_TYPES = frozenset({"RecipientAdd", "RecipientRemove", "Call", "ChannelNameChange",
                           "ChannelIconChange", "ChannelPinnedMessage", "GuildMemberJoin",
                           "ThreadCreated"})


def is_discord_export(document: Any) -> bool:
    """True for a DiscordChatExporter JSON export: a ``channel`` object and ``messages`` whose
    first ones have an ``author`` and a ``timestamp`` (one that lacks either is reported when
    the channel is read, not a reason to lose the channel)."""
    if not isinstance(document, dict) or not isinstance(document.get("channel"), dict):
        return False
    messages = document.get("messages")
    if not isinstance(messages, list):
        return False
    head = [m for m in messages[:20] if isinstance(m, dict)]
    return all(isinstance(m.get("author"), dict) or "timestamp" in m for m in head) and (
        not head or any(isinstance(m.get("author"), dict) and "timestamp" in m for m in head))



class DiscordParser(ChatExportParser):
    """Parses a DiscordChatExporter JSON export into an :class:`ItemCollector`."""

    def parse(self, source: Source) -> int:
        """Read every message of the channel; return how many there were."""
        if source.text is not None and is_discord_csv(source.text):  # --format Csv
            return DiscordCsvParser(self.collector, self.default_session).parse(source)
        if source.text is not None and is_discord_html(source.text[:_HTML_HEAD]):  # HtmlDark
            return DiscordHtmlParser(self.collector, self.default_session).parse(source)
        if source.text is not None and is_discord_text(source.text):  # --format PlainText
            return DiscordTextParser(self.collector, self.default_session).parse(source)
        document = json_document(source)
        if not is_discord_export(document):
            raise fail(source.name, 'not a DiscordChatExporter export (JSON: a "channel" and '
                                    '"messages" with an "author" and a "timestamp"; CSV: the '
                                    f'header {CSV_HEADER}; its HTML page; or its text, under a '
                                    'rule of 62 "=" and Guild: and Channel: lines)')
        strip_document_envelopes(source, self.collector, document)
        channel = document["channel"]
        guild = document.get("guild") if isinstance(document.get("guild"), dict) else {}
        name = one_line_name(channel.get("name"), 80)
        session = (f"{one_line_name(guild.get('name'), 80) or 'Discord'}/#{name}" if name
                   else self.default_session)
        channel_id = str(channel.get("id") or name or session)
        messages = document["messages"]
        for index, message, pointer in self.each_message(messages,
                                                         f"{source.pointer_base}#/messages"):
            self._message(message, index, session, channel_id, pointer)
        return len(messages)

    def _message(self, message: dict[str, Any], index: int, session: str, channel_id: str,
                 pointer: str) -> None:
        kind = message.get("type")
        text = message.get("content").strip() if isinstance(message.get("content"), str) else ""
        if kind in _SYSTEM_TYPES:
            self.collector.ignore(str(kind))
            return
        attachments = message.get("attachments")
        attached = attachment_names(a.get("fileName") or a.get("filename")
                                    for a in attachments if isinstance(a, dict)) \
            if isinstance(attachments, list) else []
        if not text and not attached:
            self.collector.ignore("attachment" if any(
                message.get(key) for key in ("attachments", "stickers", "embeds")) else "empty")
            return
        author = message.get("author")
        sender = (one_line_name(author.get("nickname"), 80)
                  or one_line_name(author.get("name"), 80)
                  if isinstance(author, dict) else "") or "unknown"
        links = []
        if isinstance(message.get("id"), (str, int)):
            links.append(("message_id", f"{channel_id}#{message['id']}"))
        reference = message.get("reference")
        if isinstance(reference, dict) and isinstance(reference.get("messageId"), (str, int)):
            links.append(("reply_to", f"{reference.get('channelId') or channel_id}"
                                      f"#{reference['messageId']}"))
        edited = read_time(message.get("timestampEdited")) if message.get("timestampEdited") \
            else ""
        if edited:
            links.append(("edited", edited))  # its content is the last one written
        add_chat_message(self.collector, self.senders, record_no=index + 1, session=session,
                         sender=sender, text=text,
                         time=self.collector.time(index + 1, message.get("timestamp")),
                         identity=f"m{message.get('id', index)}", pointer=pointer, links=links,
                         attached=attached, handle_text=comparable_words(text))
