"""Dated notes in Markdown: meeting notes, a work journal, a decision log, whose headings carry
the dates::

    # Payments team sync
    ## 2025-03-04
    Attendees: Dana, Omar, Priya
    - Omar: migration 0042 timed out again on staging.
    - Decided to move the deploy to Thursday.
    ## Tuesday, March 11, 2025
    ...

A file is read so when no chat format fits it (no speaker lines, no timed speaker headings)
and one of its headings outside code fences is a date or holds one (``## 2025-03-04``,
``## Tuesday, March 11, 2025``, ``# Standup — 18/03/2025``, ``## Meeting 2025-03-04``,
``## Week of March 24, 2025``): notes without a dated heading (a ``MEMORY.md``) are still no
transcript.

* **Items**: each paragraph and each top-level list item (with the lines and sub-items that
  continue it) is a ``note``, role ``user``; headings are not items.
* **Time**: the day of the latest dated heading above it (before the first, a date in the
  file's name, ``2025-03-04-sync.md``, else none), at the clock time of the section it is in
  when that section's heading names one (``## Standup (09:00)``, ``## Retro — 3:00 pm``);
  numeric dates are read in one order of day and month for the whole file, as for ``text``.
* **Goal**: the headings above it less their dates, joined by `` › ``
  (``Payments team sync › Meeting``), so a frame shows what the meeting was about.
* **Speaker**: a note that starts ``Name: …`` (a capitalised name of up to three words, never
  a label word such as ``Action`` or ``Decision``) is that person's when the name starts two
  notes of the file or is listed on an ``Attendees:``/``Participants:`` line; the note's
  text is then what follows the name, as a speaker line's is.

Pointers read ``<file>:<first>-<last>`` (``<file>:<line>`` for a note on one line). A note's
identity is its first line, so notes appended below keep every earlier handle.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .classify import message_text
from .collector import ItemCollector
from .plain_text import FENCE, date_line, heading_date, named_speaker_of
from .speech_lines import is_label_word
from .pointers import line_pointer
from .source import Source, fail
from .markdown_log import timed_heading
from .timefmt import LogClock, day_first_of, file_date, read_turn_time, with_iso_dates

_HEADING = re.compile(r"[ \t]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*")
_LIST_ITEM = re.compile(r"(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_ATTENDEES = re.compile(r"[*_]*(?:attendees|participants|present)[*_]*[ \t]*:[*_]*[ \t]*(.*)",
                        re.IGNORECASE)
_GOAL_SEPARATOR = " \u203a "
_WEEKDAY = re.compile(r"\(?(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\)?", re.IGNORECASE)
_LINES_TO_TRY = 2000


def dated_headings(lines: list[str]) -> Iterator[tuple[int, int, str, str]]:
    """``(line number, level, heading text, its date as written or "")`` for every heading
    outside code fences."""
    fenced = False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.fullmatch(line)
        if heading:
            text = heading.group(2).strip()
            yield number, len(heading.group(1)), text, heading_date(text)


def has_dated_headings(text: str) -> bool:
    """True when a heading among the first lines of ``text`` is a date or ends with one, and
    some line that is no heading holds text."""
    lines = [line.rstrip("\r") for line in text.split("\n", _LINES_TO_TRY)[:_LINES_TO_TRY]]
    headings = list(dated_headings(lines))
    return any(date for _, _, _, date in headings) and len(headings) < sum(
        1 for line in lines if line.strip())


class NotesParser:
    """Parses dated Markdown notes into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session

    def parse(self, source: Source) -> int:
        """Read every note; return how many there were."""
        lines = self.collector.lines_without_envelopes(source)
        headings = {number: (level, title, date)
                    for number, level, title, date in dated_headings(lines)}
        day_first, note = day_first_of((date for _, _, date in headings.values() if date),
                                       "notes")
        if note:
            self.collector.note(note)
        day = file_date(source.stem)
        time = read_turn_time(day) or "" if day else ""
        titles: dict[int, str] = {}  # heading level -> its text, for the headings above
        notes = list(_notes(lines, headings))
        speakers = _speakers(lines, [body for _, _, body in notes])
        read = 0
        at = 0
        day_time = time  # the latest date's; a section's clock time dates only its notes
        clocked_at = 0  # the level of the heading whose clock time ``time`` is
        for first, last, body in notes:
            for number in sorted(n for n in headings if at < n < first):
                level, title, date = headings[number]
                titles = {k: v for k, v in titles.items() if k < level}
                if clocked_at and level <= clocked_at:
                    time, clocked_at = day_time, 0  # a section after the timed one: its day
                timed = None if date else timed_heading(lines[number - 1])
                if date:
                    time = date_line(with_iso_dates(date, day_first)) or self.collector.time(
                        number, date)
                    day_time, clocked_at = time, 0
                    undated = _without_date(title)
                    if undated:
                        titles[level] = undated
                elif timed is not None and day_time:  # "## Standup (09:00)" on the day above
                    clock = LogClock(getattr(day_time, "day", "") or str(day_time)[:10])
                    time = clock.read(timed[1]) or self.collector.time(number, timed[1])
                    clocked_at = level
                    titles[level] = timed[0]
                else:
                    titles[level] = title
            at = first
            read += 1
            self._note(first, last, body, time, _GOAL_SEPARATOR.join(
                titles[k] for k in sorted(titles)), speakers, source.pointer_base)
        self.collector.records_read += read
        if not any(date for _, _, date in headings.values()):
            raise fail(source.name, "no dated headings (## 2025-03-04 ...) found")
        return read or 1

    def _note(self, first: int, last: int, body: list[str], time: str, goal: str,
              speakers: set[str], base: str) -> None:
        text = "\n".join(line.rstrip() for line in body).strip()
        if not text:
            self.collector.no_item(text)
            return
        named = named_speaker_of(text)
        speaker = named[0] if named and named[0] in speakers else ""
        if speaker and named and named[1].strip():
            text = named[1].strip()  # the name is the speaker's, shown before the text
        self.collector.add(record_no=first, session=self.session, kind="note", role="user",
                           identity=f"line{first}", text=message_text(text), time=time,
                           pointer=line_pointer(base, first, last), speaker=speaker,
                           goal=goal)


def _notes(lines: list[str], headings: dict[int, tuple[int, str, str]]
           ) -> Iterator[tuple[int, int, list[str]]]:
    """``(first line, last line with text, the note's lines)`` for each paragraph and
    top-level list item (its marker cut), in order."""
    first, last, body = 0, 0, []
    fenced = False
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
        starts = False
        if not fenced and not FENCE.match(line):
            item = _LIST_ITEM.match(line)  # a top-level item: no indent before its marker
            if number in headings or not line.strip():
                if body:
                    yield first, last, body
                first, last, body = 0, 0, []
                continue
            if item:
                starts = True
                line = line[item.end():]
        if starts or not body:
            if body:
                yield first, last, body
            first, body = number, []
        body.append(line)
        last = number if line.strip() else last
    if body:
        yield first, last, body


def _speakers(lines: list[str], bodies: list[list[str]]) -> set[str]:
    """The names that start notes as people: those that start two, or that an attendees line
    lists."""
    counts: dict[str, int] = {}
    for body in bodies:
        named = named_speaker_of("\n".join(body).strip())
        if named and not is_label_word(named[0]):
            counts[named[0]] = counts.get(named[0], 0) + 1
    listed = set()
    for line in lines:
        found = _ATTENDEES.match(line.strip().lstrip("-*+ \t"))
        if found:
            listed.update(name.strip(" .*_") for name in re.split(r",|;| and ", found.group(1)))
    return {name for name, n in counts.items() if n >= 2 or name in listed}


_BRACKETED_TAIL = re.compile(r"[ \t]*[(\[][^()\[\]\n]*[)\]][ \t:]*\Z")


def _without_date(title: str) -> str:
    """A heading's text less the date it names (``Standup — 2025-03-04`` -> ``Standup``,
    ``Release 2.3 (2025-03-04)`` -> ``Release 2.3``); "" when it is only a date."""
    date = heading_date(title)
    if date == title:
        bracketed = _BRACKETED_TAIL.search(title)  # "Release 2.3.0 (2025-03-31)"
        if bracketed and bracketed.start() and date_line(bracketed.group(0)):
            return title[:bracketed.start()].strip()
        for separator in (" \u2014 ", " \u2013 ", " - ", ": ", ", ", " | "):
            head, _, tail = title.rpartition(separator)
            if head and date_line(tail):
                return head.strip()
        return ""
    rest = re.sub(r"[\s(\[]*$", "", title.replace(date, "").replace("()", "").replace("[]", "")
                  ).strip(" \u2014\u2013-:|,")
    return "" if _WEEKDAY.fullmatch(rest) else rest  # "2025-03-04 (Tue)": only a date
