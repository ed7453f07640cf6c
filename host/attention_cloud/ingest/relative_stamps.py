"""Speaker-line times that are no moment on their own, only one counted from an anchor the file
gives elsewhere.

- **A day word** before a clock, as Discord's app shows a message of today or yesterday when it
  is copied and pasted: ``Tomás — Today at 10:03 PM``, ``Priya — Yesterday at 9:03 PM``, or in
  the app's other languages, ``Gestern um 21:03 Uhr``, ``Hier à 21:03``, ``昨日 21:03``. The
  day it counts from is the one the file's own date line above it gives (``# 2023-05-10``,
  ``Date: 10 May 2023``) or its name (``discord-2023-05-10.txt``); the day of the turns above
  is no anchor (they were written days before the paste).
- **A recording's offset**, as Otter.ai's text export writes one over each paragraph:
  ``Priya Patel  0:01`` (minutes and seconds, ``1:02:03`` past the hour). It counts from the
  recording's start, which a date line with its clock above the turns gives (``May 8, 2023,
  1:56 PM``); a date line without a clock gives the day alone.

Without its anchor such a time is reported unread by the reader, with its line, as before.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from .timefmt import TurnTime

# "Today at 10:03 PM", "Yesterday at 21:03": Discord's words for the last two days, as its app
# writes them in English and in the languages people most use it in ("Heute um 13:56 Uhr",
# "Aujourd'hui à 13:56", "hoy a las 13:56", "Hoje às 13:56", "Oggi alle 13:56", "vandaag om
# 13:56", "Сегодня в 13:56", "Dzisiaj o 13:56", "Idag 13:56", "i dag kl. 13:56", "Bugün saat
# 13:56", "tänään klo 13.56", "今日 13:56", "今天 13:56", "오늘 오후 1:56"), the word, its joiner,
# then the clock.
_TODAY = r"today|heute|aujourd['\u2019]hui|hoy|hoje|oggi|vandaag|сегодня|dzi(?:ś|siaj)|idag|i[ \t]dag" \
    r"|tänään|bugün|今日|今天|오늘"
_YESTERDAY = r"yesterday|gestern|hier|ayer|ontem|ieri|gisteren|вчера|wczoraj|igår|i[ \t]går|eilen" \
    r"|dün|昨日|昨天|어제"
_JOINER = r"at|um|à|a[ \t]+las?|às|alle|om|в|o|kl\.?|klo|saat"
_DAY_WORD = re.compile(
    rf"(?i)(?:(?P<today>{_TODAY})|{_YESTERDAY}),?(?:[ \t]+(?:{_JOINER}))?[ \t]*"
    r"(?P<clock>(?:(?:上午|午前|오전|下午|午後|오후)[ \t]*)?\d{1,2}[:.]\d\d.*?)(?:[ \t]+Uhr)?")
# A recording's offset: "0:01", "12:45", "1:02:03"; never a clock's "1:56 PM".
_OFFSET = re.compile(r"(?:(?P<h>\d{1,2}):)?(?P<m>\d{1,2}):(?P<s>\d\d)")
_CLOCK = re.compile(r"\d{1,2}:\d\d")
_CLOCK_WORD = re.compile(r"(?<=\d)[ \t]+Uhr[ \t]*\Z")


def on_anchor_day(written: str, today: str) -> str | None:
    """``written`` with its day word replaced by the day it names counted from ``today``
    (``YYYY-MM-DD``): ``Yesterday at 9:03 PM`` on 2023-05-10 is ``2023-05-09 9:03 PM``; None
    when ``written`` is no day word and clock, or there is no ``today``."""
    written = written.strip()
    if not today or not written[:1].isalpha():  # a date or a clock, as most stamps are
        return None
    found = _DAY_WORD.fullmatch(written)
    if found is None:
        return None
    back = 0 if found.group("today") else 1
    return f"{date.fromisoformat(today) - timedelta(days=back)} {found.group('clock')}"


def without_clock_word(written: str) -> str:
    """``written`` without the word German writes after a clock (``08.05.2023 13:56 Uhr``):
    the time as a reader of times reads it."""
    return _CLOCK_WORD.sub("", written) if "Uhr" in written else written


def are_recording_offsets(stamps: list[str]) -> bool:
    """Whether the times a file writes beside its speakers' names count a recording's time
    (Otter.ai: the first under a minute, ``0:01``; none with AM or PM) rather than the
    clock's (a Slack channel copied from the app: ``1:56 PM``)."""
    return bool(stamps) and stamps[0].startswith("0:") and all(
        _OFFSET.fullmatch(stamp.strip()) for stamp in stamps)


def has_clock(line: str) -> bool:
    """Whether a date line writes a clock time too (``May 8, 2023, 1:56 PM``): a recording's
    start, which its offsets count from."""
    return _CLOCK.search(line) is not None


def after_start(start: str, offset: str) -> TurnTime | None:
    """The moment ``offset`` (``0:01``, ``1:02:03``) after ``start`` (an ISO UTC time); None
    when ``offset`` is no offset."""
    found = _OFFSET.fullmatch(offset.strip())
    if found is None:
        return None
    seconds = int(found.group("h") or 0) * 3600 + int(found.group("m")) * 60 + int(found.group("s"))
    moment = datetime.strptime(start[:19], "%Y-%m-%dT%H:%M:%S") + timedelta(seconds=seconds)
    return TurnTime(moment.strftime("%Y-%m-%dT%H:%M:%SZ"), moment.date().isoformat())
