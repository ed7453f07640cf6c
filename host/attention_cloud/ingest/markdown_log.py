"""Markdown logs whose turns start at timed speaker headings.

Chat exporters and hand-kept logs write a heading per turn with the speaker and the time::

    # Session log 2026-01-02
    ## User (03:56 UTC)
    Why does the nightly export time out?
    ## Assistant (03:57 UTC)
    It loads every row at once ...

A turn starts at a heading (``#`` to ``######``) that names a speaker and a time: in brackets
(``## User (03:56 UTC)``, ``## User [03:56]``) or after a separator (``## User — 03:56``,
``## Assistant · 2026-01-02 03:57``, ``## User | 3:56 pm``), or the time first and the
speaker after a separator with spaces round it (``## 9 May 2023 14:03 — Priya``), and runs to
the next one. Speakers:
``User``/``Human``/``You``/``Me`` (the user), ``Assistant``/``AI``/``Claude``/``ChatGPT``/
``GPT-4``/``Model``/``Bot``/``Copilot``/``Gemini``/``Agent`` (the assistant), ``System``,
``Tool``; other names heading timed turns are people once one of them heads two turns (or a role
word heads one): the first such name is the user and the others assistants, each item keeping
its speaker's name (a name of up to three words, or a longer one written as one: ``## Maria de
la Cruz (09:15)``; never a day or a part of one, ``## Morning (07:30)``, which times a section of
notes, nor a name heading turns only at one hour on two days or more, ``## Standup (09:00)``
under each date, unless another name heads two turns). A role heading without a time (``## User``) starts a turn too. Headings
inside fenced code blocks never do. Headings with a day but no clock (``## Priya — May 8,
2023``) start turns where two names or more take turns under one date, one of them back after
another (:func:`_alternating_dated_names`); a notes file's daily sections (``## Standup —
2025-03-04``, ``## Standup — 2025-03-05``) are not turns, their days date the notes.

The time goes to the item. A heading time that names its day (``2026-01-02 03:57``) is read as
it is, and its day is the date of the clock times after it; a clock time alone (``03:56 UTC``,
``3:56 pm``) is combined with the date the file gives: the latest date heading or ``Date:`` line
before it (``# Log — 2 January 2026``), else a date in the file name (``2026-01-02-standup.md``,
``chat_20260102.md``). A clock that goes back past midnight on the same date moves to the next
day. A day without a year (``## 9 May 14:03 — Priya``) takes the one year the file's name and
other dates give, as a text chat's date line does. A time without a zone is UTC. When no date
is known the item is kept without a time and the heading's time is reported in
``unread_times`` with its line, as every unreadable time is (never dropped silently).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .collector import ItemCollector
from .plain_text import (
    DATE_LABEL,
    FENCE,
    IN_BRACKETS,
    add_turn,
    date_line,
    day_in_year,
    is_label_word,
    outside_fences,
    speaker_names,
    speaker_of,
    the_one_year,
    yearless_day,
)
from .source import Source, fail
from .timefmt import (
    LogClock,
    TurnTime,
    day_first_of,
    file_date,
    names_a_day,
    read_turn_time,
    with_iso_dates,
)

_ROLE_WORDS = {
    **dict.fromkeys(("user", "human", "you", "me"), "user"),
    **dict.fromkeys(("assistant", "ai", "claude", "chatgpt", "gpt", "model", "bot", "copilot",
                     "gemini", "agent"), "assistant"),
    "system": "system",
    "tool": "tool",
}
# up to five words: a name of four or five must be written as one (_is_name)
_NAME = r"[^\W\d_][\w'.\-]{0,30}(?: [^\W\d_][\w'.\-]{0,30}){0,4}"
_PARTICLE = re.compile(r"[^\W\d_A-Z]{1,3}")  # "de", "la", "van", "bin" inside a long name
_TIMED_HEADING = re.compile(
    r"[ \t]{0,3}#{1,6}[ \t]+(?:\*\*|__)?(?P<name>" + _NAME + r")(?:\*\*|__)?[ \t]*"
    r"(?:\((?P<paren>" + IN_BRACKETS + r"{3,60})\)|\[(?P<bracket>[^\]\n]{3,60})\]"
    r"|(?:\u2014|\u2013|-|\u00b7|\||@|,)[ \t]*(?P<after>[^\n]{3,60}?))[ \t]*:?[ \t]*#*[ \t]*"
)
# The same written the other way round, the time first: "## 9 May 14:03 — Priya",
# "## 2023-05-08 13:56 | Tomás". A separator with spaces on both sides ends the time (a date's
# own dashes have none).
_TIME_FIRST_HEADING = re.compile(
    r"[ \t]{0,3}#{1,6}[ \t]+(?:\*\*|__)?(?P<after>[^\n]{0,57}?\d[^\n]{0,57}?)(?:\*\*|__)?"
    r"[ \t]+(?:\u2014|\u2013|-|\u00b7|\|)[ \t]+(?:\*\*|__)?(?P<name>" + _NAME + r")(?:\*\*|__)?"
    r"[ \t]*:?[ \t]*#*[ \t]*"
)
# A heading's time of a day and month without a year and a clock: "9 May 14:03", "Tue 9 May,
# 2:03 pm".
_YEARLESS_TIME = re.compile(r"(?P<day>.*?[^\W\d_].*?)[ \t]*,?[ \t]+(?:at[ \t]+)?"
                            r"(?P<clock>\d{1,2}:\d\d(?!.*\d{4}).*)")
_CLOCK = re.compile(r"\d{1,2}:\d\d")
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)])[ \t]+")
_LINES_TO_TRY = 2000


def timed_heading(line: str) -> tuple[str, str] | None:
    """``(speaker as written, time as written)`` for a heading with a time, else None (whether
    its words name a speaker is for :func:`_is_name` and the whole file to say)."""
    parts = _heading_parts(line)
    if parts is None or not _CLOCK.search(parts[1]):
        return None
    return parts


def dated_heading(line: str) -> tuple[str, str] | None:
    """``(words, date as written)`` for a heading that names someone or something and a whole
    day without a clock (``## Priya — May 8, 2023``, ``## Standup — 2025-03-04``), else None."""
    parts = _heading_parts(line)
    if parts is None:
        return None
    name, written = parts
    if _CLOCK.search(written) or date_line(written) is None or not _is_name(name):
        return None
    return parts


def _heading_parts(line: str) -> tuple[str, str] | None:
    """``(words, what follows them as written)`` for a heading of words and a time or date
    (in brackets or after a dash or dot), else None."""
    if "#" not in line[:4]:
        return None
    match = _TIMED_HEADING.fullmatch(line)
    if match is None or names_a_day(match.group("name")):  # "## Tue, 9 May 14:03 — Priya"
        match = _TIME_FIRST_HEADING.fullmatch(line) or match
    if match is None:
        return None
    written = (match.groupdict().get("paren") or match.groupdict().get("bracket")
               or match.group("after")).strip()
    return match.group("name"), written


def _alternating_dated_names(lines: list[str]) -> set[str]:
    """The names that take turns under dated headings: headings in a row under one date
    (``## Priya — May 8, 2023``, ``## Tomás — May 8, 2023``, ``## Priya — May 8, 2023``), two
    names or more among them and one of them back after another spoke. A notes file's daily
    sections (``## Standup — 2025-03-04``, then ``## Standup — 2025-03-05``) change their
    date at each heading, and sections of one day (``## Standup — …``, ``## Retro — …``) never
    come back: neither is a conversation."""
    speakers: set[str] = set()
    run: list[str] = []
    run_day = ""
    for line in outside_fences(lines):
        found = dated_heading(line)
        if found is None:
            if line.lstrip().startswith("#"):
                run, run_day = _closed_run(run, speakers), ""  # another section ends the run
            continue
        name, written = found
        if role_of(name) is None and is_label_word(name):
            run, run_day = _closed_run(run, speakers), ""
            continue
        day = date_line(written).day
        if day != run_day:
            run, run_day = _closed_run(run, speakers), day
        run.append(name)
    _closed_run(run, speakers)
    return speakers


def _closed_run(run: list[str], speakers: set[str]) -> list[str]:
    """Add the names of one date's run of headings to ``speakers`` when they alternate;
    return a new, empty run."""
    returns = any(run[at - 1] != run[at] and run[at] in run[:at - 1] for at in range(2, len(run)))
    if len(set(run)) >= 2 and returns:
        speakers.update(run)
    return []


def _is_name(name: str) -> bool:
    """Whether the words before a heading's time can name someone: up to three words, or a
    longer name written as one, its first and last words capitalised and those between
    capitalised or short particles ("Maria de la Cruz", "Ludwig van der Berg"; not
    "Planning with the design team"); never a day or a part of one ("Morning", "Saturday
    night"), which times the section rather than names who wrote it."""
    words = name.split()
    if names_a_day(name):
        return False
    if len(words) <= 3:
        return True
    return words[0][:1].isupper() and words[-1][:1].isupper() and all(
        word[:1].isupper() or _PARTICLE.fullmatch(word) for word in words[1:-1])


def role_of(name: str) -> str | None:
    """The role a speaker word names (``User`` -> ``user``, ``GPT-4`` -> ``assistant``)."""
    word = name.lower()
    if word.startswith("gpt"):
        return "assistant"
    return _ROLE_WORDS.get(word)


def _timed_names(lines: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Each name that may head a timed turn, with the day and clock of each heading it heads
    (the day its own time writes, else the latest date heading's; ``""`` when none is known)."""
    heads: dict[str, list[tuple[str, str]]] = {}
    day = ""
    for line in outside_fences(lines):
        found = timed_heading(line)
        if found is not None and _is_name(found[0]):
            own = date_line(found[1])
            heads.setdefault(found[0], []).append((own.day if own else day, _clock_of(found[1])))
        elif found is None and line.lstrip().startswith("#"):
            dated = date_line(line)
            day = dated.day if dated else day
    return heads


def _clock_of(written: str) -> str:
    """The clock a heading's time writes, one spelling for one hour ("09:00" and "9:00")."""
    clock = _CLOCK.search(written)
    hours, minutes = clock.group().split(":") if clock else ("", "")
    half = re.search(r"\b([ap])\.?m\b", written, re.IGNORECASE)
    return f"{int(hours or 0)}:{minutes}{half.group(1).lower() if half else ''}"


def _recurs_daily(heads: list[tuple[str, str]]) -> bool:
    """Whether a name's headings are a section a notes file repeats each day at its hour
    ("## Standup (09:00)" under two dates): one clock throughout, on two days or more."""
    return len({clock for _, clock in heads}) == 1 and len({day for day, _ in heads if day}) >= 2


def _heads_two_turns(names: dict[str, list[tuple[str, str]]]) -> bool:
    """Whether a person (no role word) heads two turns, other than as a recurring section
    (:func:`_recurs_daily`): that one is a person once another name is seen to be one."""
    return any(role_of(name) is None and len(heads) >= 2 and not _recurs_daily(heads)
               for name, heads in names.items())


def _people(names: dict[str, list[tuple[str, str]]], lines: list[str]) -> set[str]:
    """The person names among timed-heading names: all of them once one person heads two
    turns (:func:`_heads_two_turns`) or a role word heads one, or when each spoke once in a
    chat of sentences (:func:`_each_spoke_once`): a conversation, not a notes file's dated
    sections."""
    persons = {name for name in names if role_of(name) is None}
    if _heads_two_turns(names) or len(persons) < len(names) or _each_spoke_once(lines, names):
        return persons
    return set()


def _date_heads(lines: list[str]) -> Iterator[str]:
    """What dates the turns in each line: a timed heading's time, a heading or a short line
    (a date line, "Date: 08/05/2023"), never a turn's own text."""
    for line in outside_fences(lines):
        timed = timed_heading(line)
        if timed:
            yield timed[1]
        elif line.lstrip().startswith("#") or DATE_LABEL.match(line.strip("*_ \t")):
            yield line if len(line) <= 90 else ""


def has_timed_headings(text: str) -> bool:
    """True when the first lines of ``text`` hold a timed heading naming a role, or two timed
    headings naming the same person (:func:`_heads_two_turns`), or a chat of
    people who each spoke once (:func:`_each_spoke_once`), outside code fences."""
    lines = [line.rstrip("\r") for line in text.split("\n", _LINES_TO_TRY)[:_LINES_TO_TRY]]
    names = _timed_names(lines)
    if _head_sections_of_a_chat(lines, names):
        return False
    if _alternating_dated_names(lines):
        return True
    return any(role_of(name) is not None for name in names) or _heads_two_turns(names) \
        or _each_spoke_once(lines, names)


def _head_sections_of_a_chat(lines: list[str], names: dict[str, list[tuple[str, str]]]) -> bool:
    """Whether the timed headings head sections of a chat written in speaker lines ("## Session
    (2023-05-08 13:56)" over "Priya: …" and "Tomás: …"): two people or more, none of them a
    heading's name nor a label word, start lines under them. Such headings date the turns
    below them (a speaker-line transcript); who spoke is on each line, not in the heading."""
    if not names:
        return False
    people = {name for name in speaker_names(lines) if not is_label_word(name)} - set(names)
    return len(people) >= 2


def _each_spoke_once(lines: list[str], names: dict[str, list[tuple[str, str]]]) -> bool:
    """Whether timed headings of two or more names, each heading one turn, are a chat rather
    than a notes file's sections ("## Standup (09:00)"): every heading of the file is one of
    them or a date, and each turn says a sentence (three words or more, no list), as the
    lines of a short chat must (:func:`~.plain_text.speaker_names`)."""
    if len(names) < 2 or any(len(heads) != 1 or role_of(name) is not None
                             or is_label_word(name) for name, heads in names.items()):
        return False
    body: list[str] | None = None
    bodies: list[list[str]] = []
    for line in outside_fences(lines):
        if line.lstrip().startswith("#"):
            if timed_heading(line) is not None:
                body = []
                bodies.append(body)
            elif date_line(line) is None:
                return False  # a section of its own: notes
            continue
        if body is not None and line.strip():
            body.append(line.strip())
    return len(bodies) == len(names) and all(
        turn and not any(_LIST_ITEM.match(line) for line in turn)
        and len(" ".join(turn).split()) >= 3 for turn in bodies)


class MarkdownLogParser:
    """Parses a Markdown log with timed speaker headings into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session
        self.clock = LogClock()  # the day the headings' clock times are on
        self.day_first = False  # "08/05/2023": month first unless the file says otherwise

    def parse(self, source: Source) -> int:
        """Read every turn; return how many turns there were."""
        lines = self.collector.lines_without_envelopes(source, lone_close=False)
        people = _people(_timed_names(lines), lines)
        dated_people = _alternating_dated_names(lines)
        self.day_first, note = day_first_of(_date_heads(lines), "turns")
        if note:
            self.collector.note(note)
        roles: dict[str, str] = {}
        self.lines, self.named_day = lines, file_date(source.stem)
        self.year: str | None = None  # found at the first heading time without one: most have
        self.yearless_read: list[tuple[int, str]] = []
        self.last_day = ""  # the day of the date line or heading above (not the file name's)
        self.clock.dated(self.named_day)
        turns = 0
        role, start, end, body, who, when = "", 0, 0, [], "", ""
        fenced = False
        for number, line in enumerate(lines, 1):
            if FENCE.match(line):
                fenced = not fenced
            turn = None if fenced else self._starts_turn(line, people, roles, dated_people)
            if turn is None:
                if not fenced and (not role or line.lstrip().startswith("#")
                                   or DATE_LABEL.match(line.strip("#*_ \t"))):
                    dated = date_line(with_iso_dates(line, self.day_first))
                    if dated is not None:
                        self.clock.dated(dated.day)
                        self.last_day = dated.day
                        continue
                if role:
                    body.append(line)
                    end = number if line.strip() else end  # blank lines before the next: not it
                continue
            if role:
                add_turn(self.collector, self.session, role, (start, end), body,
                         source.pointer_base, who, when)
            turns += 1
            # read once the turn above is kept: a time reported unread is this turn's
            role, who, written = turn
            when = self._day_time() if written is None else self._time(number, written)
            start, end, body = number, number, []
        if role:
            add_turn(self.collector, self.session, role, (start, end), body, source.pointer_base,
                     who, when)
        if self.yearless_read:
            self.collector.note(
                f"{len(self.yearless_read)} heading time(s) without a year read in {self.year}, "
                f"the only year the file's name and dates give (line {self.yearless_read[0][0]}: "
                f"{self.yearless_read[0][1]!r})")
        self.collector.records_read += turns
        if turns == 0:
            raise fail(source.name, "no timed speaker headings (## User (03:56 UTC) ...) found")
        return turns

    def _starts_turn(self, line: str, people: set[str], roles: dict[str, str],
                     dated_people: set[str]) -> tuple[str, str, str | None] | None:
        """``(role, speaker name or "", its time as written)`` for a line that starts a turn;
        the time None for a role's heading without one (``## User``)."""
        timed = timed_heading(line)
        if timed is None and dated_people:
            dated = dated_heading(line)
            if dated is not None and dated[0] in dated_people:
                timed, people = dated, people | dated_people
        if timed is None:
            plain = speaker_of(line) if line.lstrip().startswith("#") else None
            if plain is None:
                return None
            return plain[0], "", None
        name, written = timed
        role = role_of(name)
        speaker = ""
        if role is None:
            if name not in people:
                return None
            role = roles.setdefault(name, "user" if not roles else "assistant")
            speaker = name
        return role, speaker, written

    def _day_time(self) -> str:
        return read_turn_time(self.clock.day) or "" if self.clock.day else ""

    def _time(self, number: int, written: str) -> str:
        """The ISO time of a heading's time, on the file's date when it names no day (the day
        as the log writes it: 23:30 PST on 2 January is 07:30 UTC on the 3rd, and the clock
        times after it are still on the 2nd), a day without a year in the one year the file
        gives (:meth:`_in_year`); an unreadable one is reported."""
        rewritten = with_iso_dates(written, self.day_first)
        found = self.clock.read(rewritten) or self._in_year(number, written)
        if found:
            self.last_day = getattr(found, "day", "") or self.last_day
        if found or rewritten == written:
            return found or self.collector.time(number, written)
        self.collector.unread_times.append((number, written))
        return ""

    def _in_year(self, number: int, written: str) -> TurnTime | None:
        """A heading's day and month without a year and its clock (``9 May 14:03``) in the one
        year the file's name, dates and headings give (:func:`~.plain_text.the_one_year`), as
        the text chats read a date line without one; None when the file gives no one year, the
        day is not the weekday written, or it lies before the day of the heading above (the
        year may have turned)."""
        parts = _YEARLESS_TIME.fullmatch(written.strip())
        day_written = yearless_day(parts.group("day")) if parts else ""
        if not day_written:
            return None
        if self.year is None:
            self.year = the_one_year(self.lines, self.named_day, self._stamped_days())
        dated = day_in_year(day_written, self.year) if self.year else None
        if dated is None or dated.day < self.last_day:
            return None
        self.clock.dated(dated.day)
        found = self.clock.read(parts.group("clock"))
        if found:
            self.yearless_read.append((number, written))
        return found

    def _stamped_days(self) -> Iterator[str]:
        """The days the file's headings write in full (``## 8 May 2023 13:56 — Priya``)."""
        for line in outside_fences(self.lines):
            timed = timed_heading(line)
            dated = read_turn_time(with_iso_dates(timed[1], self.day_first)) if timed else None
            if dated:
                yield dated.day
