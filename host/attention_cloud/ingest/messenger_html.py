"""Facebook Messenger and Instagram direct messages exported as HTML ("Download your
information" in its default format: ``messages/inbox/<thread>/message_1.html``, ``message_2.html``
…), the JSON export's threads (:mod:`.messenger`) as pages.

Meta's class names are generated, but four have named the same parts of a message in every
export since 2022, whether it writes ``<div class="pam _3-95 _2ph- _a6-g uiBoxWhite
noborder">`` or ``<section class="_a6-g">``: ``_a6-g`` a message's block, ``_a6-h`` its sender
(a ``div`` or an ``h2``), ``_a6-p`` its content and ``_a6-o`` its date (``Jun 18, 2022 9:35:16
pm``, inside a ``_a72d`` in newer pages).

- **Session**: the thread's folder as the JSON export's ``thread_path`` names it
  (``inbox/runningclub_3825``), so a thread's HTML and JSON pages are one session; else the
  page's ``<title>``, which is the thread's title, kept as ``relation(H, title, T)``.
- **Speakers and roles**: the sender; roles as :mod:`.chat_messages` gives them.
- **Order and time**: the page lists the newest message first; messages are read oldest first.
  The date as the page prints it, in the exporting account's zone, which it does not name:
  read as UTC; numeric dates in one order of day and month for the whole file
  (:func:`~.timefmt.day_first_of`).
- **Text**: the content without markup, each block a line of its own; reactions (``_a6-q``)
  are not kept; a shared link's address is kept in the text; a photo, video, audio or file the
  export holds (a local path) is named on a line of its own (``[attached: river_6612.jpg]``).
  Text Meta mis-encoded (:func:`~.meta_text.meta_text`) is turned back.
- **Counted, not kept**: unsent messages, calls and Instagram's likes and reactions, as in the
  JSON export (``unsent``, ``call``, ``reaction``), and a message of no text and no file
  (``media``).

A folder walk reads the page when its text is such an export (:mod:`.chat_pages`). Pointers read
``<file>:<first>-<last>``, the lines of the message's block.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from .chat_messages import ChatExportParser, add_chat_message, attachment_names
from .discord_csv import file_name_of
from .meta_text import REACTION, meta_text
from .pointers import line_pointer
from .source import Source, fail
from .timefmt import day_first_of

# The folders "Download your information" keeps a person's threads in.
THREAD_FOLDERS = frozenset({"inbox", "archived_threads", "filtered_threads", "message_requests",
                            "e2ee_cutover"})
_UNSENT = re.compile(r".{1,120} unsent a message\.?")
_CALL = re.compile(r"(?:.{1,120} (?:started|joined|missed) (?:a|the|your) (?:video |audio )?call"
                   r"|The (?:video |audio )?call ended)\.?")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})
_MEDIA_TAGS = frozenset({"img", "video", "audio", "source"})
_PAGE_NAME = re.compile(r"message_\d+\.html?", re.IGNORECASE)


def is_messenger_html(head: str) -> bool:
    """True for a page of Meta's messages export: its message blocks' marks in the text."""
    return "_a6-g" in head and "_a6-h" in head and "_a6-o" in head


def is_thread_page(path: str) -> bool:
    """Whether ``path`` is where Meta's export keeps a thread's page (``message_1.html``, or a
    page in an ``inbox``… thread folder): its pages of posts and comments share the message
    blocks' marks, and are no chat."""
    return _PAGE_NAME.fullmatch(Path(path).name) is not None or bool(thread_session(path))


def _classes(attrs: list[tuple[str, str | None]]) -> set[str]:
    return set((dict(attrs).get("class") or "").split())


class _Page(HTMLParser):
    """The title and the messages of a Messenger or Instagram page, as plain fields."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.messages: list[dict[str, Any]] = []
        self._open: list[tuple[str, str]] = []  # (tag, what it is for us) of the open elements
        self._message: dict[str, Any] | None = None
        self._parts: dict[str, list[str]] = {}

    def _within(self, role: str) -> bool:
        return any(open_role == role for _, open_role in self._open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = _classes(attrs)
        role = ""
        if tag == "title":
            role = "title"
        elif "_a6-g" in classes and self._message is None:
            self._message = {"first": self.getpos()[0], "files": []}
            self._parts = {"sender": [], "text": [], "time": []}
            role = "message"
        elif self._message is not None:
            role = self._inside_message(tag, classes, dict(attrs))
        if tag in ("br", "div", "p", "li") and self._within("text"):
            self._parts["text"].append("\n")
        if tag not in _VOID:
            self._open.append((tag, role))

    def _inside_message(self, tag: str, classes: set[str], attrs: dict[str, str | None]) -> str:
        if "_a6-q" in classes:
            return "reactions"  # who reacted how: no one's words
        if "_a6-h" in classes:
            return "sender"
        if "_a6-o" in classes:
            return "time"
        if "_a6-p" in classes:
            return "text"
        address = attrs.get("src") if tag in _MEDIA_TAGS else attrs.get("href") if tag == "a" \
            else None
        if address and self._within("text") and "://" not in address:
            name = file_name_of(address)  # a file the export holds: "photos/river_6612.jpg"
            if name not in self._message["files"]:  # type: ignore[index]
                self._message["files"].append(name)  # type: ignore[index]
            return "file"
        return ""

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return  # "<br />", "<img … />": never opened (handle_startendtag closes them too)
        while self._open:
            open_tag, role = self._open.pop()
            if role == "message" and self._message is not None:
                self._message["last"] = self.getpos()[0]
                for part, pieces in self._parts.items():
                    self._message[part] = "".join(pieces)
                self.messages.append(self._message)
                self._message = None
            if open_tag == tag:
                break
        if tag in ("div", "p", "li") and self._within("text"):
            self._parts["text"].append("\n")

    def handle_data(self, data: str) -> None:
        roles = [role for _, role in self._open if role]
        if not roles:
            return
        if roles[-1] == "title":
            self.title += data
        elif self._message is not None and "reactions" not in roles and "file" not in roles:
            for part in ("sender", "time", "text"):
                if part in roles:
                    self._parts[part].append(data)
                    return


def thread_session(path: str) -> str:
    """The session of a thread's page by its folder, as the JSON export's ``thread_path``
    writes it (``inbox/runningclub_3825``); "" for a page outside such a folder."""
    folder = Path(path).parent
    return f"{folder.parent.name}/{folder.name}" if folder.parent.name in THREAD_FOLDERS else ""


class MessengerHtmlParser(ChatExportParser):
    """Parses a Messenger or Instagram HTML page into an :class:`ItemCollector`."""

    def parse(self, source: Source) -> int:
        """Read every message of the page, oldest first; return how many there were."""
        text = self.collector.text_without_envelopes(source, lone_close=False)
        page = _Page()
        page.feed(text)
        page.close()
        messages = [m for m in page.messages if m["sender"].strip() or m["text"].strip()]
        if not messages:
            raise fail(source.name, "no messages in this Messenger or Instagram HTML export")
        title = " ".join(meta_text(page.title).split())[:120]
        session = thread_session(source.pointer_base) or title or self.default_session
        links = (("title", title),) if title else ()
        self.collector.day_first, note = day_first_of(
            (m["time"] for m in messages), "messages")
        if note:
            self.collector.note(note)
        times = [self.collector.time(m["first"], " ".join(m["time"].split())) for m in messages]
        order = list(range(len(messages)))
        if len(times) > 1 and times[0] and times[-1] and times[0] > times[-1]:
            order.reverse()  # newest first, as Meta writes it
        seen: dict[str, int] = {}
        for at in order:
            self.collector.records_read += 1
            message = messages[at]
            pointer = line_pointer(source.pointer_base, message["first"], message["last"])
            self._message(message, times[at], session, links, pointer, seen)
        return len(messages)

    def _message(self, message: dict[str, Any], time: str, session: str,
                 links: tuple[tuple[str, str], ...], pointer: str, seen: dict[str, int]) -> None:
        lines = (" ".join(line.split()) for line in meta_text(message["text"]).split("\n"))
        text = "\n".join(line for line in lines if line)
        for pattern, kind in ((_UNSENT, "unsent"), (_CALL, "call"), (REACTION, "reaction")):
            if pattern.fullmatch(text):
                self.collector.ignore(kind)
                return
        attached = attachment_names(message["files"])
        if not text and not attached:
            self.collector.ignore("media")
            return
        sender = " ".join(meta_text(message["sender"]).split())[:120] or "unknown"
        written = " ".join(message["time"].split())
        key = f"h{written}-{sender}"
        seen[key] = seen.get(key, 0) + 1
        add_chat_message(self.collector, self.senders, record_no=message["first"],
                         session=session, sender=sender, text=text, time=time,
                         identity=f"{key}#{seen[key]}", pointer=pointer, links=links,
                         attached=attached)
