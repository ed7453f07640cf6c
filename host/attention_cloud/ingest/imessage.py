"""iMessage conversations as imessage-exporter writes them in text (``imessage-exporter -f
txt``: one ``.txt`` file a conversation, named after it). Each message is::

    May 08, 2023  1:56:03 PM (Read by you after 1 minute)
    Priya
    Who is running the river loop on Saturday?

its time (the Mac's local time; a read receipt after it), its sender (``Me`` for the account
holder; a contact's name, else a phone number or address), its text or the paths of the files it
carries, then a blank line. A reply to a message is written inside it, indented four spaces.

- **Session**: the file (its name is the conversation's).
- **Speakers and roles**: the sender line; ``Me`` takes the user's role, the others the
  assistant's (in a file without ``Me``, the first sender does).
- **Time**: the date line, read as UTC (the file names no zone).
- **Kept whole**: a message's lines, its paragraphs included; a file it carries named on a line
  of its own (``[attached: IMG_1234.HEIC]``, the path's last part); a reply links the message it
  is written in (``relation(H, reply_to, '<session>#<line>')``; each message
  ``relation(H, message_id, …)``).
- **Counted, not kept**: tapbacks (``Reactions:`` then ``Loved by Me`` ...: ``reaction``),
  the "This message responded to an earlier message." note, and a message of nothing
  (``empty``).

Pointers read ``<file>:<first>-<last>``, the date line to the message's last line with text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .chat_messages import ChatSenders, add_chat_message, attachment_names
from .collector import ItemCollector
from .source import Source, fail

_DATE_LINE = re.compile(
    r"(?P<indent> *)(?P<time>[A-Z][a-z]{2} \d{1,2}, \d{4} {1,2}\d{1,2}:\d\d:\d\d [AP]M)"
    r"(?: \((?:Read|Delivered) by [^)\n]*\))?[ \t]*\Z")
_FILE_PATH = re.compile(r"(?:~|/)\S*/(?P<name>[^/\s]+\.[A-Za-z0-9]{2,5})\Z")
# a tapback as the exporter names it: "Loved by Me", "Emoji(\"🎉\") by Priya", a sticker's path
_REACTION = re.compile(r"(?:[A-Z]\w*(?:\([^)\n]*\))? by .+|Sticker from .+)\Z")
_REPLY_NOTE = "This message responded to an earlier message."
_REACTIONS = "Reactions:"
_OWNER = "Me"
_LINES_TO_TRY = 40


def is_imessage_export(text: str) -> bool:
    """True when ``text`` opens as imessage-exporter's text: its first line with text a date
    line, the next a sender, and another date line soon after (or the file one message)."""
    lines = text.lstrip("\ufeff").split("\n", _LINES_TO_TRY)[:_LINES_TO_TRY]
    filled = [(n, line.rstrip("\r")) for n, line in enumerate(lines) if line.strip()]
    if len(filled) < 2 or not _DATE_LINE.match(filled[0][1]) or filled[0][1].startswith(" "):
        return False
    if _DATE_LINE.match(filled[1][1]):
        return False
    return len(filled) <= 4 or sum(bool(_DATE_LINE.match(line)) for _, line in filled) >= 2


@dataclass
class _Message:
    line: int  # the date line's number
    indent: int
    time: str
    sender: str = ""
    body: list[tuple[int, str]] = field(default_factory=list)
    parent: int = 0  # the date line of the message a reply is written in


class IMessageParser:
    """Parses an imessage-exporter text file into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session
        self.senders = ChatSenders()

    def parse(self, source: Source) -> int:
        """Read every message and reply; return how many there were."""
        text = self.collector.text_without_envelopes(source)
        lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
        messages = _messages(lines)
        if not messages:
            raise fail(source.name, "no iMessage messages (a date line, then its sender) found")
        if any(m.sender == _OWNER for m in messages):
            self.senders.role(self.session, _OWNER)  # the account holder is the user
        for message in messages:
            self.collector.records_read += 1
            self._message(message, source.pointer_base)
        return len(messages)

    def _message(self, message: _Message, base: str) -> None:
        words: list[str] = []
        files: list[str] = []
        reacting = False
        last = message.line
        for number, line in message.body:
            stripped = line.strip()
            if stripped == _REACTIONS:
                reacting = True
                continue
            if reacting and _REACTION.match(stripped):
                self.collector.ignore("reaction")
                continue
            reacting = False
            if stripped == _REPLY_NOTE:
                self.collector.ignore("reply note")
                continue
            path = _FILE_PATH.match(stripped)
            if path:
                files.append(path.group("name"))
            else:
                words.append(line[message.indent:] if line[:message.indent].isspace() else line)
            if stripped:
                last = number
        text = "\n".join(words).strip()
        attached = attachment_names(files)
        if not text and not attached:
            self.collector.ignore("empty")
            return
        links = [("message_id", f"{self.session}#{message.line}")]
        if message.parent:
            links.append(("reply_to", f"{self.session}#{message.parent}"))
        span = f"{message.line}-{last}" if last > message.line else f"{message.line}"
        add_chat_message(self.collector, self.senders, record_no=message.line,
                         session=self.session, sender=message.sender or "unknown", text=text,
                         time=self.collector.time(message.line, message.time),
                         identity=f"{message.time}|{message.sender}", pointer=f"{base}:{span}",
                         links=links, attached=attached)


def _messages(lines: list[str]) -> list[_Message]:
    """The messages of the file in order, each reply after the message it is written in."""
    found: list[_Message] = []
    open_at: dict[int, _Message] = {}  # indent -> the message being read at that depth
    current: _Message | None = None
    expect_sender = False
    for number, line in enumerate(lines, 1):
        dated = _DATE_LINE.match(line)
        if dated:
            indent = len(dated.group("indent"))
            outer = [m for depth, m in open_at.items() if depth < indent]
            current = _Message(number, indent, dated.group("time"),
                               parent=outer[-1].line if outer else 0)
            open_at = {depth: m for depth, m in open_at.items() if depth < indent}
            open_at[indent] = current
            found.append(current)
            expect_sender = True
            continue
        if current is None:
            continue
        if expect_sender and line.strip():
            current.sender = " ".join(line.split())[:120]
            expect_sender = False
            continue
        # a line indented less than a reply's own belongs to the message it is written in
        depth = len(line) - len(line.lstrip(" "))
        owner = current
        if line.strip() and depth < current.indent:
            owner = max((m for d, m in open_at.items() if d <= depth), key=lambda m: m.indent,
                        default=current)
        owner.body.append((number, line))
    return found
