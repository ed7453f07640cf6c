"""Plain text and markdown transcripts with speaker lines.

A turn starts at a speaker line and runs until the next one: ``User:``/``Human:``,
``Assistant:``/``AI:``, ``System:`` and ``Tool:`` at the start of a line (also bold, as
``**User:**``), or a markdown heading naming the speaker (``## User``, ``### Assistant``).
Speaker names are matched case-insensitively. In a transcript without those, people's names
start turns (``Priya: …``, ``**Tomás:** …``, or in lower case where the file says so, :func:`_lower_case_speakers`): a capitalised name of up to three words that starts
at least two lines, or one line written as the other speakers' are when two names do (a group
chat's third person who spoke once) or between two lines of the one name that does (the other
person's one reply); never a label such as ``Note:``; the first such name takes
the user's role, the others the assistant's, and each item keeps its speaker's name; where someone
who took the user's role before (in an earlier file of the same ingest, or in memory) speaks, the
first of them to speak takes it instead (:func:`named_role`), so a person is not the user of one
session and the assistant of the next because someone else spoke first there. Lines
inside fenced code blocks (````` ``` ````` or ``~~~``) never start a turn, so pasted logs and
YAML keep their ``user:`` lines. Text before the first speaker (a title, a preamble) is not part
of any turn; in a transcript of named speakers, a labelled line there (``[09:00] Standup: Priya,
Omar and Lee joined the call.``) is kept as a ``note`` item. A name that starts only the file's
first line and whose text names two or more of the speakers after it is such a label (a
meeting's roll call), never a speaker. A chat written as bullets under a date line
(``**2023-05-08**``, then ``- **Priya**: …``) is read as those speaker lines when the evidence says
it is one (:func:`is_bulleted_chat`); meeting notes' ``- Omar: …`` items stay notes. LINE's
chat history export writes each message ``13:56<TAB>Priya<TAB>…`` under its day's line
(``2023/05/08(Mon)``): the tabs name the speaker whatever the name's case; its one-tab lines
(``Priya unsent a message.``) are events, counted, and ``[Sticker]`` alone is media.
Zoom's saved meeting chat writes ``13:56:03 From Priya Patel to Everyone:`` over the message's
tab-indented lines; its clock times are on the day its folder is named after.
Discord messages pasted from the app sit under their author's line, ``Priya — 05/08/2023 1:56
PM``.
Caption files (WebVTT, SubRip: Zoom's and Teams' meeting transcripts) have their cue numbers and
timings blanked (:func:`without_cues`); Teams names each cue's speaker ``<v Priya Patel>``.

Times: a speaker line may start with one, in brackets or not (``[2023-05-08 13:56] Priya: …``,
``13:56 Priya: …``) or hold one in brackets after the name (``Priya (2023-05-08 13:56): …``,
``Priya [13:56]: …``); a line
that is only a time, or a heading or label ending in one (``Date: 8 May 2023``, ``## Session 2 —
1:56 pm on 8 May, 2023``), dates the turns after it, and the clock time alone of a speaker line
after it (``[10:30] Priya: …``) is on its day (the next day once the clock goes back past
midnight), or before any, on the day the file's name gives (``club-2023-05-08.txt``). A date line without a year (``## May 8th``, ``Tue 9 May``) is reported unread,
its turns (their clock times too) kept without a time, unless the file's name, date lines and fully dated speaker lines give one year only
(:func:`the_one_year`), which then places it. Any form :mod:`.timefmt` reads; numeric dates (``08/05/2023``) in one order of day
and month for the whole file (:meth:`PlainTextParser._day_order`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from .classify import (
    assistant_text_kind,
    message_text,
    output_text,
    tool_output_kind,
    named_user_kind,
)
from .collector import ItemCollector
from .envelope import strip_envelopes
from .export_shapes import (
    DASH_SPEAKER,
    HEADER_SHAPES,
    HEADING_NAME,
    SPACED_SPEAKER,
    TAB_EVENT,
    TAB_MEDIA,
    TAB_SPEAKER,
    TIME_MARK,
    unquoted,
    VOICE_SPEAKER,
    without_cues,
    ZOOM_SPEAKER,
    ZOOM_START,
)
from .pointers import line_pointer
from .relative_stamps import (after_start, are_recording_offsets, has_clock, on_anchor_day,
                              without_clock_word)
from .source import Source, fail
from .speech_lines import (
    EXPORT_LINE,
    TIMED_LINE,
    LABELS as _LABELS,
    LOG_LEVELS as _LOG_LEVELS,
    addresses_someone,
    is_label_word,
    is_machine_value,
    lines_speak,
)
from .textutil import strip_system_reminders
from .timefmt import (
    LogClock,
    TurnTime,
    day_first_of,
    file_date,
    read_turn_time,
    with_iso_dates,
)

_NAMES = r"(user|human|assistant|ai|system|tool)"
_COLON_SPEAKER = re.compile(
    r"[ \t]{0,3}(?:\*\*|__)?" + _NAMES + r"(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]?(.*)",
    re.IGNORECASE | re.DOTALL,
)
_HEADING_SPEAKER = re.compile(
    r"[ \t]{0,3}#{1,6}[ \t]+" + _NAMES + r"[ \t]*:?[ \t]*#*[ \t]*", re.IGNORECASE
)
# "## Prompt:" and "## Response:", as exporters of ChatGPT and Claude chats write them: with
# the colon only (a report's "## Response" section is no speaker).
_HEADING_PROMPT = re.compile(r"[ \t]{0,3}#{1,6}[ \t]+(prompt|response)[ \t]*:[ \t]*#*[ \t]*",
                             re.IGNORECASE)
FENCE = re.compile(r"[ \t]{0,3}(```|~~~)")
_STAMP = r"(?:\[(?P<stamp>[^\]\n]{4,60})\][ \t]*)?"
#: One character of a time written in brackets, or a short bracketed word inside it: the weekday
#: of LongMemEval's "2023/05/28 (Sun) 19:47" or of "2023/05/08(月) 13:56" is not the bracket's end.
IN_BRACKETS = r"(?:[^()\n]|\([^()\n]{1,12}\))"
# "Priya (2023-05-08 13:56): …", "Priya [10:30]: …", "**Priya** (10:30): …": a time in
# brackets after the name.
_PAREN_STAMP = (r"(?:[ \t]*(?:\((?P<paren>" + IN_BRACKETS + r"{0,40}(?:\d:\d\d|(?:19|20)\d\d)"
                + IN_BRACKETS + r"{0,40})\)"
                r"|\[(?P<square>[^\]\n]{0,40}(?:\d:\d\d|(?:19|20)\d\d)[^\]\n]{0,40})\]))?")
# "2023-05-08 13:56 Priya: …", "08/05/2023 1:56 PM Priya: …", "13:56 Priya: …": a time without
# brackets before the name (a clock time it must have, so "2023 Goals: …" is no speaker line).
# a date in words: "Mon 8 May 2023", "8 May 2023,", "May 8, 2023", "Monday, May 8, 2023 at"
_MONTH_WORD = (r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?")
_WORDED_DATE = (r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?[ \t]+)?"
                r"(?:\d{1,2}(?:st|nd|rd|th)?[ \t]+" + _MONTH_WORD + r"|" + _MONTH_WORD
                + r"[ \t]+\d{1,2}(?:st|nd|rd|th)?),?[ \t]+\d{4},?(?:[ \t]+at)?[ \t]")
_BARE_STAMP = (r"(?:(?P<bare>(?:\d{4}-\d\d-\d\d[ T]|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4},?[ \t]|"
               r"(?i:" + _WORDED_DATE + r"))?"
               r"\d{1,2}:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:[ \t]?[AaPp]\.?[Mm]\.?)?"
               # a log's ISO 8601 time ends in its zone: "2023-05-08T13:56:00Z", "… +02:00"
               r"(?:Z|[ \t]?[+-]\d\d:?\d\d(?!\d))?)[ \t]+(?:[-\u2013\u2014|][ \t]+)?)?")
_NAMED_SPEAKER = re.compile(
    r"[ \t]{0,3}" + _STAMP + _BARE_STAMP
    + r"(?P<bold>\*\*|__)?(?P<name>[^\W\d_][\w'.\-]{0,30}(?: [^\W\d_][\w'.\-]{0,30}){0,2})"
    r"(?:\*\*|__)?" + _PAREN_STAMP + r"(?:\*\*|__)?[ \t]*[:\uff1a](?:\*\*|__)?[ \t]?(?P<rest>.*)",
    re.DOTALL,
)
# IRC's shape, as irssi, WeeChat, ZNC, HexChat and Matrix bridges log it: "[13:56] <priya> …",
# "13:56 <@priya> …": the nick in angle brackets (its channel mode, @ + % & ~, is no part of
# it) says a turn starts, so it may be lower case; nothing else on the line names it. The
# groups are those of _NAMED_SPEAKER (paren, square and bold never take part).
_IRC_SPEAKER = re.compile(
    r"[ \t]{0,3}" + _STAMP + _BARE_STAMP
    + r"<[ \t]?[@+%&~]?(?P<name>[^\W\d][\w\-.'\[\]`^{|}]{0,31})>[ \t]+"
    r"(?P<paren>(?!))?(?P<square>(?!))?(?P<bold>(?!))?(?P<rest>.*)",
    re.DOTALL,
)
# What an IRC log writes that no one said: joins, parts, quits, topic and mode changes ("-!-",
# "***", "-->", "<--", "--"), and "/me" actions ("* priya waves"), after the line's time.
_IRC_EVENT = re.compile(r"[ \t]{0,3}" + _STAMP + _BARE_STAMP
                        + r"(?:-!-|\*\*\*|-->|<--|--|\*[ \t]+[^\W\d][^\s]{0,31}[ \t])")
_STAMPED_SPEAKER = re.compile(r"[ \t]{0,3}\[(?P<stamp>[^\]\n]{4,60})\][ \t]*(?P<line>.*)", re.DOTALL)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
DATE_LABEL = re.compile(r"(?:date|time|timestamp|when|session(?: date| time)?|saved on|保存日時)"
                        r"[ \t]*[:\uff1a][ \t]*", re.I)
# A weekday in brackets after a date, as LINE writes its day lines: "2023/05/08(Mon)", "(月)"
_BRACKETED_WEEKDAY = re.compile(r"[ \t]*[(\uff08][^()\uff08\uff09\d]{1,12}[)\uff09][ \t]*\Z")
_LAST_BRACKETS = re.compile(r"[(\[]((?:[^()\[\]\n]|\([^()\[\]\n]{1,12}\)){6,60})[)\]][ \t:]*\Z")
# An IRC client's day banner: irssi's "--- Day changed Tue May 09 2023", "--- Log opened Mon May
# 08 13:55:12 2023", WeeChat's "-- Date changed to …".
_LOG_DAY = re.compile(r"(?:day changed|date changed(?: to)?|log opened|log closed)[ \t:]+(.+)",
                      re.IGNORECASE)
_ON_DATE = re.compile(r"(?:on|as of)[ \t]+(.+)", re.IGNORECASE)
_DATE_SEPARATORS = (" \u2014 ", " \u2013 ", " - ", ": ", ", ")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
#: A whole date inside a heading: ISO or numeric with a four-digit year, or a month's name
#: with a day and a year.
_DATE_IN_HEADING = re.compile(
    r"(?<![\w.])(?:\d{4}[-/]\d{1,2}[-/]\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{4}"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+\d{4}"
    r"|" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})(?![\w.])", re.IGNORECASE)
_ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
}


def speaker_of(line: str) -> tuple[str, str] | None:
    """``(role, rest of the line)`` when ``line`` starts a turn, else None."""
    if not line or line[0] not in " \t*_#uUhHaAsStT":
        return None  # cheap exit for the common line
    heading = _HEADING_SPEAKER.fullmatch(line)
    if heading:
        return _ROLES[heading.group(1).lower()], ""
    prompt = _HEADING_PROMPT.fullmatch(line) if line.lstrip().startswith("#") else None
    if prompt:
        return ("user" if prompt.group(1).lower() == "prompt" else "assistant"), ""
    colon = _COLON_SPEAKER.match(line)
    if colon:
        return _ROLES[colon.group(1).lower()], colon.group(2)
    return None


def named_speaker_of(line: str, lower: bool = False) -> tuple[str, str, str] | None:
    """``(name, rest of the line, time or "")`` when ``line`` looks like ``Name: …``,
    ``[time] Name: …`` or ``Name (time): …`` (a capitalised name of up to three words), else
    None. Whether the name is a speaker is for the whole transcript to say
    (:func:`speaker_names`); with ``lower``, a lower-case user name too."""
    match = _named_match(line, lower)
    if match is None:
        return None
    return match.group("name"), match.group("rest"), _written_time(match)


def _written_time(match: re.Match[str]) -> str:
    """The time a speaker line writes, wherever it writes it."""
    return next((match.group(g) for g in ("stamp", "bare", "paren", "square") if match.group(g)), "")


def _named_match(line: str, lower: bool = False) -> re.Match[str] | None:
    """The speaker-line match of ``line``: a capitalised name, or one in a script without case
    (李雷, محمد); with ``lower``, a lower-case user name too (``priya``), for a file whose
    evidence says its lower-case names are people (:func:`_lower_case_speakers`)."""
    if "\t" in line[:80]:
        tabbed = TAB_SPEAKER.match(line)
        if tabbed is not None:
            return tabbed
    if line.startswith("<v"):
        return VOICE_SPEAKER.match(line)
    if line.lstrip()[:1] == "#":
        heading = HEADING_NAME.match(line)
        if heading is not None and not is_label_word(heading.group("name")) \
                and not heading.group("name")[0].islower():
            return heading
    if "From" in line[:20]:
        zoom = ZOOM_SPEAKER.match(line)
        if zoom is not None:
            return zoom
    if "  " in line[:100]:
        spaced = SPACED_SPEAKER.match(line)
        if spaced is not None and not is_label_word(spaced.group("name")):
            return spaced
    if "\u2014" in line[:64]:
        dashed = DASH_SPEAKER.match(line)
        if dashed is not None and not is_label_word(dashed.group("name")):
            return dashed
    match = _NAMED_SPEAKER.match(line)
    if match is not None and lower and _LOWER_NAME.fullmatch(match.group("name")):
        return match
    if match is None or any(word[0].islower() for word in match.group("name").split()):
        return _IRC_SPEAKER.match(line) if "<" in line[:80] else None
    return match


# A user name in lower case: one word of letters (a logger's "urllib3.connectionpool" or
# "worker-1" is none).
_LOWER_NAME = re.compile(r"[^\W\d_](?:[^\W\d_]|['\-](?=[^\W\d_])){0,30}")


def _lower_case_speakers(lines: list[str]) -> frozenset[str]:
    """The lower-case names of a chat exported with user names (``2023-05-08 13:56 priya:
    …``), told from a log's components (``13:56:01 worker: started``) by the evidence over the
    file rather than by case: every such line with a time before the name, two to twelve
    names, one back after another spoke, and people addressed in a quarter of the lines or
    more (a question, I, you, we: what a log never writes); else none."""
    order: list[str] = []
    addressed = 0
    for line in outside_fences(lines):
        match = _NAMED_SPEAKER.match(line)
        if match is None or not _LOWER_NAME.fullmatch(match.group("name")) \
                or match.group("name") in _LABELS or match.group("name").upper() in _LOG_LEVELS:
            continue
        if not (match.group("stamp") or match.group("bare")):
            return frozenset()  # "name: value": a record's fields, however they read
        order.append(match.group("name"))
        addressed += addresses_someone(match.group("rest"))
    names = set(order)
    returns = any(order[at - 1] != order[at] and order[at] in order[:at - 1]
                  for at in range(2, len(order)))
    if 2 <= len(names) <= 12 and returns and addressed * 4 >= len(order):
        return frozenset(names)
    return frozenset()


def irc_event(line: str) -> bool:
    """True for a line an IRC log writes that no one said (``-!- tomas has joined``, ``*
    priya waves``)."""
    return _IRC_EVENT.match(line) is not None


def _shape(match: re.Match[str]) -> tuple[bool, bool, bool]:
    """How a speaker line is written: with a time before the name, a time after it, in bold."""
    return (bool(match.group("stamp") or match.group("bare")),
            bool(match.group("paren") or match.group("square")), bool(match.group("bold")))


def outside_fences(lines: Iterable[str]) -> Iterator[str]:
    """The lines that are not inside fenced code blocks (nor the fences themselves)."""
    fenced = False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield line


def speaker_names(lines: list[str]) -> frozenset[str]:
    """The people's names that start turns (outside code fences), in a transcript with no
    ``User:``/``Assistant:``-style speaker lines; empty when it has those.

    A name that starts at least two lines is a speaker. So is one that starts a single line
    (the third person of a group chat who spoke once) when two names are speakers already (one
    is enough where the speaker lines carry a time, where that line comes between two of the
    one speaker's, a reply, or opens or closes a file of nothing but speaker lines), its line
    is written as theirs are (the same ``[time]``, ``(time)`` or bold) and has text after the
    colon, and the name is no label word (``Note:``, ``Date:``, ``Summary:``). Whatever
    their counts, the names are none when their lines do not read as people talking
    (:func:`~.speech_lines.lines_speak`: ``Note:`` twice in a checklist, ``Error:`` in a build
    log, ``Host:``/``Port:`` records)."""
    counts: dict[str, int] = {}
    once: dict[str, tuple[tuple[bool, bool, bool], str]] = {}
    shapes: dict[str, set[tuple[bool, bool, bool]]] = {}
    order: list[str] = []  # the names starting lines, in the order of the lines
    sequence: list[str] = []  # the same with "" for each User:-style line among them
    role_lines: set[str] = set()  # the roles User:-style lines name
    dated = False  # a date line seen: LINE's "13:56<TAB>Priya<TAB>…" lines are under one
    dated_heading = False  # a heading that is a date: notes, whose "## Next steps:" are no one
    headed: dict[str, bool] = {}  # whether every line a name starts is a "#### You:" heading
    spoken: list[tuple[str, str, str]] = []  # (name, what it says, how written) for each line
    for line in outside_fences(lines):
        role_line = _role_speaker(line)
        if role_line is not None:
            role_lines.add(role_line[0])
            sequence.append("")
            continue
        match = _named_match(line)
        if match is not None and match.re is TAB_SPEAKER and not dated:
            continue  # a table's "13:56<TAB>worker<TAB>…" rows, with no day above them
        if match is None and not dated:
            dated = date_line(line) is not None
        if match is None and line.startswith("#") and not dated_heading:
            dated_heading = date_line(line) is not None
        if match is not None:
            name = match.group("name")
            headed[name] = headed.get(name, True) and match.re is HEADING_NAME
            if name.lower() in _LABELS and date_line(line) is not None:
                continue  # "Date: 08/05/2023" dates the turns after it, however often
            if name in _LOG_LEVELS:
                continue
            counts[name] = counts.get(name, 0) + 1
            shape, rest = _shape(match), match.group("rest").strip()
            # a line of an export's own shape (a Zoom, LINE or pasted Discord header) says a
            # message starts whatever it says
            spoken.append((name, rest, EXPORT_LINE if match.re is not _NAMED_SPEAKER
                           else TIMED_LINE if shape[0] or shape[1] else ""))
            order.append(name)
            sequence.append(name)
            shapes.setdefault(name, set()).add(shape)
            if not rest and match.re in HEADER_SHAPES:
                rest = "\n"  # its words are on the lines below it, as every message's are
            once.setdefault(name, (shape, rest))
    heads = {name for name, only in headed.items() if only}
    if heads and (dated_heading or not _take_turns([n for n in order if n in heads])):
        # "## Next steps:" of notes, day after day, is a section, not someone speaking
        for name in heads:
            counts.pop(name)
            once.pop(name, None)
        order = [name for name in order if name not in heads]
        sequence = [name for name in sequence if name not in heads]
    if role_lines:
        beside = _beside_roles(sequence, role_lines, counts)
        said = [line for line in spoken if line[0] in beside]
        return beside if lines_speak(said, True) else frozenset()
    names = {name for name, n in counts.items() if n >= 2}
    if not names:
        return _each_line_timed_speaker(lines, once) or _lower_case_speakers(lines)
    usual = set().union(*(shapes[name] for name in names))
    known = set(names)
    for name, (shape, rest) in once.items():
        timed = shape[0] or shape[1]  # "[time] Name:" or "Name (time):" says a turn starts
        if (counts[name] == 1 and shape in usual
                and (len(known) >= 2 or timed or _answers_between(order, name, known)
                     or _replies_at_an_end(lines, order, name, known)) and rest
                and name.lower() not in _LABELS and date_line(f"{name}: {rest}") is None
                and not _opens_with_roll_call(order, name, rest, known)):
            names.add(name)
    said = [line for line in spoken if line[0] in names]
    if not lines_speak(said, _take_turns([name for name in order if name in names])):
        return frozenset()  # "Note: …" twice, "Host: db.internal", "Port: 5432": no one talks
    return frozenset(names)


def _take_turns(names: list[str]) -> bool:
    """Whether ``names`` (who starts each turn, in order) are two or more taking turns: one
    back after another spoke."""
    return len(set(names)) >= 2 and any(
        names[at - 1] != names[at] and names[at] in names[:at - 1] for at in range(2, len(names)))


def _beside_roles(sequence: list[str], role_lines: set[str],
                  counts: dict[str, int]) -> frozenset[str]:
    """The names that take turns with ``User:``-style lines of one role (``User:`` beside
    ``Gemini:``, ``**Human:**`` beside ``**Claude:**``): each starts two lines or more, no label
    word, and a role line comes between any two of its lines (``Items: tent`` then ``Items:
    water`` inside one turn are its text). Lines of two roles already are a whole chat: none."""
    if len(role_lines) != 1 or role_lines & {"system", "tool"}:
        return frozenset()
    found = set()
    for name, n in counts.items():
        if n < 2 or is_label_word(name):
            continue
        mine = [token for token in sequence if token in ("", name)]
        if all(not (a == b == name) for a, b in zip(mine, mine[1:])):
            found.add(name)
    return frozenset(found)


def role_beside(lines: list[str]) -> str:
    """The role of the names that take turns with ``User:``-style lines of one role
    (:func:`_beside_roles`): the assistant's beside the user's, and the other way round; "" in
    a file without such lines."""
    roles = {found[0] for line in outside_fences(lines)
             if (found := _role_speaker(line)) is not None}
    if roles == {"user"}:
        return "assistant"
    return "user" if roles == {"assistant"} else ""


def _opens_with_roll_call(order: list[str], name: str, rest: str, speakers: set[str]) -> bool:
    """Whether the one line ``name`` starts is the first of the file and names two or more of
    the people who speak after it (``[09:00] Q3 planning: Priya, Omar and Lee joined.``): a
    meeting's label over its roll call, not a person who spoke once (who would be the user)."""
    if not order or order[0] != name:
        return False
    words = set(re.findall(r"[\w'.\-]+", rest))
    return sum(1 for speaker in speakers if set(speaker.split()) <= words) >= 2


def _answers_between(order: list[str], name: str, speakers: set[str]) -> bool:
    """Whether the one line ``name`` starts comes between two lines of the same speaker, a
    reply in a back-and-forth ("Priya: …", "Tomás: nice", "Priya: …"): in a two-person chat
    where the other person spoke once, only that says the line is a turn."""
    at = order.index(name)
    return 0 < at < len(order) - 1 and order[at - 1] == order[at + 1] \
        and order[at - 1] in speakers


def _replies_at_an_end(lines: list[str], order: list[str], name: str, speakers: set[str]) -> bool:
    """Whether the one line ``name`` starts opens or closes a two-person chat of one-line
    messages, every line written a speaker line ("Priya: coming Saturday?", "Priya: 7am at the
    bridge", "Tomás: ok"): the other person, who spoke once, first or last. Where other text
    stands between the lines (a notes file's paragraphs), only a reply between two lines of the
    speaker says so (:func:`_answers_between`)."""
    if len(speakers) != 1 or name not in (order[0], order[-1]):
        return False
    written = [line for line in outside_fences(lines) if line.strip() and date_line(line) is None]
    return len(written) == len(order)


def _each_line_timed_speaker(lines: list[str],
                             once: dict[str, tuple[tuple[bool, bool, bool], str]]) -> frozenset[str]:
    """The names of a short chat in which no one spoke twice yet ("[10:02] Dana: hi",
    "[10:30] Lei: hello", "[10:40] Sam: hey"): speakers when every line is such a turn, with
    a time, text after the colon, and a name no label word; else none. Without times
    ("Dana: who is bringing the cake?", "Lei: I can bake one tonight") every line must be
    written alike and say a sentence (three words or more), or the first line ask or address
    the other and no line be a machine's value ("Ann: lunch at noon?", "Bo: sure"): "Name:
    Dana Reyes", "Role: Engineer" are a record's fields, not a chat. A line that only dates the session ("Date: 8 May
    2023", "## Session 1 — 2023/05/28 (Sun) 19:47") is no line of the chat: it dates the turns."""
    written = [line for line in outside_fences(lines) if line.strip() and date_line(line) is None]
    if len(written) < 2 or len(once) != len(written):
        return frozenset()
    shapes = {shape for shape, _ in once.values()}
    timed = all(shape[0] or shape[1] for shape in shapes)
    said = [rest for _, rest in once.values()]
    # untimed, the first line may ask the other ("Ann: lunch at noon?", "Bo: sure") where a
    # record's first field never does ("Name: Dana Reyes", "Role: Senior Engineer")
    opens_talk = addresses_someone(said[0]) and not any(map(is_machine_value, said))
    for rest in said:
        if not rest or (not timed and (len(shapes) > 1
                                       or (len(rest.split()) < 3 and not opens_talk))):
            return frozenset()
    if any(name.lower() in _LABELS for name in once):
        return frozenset()
    return frozenset(once)


def _role_speaker(line: str) -> tuple[str, str] | None:
    stamped = _STAMPED_SPEAKER.match(line)
    return speaker_of(stamped.group("line") if stamped else line)


def date_line(line: str) -> str | None:
    """The ISO time a line that is only a date says (``8 May 2023``, ``Date: 2023-05-08``,
    ``## Session 2 — 1:56 pm on 8 May, 2023``, ``Session 2 (1:56 pm on 8 May, 2023)``,
    ``--- 2023-05-08 13:56 ---``, ``On 8 May 2023:``), or a Markdown heading that holds a whole
    date (``# Session log 2026-01-02``: the day of the clock times below it), else None; a
    :class:`~attention_cloud.ingest.timefmt.TurnTime`, which knows the day as written."""
    text = _BRACKETED_WEEKDAY.sub("", line.strip()).strip("#*_[]()=~ \t").strip(":- \t")
    if not text or len(text) > 90 or not _YEAR.search(text):
        return None
    text = DATE_LABEL.sub("", text, count=1) if DATE_LABEL.match(text) else text
    candidates = [text] + [text.rsplit(sep, 1)[1] for sep in _DATE_SEPARATORS if sep in text]
    # "Session 1 (1:56 pm on 8 May, 2023)", "On 8 May 2023:"
    banner = line.strip().strip("#*_=~:- \t")
    candidates += [found[1] for found in (_LAST_BRACKETS.search(banner), _ON_DATE.match(text),
                                          _LOG_DAY.match(text))
                   if found is not None]
    for candidate in candidates:
        if _YEAR.search(candidate):
            time = read_turn_time(candidate.strip("*_()[] \t"))
            if time:
                return time
    if line.lstrip().startswith("#"):  # a title that ends with its day: "# Session log 2026-01-02"
        for found in _DATE_IN_HEADING.finditer(text):
            time = read_turn_time(found.group(0))
            if time:
                return time
    return None


_DATE_ONLY_LABEL = re.compile(r"(?:session[ \t]+)?date[ \t]*:[ \t]*", re.I)


_MONTH_NAME = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
               r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
# A line that is only a day of a month, its weekday perhaps, and no year: "May 8th", "Mon 8 May",
# "Tuesday, the 9th of May". It dates the turns below it, but in no year this reader can name.
_YEARLESS_DAY = re.compile(
    r"(?i)(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
    r"(?:(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH_NAME
    + r"|" + _MONTH_NAME + r"\s+\d{1,2}(?:st|nd|rd|th)?)")


def unread_date(line: str) -> str:
    """The date a line gives under a date's label ("Date: …", "Session date: …") where
    :func:`date_line` cannot read it ("Date: sometime in June"), as written; "" for any other
    line ("Time: 10:30" gives no date to read). Such a date is reported, never dropped in
    silence."""
    text = line.strip().strip("#*_ \t")
    label = _DATE_ONLY_LABEL.match(text)
    if label:
        return text[label.end():].strip()
    return yearless_day(line)


def the_one_year(lines: list[str], named_day: str, stamped_days: Iterable[str] = ()) -> str:
    """The year the dates of a file give when they give one only: its name's day
    (``club-2023-05-08.md``), the days its speaker lines write in full (``stamped_days``,
    ``YYYY-MM-DD``) and every date line outside code fences; "" when none does, or they give
    two years or more (a date line without one cannot then be placed)."""
    years = {named_day[:4]} if named_day else set()
    years.update(day[:4] for day in stamped_days if day)
    for line in outside_fences(lines):
        if len(line) <= 90 and _YEAR.search(line):
            dated = date_line(line)
            if dated is not None:
                years.add(dated.day[:4])
    return years.pop() if len(years) == 1 else ""


_THE_OF = re.compile(r"(?i)\bthe\s+|\s+of\b")
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _weekday_fits(written: str, day: str) -> bool:
    """Whether the weekday a date line names, if any, is that of ``day`` (``YYYY-MM-DD``)."""
    named = re.match(r"(?i)(mon|tue|wed|thu|fri|sat|sun)", written.strip())
    if named is None:
        return True
    return _WEEKDAYS[datetime.date.fromisoformat(day).weekday()] == named.group(1).lower()


def day_in_year(written: str, year: str) -> TurnTime | None:
    """The day a date without a year (``May 8th``, ``Tue 9 May``, ``the 9th of May``) names in
    ``year``; None when that is no day, or not the weekday it names."""
    plain = _THE_OF.sub(" ", written).strip()  # "the 9th of May": "9th May"
    dated = date_line(f"{plain} {year}")
    if dated is None or not _weekday_fits(written, dated.day):
        return None
    return dated


def yearless_day(line: str) -> str:
    """The day and month a line that is only those gives without a year (``## May 8th``,
    ``Tue 9 May``), as written; "" for any other line."""
    bare = line.strip().strip("#*_[]()=~-:. \t")
    return bare if _YEARLESS_DAY.fullmatch(bare) else ""


def heading_date(title: str) -> str:
    """The date a heading names, as written: the whole heading when it is a date line
    (``Tuesday, March 11, 2025``, ``Standup — 2025-03-04``), else a whole date inside it
    (``Meeting 2025-03-04``, ``2025-03-04 (Tue)``, ``Standup 04.03.2025``, ``Week of March 3,
    2025``); "" when it names no day."""
    if date_line(title):
        return title
    for found in _DATE_IN_HEADING.finditer(title):
        if date_line(found.group(0)):
            return found.group(0)
    return ""


def named_role(name: str, roles: dict[str, str], returning: frozenset[str]) -> str:
    """The role of a named speaker first heard now, ``roles`` those heard before in the file:
    the user's for the first of ``returning`` (the file's speakers who took the user's role
    before it) to speak, or where none of them speaks here, for the first speaker; the
    assistant's for everyone else."""
    if "user" in roles.values():
        return "assistant"
    if returning:
        return "user" if name in returning else "assistant"
    return "user" if not roles else "assistant"


_BULLET = re.compile(r"[-*+][ \t]+")  # a top-level list item's marker: none indented
_ATTENDEES = re.compile(r"[-*+ \t]*[*_]*(?:attendees|participants|present)[*_]*[ \t]*:", re.I)


def _speaker_bullet(line: str) -> re.Match[str] | None:
    """The speaker-line match of a top-level list item that starts ``Name:`` (``- **Priya**:
    …``), the name no label word; else None."""
    bullet = _BULLET.match(line)
    if bullet is None:
        return None
    match = _named_match(line[bullet.end():])
    return None if match is None or is_label_word(match.group("name")) else match


def is_bulleted_chat(lines: list[str]) -> bool:
    """Whether ``lines`` are a chat written as bullets of named speakers (``- **Priya**: …``
    under ``**2023-05-08**`` or ``## 2023-05-08``, ``- Priya: …`` under a date line that is no
    heading, ``* 13:56 Priya: …``), not meeting notes whose items name who said them (``- Omar:
    …`` among ``- Decided …``, or a dated heading's ``- Omar: …`` items, which notes read). The
    evidence: two names or more with one back after another spoke, every top-level item a
    speaker's, with no attendees line (minutes mix ``- Decided …`` items in, or list who came),
    and either every bullet with its own time (a log of messages; with a date line above unless
    the times name their day), or a date line above the first bullet with the names in bold, or
    in plain text under a date line no notes reader takes (``**2023-05-08**``, not ``## …``)."""
    names: list[str] = []
    bold = timed = whole_dates = True
    every_item_a_speaker = True
    dated = under_heading = False
    for line in outside_fences(lines):
        match = _speaker_bullet(line)
        if match is None:
            if _BULLET.match(line) or _ATTENDEES.match(line):
                every_item_a_speaker = False
            elif not names and (date_line(line) or yearless_day(line)):
                dated, under_heading = True, line.lstrip().startswith("#")
            continue
        names.append(match.group("name"))
        bold = bold and bool(match.group("bold"))
        written = _written_time(match)
        timed = timed and bool(written)
        whole_dates = whole_dates and bool(written) and bool(read_turn_time(written))
    returns = any(names[at - 1] != names[at] and names[at] in names[:at - 1]
                  for at in range(2, len(names)))
    if len(set(names)) < 2 or not returns or not every_item_a_speaker:
        return False
    if timed:
        return dated or whole_dates
    return dated and (bold or not under_heading)


def without_bullets(lines: list[str]) -> list[str]:
    """``lines`` with the list marker cut from each speaker's bullet when they are a bulleted
    chat (:func:`is_bulleted_chat`), so each bullet reads as a speaker line; else as they are
    (line numbers never change)."""
    if not any(_BULLET.match(line) for line in lines[:_LINES_TO_SCAN]) \
            or not is_bulleted_chat(lines[:_LINES_TO_SCAN]):
        return lines
    fenced = False
    out = []
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        bullet = None if fenced or _speaker_bullet(line) is None else _BULLET.match(line)
        out.append(line[bullet.end():] if bullet else line)
    return out


_LINES_TO_SCAN = 2000


def has_speaker_lines(text: str, lines_to_try: int = 2000) -> bool:
    """True when the first lines of ``text`` (outside code fences) name a speaker: a
    ``User:``-style line, or a person's name starting two turns."""
    lines = without_bullets(without_cues(
        [line.rstrip("\r") for line in text.split("\n", lines_to_try)[:lines_to_try]])[0])
    fenced = False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and _role_speaker(line) is not None:
            return True
    return bool(speaker_names(lines))


class PlainTextParser:
    """Parses a speaker-line transcript into an :class:`ItemCollector`."""

    def __init__(self, collector: ItemCollector, default_session: str) -> None:
        self.collector = collector
        self.session = default_session
        self.clock = LogClock()  # the day a speaker line's clock time alone ("[10:30]") is on
        self.day_first = False  # "08/05/2023": month first unless the file says otherwise
        self.undated = False  # a date line above could not be read (reported once, there)
        self.tabbed = False  # a LINE export ("13:56<TAB>Priya<TAB>…"), known once names are
        self.zoom = False  # a Zoom meeting's chat ("13:56:03 From Priya to Everyone:")
        self.beside = ""  # the role of names beside User:-style lines ("Gemini:" by "User:")
        self.cued = False  # a caption file (WebVTT, SubRip): a turn's cues have no paragraphs
        self.offsets = False  # Otter's "Priya Patel  0:01": a recording's time, not a clock's
        self.date_above: TurnTime | None = None  # the date line above the turns, if any
        self.start_above = False  # it writes a clock too: a recording's start, offsets count from
        self.today = ""  # the day "Today at 10:03 PM" is: the date line's, else the file name's

    def parse(self, source: Source) -> int:
        """Read every turn; return how many turns there were."""
        # Envelopes go first, replaced by their newlines so line numbers stay the file's own.
        lines, cue_starts = without_cues(
            self.collector.lines_without_envelopes(source, lone_close=False))
        lines = without_bullets(lines)
        self.cued = bool(cue_starts)
        zoom_start = ZOOM_START.search(source.stem) if cue_starts else None
        meeting = datetime.datetime(*map(int, zoom_start.groups())) if zoom_start else None
        names = speaker_names(lines)
        # "Gemini:" beside "User:" lines: the role the User: lines leave
        self.beside = role_beside(lines) if names else ""
        # a log whose speakers are nicks in angle brackets: its events end turns
        irc = bool(names) and any(
            (m := _IRC_SPEAKER.match(line)) is not None and m.group("name") in names
            for line in lines[:2000] if "<" in line[:80])
        # a LINE export: its one-tab lines are events, and its messages of several lines quoted
        self.tabbed = bool(names) and any(
            (m := TAB_SPEAKER.match(line)) is not None and m.group("name") in names
            for line in lines[:2000] if "\t" in line[:80])
        # a Zoom meeting's chat: its messages on the lines below the sender's, tab-indented
        self.zoom = bool(names) and any(
            (m := ZOOM_SPEAKER.match(line)) is not None and m.group("name") in names
            for line in lines[:2000] if "From" in line[:20])
        self.day_first = self._day_order(lines)
        self.offsets = are_recording_offsets([
            m.group("bare") for line in lines[:2000] if "  " in line[:100]
            and (m := SPACED_SPEAKER.match(line)) is not None and m.group("name") in names])
        named_day = file_date(source.stem)
        if not named_day and self.zoom:  # its folder is named after the meeting's start
            named_day = file_date(Path(source.pointer_base).parent.name)
        if named_day:  # "club-2023-05-08.txt": the day of "[10:30] Priya: …"
            self.clock.dated(named_day)
            self.today = named_day
        year: str | None = None  # read at the first date line without one: most have none
        self.yearless_read: list[tuple[int, str]] = []
        last_day = ""  # the day of the date line above: a year's day before it is the next's
        roles = self.collector.named_roles  # name -> role, as named_role gives them
        returning = names & self.collector.user_names
        turns = 0
        role, start, end, body, who, when = "", 0, 0, [], "", ""
        session_time = ""
        fenced = False
        after_blank = True  # the line before was blank (or there was none)
        for number, line in enumerate(lines, 1):
            if FENCE.match(line):
                fenced = not fenced
            speaker = None if fenced else self._speaker(line, names, roles, returning, number)
            heads = after_blank or not role  # a line here may head the turns after it
            after_blank = not line.strip()
            if speaker is None:
                dated = None if fenced else date_line(with_iso_dates(line, self.day_first))
                if dated is None and not fenced and yearless_day(line):
                    if year is None:
                        year = the_one_year(lines, file_date(source.stem),
                                            self._stamped_days(lines, names))
                    dated = self._in_year(line, number, year, last_day) if year else None
                if dated is not None:
                    session_time = dated  # dates the turns after it
                    self.clock.dated(dated.day)
                    last_day = self.today = dated.day
                    # "May 8, 2023, 1:56 PM" over Otter's offsets: the recording's start
                    self.date_above, self.start_above = dated, has_clock(line)
                elif (heads or yearless_day(line)) and not fenced and unread_date(line):
                    if role:  # the turn before ends here, with the time it had
                        self._turn(role, (start, end), body, source.pointer_base, who, when)
                        role = ""
                    self.collector.unread_times.append((number, unread_date(line)[:120]))
                    session_time = ""  # its turns have no time, not the session's before
                    self.clock.dated("")  # nor do its clock times ("[13:56]"): no day to be on
                    self.today, self.date_above = "", None
                    self.undated = True
                elif names and not fenced and TIME_MARK.fullmatch(line):
                    if role:  # Google Meet's "00:05:00": the recording's time, no one's words
                        self._turn(role, (start, end), body, source.pointer_base, who, when)
                        role = ""
                    self.collector.ignore("time mark")
                elif self.tabbed and not fenced and TAB_EVENT.match(line):
                    if role:  # "Priya unsent a message.": no one's words, and the turn's end
                        self._turn(role, (start, end), body, source.pointer_base, who, when)
                        role = ""
                    self.collector.ignore("system")
                elif irc and not fenced and irc_event(line):
                    if role:  # a join or an action ends the turn above: it is no one's words
                        self._turn(role, (start, end), body, source.pointer_base, who, when)
                        role = ""
                    self.collector.ignore("irc-event")
                elif not role and names and not fenced:
                    self._label_note(line, number, source.pointer_base, session_time)
                elif role:
                    body.append(line)
                    end = number if line.strip() else end  # blank lines before the next: not it
                continue
            if role:
                self._turn(role, (start, end), body, source.pointer_base, who, when)
            turns += 1
            role, who, rest, stamp = speaker
            if self.tabbed and TAB_MEDIA.match(rest.strip()):
                role = ""  # "[Sticker]", "[Photo]": LINE left the file out
                self.collector.ignore("media")
                continue
            # no stamp: the date line's time; an unreadable one (reported): none
            start, end, body = number, number, [rest]
            when = session_time if stamp is None else stamp
            if meeting is not None and number in cue_starts:  # the meeting's start + the cue's
                moment = meeting + datetime.timedelta(seconds=cue_starts[number])
                when = TurnTime(moment.strftime("%Y-%m-%dT%H:%M:%SZ"), moment.date().isoformat())
        if role:
            self._turn(role, (start, end), body, source.pointer_base, who, when)
        if self.yearless_read:
            self.collector.note(
                f"{len(self.yearless_read)} date line(s) without a year read in {year}, the "
                f"only year the file's name and dates give (line {self.yearless_read[0][0]}: "
                f"{self.yearless_read[0][1]!r})")
        self.collector.records_read += turns
        if turns == 0:
            raise fail(source.name, "no speaker lines (User:, Assistant:, ## User ...) found")
        return turns

    def _speaker(
        self, line: str, names: frozenset[str], roles: dict[str, str],
        returning: frozenset[str], number: int
    ) -> tuple[str, str, str, str | None] | None:
        """``(role, speaker name or "", rest of the line, turn time)`` for a line that starts a
        turn; the time is None when the line has none, "" when its own cannot be read."""
        stamped = _STAMPED_SPEAKER.match(line)
        standard = speaker_of(stamped.group("line") if stamped else line)
        if standard is not None:
            return standard[0], "", standard[1], self._stamp(number, stamped.group("stamp")) \
                if stamped else None
        if not names:
            return None
        named = named_speaker_of(line, lower=True)  # a lower-case name only when one of names
        if named is None or named[0] not in names:
            return None
        # read only once the line is known to start a turn: a turn's own line opening with
        # "[Neighborhood 2]" is text, not a time to report unread
        stamp = self._stamp(number, stamped.group("stamp")) if stamped else None
        name, rest, written = named
        if stamp is None and written and self.offsets and SPACED_SPEAKER.match(line):
            # Otter's "Priya Patel  0:01": the recording's time
            stamp = self._offset_time(number, written)
        elif stamp is None and written:  # "Priya (13:56): …", "13:56 Priya: …"
            stamp = self._stamp(number, written)
        if self.beside:
            return self.beside, name, rest, stamp
        role = roles.setdefault(name, named_role(name, roles, returning))
        return role, name, rest, stamp

    def _stamped_days(self, lines: list[str], names: frozenset[str]) -> Iterator[str]:
        """The days the file's speaker lines write in full (``[2023-05-07 10:00] Priya: …``),
        in its order of day and month: a year they give places a date line without one."""
        for line in outside_fences(lines):
            stamped = _STAMPED_SPEAKER.match(line)
            named = _named_match(line, lower=True)
            if stamped and _role_speaker(line):  # "[2023-05-07 10:00] User: …"
                written = stamped.group("stamp")
            elif named is not None and named.group("name") in names:
                written = _written_time(named)
            else:
                continue
            dated = read_turn_time(with_iso_dates(written, self.day_first)) if written else None
            if dated:
                yield dated.day

    def _in_year(self, line: str, number: int, year: str, last_day: str) -> TurnTime | None:
        """The day a date line without a year (``## May 8th``, ``Tue 9 May``) names in
        ``year``, the one the file gives; None (left to be reported unread) when that is no
        day, not the weekday the line names, or before the date line above it (``Jan 2``
        after ``Dec 30, 2023``: the year may have turned)."""
        written = yearless_day(line)
        dated = day_in_year(written, year)
        if dated is None or dated.day < last_day:
            return None
        self.yearless_read.append((number, written))
        return dated

    def _label_note(self, line: str, number: int, base: str, session_time: str) -> None:
        """Keep a labelled line before the first turn (``[09:00] Standup: Priya, Omar and Lee
        joined.``) as a note: its label is no speaker, but what it says is no title to drop."""
        named = named_speaker_of(line)
        if named is None or not named[1].strip():
            return
        label, rest, written = named
        stamped = _STAMPED_SPEAKER.match(line)
        stamp = self._stamp(number, stamped.group("stamp") if stamped else written) \
            if (stamped or written) else session_time
        text = strip_system_reminders(f"{label}: {rest}").strip()
        self.collector.add(record_no=number, session=self.session, kind="note", role="user",
                           identity=f"line{number}", text=message_text(text), time=stamp,
                           pointer=line_pointer(base, number, number))

    def _offset_time(self, number: int, written: str) -> str | None:
        """The moment of a recording's offset (Otter's ``0:01``): after the start the date line
        above gives with its clock; None (the turn takes the day) under a date line without
        one; reported unread, with its line, where the file gives neither."""
        moment = after_start(self.date_above, written) if self.start_above else None
        if moment is not None:
            return moment
        if self.date_above is not None:
            return None
        self.collector.unread_times.append((number, written))
        return ""

    def _stamp(self, number: int, written: str) -> str:
        """A speaker line's own time: as written when it names its day (``08/05/2023`` in the
        file's order of day and month), a clock time alone (``[10:30]``) on the day the file
        gave last, Discord's ``Today at 10:03 PM`` on the day the date line above (or the
        file's name) gives (:func:`~.relative_stamps.on_anchor_day`); an unreadable one is
        reported as written."""
        written = on_anchor_day(written, self.today) or without_clock_word(written)
        rewritten = with_iso_dates(written, self.day_first)
        found = self.clock.read(rewritten)
        if found:
            return found
        if self.undated and not self.clock.day:
            return ""  # a clock time under the unread date line, which the report names
        if rewritten != written:
            self.collector.unread_times.append((number, written))
            return ""
        return self.collector.time(number, written)

    def _day_order(self, lines: list[str]) -> bool:
        """Whether the file's numeric dates (``08/05/2023``, in its speaker lines' times and
        its date lines) put the day first, decided from all of them
        (:func:`~.timefmt.day_first_order`); when nothing decides it, by how the file writes
        its clock (:func:`~.timefmt.read_day_first`: month first with the US's ``PM``), as the
        ingest report notes."""
        day_first, note = day_first_of(self._date_heads(lines), "turns")
        if note:
            self.collector.note(note)
        return day_first

    @staticmethod
    def _date_heads(lines: list[str]) -> Iterator[str]:
        """What dates the turns in each line: a speaker line's time, a short line (a date
        line, "Date: 08/05/2023"), never a turn's own text."""
        for line in outside_fences(lines):
            stamped = _STAMPED_SPEAKER.match(line)
            named = None if stamped else _named_match(line)
            if stamped:
                yield stamped.group("stamp")
            elif named and (_written_time(named) or named.group("name").lower() not in _LABELS):
                yield _written_time(named)  # a turn's own text is no date line
            else:
                yield line if len(line) <= 90 else ""  # a date line: "Date: 08/05/2023"

    def _turn(
        self, role: str, lines: tuple[int, int], body: list[str], base: str, speaker: str,
        time: str
    ) -> None:
        if self.tabbed:
            body = unquoted(body)
        if self.zoom:
            body = [line[1:] if line.startswith("\t") else line for line in body]
        if self.cued:  # a speaker's cues, one after the other: lines of one text
            body = [line for line in body if line.strip()]
        add_turn(self.collector, self.session, role, lines, body, base, speaker, time)


def add_turn(
    collector: ItemCollector,
    session: str,
    role: str,
    lines: tuple[int, int],
    body: list[str],
    base: str,
    speaker: str,
    time: str,
) -> None:
    """Add the item of one speaker turn (``body``: its lines) written on ``lines``, its first
    (the speaker line or heading: the item's identity) to its last line with text (its pointer
    names them all, ``base:first-last``, so its source is the whole turn)."""
    line, last = lines
    # a close the file-wide scan left (no opening before it): envelope text up to it in this turn
    text, lone = strip_envelopes("\n".join(body))
    collector.envelopes_stripped += lone
    text = strip_system_reminders(text).strip()
    if role == "user":
        kind = named_user_kind(text, speaker)
    elif role == "assistant":
        kind = assistant_text_kind(text)
    elif role == "tool":
        kind = tool_output_kind(None, text, False)
    else:
        kind = "turn" if text else None
    if kind is None:
        collector.no_item(text)
        return
    item_text = output_text(None, text, kind) if role == "tool" else message_text(text)
    collector.add(
        record_no=line,
        session=session,
        kind=kind,
        role=role,
        identity=f"line{line}",
        text=item_text,
        time=time,
        pointer=line_pointer(base, line, last),
        sets_goal=kind == "user_goal",
        speaker=speaker,
    )
