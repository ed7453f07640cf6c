"""Discord channel exports written by DiscordChatExporter as CSV (``--format Csv``): a header
``AuthorID,Author,Date,Content,Attachments,Reactions``, then one message a row, every field
quoted; a message's text may run over several lines.

- **Session**: the file's name (the exporter names it ``<guild> - <channel> [<id>].csv``); the
  CSV names neither guild nor channel. A name the exporter wrote, ending with the channel's
  ``[<id>]``, is the channel's session whatever folder it lies in and without the date range
  or part the exporter adds (``… [901] (after 2023-05-01).csv``, ``… [901] [part 2].csv``), so
  the channel exported again, into another folder or for another range, gives the messages it
  shares with the first export under the same handles, not a second time.
- **Speakers**: ``Author``, the account's name (``priya.p``), without the discriminator
  Discord added to names before 2023 (``priya#4821`` is ``priya``; ``#0`` marks a name
  migrated since); roles as :mod:`.chat_messages` gives them.
- **Time**: ``Date``, as the exporter prints a date in its culture (``5/8/2023 3:56 PM``,
  ``08/05/2023 13:56``, ``08.05.2023 13:56``, ``2023. 5. 8. 오후 1:56``, Finnish ``8.5.2023
  13.56``) in the exporting machine's zone, which it does not
  name: read as UTC, as every time without a zone. A numeric date's order of day and month is
  decided once for the whole file (:func:`~.timefmt.day_first_of`).
- **Files**: ``Attachments``, the files' addresses separated by commas, named on a line of their
  own (``[attached: route.gpx]``, the last part of each address), so a message of nothing but a
  file is an item. ``Reactions`` are not kept.
- **Counted, not kept**: the exporter's own text for member joins, pins, calls, thread
  creations and channel changes (``Joined the server.``) as the JSON export's ``type``;
  a message of no text and no file as ``empty``. A row of another number of fields is skipped
  with its line.

The CSV writes no message id, no reply and no edit: a message's identity is its author, time
and how many messages that author wrote at that minute before it, so an export read again
when the channel grew keeps its handles. Pointers read ``<file>:<first>-<last>``.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from urllib.parse import unquote, urlsplit

from .chat_messages import ChatExportParser, add_chat_message, attachment_names, one_line_name
from .pointers import line_pointer
from .source import Source, fail
from .timefmt import day_first_of

COLUMNS = ("AuthorID", "Author", "Date", "Content", "Attachments", "Reactions")
# What DiscordChatExporter adds to a file's name after the channel's id: the date range asked
# for, and the part of a partitioned export after the first.
_RANGE_OR_PART = re.compile(r"(?: \((?:after \d{4}-\d\d-\d\d|before \d{4}-\d\d-\d\d"
                            r"|\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d)\)| \[part \d+\])+$")
_CHANNEL_ID = re.compile(r" \[\d+\]$")
HEADER = ",".join(COLUMNS)
# Discord's discriminator after an account's name: four digits, or "#0" for a name migrated to
# the unique usernames of 2023. Never after a space ("Team #1" is a name).
_DISCRIMINATOR = re.compile(r"(?<=\S)#(?:\d{4}|0)$")
# What the exporter writes in place of a system message's text (by the JSON export's type).
SYSTEM_TEXTS = (
    ("RecipientAdd", re.compile(r"Added (?:a recipient|.+ to the group)\.")),
    ("RecipientRemove", re.compile(r"Removed (?:a recipient|.+ from the group)\.|Left the group\.")),
    ("Call", re.compile(r"Started a call that lasted \d+ minutes?\.")),
    ("ChannelNameChange", re.compile(r"Changed the channel name(?:: .*)?\.?")),
    ("ChannelIconChange", re.compile(r"Changed the channel icon\.")),
    ("ChannelPinnedMessage", re.compile(r"Pinned a message\.")),
    ("ThreadCreated", re.compile(r"Started a thread\.")),
    ("GuildMemberJoin", re.compile(r"Joined the server\.")),
)


def is_discord_csv(head: str) -> bool:
    """True when ``head`` (a file's text from its start) opens with the header row
    DiscordChatExporter writes (its names quoted or not)."""
    first = head.split("\n", 1)[0].rstrip("\r")
    return first.replace('"', "") == HEADER


def _rows(text: str) -> Iterator[tuple[int, int, list[str] | str]]:
    """Each row after the header with its first and last line (lines split at ``\\n`` alone,
    as pointers count them); a row the csv module cannot read is the reason why."""
    lines = (line + "\n" for line in text.split("\n"))
    reader = csv.reader(lines, strict=False)
    last = 0
    while True:
        try:
            row: list[str] | str = next(reader)
        except StopIteration:
            return
        except csv.Error as error:  # a field over the module's limit: that row alone
            row = f"row cannot be read as CSV ({error})"
        first, last = last + 1, reader.line_num
        if first == 1 or (isinstance(row, list) and not any(field.strip() for field in row)):
            continue  # the header, or a blank line (the one after the last row)
        yield first, last, row


def channel_session(stem: str) -> str:
    """The channel's session a DiscordChatExporter file's name (without its extension) gives:
    the name up to the channel's ``[<id>]``, without the date range or part the exporter adds
    after it (``Running Club - general [901] (after 2023-05-01)`` is ``Running Club - general
    [901]``); "" for a name that does not end with a channel's id so."""
    name = _RANGE_OR_PART.sub("", stem)
    return name if _CHANNEL_ID.search(name) else ""


def _told_apart(session: str, stem: str) -> bool:
    """Whether ``session`` is the default one of a file named ``stem``: the stem, or the stem
    told apart from another file of that name (``stem~`` and 8 hex digits)."""
    return session == stem or re.fullmatch(re.escape(stem) + r"~[0-9a-f]{8}", session) is not None


def shown_name(account: str) -> str:
    """The name an account shows, without its discriminator: ``tomas#4821`` is ``tomas``."""
    return _DISCRIMINATOR.sub("", account) or account


def file_name_of(address: str) -> str:
    """The name of an attached file from its address (``https://…/route.gpx?ex=1``, or the
    local path the exporter wrote when it downloaded the files)."""
    path = urlsplit(address.strip()).path if "://" in address else address.strip()
    return unquote(path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1])


class DiscordCsvParser(ChatExportParser):
    """Parses a DiscordChatExporter CSV export into an :class:`ItemCollector`."""

    def parse(self, source: Source) -> int:
        """Read every message row; return how many rows there were."""
        text = self.collector.text_without_envelopes(source, lone_close=False)
        if not is_discord_csv(text):
            raise fail(source.name, f"not a DiscordChatExporter CSV export (header {HEADER})")
        rows = list(_rows(text))
        if not rows:
            raise fail(source.name, "no messages in this DiscordChatExporter CSV export")
        self.collector.day_first, note = day_first_of(
            (row[2] for _, _, row in rows if isinstance(row, list) and len(row) == len(COLUMNS)),
            "messages")
        if note:
            self.collector.note(note)
        channel = channel_session(source.stem)
        if channel and _told_apart(self.default_session, source.stem):
            self.default_session = channel  # not a session the caller named
        seen: dict[str, int] = {}
        for first, last, row in rows:
            self.collector.records_read += 1
            if isinstance(row, str):
                self.collector.skip(first, row)
                continue
            if len(row) != len(COLUMNS):
                self.collector.skip(first, f"row has {len(row)} fields, not {len(COLUMNS)} "
                                           f"({HEADER})")
                continue
            self._message(row, first, line_pointer(source.pointer_base, first, last), seen)
        return len(rows)

    def _message(self, row: list[str], number: int, pointer: str, seen: dict[str, int]) -> None:
        author_id, author, date, content, attachments, _reactions = row
        text = content.replace("\r\n", "\n").strip()
        system = next((kind for kind, pattern in SYSTEM_TEXTS if pattern.fullmatch(text)), None)
        if system:
            self.collector.ignore(system)
            return
        attached = attachment_names(file_name_of(a) for a in attachments.split(",") if a.strip())
        if not text and not attached:
            self.collector.ignore("empty")
            return
        account = one_line_name(author, 80) or one_line_name(author_id, 80) or "unknown"
        key = f"{author_id or account}@{date.strip()}"  # as before names lost the discriminator
        sender = shown_name(account)
        seen[key] = seen.get(key, 0) + 1
        add_chat_message(self.collector, self.senders, record_no=number,
                         session=self.default_session, sender=sender, text=text,
                         time=self.collector.time(number, date),
                         identity=f"{key}#{seen[key]}", pointer=pointer, attached=attached)
