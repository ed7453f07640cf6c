"""Times as people and exports write them, read in one place (python-dateutil underneath).

Every timestamp the host reads goes through :func:`read_time` (or :func:`iso_utc`, its lenient
form): transcript times at ingest, the ``now`` of a hydration, the times echo detection compares.
Accepted: ISO 8601 with or without a zone (``2023-05-08T13:56:00Z``, ``2023-05-08 13:56+02:00``,
``2023-05-08``, ``20230508``; Java's ``…+02:00[Europe/Paris]``, or the zone's name alone), Go's
``2023-05-08 13:56:00 +0200 CEST``, Unix epoch seconds, milliseconds, microseconds or
nanoseconds (numbers or digit strings),
RFC 2822 (``Mon, 08 May 2023 13:56:00 +0200``) and the spellings people and chat exports use
(``1:56 pm on 8 May, 2023``, ``May 8, 2023``, ``2023/05/28 (Sun) 19:47``, ``28.05.2023 19:47``: a
dotted date is day first; ``13:56 UTC+2`` is two hours ahead of UTC), and full dates with month
names in the languages :mod:`.date_words` lists (``Montag, 8. Mai 2023 um 13:56:03 UTC``).
A time must name its day: ``13:56`` or ``Monday`` alone is not a timestamp. A time without a
zone is UTC (the journal stores UTC). :func:`relative_dates` resolves "yesterday", "last week",
"two days ago", "last Friday" in a turn's text against the turn's own time.
"""

from __future__ import annotations

import re
import warnings
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any, Iterable

from dateutil import parser as _dateparser
from dateutil.relativedelta import relativedelta
from dateutil.tz import tzoffset
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .date_words import LOCALISED, names_a_localised_month
from .hemisphere import is_southern

# Claude Code writes "2026-01-02T03:04:05.678Z"; the common case needs no parsing at all.
_UTC_Z = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\Z")
_EPOCH = re.compile(r"\d+(?:\.\d+)?\Z")
# Digits that are a calendar date, not a count of seconds: "20230508" (ISO 8601's basic form) is
# 8 May 2023, not 23 August 1970; "2023", a year alone, names no day.
_BASIC_DATE = re.compile(r"(?:1[89]|2\d)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\Z")
_YEAR_ALONE = re.compile(r"(?:1[89]|2\d)\d\d\Z")
_CLOCK = re.compile(r"(?<!\d)\d{1,2}:\d\d(?!\d)")
_MS_THRESHOLD = 100_000_000_000  # epoch numbers above this are milliseconds (after 1973 in ms)
_US_THRESHOLD = 100_000_000_000_000  # ... microseconds (Python's time_ns() // 1000, Chrome)
_NS_THRESHOLD = 100_000_000_000_000_000  # ... nanoseconds (Go, OpenTelemetry)
# Java's ZonedDateTime writes its zone's name after the offset, "2023-05-08T15:56+02:00[Europe/
# Paris]" (RFC 9557); without an offset the name alone says the zone.
_ZONE_NAME = re.compile(r"(?P<moment>.+?)\[(?P<zone>[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*)\]\Z")
# Go's time.Time String(): "2023-05-08 13:56:00.123456789 +0200 CEST m=+0.000100", an offset
# and then the zone's abbreviation (and a monotonic clock reading), which says nothing more.
_GO_TIME = re.compile(r"(?P<moment>.+?[+-]\d{4})[ \t]+[A-Z]{1,5}(?:[ \t]+m=[+-][\d.]+)?\Z")
# Epoch numbers below this (March 1973) are not a transcript's times: a placeholder 0, or
# seconds since a run started (12.5); read as 1970 they would sort every such item first.
_EPOCH_MIN = 100_000_000
_MAX_TEXT = 80  # longer strings are prose, not a timestamp
# "(Sun)" in "2023/05/28 (Sun) 19:47" (LongMemEval's session dates): dateutil rejects brackets.
_BRACKETED_WEEKDAY = re.compile(r"\(\s*(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s*\)", re.I)
# "UTC+2", "GMT+0200", "UTC-05:00": an offset from UTC as people and JavaScript's Date write it.
# dateutil reads "GMT+3" the POSIX way round (three hours *behind*), so it is rewritten as the
# ISO offset it means; a zone's name JavaScript adds after it, "(Central European Summer Time)",
# says nothing the offset does not.
_NAMED_OFFSET = re.compile(
    r"\b(?:UTC|GMT|UT)[ \t]*(?P<sign>[+-])[ \t]*(?P<hours>\d{1,2})(?::?(?P<minutes>\d\d))?(?!\d)"
    r"(?:[ \t]*\([A-Za-z][A-Za-z .]*\))?", re.I)
_DEFAULTS = (datetime(1, 1, 1), datetime(2, 2, 2))  # a field that differs was not written
# Zone abbreviations exports write; dateutil knows only UTC/GMT/Z by itself. Ambiguous ones
# (IST, CST in Asia) are left out: a time with an unknown zone name is unreadable, not guessed.
_ZONES: dict[str, tzinfo] = {
    name: tzoffset(name, hours * 3600)
    for name, hours in (("UTC", 0), ("GMT", 0), ("UT", 0), ("Z", 0), ("BST", 1), ("CET", 1),
                        ("CEST", 2), ("EET", 2), ("EEST", 3), ("EST", -5), ("EDT", -4),
                        ("CDT", -5), ("MST", -7), ("MDT", -6), ("PST", -8), ("PDT", -7),
                        ("JST", 9), ("AEST", 10), ("AEDT", 11))
}


class TurnTime(str):
    """An ISO 8601 UTC time, as the journal stores it, that remembers the calendar day it was
    written on in its writer's own zone (``day``, ``YYYY-MM-DD``).

    ``2023-05-08T09:00:00+10:00`` is ``2023-05-07T23:00:00Z``, written on 8 May: the day that
    "yesterday" in that turn counts back from, which the UTC time alone no longer says.
    """

    day: str
    _south: bool | None
    _written: str  # the time as written: its zone, read when asked, says the hemisphere

    def __new__(cls, iso: str, day: str, south: bool | None = None,
                written: str = "") -> TurnTime:
        made = super().__new__(cls, iso)
        made.day = day
        made._south = south
        made._written = written
        return made

    @property
    def south(self) -> bool | None:
        """True when written in a zone south of the equator, False north of it, None when
        its zone does not say (read from the time as written the first time it is asked: only
        a turn that names a season asks)."""
        if self._south is None and self._written:
            moment = _written_moment(self._written)
            self._south = is_southern(_zone_written(self._written, moment)) if moment else None
            self._written = ""
        return self._south


def read_turn_time(value: Any) -> TurnTime | str | None:
    """As :func:`read_time`, a readable time being a :class:`TurnTime` (its UTC time and the
    day it was written on)."""
    iso = read_time(value)
    if not iso:
        return iso
    text = value.strip() if isinstance(value, str) else ""
    if not text or _UTC_Z.match(text) or _EPOCH.match(text):
        return TurnTime(iso, iso[:10])  # written in UTC (or as a count of seconds)
    written = _written_moment(text)
    if written is None:
        return TurnTime(iso, iso[:10])
    return TurnTime(iso, written.date().isoformat(), written=text)


def _zone_written(text: str, written: datetime) -> str:
    """The zone a time names, by its IANA name (``…[Australia/Sydney]``) or its abbreviation
    (``AEST``); ``""`` for an offset alone or none."""
    named = _ZONE_NAME.match(text)
    if named:
        return named["zone"]
    go = _GO_TIME.match(text)
    if go:
        return text[go.end("moment"):].split()[0]
    zone = written.tzname() or ""
    return zone if zone in _ZONES or zone.isalpha() and zone.isupper() else ""


class LogClock:
    """The times a log writes turn by turn: a time that names its day is read as it is, and its
    day (as written) dates the clock times after it; a clock time alone (``03:56 UTC``,
    ``[10:30]``) is put on the day the log gave last (:meth:`dated`, or such a time), and on the
    next day once the clock goes back past midnight."""

    def __init__(self, day: str = "") -> None:
        self.day = day       # YYYY-MM-DD the clock times are on, as the log writes it
        self.shift = 0       # days added since that date was given (midnight passed)
        self.last: datetime | None = None  # the previous turn's moment, to notice midnight

    def dated(self, day: str) -> None:
        """A line gave the date (``YYYY-MM-DD``): the clock times after it are on that day."""
        self.day, self.shift, self.last = day, 0, None

    def read(self, written: str) -> TurnTime | None:
        """``written`` as a :class:`TurnTime`; None when it cannot be read, or is a clock time
        alone and the log gave no day."""
        own = read_turn_time(written)
        if own:
            self.day, self.shift, self.last = own.day, 0, parse_moment(own)
            return own  # it names its day, which the clock times after it are on
        if not self.day or not _CLOCK.search(written):
            return None  # no day to put it on, or no clock time ("[Sunday]", "[PST]") to put
        moment = parse_moment(f"{self.day} {written}")
        if moment is None:
            return None
        moment += timedelta(days=self.shift)
        if self.last is not None and moment < self.last:
            self.shift += 1  # the clock went back: midnight passed
            moment += timedelta(days=1)
        self.last = moment
        day = date.fromisoformat(self.day) + timedelta(days=self.shift)
        return TurnTime(utc_text(moment), day.isoformat())


def read_time(value: Any) -> str | None:
    """``value`` as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC); ``""`` when there is no time; None when
    there is one that cannot be read (the caller reports it: a time is never dropped silently).

    ``value`` may be a string in any form the module docstring lists, or epoch seconds or
    milliseconds as a number. A naive time is read as UTC.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and _date_digits(str(value)):
        return read_time(str(value))
    if isinstance(value, (int, float)):
        return _from_epoch(value)
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return ""
    if _UTC_Z.match(text):
        if _valid_fields(text):
            return text[:19] + "Z"
        return None  # 2026-02-30T25:61:00Z: the right shape, no such moment
    if _YEAR_ALONE.match(text):
        return None
    if _EPOCH.match(text) and not _BASIC_DATE.match(text):
        return _from_epoch(float(text))
    moment = parse_moment(text)
    return None if moment is None else utc_text(moment)


def utc_text(moment: datetime) -> str:
    """``moment`` (UTC) as ``YYYY-MM-DDTHH:MM:SSZ``, the year in four digits: strftime's %Y
    writes the year 999 as "999", which Prolog's ISO 8601 reader refuses and which sorts
    after "2023" as text (``--now 0999-05-01`` was a domain error naming "999-05-01...")."""
    return f"{moment.year:04d}" + moment.strftime("-%m-%dT%H:%M:%SZ")


def is_year_alone(text: str) -> bool:
    """``text`` is a year alone (``2024``): four digits that name no moment, never read as
    epoch seconds (what an error refusing it should say)."""
    return bool(_YEAR_ALONE.match(text.strip()))


def is_date_digits(text: str) -> bool:
    """``text`` is digits that write a calendar date (``20230508``) or a year alone
    (``2023``): a time option reads them so, never as a count of epoch seconds."""
    return _date_digits(text.strip())


def _date_digits(digits: str) -> bool:
    """``digits`` write a date (``20230508``) or a year alone (``2023``), not epoch seconds."""
    return bool(_BASIC_DATE.match(digits) or _YEAR_ALONE.match(digits))


def _valid_fields(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS...`` names a real moment (a month has its days, an hour 0-23)."""
    try:
        datetime(int(text[0:4]), int(text[5:7]), int(text[8:10]),
                 int(text[11:13]), int(text[14:16]), int(text[17:19]))
    except ValueError:
        return False
    return True


def iso_utc(value: Any) -> str:
    """As :func:`read_time`, with ``""`` for a time that cannot be read as well."""
    return read_time(value) or ""


# A clock written with dots after a numeric date, as Finnish and Danish write it (.NET's short
# time there, DiscordChatExporter's dates: "8.5.2023 15.56", "08.05.2023 15.56.03"): dateutil
# reads none of it, and Python's ISO reader "2023-05-08 12.15" as noon.
_DOTTED_CLOCK = re.compile(
    r"(?P<date>\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?[ \t]+)(?P<h>\d{1,2})\.(?P<m>\d\d)"
    r"(?:\.(?P<s>\d\d))?(?=[ \t]*(?:[A-Za-z]{1,5}|[+-]\d\d:?\d\d)?[ \t]*\Z)")


def _with_colon_clock(match: re.Match[str]) -> str:
    seconds = f":{match['s']}" if match["s"] else ""
    return f"{match['date']}{match['h']}:{match['m']}{seconds}"


def parse_moment(text: str) -> datetime | None:
    """An aware UTC datetime for a written time (see the module docstring), or None."""
    moment = _written_moment(text)
    if moment is None:
        return None
    try:
        return moment.astimezone(UTC)
    except (OverflowError, ValueError):
        return None


@lru_cache(maxsize=1024)
def _written_moment(text: str) -> datetime | None:
    """A written time as an aware datetime in the zone it was written in (UTC when it names
    none), or None. Kept for the last texts read: a turn's time is read for its UTC time and
    again for the day it was written on (read_turn_time), and a log's clock (LogClock) reads
    it a third time; dateutil costs ~50-100 us a parse."""
    text = text.strip()
    if not text or len(text) > _MAX_TEXT:
        return None
    named = _ZONE_NAME.match(text)
    if named:
        return _in_named_zone(named["moment"], named["zone"])
    go = _GO_TIME.match(text)
    if go:
        text = go["moment"]
    if "." in text:  # most times write none: the expression is not tried on them
        text = _DOTTED_CLOCK.sub(_with_colon_clock, text, count=1)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        moment = _dateutil_moment(_BRACKETED_WEEKDAY.sub(" ", text))
        if moment is None:
            return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _in_named_zone(text: str, zone: str) -> datetime | None:
    """``text`` written in the zone an IANA name gives (``Europe/Paris``); the offset ``text``
    writes, where it writes one, wins. None for a zone name no zone database knows."""
    moment = _written_moment(text)
    if moment is None or not (text.endswith("Z") or _ISO_OFFSET.search(text) is None):
        return moment  # no moment, or one whose own offset says where it was written
    try:
        return moment.replace(tzinfo=ZoneInfo(zone))
    except (ZoneInfoNotFoundError, ValueError):
        return None


_ISO_OFFSET = re.compile(r"[+-]\d\d:?\d\d\Z")


# "05.06.2023": a dotted date puts the day first wherever it is written (Germany, Russia,
# Scandinavia ...); dateutil would read it month first, as the US writes "05/06/2023".
_DOTTED_DATE = re.compile(r"(?<![\d.])\d{1,2}\.\d{1,2}\.\d{2,4}(?![\d.])")


def _named_offset(match: re.Match[str]) -> str:
    return f" {match['sign']}{int(match['hours']):02d}{match['minutes'] or '00'}"


# Dates as Chinese, Japanese and Korean apps write them: "2023年5月8日", "2023년 5월 8일", a
# weekday in brackets or words ("(月)", "星期一"), AM/PM before the clock ("下午1:56", "午後",
# "오후") and hours and minutes in characters ("13時56分", "13시 56분").
_CJK_DATE = re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]?")
_CJK_WEEKDAY = re.compile(r"[(（]\s*[月火水木金土日一二三四五六天월화수목금토일]\s*(?:曜日?|요일)?\s*[)）]"
                          r"|(?:星期|礼拜|禮拜|周|週)[一二三四五六日天]|[月火水木金土日]曜日"
                          r"|[월화수목금토일]요일")
_CJK_CLOCK = re.compile(r"(\d{1,2})\s*[時时시]\s*(\d{1,2})\s*[分분]")
_CJK_HALF_DAY = re.compile(r"(上午|午前|오전|下午|午後|오후)\s*(\d{1,2}:\d\d(?::\d\d)?)")
_CJK_SIGNS = re.compile(r"[年月日時时分년월일시분]|[上下]午|午[前後]|오[전후]")


def _without_cjk_forms(text: str) -> str:
    """``text`` with the CJK date forms above written as dateutil reads them."""
    if not _CJK_SIGNS.search(text):
        return text
    text = _CJK_DATE.sub(lambda m: f"{m[1]}-{int(m[2]):02d}-{int(m[3]):02d}", text)
    text = _CJK_WEEKDAY.sub(" ", text)
    text = _CJK_CLOCK.sub(lambda m: f"{m[1]}:{int(m[2]):02d}", text)
    return _CJK_HALF_DAY.sub(
        lambda m: f"{m[2]} {'AM' if m[1] in ('上午', '午前', '오전') else 'PM'}", text)


def _dateutil_moment(text: str) -> datetime | None:
    text = _NAMED_OFFSET.sub(_named_offset, _without_cjk_forms(text))
    dayfirst = _DOTTED_DATE.search(text) is not None
    moment = _dateutil_reading(text, dayfirst, None)
    if moment is None and names_a_localised_month(text):
        # "Montag, 8. Mai 2023 um 13:56:03 UTC": a date written in the account's language
        moment = _dateutil_reading(text, dayfirst, LOCALISED)
    return moment


def _dateutil_reading(text: str, dayfirst: bool,
                      names: _dateparser.parserinfo | None) -> datetime | None:
    readings = []
    for default in _DEFAULTS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # an unknown zone name: unreadable, not UTC
                readings.append(_dateparser.parse(text, parserinfo=names, default=default,
                                                  tzinfos=_ZONES, dayfirst=dayfirst))
        except (ValueError, OverflowError, TypeError, Warning):
            return None
    first, second = readings
    if first.date() != second.date():
        return None  # the text did not name its day, month and year
    return first


def read_typed_time(text: str) -> str | None:
    """A time a person typed (``--expires``, ``--since``), as :func:`read_time` reads it, save
    that every count of Unix epoch seconds is one, 0, counts before 1973 and negative ones
    included (read from a transcript those are placeholders and are refused): ``0`` is
    1970-01-01T00:00:00Z as ``1577836800`` is 2020-01-01T00:00:00Z and ``-86400``
    1969-12-31T00:00:00Z. Four digits read as a
    year alone (``2023``) and eight as a date (``20230508``) stay what they were."""
    value = read_time(text)
    stripped = text.strip()
    if value is None and _EPOCH.match(stripped) and not _YEAR_ALONE.match(stripped):
        return _from_epoch(float(stripped), floor=0)
    if value is None and stripped.startswith("-") and _EPOCH.match(stripped[1:]):
        # Before 1970, as `date +%s -d 1969-07-20` writes it: a date of 1969 was a time and its
        # count of seconds was refused. Milliseconds as above (JavaScript's getTime()).
        return _from_epoch(float(stripped), floor=float("-inf"))
    return value


def _from_epoch(number: float, floor: float = _EPOCH_MIN) -> str | None:
    if number != number or number < floor:  # NaN, 0 or a count from a run's start
        return None
    divisor = next((d for threshold, d in ((_NS_THRESHOLD, 1e9), (_US_THRESHOLD, 1e6),
                                           (_MS_THRESHOLD, 1e3)) if abs(number) > threshold), 1)
    seconds = number / divisor
    try:
        moment = datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return utc_text(moment)


_FILE_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)-?(0[1-9]|1[0-2])-?(0[1-9]|[12]\d|3[01])(?!\d)")


def file_date(stem: str) -> str:
    """``YYYY-MM-DD`` named in a file name (``2026-01-02-log``, ``chat_20260102``), or ""."""
    found = _FILE_DATE.search(stem)
    return "-".join(found.groups()) if found else ""


# -- numeric dates whose order of day and month the whole file decides --------------------------
# "08/05/2023" is 8 May in most of the world and August 5 in the US; dateutil reads it month
# first. A chat export or a log writes every date in one locale, so the order is decided once per
# file from all of its dates (:func:`day_first_order`) and each is rewritten as ISO 8601 before
# it is read (:func:`with_iso_dates`). Dotted dates are day first anyway (above).
NUMERIC_DATE = re.compile(r"(?<![\d./-])(\d{1,2})([/-])(\d{1,2})\2(\d{4}|\d{2})(?![\d./-])")


def day_first_order(dates: list[tuple[int, int, int]]) -> bool | None:
    """Whether dates written ``A/B/YEAR`` (``(A, B, year)`` in file order) put the day first:
    True when some A is above 12, False when some B is, else by which order keeps the dates
    going forward (a chat or a log is written in time order); None when nothing decides it
    (every date reads both ways, in order either way) or the dates contradict each other."""
    firsts = any(a > 12 for a, _, _ in dates)
    seconds = any(b > 12 for _, b, _ in dates)
    if firsts != seconds:
        return firsts
    if firsts:
        return None
    back = {order: sum(1 for x, y in zip(dates, dates[1:])
                       if _ymd(y, order) < _ymd(x, order))
            for order in (True, False)}
    return None if back[True] == back[False] else back[True] < back[False]


def _span_days(dates: list[tuple[int, int, int]], day_first: bool) -> int:
    """How many days ``dates`` span when read in one order (those that name no day left out)."""
    days = [_day(*_ymd(parts, day_first)) for parts in dates]
    found = [d for d in days if d is not None]
    return (max(found) - min(found)).days if found else 0


def day_first_by_span(dates: list[tuple[int, int, int]], written_in: str,
                      example: str) -> tuple[bool, str] | None:
    """``(day first?, note)`` by the order under which ``dates`` lie closest together (a chat
    of 8, 9 and 10 May spans two days day first, two months month first), when it spans less
    than half the other's days; None when neither does."""
    spans = {order: _span_days(dates, order) for order in (True, False)}
    if not min(spans.values()) * 2 < max(spans.values()):
        return None
    day_first = spans[True] < spans[False]
    read, other = ("day/month", "month/day") if day_first else ("month/day", "day/month")
    return day_first, (f"dates such as {example} could be day/month or month/day (no number "
                       f"above 12, the {written_in} in order either way): read as {read}, "
                       f"under which they span {spans[day_first]} days "
                       f"({spans[not day_first]} as {other})")


def read_day_first(dates: list[tuple[int, int, int]], clock: str, written_in: str,
                   example: str) -> tuple[bool, str]:
    """``(day first?, note)`` for a file's ``A/B/YEAR`` dates (:func:`day_first_order`); else
    the order under which the dates lie closest together (a chat of 8, 9 and 10 May spans two
    days day first, two months month first), when it spans less than half the other's days,
    said in ``note``; when nothing decides, by how the file writes its clock (``clock``, from
    :func:`clock_style`): month first with the US's ``AM``/``PM``, day first with a 24-hour
    clock or a 12-hour one written otherwise (``pm``, ``p.m.``, ``p. m.``: en-GB, en-IN, en-AU
    and Spanish phones, which all put the day first), and ``note`` says so in a line, naming
    the first date as written
    (``example``) and what was in order (``written_in``: "messages", "turns"); ``""`` when the
    dates decided."""
    found = day_first_order(dates)
    if found is not None:
        return found, ""
    if any(a > 12 for a, _, _ in dates):  # and some second number above 12 too
        return True, ("dates put a number above 12 both first and second: read day first; "
                      "the dates that do not exist so are unread")
    spanned = day_first_by_span(dates, written_in, example)
    if spanned is not None:
        return spanned
    month_first = clock == US_CLOCK
    order = "month/day" if month_first else "day/month"
    return not month_first, (f"dates such as {example} could be day/month or "
                             f"month/day (no number above 12, the {written_in} in order either "
                             f"way): read as {order}, as {_CLOCK_SAYS[clock]} suggests")


#: How a file writes its clock (:func:`clock_style`): the US's 12-hour ``1:56 PM``, a 12-hour
#: clock written another way (``1:56 pm``, ``1:56 p.m.``, ``1:56 p. m.``), or a 24-hour one.
US_CLOCK, OTHER_12_HOUR, CLOCK_24 = "AM/PM", "am/pm", "24-hour"
_CLOCK_SAYS = {US_CLOCK: "a 12-hour clock written AM/PM (the US's)",
               OTHER_12_HOUR: "a 12-hour clock written am/pm or p.m. (not the US's AM/PM)",
               CLOCK_24: "a 24-hour clock"}
_SPACES = "[ \t\u00a0\u202f]"
# after the clock, in Latin letters or in Arabic (م, ص); before it in Chinese, Japanese, Korean
_AM_PM = re.compile(r"\d" + _SPACES + r"*(?:[ap]\.?" + _SPACES + r"?m\b|[\u0635\u0645](?!\w))"
                    r"|(?:上午|下午|午前|午後|오전|오후)" + _SPACES + r"*\d", re.IGNORECASE)
_US_AM_PM = re.compile(r"\d" + _SPACES + r"*[AP]M\b")  # capitals, no dots


def clock_style(written: Iterable[str]) -> str:
    """How the times in ``written`` write the clock: :data:`US_CLOCK` when every 12-hour time
    writes ``AM``/``PM`` in capitals without dots, as the US (and its month-first dates) does;
    :data:`OTHER_12_HOUR` when one writes it otherwise (``pm``, ``p.m.``, ``p. m.``, ``下午``,
    ``م``, as locales that put the day first do); else :data:`CLOCK_24`."""
    style = CLOCK_24
    for text in written:
        for match in _AM_PM.finditer(text):
            if not _US_AM_PM.fullmatch(match[0]):
                return OTHER_12_HOUR
            style = US_CLOCK
    return style


def day_first_of(heads: Iterable[str], written_in: str) -> tuple[bool, str]:
    """``(day first?, note)`` for the numeric dates in ``heads`` (the parts of a file's lines
    that date its turns: speaker lines' times, headings, date lines), decided from all of them
    by :func:`read_day_first`, how the heads holding them write the clock counted;
    ``(False, "")`` without any."""
    dates: list[tuple[int, int, int]] = []
    example = ""
    clocks: list[str] = []
    for head in heads:
        found = numeric_dates(head)
        if found and not dates:
            example = NUMERIC_DATE.search(head)[0]  # type: ignore[index]
        dates.extend(found)
        if found:   # the clock beside an A/B/YEAR date, not a relative stamp's ("어제 오후 9:03")
            clocks.append(head)
    if not dates:
        return False, ""
    return read_day_first(dates, clock_style(clocks), written_in, example)


def _ymd(date_parts: tuple[int, int, int], day_first: bool) -> tuple[int, int, int]:
    a, b, year = date_parts
    return (year, b, a) if day_first else (year, a, b)


def numeric_dates(text: str) -> list[tuple[int, int, int]]:
    """The ``A/B/YEAR`` dates in ``text`` as ``(A, B, year)``, a two-digit year in 2000s."""
    return [(int(m[1]), int(m[3]), _full_year(m[4])) for m in NUMERIC_DATE.finditer(text)]


def _full_year(year: str) -> int:
    return int(year) + 2000 if len(year) == 2 else int(year)


def with_iso_dates(text: str, day_first: bool) -> str:
    """``text`` with each ``A/B/YEAR`` date written ``YYYY-MM-DD`` in the given order (one that
    names no real day is left as written, to be reported unread)."""
    def iso(match: re.Match[str]) -> str:
        year, month, day = _ymd((int(match[1]), int(match[3]), _full_year(match[4])), day_first)
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return match[0]
        return f"{year:04d}-{month:02d}-{day:02d}"
    return NUMERIC_DATE.sub(iso, text)


# -- relative dates inside a turn --------------------------------------------------------------
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                 "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
                 "twelve": 12, "a couple of": 2, "a couple": 2, "a few": 3,
                 "couple of": 2, "couple": 2, "few": 3}  # chat drops the article
_NUMBER = r"(\d{1,3}|a couple of|a couple|a few|couple of|couple|few|an?|one|two|three|four|" \
          r"five|six|seven|eight|" \
          r"nine|ten|eleven|twelve)"
_UNIT = r"(day|week|fortnight|month|year)s?"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = r"(" + "|".join(_WEEKDAYS) + r")"
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
# "May" only capitalised: "you may 3 times ask" names no day
_MONTH = r"(january|february|march|april|(?-i:May)|june|july|august|september|october|" \
         r"november|december)"
_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
_RELATIVE = re.compile(
    r"\b(?:(?P<before>the day before yesterday)|(?P<after>the day after tomorrow)"
    r"|(?P<yesterday>yesterday|last night)"
    r"|(?P<weekend>last weekend|this past weekend)"
    r"|this\s+(?P<this_weekend>weekend)"
    r"|(?P<tomorrow>tomorrow)"
    r"|(?P<ago_n>" + _NUMBER + r")\s+(?P<ago_u>" + _UNIT + r")\s+ago"
    r"|(?P<last_u>last|next)\s+(?P<last_unit>week|month|year)"
    # "the last Thursday of March" is a day of March, not the Thursday before the turn
    r"|(?:the\s+)?last\s+(?P<lastof_d>" + _WEEKDAY + r")\s+(?:of|in)\s+(?P<lastof_m>" + _MONTH + r")"
    r"|(?:last|this past)\s+(?P<last_d>" + _WEEKDAY + r")"
    # "this Friday": the one of this week, to come unless the sentence is told in the past
    r"|this\s+(?P<this_d>" + _WEEKDAY + r")"
    r"|next\s+(?P<next_d>" + _WEEKDAY + r")"
    # a day of the month alone: "on the 28th", "Thursday the 14th" (not "the 20th century")
    r"|(?:on\s+)?(?:(?P<dom_wd>" + _WEEKDAY + r")|on)\s+the\s+(?P<dom>\d{1,2})(?:st|nd|rd|th)"
    r"(?!\s+(?:of\s+)?(?:" + _MONTH + r"|century|centuries)\b)"
    # "on Thursday": which one, the sentence's tense says (_on_weekday)
    r"|on\s+(?P<on_d>" + _WEEKDAY + r"))\b",
    re.IGNORECASE,
)
# Patterns apart, each run only where its words are (the alternatives above cost at every
# word of every turn that has a cue): a part of the turn's own day ("this morning", "tonight",
# "earlier today"), and a weekday without "on" ("I saw her Friday"), read as "on Friday" is
# where no form above holds it (not "every Friday"; "Black Friday" is left by _after_a_name).
_TODAY_PART = re.compile(
    r"\b(?P<today>this\s+(?:morning|afternoon|evening)|tonight|(?:earlier|later)\s+today)\b",
    re.IGNORECASE)
_TODAY_WORDS = ("morning", "afternoon", "evening", "tonight", "today")
_DAY_WORDS = frozenset((*_WEEKDAYS, *_TODAY_WORDS, "yesterday", "tomorrow", "night", "noon",
                        "midday", "midnight", "dawn", "dusk", "overnight", "weekend"))


def names_a_day(words: str) -> bool:
    """True when ``words`` name a day or a part of one ("Morning", "Saturday night",
    "Tomorrow"): a heading's time of day, never a person."""
    split = words.lower().split()
    return bool(split) and all(word in _DAY_WORDS for word in split)
# A season ("last summer", "this spring", "next winter", "the summer of 2019"), read as the
# meteorological seasons of the hemisphere the turn was written in (the northern one where its
# time's zone does not say): the day stored is the season's middle.
_SEASON = re.compile(
    r"\b(?:(?P<season_rel>last|this|next|this past)\s+(?P<season>summer|winter|spring|autumn|fall)"
    r"|(?P<season_y>summer|winter|spring|autumn|fall)\s+(?:of\s+)?(?P<season_year>(?:19|20)\d\d))\b",
    re.IGNORECASE)
_SEASON_WORDS = ("summer", "winter", "spring", "autumn", "fall")
# season -> (first month, middle month): winter of year Y runs from December of Y-1
_SEASONS = {"winter": (12, 1), "spring": (3, 4), "summer": (6, 7), "autumn": (9, 10),
            "fall": (9, 10)}
# south of the equator each season falls in the months of the northern one opposite it
_OPPOSITE_SEASON = {"winter": "summer", "summer": "winter", "spring": "autumn",
                    "autumn": "spring", "fall": "spring"}


def names_a_season(phrase: str) -> bool:
    """Whether a phrase :func:`relative_dates` found names a season ("last summer")."""
    return any(word in _SEASON_WORDS for word in phrase.split())
_WEEKDAY_BEFORE = re.compile(r",?\s{1,3}")  # between a weekday and the date it names
# A weekday of a week named, "(on) Monday (of) last week", "last week on Monday", "the Monday
# before last", "Monday two weeks ago": one day, not a weekday and a week apart (a pattern run
# only around a weekday's name where a week is named; before the forms above, whose parts it
# holds).
_WEEK_DAY = re.compile(
    r"\b(?:(?:on\s+)?(?:the\s+)?(?P<wk_d>" + _WEEKDAY + r")(?:\s+of)?\s+(?P<wk_rel>last|next|this)"
    r"\s+week(?!end)"
    r"|(?P<wk_rel2>last|next|this)\s+week,?\s+on\s+(?P<wk_d2>" + _WEEKDAY + r")"
    r"|(?:on\s+)?(?:the\s+)?(?P<bl_d>" + _WEEKDAY + r")\s+before\s+last"
    r"|(?:on\s+)?(?P<wka_d>" + _WEEKDAY + r")\s+(?P<wka_n>" + _NUMBER + r")\s+weeks?\s+ago)\b",
    re.IGNORECASE)
_BARE_WEEKDAY = re.compile(r"(?<!\bevery\s)(?<!\beach\s)\b(?P<bare_d>" + _WEEKDAY + r")\b",
                           re.IGNORECASE)
# Days ahead by a count: "two weeks from now", and "in three days", a date in a sentence told in
# the future, else maybe a duration ("I read it in three days"); a pattern apart, run where a
# unit is named (the alternatives above cost at every word of every turn that has a cue).
_IN_UNITS = re.compile(
    r"\bin\s+(?P<in_n>" + _NUMBER + r")\s+(?P<in_u>" + _UNIT + r")(?:['’]?\s+time)?\b",
    re.IGNORECASE)
_FROM_NOW = re.compile(
    r"\b(?P<from_n>" + _NUMBER + r")\s+(?P<from_u>" + _UNIT + r")\s+from\s+(?:now|today)\b",
    re.IGNORECASE)
# "in " and a count found in the lower-cased text first: a literal start the regex engine scans
# for quickly (the pattern above, with its word boundary and case folding, took six times longer
# over LongMemEval's turns), each then read in the text itself
_IN_UNITS_LOWER = re.compile(r"in\s+" + _NUMBER + r"\s+" + _UNIT)
_UNITS = ("day", "week", "fortnight", "month", "year")
# A day and a month: "the 3rd of June", "Friday 21st October", "7 June next year", "8 May
# 2021", "October 21st"; read only in a text that names a month (a pattern apart: its
# alternatives cost at every word of every turn).
_DAY_MONTH = re.compile(
    r"\b(?:(?:" + _WEEKDAY + r",?\s+)?(?:the\s+)?(?P<dm_d>" + _ORDINAL + r")\s+(?:of\s+)?"
    r"(?P<dm_m>" + _MONTH + r")(?:,?\s+(?P<dm_y>\d{4})|\s+(?P<dm_rel>next|last|this)\s+year)?"
    r"|(?P<md_m>" + _MONTH + r")\s+(?:the\s+)?(?P<md_d>" + _ORDINAL + r")(?:,?\s+(?P<md_y>\d{4}))?)\b",
    re.IGNORECASE,
)
# A sentence told in the past ("I broke my wrist on Thursday") or the future ("I'll call on
# Monday"); a sentence with both, or with neither ("the lesson is on Thursday", a plan or a
# habit), names no day it can be trusted with.
_PAST = re.compile(
    r"\b(?:was|were|did|had|went|came|got|told|said|saw|made|took|gave|met|ran|ate|"
    r"found|left|bought|caught|fell|flew|sent|broke|began|won|lost|spent|wrote|drove|rode|"
    r"swam|sang|felt|kept|heard|paid|sold|thought|brought|taught|slept|woke|forgot|"
    r"(?:was|were|did|had|could)n['’]t|"
    r"[a-z]{2,}(?<!need)(?<!speed)(?<!seed)(?<!feed)(?<!deed)(?<!breed)(?<!hundred)ed)\b",
    re.IGNORECASE)
# "'s" is "is" after a pronoun ("she's coming"); after a noun it is a possessive ("my
# cousin's wedding"), which says nothing of the tense.
_NOT_PAST = re.compile(
    r"\b(?:am|is|are|will|shall|gonna|going to|tomorrow|next|\w+['’](?:m|re|ll))\b"
    r"|\b(?:he|she|it|that|there|here|what|who|where|this|everyone|everybody|someone|"
    r"somebody|nobody)['’]s\s+\w+ing\b",
    re.IGNORECASE)
_FUTURE = re.compile(r"\b(?:will|shall|gonna|going to|let['’]s|\w+['’]ll)\b", re.IGNORECASE)
# A capitalised word inside a sentence is a name, not a tense: "I met Will on Tuesday", "Ahmed
# is coming on Friday" (its first word's capital says nothing, so it is read as a word).
_NAME_INSIDE = re.compile(r"(?<=[^\W\d_])(?P<gap>[^\w'’]+)[A-Z][a-z]+\b")
# A sentence's first word ending in -ed is a name, not a past verb, where a verb follows it as
# its subject's: "Fred will call on Monday", "Ahmed's coming" ("Finished it on Monday" is one).
_NAME_FIRST = re.compile(
    r"^(?P<gap>\s*)[A-Z][a-z]*ed(?=['’](?:s|ll|d)\b|\s+(?:will|shall|is|was|has|had|can|could|"
    r"would|should|might|must|and|said|says|told|asked|wants|needs)\b)")
_SENTENCE_END = re.compile(r"[.!?\n]")
# Each form of _RELATIVE holds one of these (a weekday, "yesterday": "day"), of _DAY_MONTH a month.
_CUES = ("day", "tomorrow", "ago", "last", "next", "on the ", "weekend", "fortnight")


def relative_dates(text: str, time: str) -> list[tuple[str, str]]:
    """``(phrase, YYYY-MM-DD)`` for each relative date ``text`` names, read against ``time``.

    ``time`` is the turn's ISO 8601 UTC time; without one nothing can be resolved (``[]``).
    The turn's day is the day it was written on where ``time`` is a :class:`TurnTime` (at
    09:00 in Sydney "yesterday" is the day before the Sydney date, though it is still the
    previous evening in UTC), else the UTC day.
    "yesterday" and "last night" are the day before the turn's, "last weekend" its Saturday
    (the latest before the turn's day; on a Saturday or Sunday the one a week before),
    "two days ago" two days before, "last week" /
    "last month" / "last year" the same day a week / month / year before, "last Friday" the
    latest Friday before the turn's day; "tomorrow", "next week", "next Friday" forward; a
    weekday of a week named ("Monday last week", "last week on Monday", "Tuesday next week",
    "Monday two weeks ago") that week's day, weeks from Monday; "the Monday before last" the
    Monday before last Monday.
    "on Friday" (or "Friday" alone, not after a capitalised word: "Black Friday") is the
    Friday before in a sentence told in the past, the next in one told in the future (will,
    'll, going to), else nothing; "this morning", "this afternoon", "this evening",
    "tonight", "earlier today" and "later today" the turn's own day; "the last Friday of
    March" that day of March; a day and month without a year ("the 3rd of June", "October 21st"), or a day of
    the month alone ("on the 28th", "Thursday the 14th": one that is a Thursday), the such day
    nearest the turn's day (the latest on or before it in a sentence told in the past, the first
    on or after it in one told in the future, as a day of the month alone is unless told in the
    past), with "next year" or a year that year's.
    "a fortnight ago" two weeks before; "two days from now" and, in a sentence told in the
    future, "in three weeks" forward ("today" is the turn's own day, which its time already
    says; "in three days" in any other sentence may be a duration, "I read it in three days",
    so it is left alone).
    """
    if not time or not text:
        return []
    if isinstance(time, TurnTime):
        day = date.fromisoformat(time.day)
    else:
        moment = parse_moment(time)
        if moment is None:
            return []
        day = moment.date()
    low = text.lower()  # most turns name no day: the patterns run only where a cue is
    matches = list(_RELATIVE.finditer(text)) if any(cue in low for cue in _CUES) else []
    found = [*_near(text, low, _TODAY_WORDS, _TODAY_PART, 15, 1),
             *_near(text, low, _SEASON_WORDS, _SEASON, 16, 10)]
    if found:
        matches = sorted(matches + found, key=lambda m: m.start())
    week_days = _near(text, low, _WEEKDAYS, _WEEK_DAY, 22, 25) \
        if "week" in low or "before last" in low else []
    if week_days:  # "Monday last week" is one day: neither "Monday" nor "last week" alone
        matches = sorted([m for m in matches if not _overlaps(m, week_days)] + week_days,
                         key=lambda m: m.start())
    bare = [m for m in _near(text, low, _WEEKDAYS, _BARE_WEEKDAY, 0, 1)
            if not any(m.start() < o.end() and o.start() < m.end() for o in matches)]
    if bare:
        matches = sorted(matches + bare, key=lambda m: m.start())
    if any(unit in low for unit in _UNITS):
        ahead = [*_in_units(text, low), *(_FROM_NOW.finditer(text) if "from now" in low
                                          or "from today" in low else ())]
        matches = sorted(matches + ahead, key=lambda m: m.start()) if ahead else matches
    if any(month in low for month in _MONTHS):  # "7 June next year" is one day, not two
        dated = list(_DAY_MONTH.finditer(text))
        # a weekday that names its date ("Friday, June 2nd") is that date, not a day of its own
        matches = [m for m in matches if not any(
            m.start() < d.end() and d.start() < m.end()
            or (m.groupdict().get("bare_d") or m.groupdict().get("on_d"))
            and _WEEKDAY_BEFORE.fullmatch(text, m.end(), d.start())
            for d in dated)]
        matches = sorted(matches + dated, key=lambda m: m.start())
    found: dict[str, str] = {}
    for match in matches:
        if _a_title(match):
            continue
        resolved = _resolve(match, day, time)
        if resolved is not None:
            phrase = " ".join(match.group(0).lower().split())
            found.setdefault(phrase, resolved.isoformat())
    return list(found.items())


def _overlaps(match: re.Match[str], others: list[re.Match[str]]) -> bool:
    """Whether ``match`` shares a character with one of ``others``."""
    return any(match.start() < o.end() and o.start() < match.end() for o in others)


def _near(text: str, low: str, words: tuple[str, ...], pattern: re.Pattern[str], before: int,
          after: int) -> list[re.Match[str]]:
    """The matches of ``pattern`` in ``text`` around each place ``low`` (it lower-cased) holds
    one of ``words``: from ``before`` characters ahead of the word to ``after`` past it, so a
    pattern without a literal start is not tried at every character of a long text."""
    if len(low) != len(text):  # a letter whose lower case is longer: positions differ
        return list(pattern.finditer(text)) if any(w in low for w in words) else []
    found: dict[tuple[int, int], re.Match[str]] = {}
    for word in words:
        at = low.find(word)
        while at >= 0:
            end = min(len(text), at + len(word) + after)
            for match in pattern.finditer(text, max(0, at - before), end):
                if match.end() < end or end == len(text):  # not cut short by the window
                    found.setdefault(match.span(), match)
            at = low.find(word, at + len(word))
    return sorted(found.values(), key=lambda m: m.start())


def _in_units(text: str, low: str) -> list[re.Match[str]]:
    """The matches of :data:`_IN_UNITS` in ``text`` (``low`` is it lower-cased)."""
    if len(low) != len(text):  # a letter whose lower case is longer: positions differ
        return list(_IN_UNITS.finditer(text))
    found = (_IN_UNITS.match(text, cue.start()) for cue in _IN_UNITS_LOWER.finditer(low))
    return [match for match in found if match is not None]


_WEEKDAY_ABBR = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")  # not %a: that follows the locale


def date_note(text: str, time: str, days: list[str]) -> str:
    """What a frame writes after a turn that names days: each relative expression with the day
    it was read as at ingest, `` [yesterday = Sun 2023-05-07; last week ≈ Mon 2023-05-01]``.

    ``days`` are the item's ``mentions_date`` days (``YYYY-MM-DD``), resolved at ingest on the
    day the turn was written in its writer's zone; ``time`` is its journal time (UTC), against
    which ``text`` is read again to find the words of each day (a turn written near midnight
    away from UTC reads a day off in UTC, so a day either side is tried too). "=" marks a day
    the words name exactly, "≈" one counted in weeks, months or years ("last week" is some day
    of the week before, not that one), or a season's or a rough count's ("a few days ago"). A
    day whose words are not found is shown alone; ``""`` when there are no days.
    """
    wanted = sorted(set(days))
    if not wanted:
        return ""
    parts: list[str] = []
    shown: set[str] = set()
    moment = parse_moment(time) if time else None
    if moment is not None and text:
        # a season was read in the hemisphere the turn was written in, which the UTC time no
        # longer says: the southern reading is tried too
        for shift, south in ((0, None), (0, True), (-1, None), (-1, True), (1, None), (1, True)):
            iso = utc_text(moment + timedelta(days=shift))
            read = relative_dates(text, TurnTime(iso, iso[:10], south))
            if any(day in wanted for _, day in read):
                for phrase, day in read:
                    if day in wanted and day not in shown:
                        approx = _approximate(phrase)
                        parts.append(f"{phrase} {'≈' if approx else '='} {_day_shown(day)}")
                        shown.add(day)
                break
    parts.extend(_day_shown(day) for day in wanted if day not in shown)
    return " [" + "; ".join(parts) + "]"


# Words that name a span or a rough count, not one day: "a few days ago", "last summer".
_VAGUE = re.compile(r"\b(?:few|couple|several|fortnight)\b")


def _approximate(phrase: str) -> bool:
    """Whether the day ``phrase`` was read as is one day of a span it names or a rough count
    ("≈" in a date note): weeks, months, years, a fortnight, a season (its middle day), a few
    or a couple of days; "7 june next year" names its day exactly, "next year" alone does not."""
    if names_a_season(phrase) or _VAGUE.search(phrase):
        return True
    if any(weekday in phrase for weekday in _WEEKDAYS):  # "monday last week" is that Monday
        return False
    return (re.search(r"week|month|year", phrase) is not None
            and re.search("|".join(_MONTHS), phrase) is None)


def _day_shown(day: str) -> str:
    try:
        return f"{_WEEKDAY_ABBR[date.fromisoformat(day).weekday()]} {day}"
    except ValueError:
        return day


def _resolve(match: re.Match[str], day: date, time: str = "") -> date | None:
    """The day ``match`` names, read against ``day`` (``time``: the turn's, whose zone says
    the hemisphere a season is read in)."""
    g = match.groupdict()
    weekday = g.get("wk_d") or g.get("wk_d2") or g.get("bl_d") or g.get("wka_d")
    if weekday:  # a weekday of a week named: that week's day (weeks from Monday, ISO 8601)
        index = _WEEKDAYS.index(weekday.lower())
        if g.get("bl_d"):  # "the Monday before last": the one before last Monday
            return day - timedelta(days=((day.weekday() - index) % 7 or 7) + 7)
        if g.get("wka_d"):
            weeks = -_amount(g.get("wka_n"))
        else:
            weeks = {"last": -1, "this": 0, "next": 1}[(g.get("wk_rel") or g.get("wk_rel2")).lower()]
        return day + timedelta(days=index - day.weekday(), weeks=weeks)
    if g.get("lastof_d"):
        return _nearest(day, lambda year: _last_weekday(year, _month(g.get("lastof_m")),
                                                       _WEEKDAYS.index(g.get("lastof_d").lower())))
    if g.get("dm_d") or g.get("md_d"):
        dom = int(re.match(r"\d+", g.get("dm_d") or g.get("md_d"))[0])  # type: ignore[index]
        month = _month(g.get("dm_m") or g.get("md_m"))
        year, rel = g.get("dm_y") or g.get("md_y"), g.get("dm_rel")
        if year:
            return _day(int(year), month, dom)
        if rel:
            return _day(day.year + {"next": 1, "last": -1, "this": 0}[rel.lower()], month, dom)
        return _pick(day, [_day(day.year + k, month, dom) for k in (-1, 0, 1)], _tense(match))
    if g.get("dom"):
        dom, wd = int(g.get("dom")), g.get("dom_wd")
        first = date(day.year, day.month, 1)
        found = [_day(m.year, m.month, dom) for m in (first + relativedelta(months=k) for k in (-2, -1, 0, 1, 2))]
        if wd:
            found = [d for d in found if d is not None and d.weekday() == _WEEKDAYS.index(wd.lower())]
        return _pick(day, found, _tense(match) or "future")  # "on the 25th?": one to come
    if g.get("on_d"):
        return _on_weekday(match, day, _WEEKDAYS.index(g.get("on_d").lower()))
    if g.get("bare_d"):
        if _after_a_name(match):  # "Black Friday", "Good Friday": a day's name, not a day
            return None
        return _on_weekday(match, day, _WEEKDAYS.index(g.get("bare_d").lower()))
    if g.get("today"):
        return day
    if g.get("season") or g.get("season_y"):
        return _season(match, day, getattr(time, "south", None) is True)
    if g.get("before"):
        return day - timedelta(days=2)
    if g.get("after"):
        return day + timedelta(days=2)
    if g.get("yesterday"):
        return day - timedelta(days=1)
    if g.get("tomorrow"):
        return day + timedelta(days=1)
    if g.get("weekend"):  # its Saturday: the latest before the turn's day, the one before it on a weekend
        back = (day.weekday() - 5) % 7
        return day - timedelta(days=back + 7 if back < 2 else back)
    if g.get("this_weekend"):  # its Saturday: the one of the weekend the turn is in, else to come
        if day.weekday() >= 5:
            return day - timedelta(days=day.weekday() - 5)
        if _tense(match) == "past":
            return day - timedelta(days=day.weekday() + 2)
        return day + timedelta(days=5 - day.weekday())
    if g.get("this_d"):
        weekday = _WEEKDAYS.index(g.get("this_d").lower())
        if _tense(match) == "past":
            return day - timedelta(days=(day.weekday() - weekday) % 7)
        return day + timedelta(days=(weekday - day.weekday()) % 7)
    if g.get("ago_n"):
        return _shift(day, -_amount(g.get("ago_n")), g.get("ago_u"))
    if g.get("from_n"):
        return _shift(day, _amount(g.get("from_n")), g.get("from_u"))
    if g.get("in_n"):  # "I'll fly out in two days"; "I read it in two days" is a duration
        if _tense(match) != "future":
            return None
        return _shift(day, _amount(g.get("in_n")), g.get("in_u"))
    if g.get("last_unit"):
        return _shift(day, -1 if g.get("last_u").lower() == "last" else 1, g.get("last_unit"))
    if g.get("last_d"):
        back = (day.weekday() - _WEEKDAYS.index(g.get("last_d").lower())) % 7 or 7
        return day - timedelta(days=back)
    if g.get("next_d"):
        ahead = (_WEEKDAYS.index(g.get("next_d").lower()) - day.weekday()) % 7 or 7
        return day + timedelta(days=ahead)
    return None


def _a_title(match: re.Match[str]) -> bool:
    """Whether a "Yesterday" or "Tomorrow" is written capitalised inside a sentence: a title or
    a name ("Did you read Tomorrow, and Tomorrow, and Tomorrow?"), not a day. At a sentence's
    start, in lower case or in capitals it is the day."""
    word = match.group(0)
    g = match.groupdict()
    if g.get("yesterday") != word and g.get("tomorrow") != word:
        return False
    if not (word[0].isupper() and word[1:].islower()):
        return False
    before = match.string[:match.start()].rstrip(" \t").rstrip("-*•\"'([“‘« \t")
    return before != "" and before[-1] not in ".!?:;\n"


def _season_span(name: str, year: int) -> tuple[date, date, date]:
    """``(first day, last day, middle day)`` of a season of ``year`` (winter: the one whose
    January is in ``year``)."""
    first_month, middle_month = _SEASONS[name]
    start = date(year - 1 if first_month == 12 else year, first_month, 1)
    end = start + relativedelta(months=3) - timedelta(days=1)
    return start, end, date(year, middle_month, 15)


def _season(match: re.Match[str], day: date, south: bool = False) -> date | None:
    """The middle day of the season ``match`` names: "last summer" the latest that ended before
    the turn's day, "next summer" the first to start after it, "this summer" the one the day
    is in, else the latest before it in a sentence told in the past and the next otherwise,
    "the summer of 2019" that year's; ``south``: in the southern hemisphere (summer December
    to February)."""
    g = match.groupdict()
    if g.get("season_y"):
        name = g["season_y"].lower()
        return _season_span(_OPPOSITE_SEASON[name] if south else name,
                            int(g["season_year"]))[2]
    name, rel = g["season"].lower(), " ".join(g["season_rel"].lower().split())
    name = _OPPOSITE_SEASON[name] if south else name
    spans = [_season_span(name, year) for year in range(day.year - 2, day.year + 3)]
    ended = [s for s in spans if s[1] < day]
    to_come = [s for s in spans if s[0] > day]
    if rel in ("last", "this past"):
        return ended[-1][2]
    if rel == "next":
        return to_come[0][2]
    now = [s for s in spans if s[0] <= day <= s[1]]
    if now:
        return now[0][2]
    return (ended[-1] if _tense(match) == "past" else to_come[0])[2]


def _after_a_name(match: re.Match[str]) -> bool:
    """Whether the word before ``match`` in its sentence is capitalised (not "I"): "Black
    Friday", "Cyber Monday", the name of a day rather than a weekday."""
    before = match.string[max(0, match.start() - 40):match.start()]
    word = re.search(r"([^\W\d_][\w'’]*)[ \t]+\Z", before)
    return word is not None and word.group(1)[0].isupper() and word.group(1) != "I" \
        and not re.search(r"[.!?:;\n][\s\"'“‘(]*\Z", before[:word.start()])


def _month(name: str) -> int:
    return _MONTHS.index(name.lower()) + 1


def _day(year: int, month: int, dom: int) -> date | None:
    try:
        return date(year, month, dom)
    except ValueError:  # the 31st of June
        return None


def _last_weekday(year: int, month: int, weekday: int) -> date:
    last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _nearest(day: date, in_year: Any) -> date | None:
    """The day ``in_year(year)`` names nearest ``day``, of the year before, its year and the
    next: a date written without its year is the one the conversation is near."""
    return _pick(day, [in_year(day.year + k) for k in (-1, 0, 1)], "")


def _tense(match: re.Match[str]) -> str:
    """``past`` or ``future`` when the sentence of ``match`` is told so and not both, else ``""``."""
    text = match.string
    # the sentence's start: after the last end before the match (searched back from it, not
    # forward from the text's start at every match of a long text)
    start = max(text.rfind(mark, 0, match.start()) for mark in ".!?\n") + 1
    end = _SENTENCE_END.search(text, match.end())
    sentence = _NAME_INSIDE.sub(r"\g<gap>", text[start:end.start() if end else len(text)])
    sentence = _NAME_FIRST.sub(r"\g<gap>", sentence)
    if _PAST.search(sentence) is not None:
        return "past" if _NOT_PAST.search(sentence) is None else ""
    return "future" if _FUTURE.search(sentence) is not None else ""


def _pick(day: date, found: list[date | None], tense: str) -> date | None:
    """Of the days ``found``, the latest on or before ``day`` for the past, the first on or
    after it for the future, else the nearest."""
    days = [d for d in found if d is not None]
    if tense == "past":
        days = [d for d in days if d <= day] or days
    elif tense == "future":
        days = [d for d in days if d >= day] or days
    return min(days, key=lambda d: abs((d - day).days), default=None)


def _on_weekday(match: re.Match[str], day: date, weekday: int) -> date | None:
    """"on Thursday" by the tense of its sentence: the Thursday before the turn's day in a
    sentence told in the past, the next in one told in the future, else none."""
    tense = _tense(match)
    if tense == "past":
        return day - timedelta(days=(day.weekday() - weekday) % 7 or 7)
    if tense == "future":
        return day + timedelta(days=(weekday - day.weekday()) % 7 or 7)
    return None


def _amount(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def _shift(day: date, n: int, unit: str) -> date | None:
    unit = unit.lower().rstrip("s")
    step = {"day": relativedelta(days=n), "week": relativedelta(weeks=n),
            "fortnight": relativedelta(weeks=2 * n),
            "month": relativedelta(months=n), "year": relativedelta(years=n)}[unit]
    try:
        return day + step
    except (OverflowError, ValueError):
        return None
