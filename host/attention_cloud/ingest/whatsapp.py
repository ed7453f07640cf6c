"""WhatsApp chat exports ("Export chat" → "Without media", ``_chat.txt`` / ``WhatsApp Chat with
X.txt``): one or many people, each message with its sender and its time.

WhatsApp writes a message per line, its continuation lines (a multi-line message) after it::

    [5/8/23, 1:56:03 PM] Priya: I signed up for the half marathon     (iOS)
    [08-05-2023 13:56:03] Priya: Ik heb me ingeschreven               (iOS, in Dutch: no comma)
    08/05/2023, 13:56 - Priya: I signed up for the half marathon      (Android)
    08/05/2023 à 13:56 - Priya: Je me suis inscrite au semi-marathon  (Android, in French)

- **Times**: the date is written in the phone's locale: ``5/8/23`` (month first, the US),
  ``08/05/2023`` (day first, most of the world), ``08.05.23``, ``2023-05-08``, ``2023. 05. 08.``
  (Hungary, Korea); the clock in 12 or 24 hours (``1:56 PM``, ``1:56 p. m.``, ``下午1:56``,
  ``오후 1:56``, ``1:56 م``, ``13:56``, with or without seconds). The order of
  day and month is decided once for the whole file: a first number above 12 means day first, a
  second above 12 month first; a dotted date (``08.05.23``) is day first unless a second
  number above 12 says otherwise; when no number
  tells, the order in which the messages were sent decides (an export is in time order: one
  order may make the dates go back); when neither does (a chat of a few days, every date
  either way), the file is read month first with a 12-hour clock written ``AM``/``PM`` as the
  US writes it, and day first with a 24-hour clock or a 12-hour one written otherwise (``pm``
  in en-GB, en-IN, en-AU; ``p. m.`` in Spanish), and ``ParseResult.notes`` says so. The time is local, with no zone: it is stored as
  written, as UTC, as every zoneless time is. A date that does not exist is reported in
  ``unread_times``.
- **Speakers**: every message keeps its sender's name as written (a contact name, a phone
  number, ``~ Name`` for a non-contact without the ``~``); roles as
  :mod:`.chat_messages` gives them (the first sender is the user). Every message with text is
  an item, a short reply included.
- **Not kept, counted** (``ignored``): system lines (``Messages and calls are end-to-end
  encrypted``, ``Priya created group``, ``Priya added Dana``: a line with no sender, or iOS's
  system message under the group's name), media placeholders (``<Media omitted>``, ``image
  omitted``, ``<attached: …>``, ``IMG-….jpg (file attached)``) as ``media omitted`` (a caption
  after one is kept), and deleted messages. ``<This message was edited>`` is cut from the
  message it ends, which links ``relation(H, edited, true)`` (the export says not when). ``<memory-frame>`` envelopes are removed first, as from every format.
- Lines before the first message line are skipped and reported.

Pointers read ``<file>:<line>`` for a message on one line, ``<file>:<first>-<last>`` for one
written over several (its first line to its last with text), so its source is the whole of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from .chat_messages import ChatSenders, add_chat_message
from .collector import ItemCollector
from .envelope import strip_envelopes
from .pointers import line_pointer
from .source import Source, fail
from .timefmt import TurnTime, clock_style, read_day_first

_SPACE = r"[ \t\u00a0\u202f]"
# Hungarian and Korean phones write the year first, a space after each dot: "2023. 05. 08."
_DATE = r"(?P<date>\d{1,4}(?P<sep>[./-]) ?\d{1,2}(?P=sep) ?\d{1,4})\.?"
# AM and PM after the clock ("1:56 PM", "1:56 p. m.", Arabic "1:56 م") or, in Chinese, Japanese
# and Korean, before it ("下午1:56", "午後1:56", "오후 1:56")
_AM_PM = (r"(?:" + _SPACE + r"*(?:(?P<ampm>[AaPp])\.?" + _SPACE + r"?[Mm]\.?"
          r"|(?P<ampm_ar>[\u0635\u0645])(?!\w)))?")
_BEFORE_CLOCK = r"(?:(?P<ampm_cjk>上午|下午|午前|午後|오전|오후)" + _SPACE + r"*)?"
_CLOCK = _BEFORE_CLOCK + r"(?P<clock>\d{1,2}[:.]\d\d(?:[:.]\d\d)?)" + _AM_PM
# The word some locales write between the date and the clock, in place of iOS's comma or after
# Android's: French "08/05/2023 à 13:56", Finnish "8.5.2023 klo 13.56".
_AT = _SPACE + r"+(?:à|klo)"
_IOS = re.compile(r"\[" + _DATE + r"(?:,|" + _AT + r"|(?<=\.)(?=" + _SPACE + r"))" + _SPACE
                  + r"*" + _CLOCK + r"\]" + _SPACE + r"*(?P<rest>.*)", re.DOTALL)
# iOS in some locales (Dutch, Brazilian, Spanish) writes no comma: "[08-05-2023 13:56:03]",
# the day or month first and the seconds always there; "[2023-05-08 13:56] Priya:", a year
# first or no seconds, is any timestamped chat's line (read as text).
_IOS_BARE = re.compile(
    r"\[(?P<date>\d{1,2}(?P<sep>[./-])\d{1,2}(?P=sep)\d{2,4})" + _SPACE + r"+"
    + r"(?P<clock>\d{1,2}[:.]\d\d[:.]\d\d)" + _AM_PM + r"\]" + _SPACE + r"*(?P<rest>.*)",
    re.DOTALL)
_ANDROID = re.compile(_DATE + r",?(?:" + _AT + r")?" + _SPACE + r"+" + _CLOCK + _SPACE
                      + r"+[-\u2013]" + _SPACE + r"+(?P<rest>.*)", re.DOTALL)
_MARKS = "\u200e\u200f\u202a\u202b\u202c\u2066\u2067\u2068\u2069\ufeff"
_MEDIA = re.compile(
    r"<media omitted>|<attached: [^>]*>|(?:image|video|audio|sticker|gif|document|contact card)"
    r" omitted|<médias omis>|<medien ausgeschlossen>|<multimedia omitido>|<media weggelaten>"
    # Android, exported with media: its file's name, a word of its own (unanchored, `\S+\.` ran
    # quadratic over a 1 MB token: the fuzz test's damaged export took 19 minutes)
    r"|(?<!\S)\S{1,255}\.\w{2,5} \(file attached\)",
    re.IGNORECASE)
_DELETED = re.compile(r"(?:this message was deleted|you deleted this message)\.?", re.IGNORECASE)
# The mark alone: the marks and spaces before it are stripped after (a leading `[\s...]*` made
# the search quadratic over a long run of spaces).
_EDITED = re.compile(r"<this message was edited>\s*\Z", re.IGNORECASE)
# A phone set to Arabic (or Persian) writes its dates and clock in Arabic-Indic digits and an
# Arabic comma: "٢٤‏/٤‏/٢٠٢٢، ٢:٠٧ م - …", read as "24/4/2022, 2:07 م - …".
_ARABIC_DIGITS = str.maketrans("\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669"
                               "\u06f0\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6\u06f7\u06f8\u06f9"
                               "\u060c", "01234567890123456789,")
_ARABIC_HEAD_CHARS = "[\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669" \
                     "\u06f0\u06f1\u06f2\u06f3\u06f4\u06f5\u06f6\u06f7\u06f8\u06f9"
_HEAD_LINES = 20
_HEAD_CHARS = 40  # a message line's date and time come within its first characters
# marks among a date's and a clock's numbers, not those that open a message's text (iOS's
# system lines under a group's name start with one)
_MARKS_IN_DATE = re.compile(r"(?<=[\d/.,:\[ -])[" + _MARKS + r"]+(?=[\d/.,: \]-])")
# A quote opened and not closed before ": " is a system line's ('… changed the subject from
# "Run: club"'); a contact name may hold a whole quotation ('Dana "DJ" Whitfield').
_Q, _NQ = "[\"\u201c\u201d]", "[^\"\u201c\u201d]*"
_QUOTES = re.compile(r"\A" + _NQ + "(?:" + _Q + _NQ + _Q + _NQ + ")*" + _Q + _NQ + r"\Z")


def _without_edited_mark(text: str) -> str:
    """``text`` without a closing ``<This message was edited>`` and the spaces and marks
    before it, stripped."""
    mark = _EDITED.search(text)
    end = mark.start() if mark else len(text)
    if mark:
        while end and (text[end - 1].isspace() or text[end - 1] in _MARKS):
            end -= 1
    return text[:end].strip()


@dataclass
class _Line:
    """A message line's parts: where it is, its date and time as written, the date's three
    numbers, its clock, the rest."""

    number: int
    written: str
    sep: str
    parts: tuple[str, str, str]
    clock: str
    ampm: str
    rest: str


def header_of(line: str) -> re.Match[str] | None:
    """The match of a WhatsApp message line (iOS's ``[date, time] …`` or Android's ``date,
    time - …``), else None. Direction marks among the date's numbers (an Arabic phone's
    ``\u200f08\u200f/05\u200f/2023``) are read past."""
    line = line.lstrip(_MARKS)
    if line[:1] in _ARABIC_HEAD_CHARS:  # an Arabic phone's date and clock, not its text
        ends = [at for at in (line.find(" - ", 0, _HEAD_CHARS), line.find("]", 0, _HEAD_CHARS))
                if at >= 0]
        head = min(ends) if ends else 0
        line = line[:head].translate(_ARABIC_DIGITS) + line[head:]
    if line[:1] in "[0123456789" and any(mark in line[:_HEAD_CHARS] for mark in _MARKS):
        line = _MARKS_IN_DATE.sub("", line[:_HEAD_CHARS]) + line[_HEAD_CHARS:]
    return _IOS.match(line) or _IOS_BARE.match(line) or _ANDROID.match(line)


def is_whatsapp_export(text: str) -> bool:
    """True when the first line with text is a WhatsApp message line and one of the first
    such lines has a sender (``Name: …``): a log whose lines start ``08/05/2023, 13:56 - ``
    is not a chat."""
    lines = [line for line in text.split("\n", 4 * _HEAD_LINES)[:4 * _HEAD_LINES]
             if line.strip(_MARKS + " \t\r")][:_HEAD_LINES]
    headers = [header_of(line.rstrip("\r")) for line in lines]
    return bool(headers) and headers[0] is not None and any(
        match is not None and ": " in match["rest"] for match in headers)


def _meridiem(match: re.Match[str]) -> str:
    """``a`` or ``p`` for a 12-hour clock's AM or PM, in whichever language it is written;
    ``""`` for a 24-hour clock."""
    found = match.groupdict()
    if found.get("ampm"):
        return found["ampm"].lower()
    if found.get("ampm_ar"):
        return "p" if found["ampm_ar"] == "\u0645" else "a"
    if found.get("ampm_cjk"):
        return "p" if found["ampm_cjk"] in ("下午", "午後", "오후") else "a"
    return ""


def _ordered_date(parts: tuple[str, str, str], day_first: bool) -> tuple[int, int, int]:
    """``(year, month, day)`` of a date's three numbers, in the file's order."""
    a, b, c = (int(p) for p in parts)
    if len(parts[0]) == 4:
        return a, b, c
    year = _year(parts[2])
    return (year, b, a) if day_first else (year, a, b)


def day_order(lines: list[_Line]) -> tuple[bool, str]:
    """``(day first?, note or "")``: the order of day and month, for the whole file
    (:func:`~.timefmt.read_day_first` decides; a dotted date is day first)."""
    short = [line for line in lines if len(line.parts[0]) != 4]
    if not short:
        return False, ""  # year first: 2023-05-08
    dates = [(int(line.parts[0]), int(line.parts[1]), _year(line.parts[2])) for line in short]
    if all(line.sep == "." for line in short):
        # 08.05.23: a dotted date is day first wherever it is written, unless a second
        # number above 12 (and no first one) says otherwise: "[05.13.23 09:01:00]"
        return not (any(b > 12 for _, b, _ in dates) and all(a <= 12 for a, _, _ in dates)), ""
    return read_day_first(dates, clock_style(line.written for line in lines), "messages",
                          short[0].sep.join(short[0].parts))


def _year(written: str) -> int:
    return int(written) + 2000 if len(written) <= 2 else int(written)


def _moment(line: _Line, day_first: bool) -> TurnTime | None:
    year, month, day = _ordered_date(line.parts, day_first)
    pieces = [int(p) for p in re.split(r"[:.]", line.clock)]
    hour, minute, second = pieces[0], pieces[1], pieces[2] if len(pieces) > 2 else 0
    if line.ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if line.ampm in "pP" else 0)
    try:
        moment = datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    return TurnTime(moment.strftime("%Y-%m-%dT%H:%M:%SZ"), moment.date().isoformat())


class WhatsAppParser:
    """Parses a WhatsApp chat export into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session
        self.senders = ChatSenders()

    def parse(self, source: Source) -> int:
        """Read every message and system line; return how many there were."""
        # Envelopes go first, replaced by their newlines so line numbers stay the file's own.
        messages: list[tuple[_Line, list[str]]] = []
        for number, raw in enumerate(
                self.collector.lines_without_envelopes(source, lone_close=False), 1):
            match = header_of(raw)
            if match is not None:
                parts = tuple(part.strip() for part in re.split(r"[./-]", match["date"]))
                written = match.group(0)[:match.start("rest")].strip(" \t[]-\u2013")
                messages.append((_Line(number, written, match["sep"], parts,  # type: ignore[arg-type]
                                       match["clock"], _meridiem(match), match["rest"]), []))
            elif messages:
                messages[-1][1].append(raw)
            elif raw.strip(_MARKS + " \t"):
                self.collector.skip(number, "not a WhatsApp message line (before the first one)")
        if not messages:
            raise fail(source.name, "no WhatsApp message lines ([date, time] Name: or "
                                    "date, time - Name:) found")
        day_first, note = day_order([line for line, _ in messages])
        if note:
            self.collector.note(note)
        for line, more in messages:
            self._message(source, line, more, day_first)
        self.collector.records_read += len(messages)
        return len(messages)

    def _message(self, source: Source, line: _Line, more: list[str], day_first: bool) -> None:
        sender, sep, first = line.rest.partition(": ")
        sender = sender.strip(_MARKS + " \t").lstrip("~").strip(_MARKS + " \t\u202f\u00a0")
        if not sep or not sender or len(sender) > 80 or _QUOTES.search(sender):
            # "Priya added Dana", the encryption notice, 'Priya changed the subject from "A: b"'
            self.collector.ignore("system")
            return
        if first[:1] in _MARKS and not _MEDIA.search(first) \
                and not _DELETED.fullmatch(first.strip(_MARKS + " \t")):
            self.collector.ignore("system")  # iOS: a system line under the group's name
            return
        # a close the file-wide scan left (no opening before it): envelope text up to it here
        joined, lone = strip_envelopes("\n".join([first, *more]))
        self.collector.envelopes_stripped += lone
        stripped = joined.strip(_MARKS + " \t\n")
        text = _without_edited_mark(stripped)
        links = [("edited", "true")] if text != stripped else []  # when, the export says not
        text = _MEDIA.sub("", text).strip(_MARKS + " \t\n") if _MEDIA.search(text) else text
        if not text:
            self.collector.ignore("media omitted" if _MEDIA.search(first) else "empty")
            return
        if _DELETED.fullmatch(text):
            self.collector.ignore("deleted")
            return
        time = _moment(line, day_first)
        if time is None:
            self.collector.unread_times.append((line.number, line.written))
        add_chat_message(self.collector, self.senders, record_no=line.number,
                         session=self.session, sender=sender, text=text, time=time or "",
                         identity=f"line{line.number}", links=links,
                         pointer=line_pointer(source.pointer_base, line.number,
                                              line.number + _last_with_text(more)))


def _last_with_text(more: list[str]) -> int:
    """How many of a message's continuation lines come before the blank ones that end it."""
    return next((i for i in range(len(more), 0, -1) if more[i - 1].strip()), 0)
