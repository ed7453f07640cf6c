"""Cue phrases: decisions, constraints, outcomes, personal facts; spelled-out durations and counts.

The phrases cover coding sessions ("going with", "must not", "12 passed") and everyday
conversation ("I've decided", "I'm allergic to", "managed to raise", "over a year"), since the
curator serves both. All phrases compile into one trie pattern (see :mod:`.phrases`) that
scans lowercased text once; each match maps back to its category by a dictionary lookup.
"""
from __future__ import annotations

import re
from itertools import product

from .phrases import trie_pattern

#: Categories in the order the distillation renders them ("duration" marks entities instead).
CATEGORIES = ("decision", "constraint", "outcome", "fact")


def _expand(*parts: tuple[str, ...] | str) -> list[str]:
    """All phrases formed by one choice from each part, joined by spaces ("" choices vanish)."""
    choices = [(p,) if isinstance(p, str) else p for p in parts]
    return [" ".join(w for w in combo if w) for combo in product(*choices)]


_DECISION = [
    "decided", "decide to", "decision is", "decision was", "we will", "we'll", "we are going to",
    "we're going to", "i'm going to", "i am going to", "i'll", "i will", "i've decided",
    "going with", "go with", "went with", "let's", "chose", "choose to", "opted", "settled on",
    "switch to", "switched to", "switching to", "plan to", "planning to", "the plan is",
    "picked", "agreed", "will use", "instead of", "rather than", "replaced", "we should use",
]
_CONSTRAINT = [
    "must", "must not", "mustn't", "never", "don't", "do not", "doesn't", "does not",
    "at most", "at least", "required", "require", "requires", "only", "always",
    "should not", "shouldn't", "cannot", "can't", "no more than", "no later than",
    "limit to", "limited to", "allergic", "avoid", "deadline", "within budget", "budget of",
    "budget is", "need to", "needs to", "have to", "has to", "not allowed", "forbidden",
    "mandatory", "intolerant", "can only",
]
_OUTCOME = [
    "passes", "passed", "passing", "fixed", "fail", "fails", "failed", "failing", "failure",
    "error", "errors", "broke", "broken", "works now", "worked", "resolved", "succeeded",
    "successful", "successfully", "crash", "crashed", "crashes", "timed out", "approved",
    "rejected", "accepted", "finished", "completed", "won", "lost", "raised", "managed to",
    "ended up", "turned out", "merged", "deployed", "shipped", "released", "solved", "bought",
    "sold", "moved to", "graduated", "got approved", "got accepted", "got hired",
    "got promoted", "got married", "got engaged",
    *_expand("started", ("a", "my", "the", "working", "learning")),
]
_FACT = [
    *_expand("i", ("", "really"), ("like", "love", "prefer", "enjoy", "hate", "dislike", "adore")),
    "my favorite", "my favourite", *_expand("i'm", ("", "a", "an"), ("fan", "vegetarian", "vegan")),
    "i'm into", "i usually", "i tend to", "i've been", "i have been", "i used to", "i live",
    "i work", "i am a", "i'm a", "i own", "i have a", "i got", "i just", "i recently",
    "i visited", "i went", "i met", "i spent", "i paid", "i bought", "i started", "i finished",
    "i've got", "i've already", "i've had", "i have", "i had", "i ordered", "i attended",
    "i tried", "i joined", "i signed up", "i took", "i moved", "i finally", "i was born",
    "recently", "just got", "last week", "last month", "last year", "last weekend", "yesterday",
    "this morning", "a while ago", "my new", "my old", "my first",
    *_expand("my", ("wife", "husband", "partner", "son", "daughter", "kid", "kids", "mom",
                    "mother", "dad", "father", "sister", "brother", "friend", "boss", "dog",
                    "cat", "team")),
]
_COUNT = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve", "a few", "a couple of", "several", "few",
    *_expand(("over", "about", "almost", "nearly", "under", "around", "half", "more than",
              "less than", "just over", "just under"), ("a", "an", "one")),
    "a full", "a whole",
)
_UNITS = ("second", "minute", "hour", "day", "night", "week", "weekend", "month", "year", "decade")
#: Spelled-out counts that make a quantity with the word after them ("five tops").
_NUMBER_WORDS = [
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand",
    "dozen", "a dozen", "a hundred", "a thousand", "a couple of", "a pair of",
]
_DURATION = [
    *_expand(_COUNT, tuple(u + s for u in _UNITS for s in ("", "s")), ("", "ago")),
]

_CATEGORY_OF: dict[str, str] = {}
for _category, _phrases in (
    ("duration", _DURATION), ("count", _NUMBER_WORDS), ("decision", _DECISION), ("constraint", _CONSTRAINT),
    ("outcome", _OUTCOME), ("fact", _FACT),
):
    for _phrase in _phrases:
        _CATEGORY_OF.setdefault(_phrase, _category)

_TEST_COUNT = r"\d+ (?:passed|failed|skipped|errors?|tests?|warnings?)"
# Word edges are checked on the lowercased text: a phrase starts after, and ends before, a
# character that is not a letter, digit or apostrophe.
_CUES = re.compile(
    rf"(?<![a-z0-9'])(?:(?P<tests>{_TEST_COUNT})|(?P<phrase>{trie_pattern(list(_CATEGORY_OF))}))(?![a-z0-9])"
)
# Matched on lowercased text (case-sensitive is several times faster than IGNORECASE).
_FIRST_PERSON = re.compile(
    r"(?<![a-z0-9'])" + trie_pattern(["i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine", "we",
                                      "we're", "we've", "our", "ours", "us"]) + r"(?![a-z0-9'])"
)


def lower_same_length(text: str) -> str:
    """``text`` lowercased with curly apostrophes straightened, keeping every offset valid.

    ``str.lower`` lengthens a few characters ("İ"); those are left as they are.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return lowered.replace("’", "'")


def scan(lowered: str) -> list[tuple[int, int, str]]:
    """(start, end, category) of every cue in text from :func:`lower_same_length`, in order.

    Categories: ``decision``, ``constraint``, ``outcome``, ``fact``, and for entities
    ``duration`` ("over a year") and ``count`` (a spelled-out number: "five").
    """
    out = []
    for match in _CUES.finditer(lowered):
        category = "outcome" if match.lastgroup == "tests" else _CATEGORY_OF[match.group()]
        out.append((match.start(), match.end(), category))
    return out


def cue_categories(text: str) -> frozenset[str]:
    """The cue categories (not entity kinds) that occur in ``text``, in any case."""
    return frozenset(c for _, _, c in scan(lower_same_length(text)) if c in CATEGORIES)


def is_first_person(text: str, start: int = 0, end: int | None = None) -> bool:
    """True when ``text[start:end]`` speaks in the first person ("I", "my", "we", ...).

    ``text`` must come from :func:`lower_same_length`.
    """
    return _FIRST_PERSON.search(text, start, len(text) if end is None else end) is not None
