"""Whether a file's ``Name: …`` lines are people talking, or a record's keys and a log's labels.

A text chat and a configuration file, a checklist or a build log can look alike line by line:
``Priya: coming Saturday?`` and ``Host: db.internal``, ``Note: flush the cache`` or ``Error: cannot
find module`` all start with a capitalised word and a colon. What tells them apart is the file as
a whole, not a list of every key a file may use:

- a record's values are machine tokens (``5432``, ``db.internal``, ``/var/log``,
  ``dana@example.com``) or short capitalised names and titles (``Dana Reyes``, ``Senior
  Engineer``), which most of a person's lines are not (:func:`is_field_value`);
- people address each other: a chat's first line asks something or says I, you, we
  (:func:`addresses_someone`), where a record's first field does not (``Ann: lunch at noon?``,
  ``Bo: sure`` against ``Name: Dana Reyes``, ``Role: Senior Engineer``);
- a word that labels a line (``Note``, ``Error``, ``Summary``: :func:`is_label_word`) is a speaker
  only where such words take turns as people do and their lines ask something (an interview's
  ``Q:`` and ``A:``), never where one label merely recurs.

A speaker line in an export's own shape (Zoom's ``From Priya Patel to Everyone:``) is a message
whatever it says. One that carries its time (``[10:02] Priya: …``) is a message too: an
application log's components (``10:02:11 Scheduler: queued 12 jobs``) take turns with their
times and address no one, but so do terse chats, and refusing a chat loses all of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Words that label a line ("Note: …", "Date: …") rather than name a person.
LABELS = frozenset("""
    note notes nb ps p.s warning caution important tip hint example edit update updated todo
    fixme re subject from to cc bcc date time timestamp when where location venue address
    session step question answer q a summary tldr result results output input error reason
    status goal context source sources link links url email phone price cost total agenda
    action actions decision decisions attendees participants topic title reminder fyi btw
    standup stand-up meeting sync retro retrospective kickoff kick-off minutes recap
""".split())
# A log's levels ("[10:02] INFO: server started", "WARN:", "DEBUG:") are never speakers, however
# many lines they start: an application log read as a chat made INFO and WARN its people and
# glued each once-seen level's line (ERROR's) to the turn before it.
LOG_LEVELS = frozenset("TRACE DEBUG INFO NOTICE WARN WARNING ERROR ERR FATAL CRITICAL SEVERE".split())
#: What people say to each other and a record or a log never writes: a question (``?``, the
#: full-width ``？``, Arabic ``؟``), I, you, we, in English and the languages chats here are read
#: in (German, French, Spanish, Portuguese, Italian, Dutch; Chinese, Japanese and Korean, which
#: write no spaces between words, by the pronoun's characters alone).
_QUESTION_MARKS = ("?", "\uff1f", "\u061f")
_PRONOUNS = frozenset("""
    i i'm i'll i've i'd me my you you're you'll your we we're we'll us our
    ich du wir ihr je tu nous vous yo tú nosotros eu você nós io noi voi jij wij jullie
""".split())
_UNSPACED_PRONOUNS = ("我", "你", "您", "私", "僕", "あなた", "나는", "너", "우리", "저는")
_SPOKEN_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
# How many of a file's speaker lines the rules weigh: its first ones say what it is.
_LINES_WEIGHED = 500
#: How a speaker line is written: in an export's own shape (a Zoom, LINE or pasted Discord
#: header, an IRC nick), or with its time (``[10:02] Priya: …``, ``Priya (13:56): …``).
EXPORT_LINE, TIMED_LINE = "export", "timed"
_MACHINE_TOKEN = re.compile(r"\S*[\d./\\:@=_]\S*")


def is_label_word(name: str) -> bool:
    """True for a word that labels a line (``Note``, ``Action``, ``Decision``) or a log's
    level (``INFO``) rather than names a person."""
    return name.lower() in LABELS or name in LOG_LEVELS


def asks_something(said: str) -> bool:
    """Whether ``said`` holds a question mark (``?``, ``？``, ``؟``)."""
    return any(mark in said for mark in _QUESTION_MARKS)


def addresses_someone(said: str) -> bool:
    """Whether ``said`` asks something or speaks to or of the people talking (I, you, we)."""
    if asks_something(said):
        return True
    if not _PRONOUNS.isdisjoint(_SPOKEN_WORD.findall(said.lower())):
        return True
    return any(pronoun in said for pronoun in _UNSPACED_PRONOUNS)


def is_machine_value(said: str) -> bool:
    """Whether ``said`` is one token a machine writes (``5432``, ``db.internal``, ``/srv``):
    a key's value; a one-word reply (``sure``, ``ok!``) is not."""
    return _MACHINE_TOKEN.fullmatch(said.strip()) is not None


def is_field_value(said: str) -> bool:
    """Whether ``said`` reads as a record's value rather than something said: a machine token
    (:func:`is_machine_value`), or a name or title of two or three words each capitalised or a
    number (``Dana Reyes``, ``Senior Engineer``), asking nothing. One capitalised word
    (``Payments``, ``Sure``) may be either: see :func:`_one_word`."""
    if is_machine_value(said):
        return True
    words = said.split()
    return (2 <= len(words) <= 3 and not addresses_someone(said)
            and all(word[0].isupper() or word[0].isdigit() for word in words))


def _one_word(said: str) -> bool:
    """A line of one word that is no machine token: a record's ``Payments`` as well as a
    person's ``Sure``, so it counts neither way."""
    return len(said.split()) == 1 and not is_machine_value(said)


def lines_speak(lines: Sequence[tuple[str, str, str]], take_turns: bool) -> bool:
    """Whether the lines the candidate speakers start are people talking.

    Args:
        lines: ``(name, what follows the colon, how the line is written)`` for each line a
            candidate speaker starts, in the file's order; how: :data:`EXPORT_LINE`,
            :data:`TIMED_LINE` or "" (``Name: …`` alone).
        take_turns: whether the names take turns (one back after another spoke).

    Names that are all label words (``Note``, ``Error``, ``Q``) speak only when they take turns
    and a quarter of their lines or more ask something (an interview's ``Q:``; a meeting's
    ``Action:`` and ``Decision:`` lines take turns too, and say "we", but ask nothing). An
    export's own lines are messages, and so are timed lines (a log's ``10:02:11 Scheduler:
    queued 12 jobs`` too: see the module's docstring). Untimed ones are unless more than half
    of those of more than one word, or of a machine token, are a record's values
    (:func:`is_field_value`: ``Host: db.internal``, ``Port: 5432``, ``Name: Dana Reyes``); a
    one-word line (``Sure``, ``Payments``) says neither.
    """
    lines = lines[:_LINES_WEIGHED]
    if not lines:
        return False
    if all(is_label_word(name) for name, _, _ in lines):
        asked = sum(asks_something(said) for _, said, _ in lines)
        return take_turns and asked * 4 >= len(lines)
    if any(how == EXPORT_LINE for _, _, how in lines):
        return True
    if any(how == TIMED_LINE for _, _, how in lines):
        # Timed names are people: terse timed chats that address no one ("[2024-03-01 09:00]
        # Priya: the retry budget, step 3") are common, and refusing one loses a whole chat,
        # where an application log read as a chat only names its components as speakers.
        return True
    fields = sum(is_field_value(said) for _, said, _ in lines)
    telling = len(lines) - sum(_one_word(said) for _, said, _ in lines)
    return fields * 2 <= telling
