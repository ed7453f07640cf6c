"""Whether a file's ``Name: …`` lines are people talking, or a record's keys and a log's labels.

A text chat and a configuration file, a checklist or a build log can look alike line by line:
``Priya: coming Saturday?`` and ``Host: db.internal``, ``Note: flush the cache`` or ``Error: cannot
find module`` all start with a capitalised word and a colon. What tells them apart is the file as
a whole, not a list of every key a file may use:

- a record's values are machine tokens (``5432``, ``db.internal``, ``/var/log``,
  ``dana@example.com``) or short capitalised names and titles (``Dana Reyes``, ``Payments``),
  which most of a person's lines are not (:func:`is_field_value`);
- people address each other: some of their lines ask something or say I, you, we
  (:data:`ADDRESSED`); a log's messages almost never do;
- a word that labels a line (``Note``, ``Error``, ``Summary``: :func:`is_label_word`) is a speaker
  only where such words take turns as people do and their lines address someone (an interview's
  ``Q:`` and ``A:``), never where one label merely recurs.

A speaker line that carries its time (``[10:02] Priya: …``) says it is a message whatever it says:
those are not held to the first rule (a log's levels, ``INFO:``, are never people anyway).
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
ADDRESSED = re.compile(
    r"[?？؟]|(?i:\b(?:i|i'm|i'll|i've|me|my|you|you're|your|we|we're|us|our"
    r"|ich|du|wir|ihr|je|j'|tu|nous|vous|yo|tú|nosotros|eu|você|nós|io|noi|voi|jij|wij|jullie)\b)"
    r"|我|你|您|私|僕|あなた|나는|너|우리|저는")
# One token that holds a digit or a character words do not (a port, a host, a path, an address,
# a version, a key=value): a value a machine wrote or reads, not something a person said.
_MACHINE_TOKEN = re.compile(r"\S*[\d./\\:@=_]\S*")


def is_label_word(name: str) -> bool:
    """True for a word that labels a line (``Note``, ``Action``, ``Decision``) or a log's
    level (``INFO``) rather than names a person."""
    return name.lower() in LABELS or name in LOG_LEVELS


def addresses_someone(said: str) -> bool:
    """Whether ``said`` asks something or speaks to or of the people talking (I, you, we)."""
    return ADDRESSED.search(said) is not None


def is_machine_value(said: str) -> bool:
    """Whether ``said`` is one token a machine writes (``5432``, ``db.internal``, ``/srv``):
    a key's value; a one-word reply (``sure``, ``ok!``) is not."""
    return _MACHINE_TOKEN.fullmatch(said.strip()) is not None


def is_field_value(said: str) -> bool:
    """Whether ``said`` reads as a record's value rather than something said: a machine token
    (:func:`is_machine_value`), or a short name or title, up to three words each capitalised
    or a number (``Dana Reyes``, ``Senior Engineer``, ``Payments``), asking nothing."""
    if is_machine_value(said):
        return True
    words = said.split()
    return (0 < len(words) <= 3 and not addresses_someone(said)
            and all(word[0].isupper() or word[0].isdigit() for word in words))


def lines_speak(lines: Sequence[tuple[str, str, bool]], take_turns: bool) -> bool:
    """Whether the lines the candidate speakers start are people talking.

    Args:
        lines: ``(name, what follows the colon, whether the line carries its time)`` for each
            line a candidate speaker starts, in the file's order.
        take_turns: whether the names take turns (one back after another spoke).

    Names that are all label words (``Note``, ``Error``, ``Q``) speak only when they take turns
    and a quarter of their lines or more address someone. Otherwise timed lines are messages,
    and untimed ones are unless more than half of them are a record's values
    (:func:`is_field_value`: ``Host: db.internal``, ``Port: 5432``, ``Name: Dana Reyes``).
    """
    if not lines:
        return False
    if all(is_label_word(name) for name, _, _ in lines):
        addressed = sum(addresses_someone(said) for _, said, _ in lines)
        return take_turns and addressed * 4 >= len(lines)
    if any(timed for _, _, timed in lines):
        return True
    fields = sum(is_field_value(said) for _, said, _ in lines)
    return fields * 2 <= len(lines)
