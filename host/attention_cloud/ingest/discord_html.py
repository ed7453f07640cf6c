"""Discord channel exports written by DiscordChatExporter as HTML (``--format HtmlDark`` or
``HtmlLight``, its default): a page whose ``chatlog__message-container`` blocks are the
messages, grouped under their author.

- **Session**: ``<guild>/#<channel>`` from the page's preamble (``Running Club``, ``Text
  Channels / general``), as the JSON export's; else the file's name.
- **Speakers**: the group's ``chatlog__author`` (the name the server shows); the messages after
  the first of a group are its author's too; roles as :mod:`.chat_messages` gives them.
- **Time**: the date the exporter prints in its culture, in the exporting machine's zone which
  it does not name (read as UTC): the first message's ``chatlog__timestamp``, the others'
  ``chatlog__short-timestamp`` title; day and month in one order for the whole file
  (:func:`~.timefmt.day_first_of`).
- **Text**: ``chatlog__markdown-preserve``, its markup dropped (``<br>`` a new line); files
  (``chatlog__attachment``) named on a line of their own from their addresses. A reply links
  the message it answers (``relation(H, reply_to, '<channel id>#<message id>')``, the channel
  id from the file's name, ``… [901].html``, as the exporter names it); each message
  ``relation(H, message_id, …)``; one edited links when (``chatlog__edited-timestamp``).
- **Counted, not kept**: system notifications (joins, pins, calls) as ``system``, a message of
  no text and no file (an embed, a sticker) as ``attachment``.

A folder walk reads the page when its text is such an export (:mod:`.chat_pages`). Pointers read
``<file>:<first>-<last>``, the lines of the message's block.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from .chat_messages import ChatExportParser, add_chat_message, attachment_names, one_line_name
from .discord_csv import file_name_of
from .message_words import comparable_words
from .pointers import line_pointer
from .source import Source, fail
from .timefmt import day_first_of

_CONTAINER = "chatlog__message-container-"
_REPLY_TARGET = re.compile(r"scrollToMessage\(\s*event\s*,\s*'([^']+)'")
_CHANNEL_ID = re.compile(r"\[(\d+)\](?:\s*\[part \d+\])?\Z")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})


def is_discord_html(head: str) -> bool:
    """True for a page DiscordChatExporter wrote: its message blocks' markers in the text."""
    return "chatlog__message-group" in head and "preamble__entry" in head


class _Page(HTMLParser):
    """The messages of a DiscordChatExporter page, as plain fields."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.preamble: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self._open: list[tuple[str, str]] = []  # (tag, what it is for us) of the open elements
        self._message: dict[str, Any] | None = None
        self._author = ""  # the group's
        self._capture: str | None = None  # the field the text read now goes to
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        role = ""
        if tag == "div" and "chatlog__message-group" in classes:
            self._author = ""
        elif tag == "div" and (found.get("id") or "").startswith(_CONTAINER):
            self._message = {"id": found["id"][len(_CONTAINER):], "first": self.getpos()[0],
                             "author": self._author, "time": "", "text": "", "files": [],
                             "reply_to": "", "edited": "", "system": False}
            role = "message"
        elif "preamble__entry" in classes:
            role = "preamble"
        elif self._message is not None:
            role = self._inside_message(tag, classes, found)
        if role in ("preamble", "author", "time", "text", "file-name"):
            self._capture, self._text = role, []
        if tag == "br" and self._capture == "text":
            self._text.append("\n")
        if tag not in _VOID:
            self._open.append((tag, role))

    def _inside_message(self, tag: str, classes: list[str], found: dict[str, str | None]) -> str:
        message = self._message
        assert message is not None
        if "chatlog__system-notification-author" in classes:
            message["system"] = True
        elif "chatlog__author" in classes:
            return "author"
        elif "chatlog__timestamp" in classes or "chatlog__system-notification-timestamp" \
                in classes:
            return "time"
        elif "chatlog__short-timestamp" in classes:
            message["time"] = found.get("title") or ""
        elif "chatlog__edited-timestamp" in classes:
            message["edited"] = found.get("title") or ""
        elif "chatlog__reply-link" in classes:
            target = _REPLY_TARGET.search(found.get("onclick") or "")
            message["reply_to"] = target.group(1) if target else ""
        elif "chatlog__embed" in classes:
            return "embed"  # a link's preview: its title is no one's words
        elif "chatlog__markdown-preserve" in classes and not message["text"] \
                and self._capture is None and not self._within("embed"):
            return "text"
        elif "chatlog__attachment" in classes:
            return "attachment"
        elif tag in ("a", "source", "img") and self._within("attachment"):
            address = found.get("href") or found.get("src") or ""
            if address and file_name_of(address) not in message["files"]:
                message["files"].append(file_name_of(address))
        return ""

    def _within(self, role: str) -> bool:
        return any(open_role == role for _, open_role in self._open)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            open_tag, role = self._open.pop()
            if role == self._capture and role is not None:
                self._captured(role)
            if role == "message" and self._message is not None:
                self._message["last"] = self.getpos()[0]
                self.messages.append(self._message)
                self._message = None
            if open_tag == tag:
                return

    def _captured(self, role: str) -> None:
        text = "".join(self._text)
        self._capture, self._text = None, []
        if role == "preamble":
            self.preamble.append(" ".join(text.split()))
        elif self._message is not None and role == "author":
            self._author = self._message["author"] = " ".join(text.split())
        elif self._message is not None and role == "time":
            self._message["time"] = " ".join(text.split())
        elif self._message is not None and role == "text":
            self._message["text"] = "\n".join(line.strip() for line in text.split("\n")).strip()

    def handle_data(self, data: str) -> None:
        if self._capture is not None:
            self._text.append(data)


class DiscordHtmlParser(ChatExportParser):
    """Parses a DiscordChatExporter HTML export into an :class:`ItemCollector`."""

    def parse(self, source: Source) -> int:
        """Read every message of the page; return how many there were."""
        text = self.collector.text_without_envelopes(source, lone_close=False)
        page = _Page()
        page.feed(text)
        page.close()
        if not page.messages:
            raise fail(source.name, "no messages in this DiscordChatExporter HTML export")
        guild = page.preamble[0] if page.preamble else ""
        channel = page.preamble[1].rsplit(" / ", 1)[-1] if len(page.preamble) > 1 else ""
        session = f"{guild or 'Discord'}/#{channel}" if channel else self.default_session
        named = _CHANNEL_ID.search(Path(source.name).stem)
        channel_id = named.group(1) if named else session
        self.collector.day_first, note = day_first_of(
            (m["time"] for m in page.messages), "messages")
        if note:
            self.collector.note(note)
        for message in page.messages:
            self.collector.records_read += 1
            self._message(message, session, channel_id,
                          line_pointer(source.pointer_base, message["first"], message["last"]))
        return len(page.messages)

    def _message(self, message: dict[str, Any], session: str, channel_id: str,
                 pointer: str) -> None:
        number = message["first"]
        if message["system"]:
            self.collector.ignore("system")
            return
        attached = attachment_names(message["files"])
        if not message["text"] and not attached:
            self.collector.ignore("attachment")
            return
        links = [("message_id", f"{channel_id}#{message['id']}")]
        if message["reply_to"]:
            links.append(("reply_to", f"{channel_id}#{message['reply_to']}"))
        if message["edited"]:
            edited = self.collector.time(number, message["edited"])
            if edited:
                links.append(("edited", edited))
        add_chat_message(self.collector, self.senders, record_no=number, session=session,
                         sender=one_line_name(message["author"], 80) or "unknown",
                         text=message["text"], time=self.collector.time(number, message["time"]),
                         identity=f"m{message['id']}", pointer=pointer, links=links,
                         attached=attached, handle_text=comparable_words(message["text"]))
