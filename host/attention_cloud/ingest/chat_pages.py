"""Which HTML pages are chat exports: Telegram Desktop's ``messages.html``, DiscordChatExporter's
``HtmlDark``/``HtmlLight`` pages and Meta's Messenger and Instagram thread pages
(``messages/inbox/<thread>/message_1.html``).

An export folder holds other HTML beside them (Meta's pages of posts and settings, a saved web
page, a frame ``atc hydrate --format html`` wrote), so a page found by walking a folder is read
only when its own text says it is one of those exports: the marks each exporter writes, looked
for in the page's first megabyte as format detection looks for them (:func:`chat_page_format`,
which detection calls too). Any other page is left out and reported, never an error: a folder
of web pages beside a chat is no bad input. So is a Messenger or Instagram thread's page where
the thread's JSON pages lie beside it or elsewhere in the same ingest (the export downloaded in
both formats, unzipped into one folder or two): the JSON is read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from .discord_html import is_discord_html
from .messenger_html import is_messenger_html, is_thread_page, thread_session
from .source import PAGE_SUFFIXES
from .telegram_html import is_telegram_html

#: Why a page found in a folder is not read (left out, not failed: see :func:`page_problem`).
NOT_A_CHAT_PAGE = ("an HTML page that is no chat export (Telegram, Discord, Messenger or "
                   "Instagram), left out")
#: Why a Messenger or Instagram thread's page is not read where the thread's JSON pages lie
#: beside it, or elsewhere in the same ingest (an export downloaded in both formats, unzipped
#: into one folder or two): the JSON gives the same messages, each under another handle (its
#: time to the millisecond), so both would give each message twice.
JSON_BESIDE = ("the thread's JSON export, beside it or elsewhere in this ingest, is read "
               "instead, left out")
#: Why a Messenger or Instagram thread's page is not read where memory holds the items of the
#: thread's JSON pages already (read by an earlier ingest): it would give them again.
JSON_HELD = ("memory holds the thread's JSON export already (the same messages), left out")
# A thread's JSON page as Meta names it.
_JSON_PAGE = re.compile(r"message_\d+\.json", re.IGNORECASE)

# How much of a page its marks are looked for in (as format detection does).
_HEAD_CHARS = 1_000_000
# The verdicts of pages already looked into, by path and state on disk: a watcher walks its
# folders again every few minutes (every two seconds when polling) and reads no page twice.
_verdicts: dict[str, tuple[tuple[int, int, int, int], str | None]] = {}
_MAX_VERDICTS = 10_000


def chat_page_format(head: str, path: str) -> str | None:
    """The format of a page whose text starts ``head`` (at least its first megabyte, leading
    white space stripped) and which lies at ``path``: ``discord``, ``telegram`` or
    ``messenger``; None for any other text. Meta's pages of posts and comments are built of its
    message blocks too, so a Messenger page counts only where the export keeps a thread's."""
    if head[:1] != "<":
        return None
    head = head[:_HEAD_CHARS]
    if is_discord_html(head):
        return "discord"
    if is_telegram_html(head):
        return "telegram"
    if is_messenger_html(head) and is_thread_page(path):
        return "messenger"
    return None


def is_page(path: Path) -> bool:
    """Whether ``path`` is named as an HTML page."""
    return path.suffix.lower() in PAGE_SUFFIXES


def page_problem(path: Path) -> str:
    """Why the regular file ``path``, an HTML page found in a folder, is not read: "" for a
    chat export's page, :data:`JSON_BESIDE` for a Messenger or Instagram thread's page beside
    the thread's JSON pages, else :data:`NOT_A_CHAT_PAGE` (a page that cannot be read is left
    to its reader to report)."""
    found = _page_format(path)
    if found is None:
        return NOT_A_CHAT_PAGE
    if found == "messenger" and any(path.parent.glob("message_*.json")):
        return JSON_BESIDE
    return ""


def thread_pages_with_json(pages: Iterable[Path], files: Iterable[Path]) -> set[Path]:
    """The Messenger or Instagram thread pages among ``pages`` whose thread's JSON pages are
    among ``files`` (the files of one ingest), wherever they lie: the same thread by its
    folder, ``inbox/runningclub_3825``, as both formats name it."""
    threads = {thread_session(str(f)) for f in files if _JSON_PAGE.fullmatch(f.name)} - {""}
    if not threads:
        return set()
    return {page for page in pages
            if thread_session(str(page)) in threads and _page_format(page) == "messenger"}


def thread_pages(paths: Iterable[Path]) -> dict[Path, str]:
    """The Messenger or Instagram thread pages among ``paths``, each with its thread's session
    (:func:`~.messenger_html.thread_session`)."""
    return {path: session for path in paths
            if is_page(path) and (session := thread_session(str(path)))
            and _page_format(path) == "messenger"}


def thread_json_session(path: str) -> str:
    """The thread's session of ``path`` when it is a thread's JSON page as Meta names and
    files it (``inbox/runningclub_3825/message_1.json``), else ""."""
    return thread_session(path) if _JSON_PAGE.fullmatch(Path(path).name) else ""


def _page_format(path: Path) -> str | None:
    """:func:`chat_page_format` of the page at ``path``, kept by the file's state on disk;
    "" when it cannot be read (left to its reader to report)."""
    key = str(path.absolute())
    try:
        info = os.stat(path)
    except OSError:
        return ""
    state = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    known = _verdicts.get(key)
    if known is not None and known[0] == state:
        return known[1]
    try:
        with open(path, "rb") as page:
            data = page.read(4 * _HEAD_CHARS)  # UTF-8: up to four bytes a character
    except OSError:
        return ""
    found = chat_page_format(data.decode("utf-8", "replace").lstrip("\ufeff \t\r\n"), key)
    if len(_verdicts) >= _MAX_VERDICTS:
        _verdicts.clear()
    _verdicts[key] = (state, found)
    return found
