"""Telegram Desktop chat exports as HTML ("Export chat history", its default format:
``messages.html``, then ``messages2.html`` … for a long chat).

- **Session**: the chat's name in the page's header (``page_header``), as the JSON export's
  ``name``; else the file's name.
- **Messages** (``message default``): the sender is ``from_name``; a message ``joined`` to the
  one above it (Telegram leaves the name out) is that sender's. The text is the ``text`` block
  without markup (``<br>`` a new line); a forwarded message says whose it was (``[forwarded
  from Priya] …``); a reply links the message it answers (``relation(H, reply_to,
  <session>#<id>)``, its own id ``relation(H, message_id, …)``); a photo or file shared is named
  on a line of its own (``[attached: photo_1.jpg]``, the exported path's last part, or the
  file's title when the export left it out).
- **Time**: the date block's title, ``08.05.2023 13:56:03 UTC+02:00``: the moment, on the day
  it was written in the sender's zone (an older export's title names no zone: read as UTC).
- **Counted, not kept**: ``service`` messages (the day's separator, members joining, pins) and
  messages with neither text nor file (``empty``).

A folder walk reads the page when its text is such an export (:mod:`.chat_pages`). Pointers read
``<file>:<first>-<last>``, the lines of the message's block.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from .chat_messages import ChatSenders, add_chat_message, attachment_names
from .collector import ItemCollector
from .pointers import line_pointer
from .source import Source, fail
from .timefmt import TurnTime, read_time

_TITLE_TIME = re.compile(
    r"(\d{1,2})\.(\d{1,2})\.(\d{4}) (\d{1,2}:\d\d(?::\d\d)?)(?: UTC([+-]\d\d):?(\d\d))?")
_REPLY_TARGET = re.compile(r"#go_to_message(\d+)")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})


def is_telegram_html(head: str) -> bool:
    """True for a page Telegram Desktop's export wrote: its chat page and message blocks."""
    return "page_body chat_page" in head and 'class="message ' in head


class _Page(HTMLParser):
    """The chat name and messages of a Telegram export page, as plain fields."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chat = ""
        self.messages: list[dict[str, Any]] = []
        self._open: list[str] = []  # what each open element is for us ("" for nothing)
        self._message: dict[str, Any] | None = None
        self._capture: str | None = None  # the field the text read now goes to
        self._depth = 0  # how many elements deep the capture's own element is
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        classes = found.get("class", "").split()
        role = ""
        if tag == "div" and "message" in classes:
            self._message = {"id": found.get("id", ""), "first": self.getpos()[0],
                             "last": self.getpos()[0], "service": "service" in classes,
                             "joined": "joined" in classes, "sender": "", "forwarded": "",
                             "time": "", "text": "", "files": [], "reply_to": ""}
            self.messages.append(self._message)
            role = "message"
        elif tag == "div" and "page_header" in classes:
            role = "header"
        elif "header" in self._open and "text" in classes and not self.chat:
            role = "chat"
        elif self._message is not None:
            role = self._inside_message(tag, classes, found)
        if self._capture and tag == "br":
            self._text.append("\n")
        if role in ("chat", "sender", "forwarded", "text", "file-title") and not self._capture:
            self._capture, self._depth, self._text = role, len(self._open) + 1, []
        if tag not in _VOID:
            self._open.append(role)

    def _inside_message(self, tag: str, classes: list[str], found: dict[str, str]) -> str:
        message = self._message
        assert message is not None
        forwarded = "forwarded" in self._open
        if tag == "div" and "forwarded" in classes:
            return "forwarded-body"
        if "date" in classes and "details" in classes and not forwarded and not message["time"]:
            message["time"] = found.get("title", "")
        elif tag == "div" and "from_name" in classes:
            return "forwarded" if "forwarded-body" in self._open else "sender"
        elif tag == "div" and "text" in classes:
            return "text"
        elif tag == "div" and "reply_to" in classes:
            return "reply"
        elif tag == "a" and "reply" in self._open:
            target = _REPLY_TARGET.search(found.get("href", ""))
            message["reply_to"] = target.group(1) if target else message["reply_to"]
        elif tag == "div" and "media_wrap" in classes:
            return "media"
        elif tag == "a" and "media" in self._open:
            href = found.get("href", "")
            if href and not href.startswith(("#", "http:", "https:", "tg:")):
                message["files"].append(href.rsplit("/", 1)[-1])
        elif tag == "div" and "title" in classes and "media" in self._open \
                and not message["files"]:
            return "file-title"  # a file the export left out: its name, as the page shows it
        return ""

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not self._open:
            return
        if self._capture and len(self._open) == self._depth:
            self._store(self._capture, "".join(self._text))
            self._capture = None
        role = self._open.pop()
        if self._message is not None:
            self._message["last"] = self.getpos()[0]
        if role == "message":
            self._message = None

    def handle_data(self, data: str) -> None:
        if self._capture and (self._capture not in ("sender", "forwarded")
                              or len(self._open) == self._depth):
            self._text.append(data)  # a name's own text, not the "via @bot" or date inside it

    def _store(self, role: str, text: str) -> None:
        words = " ".join(text.split())
        if role == "chat":
            self.chat = words
        elif self._message is None:
            return
        elif role == "text":
            lines = [" ".join(line.split()) for line in text.strip().split("\n")]
            self._message["text"] = "\n".join(lines).strip()
        elif role == "file-title":
            self._message["files"].append(words)
        else:
            self._message[role] = words


class TelegramHtmlReader:
    """Reads one Telegram export page into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str,
                 senders: ChatSenders) -> None:
        self.collector = collector
        self.default_session = default_session
        self.senders = senders

    def parse(self, source: Source) -> int:
        """Read every message of the page; return how many there were."""
        page = _Page()
        for line in self.collector.lines_without_envelopes(source):
            page.feed(line + "\n")
        page.close()
        if not page.messages:
            raise fail(source.name, "no Telegram messages (message blocks) found")
        session = page.chat[:120] or self.default_session
        sender = ""
        for message in page.messages:
            self.collector.records_read += 1
            if message["service"]:
                self.collector.ignore("service")
                continue
            sender = message["sender"] or (sender if message["joined"] else "") \
                or "Deleted Account"
            self._message(message, session, sender, source.pointer_base)
        return len(page.messages)

    def _message(self, message: dict[str, Any], session: str, sender: str, base: str) -> None:
        text = message["text"]
        attached = attachment_names(message["files"])
        if not text and not attached:
            self.collector.ignore("empty")
            return
        if message["forwarded"]:
            text = f"[forwarded from {message['forwarded']}] {text}".rstrip()
        number = message["id"].removeprefix("message")
        links = [("message_id", f"{session}#{number}")] if number.isdigit() else []
        if message["reply_to"]:
            links.append(("reply_to", f"{session}#{message['reply_to']}"))
        add_chat_message(self.collector, self.senders, record_no=message["first"],
                         session=session, sender=sender, text=text,
                         time=self._time(message), identity=f"m{number}",
                         pointer=line_pointer(base, message["first"], message["last"]),
                         links=links, attached=attached)

    def _time(self, message: dict[str, Any]) -> str:
        """The moment the date block's title writes, on the day it writes; one unread is
        reported."""
        written = message["time"]
        found = _TITLE_TIME.match(written.strip())
        if found is None:
            return self.collector.time(message["first"], written) if written else ""
        day, month, year, clock, hours, minutes = found.groups()
        local = f"{year}-{int(month):02d}-{int(day):02d}"
        zone = f"{hours}:{minutes}" if hours else "Z"
        moment = read_time(f"{local}T{clock if clock.count(':') == 2 else clock + ':00'}{zone}")
        if not moment:
            return self.collector.time(message["first"], written)
        return TurnTime(moment, local)
