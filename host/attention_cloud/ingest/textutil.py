"""Small text rules shared by every format: whitespace, truncation, goals, noise."""

from __future__ import annotations

import json
import math
import re
from itertools import islice

from ..embed.terms import STOPWORDS
from .envelope import strip_tag_blocks

GOAL_MAX_CHARS = 300
"""A goal is the user's message, whitespace-collapsed and cut to this many characters."""

ELLIPSIS = " … "

# Bare acknowledgements carry no goal: a short message made only of these words and phrases
# is noise. Phrases hold words that mean something else on their own ("keep this" is not an
# acknowledgement; "keep going" is).
_ACK_WORDS = frozenset(
    """ok okay k kk okk thanks thank you thx ty cheers yes yeah yep yup ya sure great cool
    nice perfect awesome excellent lgtm alright fine good please pls continue proceed next
    done go""".split()
)
_ACK_PHRASES = (
    "looks good to me",
    "go on",
    "go ahead",
    "keep going",
    "carry on",
    "do it",
    "do that",
    "looks good",
    "sounds good",
    "got it",
    "makes sense",
    "all good",
    "that works",
    "thats right",
    "right",
    "agreed",
)
# Bare replies that redirect without saying where: kept as turns, but they never replace the
# active goal ("no" after a proposal does not make "no" the goal of what follows).
_REPLY_WORDS = frozenset("no nope nah stop wait hmm hm cancel abort".split())
_REPLY_PHRASES = ("hold on", "not yet", "not now", "not that")
_MAX_BARE_WORDS = 5
# What a prompt that only urges the agent on is made of, beside acknowledgements and
# stopwords ("continue implementation", "continue until all are done", "go on with the
# remaining tasks"): it names no task of its own, so the task the user set stays the goal.
_NUDGE_WORDS = frozenset(
    """continue continuing proceed resume go going keep carry on ahead next rest remaining
    remainder left task tasks step steps item items work working job jobs implementation
    implementing implement finish finishing complete completing done everything all until
    till again same more now please then""".split()
)
_MAX_NUDGE_WORDS = 12


def _slips(words: frozenset[str]) -> frozenset[str]:
    """What fast typing makes of the longer ``words``: two neighbouring letters swapped
    ("reamining") or one left out ("implmentation")."""
    out: set[str] = set()
    for word in words:
        if len(word) < 6:
            continue
        for i in range(len(word)):
            out.add(word[:i] + word[i + 1:])
            if i + 1 < len(word):
                out.add(word[:i] + word[i + 1] + word[i] + word[i + 2:])
    return frozenset(out - words)


_NUDGE_SLIPS = _slips(_NUDGE_WORDS)
_LETTER_RUNS = re.compile(r"[^\W\d_]+")
_WORD_RUNS = re.compile(r"[^\W\d_]+|\d+")   # letters, or digits: a number is a word too


def parts_text(content: object, types: frozenset[str] | None = None) -> str:
    """The text of a message's ``content``: a string as it is, or the text parts of a list
    (or of one part) joined by newlines: strings, and ``{"text": ...}`` parts (``{"text":
    {"value": ...}}`` in an older OpenAI API) whose ``type`` is in ``types`` (any when None;
    a part without a type counts as ``text``). Images and other parts without text are left
    out. A number as the content or as a part's ``text`` is its text (:func:`scalar_text`);
    a bare number among parts is no part (the reader reports it)."""
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return scalar_text(content)
    texts: list[str] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and (types is None or _typed_as(part, types)):
            text = part.get("text")
            if isinstance(text, dict):
                text = text.get("value")
            if scalar_text(text):
                texts.append(scalar_text(text))
    return "\n".join(texts)


def scalar_text(value: object) -> str:
    """The text a JSON value says as a message: a string as it is, a number as JSON writes
    it (``42``, ``3.5``: a logger that parsed a model's reply "42" as JSON stored a number,
    and the reply is still "42"); ``""`` for anything else (null, true, objects, lists)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return json.dumps(value)
    return ""


def _typed_as(part: dict[str, object], types: frozenset[str]) -> bool:
    """True when the part's ``type`` (``text`` when absent) is one of ``types``; a type that is
    no string (a list, an object: unhashable) is none of them."""
    kind = part.get("type", "text")
    return isinstance(kind, str) and kind in types


def collapse_whitespace(text: str) -> str:
    """Return ``text`` with every run of whitespace turned into one space, ends trimmed."""
    return " ".join(text.split())


def head_and_tail(text: str, head: int, tail: int) -> str:
    """Keep the first ``head`` and last ``tail`` characters of a long text.

    Endings often carry the result (the exception line of a traceback, the answer at the end
    of an explanation), so truncation keeps both ends, joined by `` … ``.
    """
    if len(text) <= head + tail + len(ELLIPSIS):
        return text
    return text[:head].rstrip() + ELLIPSIS + text[-tail:].lstrip()


def capped_text(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters; else its first three quarters and
    last quarter of ``limit`` characters around a line that says how many were cut.

    The mark names the item's source (its pointer pages back to the whole text), so a reader
    of the L0 knows it is not the whole record; both ends are kept because the end of a long
    output often holds its result (the last line of a traceback, a summary).
    """
    if len(text) <= limit:
        return text
    tail = limit // 4
    head = limit - tail
    cut = len(text) - head - tail
    return (f"{text[:head]}\n[… {cut:,} characters cut here (over the {limit:,}-character "
            f"limit, max_item_chars); the whole text is at the item's source …]\n{text[-tail:]}")


def goal_text(text: str) -> str:
    """The goal string for a user message: whitespace-collapsed, at most 300 characters."""
    goal = collapse_whitespace(text[: GOAL_MAX_CHARS * 8])
    if len(goal) > GOAL_MAX_CHARS:
        goal = goal[: GOAL_MAX_CHARS - 1].rstrip() + "…"
    return goal


def _bare_words(text: str, phrases: tuple[str, ...]) -> list[str] | None:
    """Words of a short message without digits, known ``phrases`` removed; None if not short."""
    stripped = text.strip()
    if len(stripped) > 60 or any(ch.isdigit() for ch in stripped):
        return None
    words = _LETTER_RUNS.findall(stripped.lower().replace("'", ""))
    if len(words) > _MAX_BARE_WORDS:
        return None
    padded = f" {' '.join(words)} "
    for phrase in phrases:
        padded = padded.replace(f" {phrase} ", " ")
    return padded.split()


def is_acknowledgement(text: str) -> bool:
    """True for a bare acknowledgement ("ok", "Thanks!", "yes please, go ahead", "👍")."""
    words = _bare_words(text, _ACK_PHRASES)
    return words is not None and all(word in _ACK_WORDS for word in words)


def is_bare_reply(text: str) -> bool:
    """True for a short refusal or pause ("no", "wait", "hold on, not yet") that is not an
    acknowledgement, or a bare option number ("2")."""
    if not _LETTER_RUNS.search(text):
        # "2", "1.", "#3": picking an option the assistant offered; a goal it is not.
        return any(ch.isdigit() for ch in text) and len(text.strip()) <= 12
    words = _bare_words(text, _ACK_PHRASES + _REPLY_PHRASES)
    if words is None or is_acknowledgement(text):
        return False
    return all(word in _ACK_WORDS or word in _REPLY_WORDS for word in words)


def continues_goal(text: str, goal: str) -> bool:
    """True for a short prompt that adds no content word of its own to the active ``goal``
    ("continue implementation", "/compact and continue with the remaining tasks", "create
    the beads" under "/create-beads …"): every word is a stopword, an acknowledgement, a word
    that urges the agent on (or a slip of one), the slash command's name, or a word of the
    goal. A number is a word of its own ("now fix issue 43" under "fix issue 42" is a new
    goal), and the goal said again is the goal, not a nudge (a record written twice stays one
    item). Such a prompt keeps the goal; False when there is no goal to keep."""
    if not goal:
        return False
    lowered = text.strip().lower().replace("'", "")
    goal_lowered = goal.strip().lower().replace("'", "")
    goal_words = goal_lowered.split()
    # split no further than the goal's words go: a long text is told apart without all of its
    # words listed (a pasted 50 MB log listed every word at once: ~0.5 GB, 20 s a message)
    if lowered.split(None, len(goal_words)) == goal_words:
        return False
    if lowered.startswith("/"):   # the command's name (/compact, /plugin:cmd): how, not what
        lowered = lowered.partition(" ")[2]
    words = [m.group() for m in islice(_WORD_RUNS.finditer(lowered), _MAX_NUDGE_WORDS + 1)]
    if not words or len(words) > _MAX_NUDGE_WORDS:
        return False
    known = {_singular(w) for w in _WORD_RUNS.findall(goal_lowered)}
    return all(
        w in STOPWORDS or w in _ACK_WORDS or w in _NUDGE_WORDS or w in _NUDGE_SLIPS
        or _singular(w) in known
        for w in words
    )


def _singular(word: str) -> str:
    """``word`` without a plural's "s" ("beads" -> "bead"), so a goal's word is known either way."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def strip_system_reminders(text: str) -> str:
    """Remove ``<system-reminder>`` blocks that clients inject into messages and tool output."""
    if "system-reminder" not in text:
        return text
    return strip_tag_blocks(text, "system-reminder")[0]
