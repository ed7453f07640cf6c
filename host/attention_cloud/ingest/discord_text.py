"""Discord channel exports written by DiscordChatExporter as plain text (``--format
PlainText``): a preamble between two rules of 62 ``=`` (``Guild: Running Club``, ``Channel: Text
Channels / general``, ``Topic: …``), then each message under its header line, ``[5/8/2023 3:56
PM] priya``, a blank line after it, and a closing rule with ``Exported 4 message(s)``.

- **Session**: ``<guild>/#<channel>`` from the preamble, as the JSON and HTML exports name it;
  else the file's name.
- **Speakers**: the header's name, without the discriminator Discord added to names before 2023
  (``tomas#4821`` is ``tomas``) and the exporter's `` (pinned)`` mark; roles as
  :mod:`.chat_messages` gives them.
- **Time**: the header's date as the exporter prints it in its culture (``5/8/2023 3:56 PM``,
  ``08/05/2023 13:56``, an older version's ``08-May-23 01:56 PM``), in the exporting machine's
  zone, which it does not name: read as UTC; day and month in one order for the whole file
  (:func:`~.timefmt.day_first_of`).
- **Text**: the lines under the header, up to the sections the exporter writes after them:
  ``{Attachments}`` (the files' addresses, named on a line of their own, ``[attached:
  route.gpx]``), ``{Embed}`` (a link's preview: no one's words), ``{Stickers}`` and
  ``{Reactions}`` (not kept).
- **Counted, not kept**: the exporter's text for joins, pins, calls, thread creations and
  channel changes (``Joined the server.``) by the JSON export's ``type``, as in its CSV; a
  message of no text and no file (an embed, a sticker) as ``attachment``.

The text writes no message id, reply or edit: a message's identity is its author, time and how
many messages that author wrote at that minute before it, as in the CSV, so an export read again
when the channel grew keeps its handles. Pointers read ``<file>:<first>-<last>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from .chat_messages import ChatExportParser, add_chat_message, attachment_names, one_line_name
from .discord_csv import SYSTEM_TEXTS, file_name_of, shown_name
from .pointers import line_pointer
from .source import Source, fail
from .timefmt import day_first_of

RULE = "=" * 62
# A message's header: its date in brackets, then its author, with "(pinned)" for a pinned one.
_HEADER = re.compile(
    r"\[(?P<date>[^\]\n]{0,40}\d[^\]\n]{0,40})\] (?P<author>\S.*?)(?: \(pinned\))?")
# The sections the exporter writes after a message's text, each on a line of its own.
_SECTIONS = frozenset({"{Attachments}", "{Embed}", "{Stickers}", "{Reactions}"})


def is_discord_text(head: str) -> bool:
    """True when ``head`` (a file's text from its start) opens with the preamble
    DiscordChatExporter writes to a plain-text export: a rule of 62 ``=``, ``Guild:`` and
    ``Channel:``."""
    lines = head.lstrip("\ufeff").split("\n", 3)[:3]
    return (len(lines) == 3 and lines[0].rstrip("\r") == RULE and lines[1].startswith("Guild: ")
            and lines[2].startswith("Channel: "))


@dataclass
class _Message:
    """One message as the text export writes it: its header's fields and its lines."""

    first: int
    date: str
    author: str
    lines: list[str] = field(default_factory=list)
    last: int = 0

    def text_and_files(self) -> tuple[str, list[str]]:
        """The message's words (the lines before its first section) and the names of the files
        its ``{Attachments}`` section lists."""
        words: list[str] = []
        files: list[str] = []
        section = ""
        for line in self.lines:
            if line.strip() in _SECTIONS:
                section = line.strip()
            elif not section:
                words.append(line)
            elif section == "{Attachments}" and line.strip():
                files.append(file_name_of(line))
        return "\n".join(words).strip(), files


def _preamble(lines: list[str]) -> tuple[dict[str, str], int]:
    """The preamble's fields (``Guild``, ``Channel`` …) and the number of the line after it."""
    fields: dict[str, str] = {}
    for number, line in enumerate(lines[1:], 2):
        if line == RULE:
            return fields, number
        name, _, value = line.partition(": ")
        fields[name] = value.strip()
    return fields, len(lines)


def _messages(lines: list[str], start: int) -> Iterator[_Message]:
    """Each message after the preamble (``start``: the preamble's closing rule's line): a
    header line after a blank line (or the rule) opens one, the closing rule ends the last."""
    message: _Message | None = None
    after_blank = True
    for number, line in enumerate(lines[start:], start + 1):
        header = _HEADER.fullmatch(line) if after_blank else None
        after_blank = not line.strip()
        if header is not None or line == RULE:
            if message is not None:
                yield message
            message = None
            if header is not None:
                message = _Message(number, header.group("date"), header.group("author"),
                                   last=number)
            continue
        if message is not None:
            message.lines.append(line)
            if line.strip():
                message.last = number
    if message is not None:
        yield message


class DiscordTextParser(ChatExportParser):
    """Parses a DiscordChatExporter plain-text export into an :class:`ItemCollector`."""

    def parse(self, source: Source) -> int:
        """Read every message of the channel; return how many there were."""
        text = self.collector.text_without_envelopes(source, lone_close=False)
        if not is_discord_text(text):
            raise fail(source.name, "not a DiscordChatExporter text export (a rule of 62 '=', "
                                    "then Guild: and Channel: lines)")
        lines = [line.rstrip("\r") for line in text.lstrip("\ufeff").split("\n")]
        fields, start = _preamble(lines)
        messages = list(_messages(lines, start))
        if not messages:
            raise fail(source.name, "no messages in this DiscordChatExporter text export")
        guild = one_line_name(fields.get("Guild"), 80)
        channel = one_line_name(fields.get("Channel", "").rsplit(" / ", 1)[-1], 80)
        session = f"{guild or 'Discord'}/#{channel}" if channel else self.default_session
        self.collector.day_first, note = day_first_of((m.date for m in messages), "messages")
        if note:
            self.collector.note(note)
        seen: dict[str, int] = {}
        for message in messages:
            self.collector.records_read += 1
            self._message(message, session, seen,
                          line_pointer(source.pointer_base, message.first, message.last))
        return len(messages)

    def _message(self, message: _Message, session: str, seen: dict[str, int],
                 pointer: str) -> None:
        text, files = message.text_and_files()
        system = next((kind for kind, pattern in SYSTEM_TEXTS if pattern.fullmatch(text)), None)
        if system:
            self.collector.ignore(system)
            return
        attached = attachment_names(files)
        if not text and not attached:
            self.collector.ignore("attachment")
            return
        account = one_line_name(message.author, 80) or "unknown"
        key = f"{account}@{message.date.strip()}"
        seen[key] = seen.get(key, 0) + 1
        add_chat_message(self.collector, self.senders, record_no=message.first, session=session,
                         sender=shown_name(account), text=text,
                         time=self.collector.time(message.first, message.date),
                         identity=f"{key}#{seen[key]}", pointer=pointer, attached=attached)
