"""One pass over an item's text that every rung reads: sentences, entities, cues and scores.

:func:`analyse` reads the window (head and tail of long texts), splits it into sentences,
finds entities and cue phrases once for the whole window, credits each to its sentence, and
scores every sentence for the L1 summary. The scoring is a sum of plain features, chosen so
that both a coding turn and a chat turn keep what a later question asks about:

- position: the opening sentence states the request, the closing one the conclusion;
- centrality: sentences sharing content words with the rest of the text are on topic;
- cues: decisions, constraints, outcomes and first-person facts ("I raised $250");
- specificity: names, numbers, dates, paths and errors pin a sentence down;
- penalties: pleasantries ("Great question!"), code lines, fragments.
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import chain, takewhile
from operator import attrgetter, itemgetter

from .cues import is_first_person, lower_same_length, scan
from .entities import SPECIFIC_KINDS, Entity, find_entities
from .lexicon import ASIDE_MARKERS, CHATTER, FILLER_OPENERS, STOPWORDS
from .sentences import Sentence, split_sentences, window

# Content words: start with a letter, three characters or more (digits are entities' business).
_WORD = re.compile(r"[a-z][a-z0-9'-]{2,}")
_START = attrgetter("start")
_COUNT = itemgetter(1)
_NEXT_WORD = re.compile(r"\s+([a-z][a-z'-]+)")
_WEIGHTY_CUES = frozenset({"decision", "constraint", "outcome"})
_ERROR_LINE = re.compile(r"[A-Z][\w.]*(?:Error|Exception|Warning)\b|(?:error|fatal|FAILED)\b[:\s]", re.IGNORECASE)
# In a failed tool's output, the lines that say what failed: a compiler's, linter's or test
# runner's diagnostic names the source file and line (``lib/x.ex:57:13:pattern_match``,
# ``src/a.py:12: error: ...``, ``┃ lib/x.ex:136:7 #(...)``), and Claude Code writes a refused
# tool call's reason after ``<tool_use_error>``. Without them an error's summary was the
# wrapper's first line and a count ("Pre-commit validation failed ... Total errors: 2").
_DIAGNOSTIC_LINE = re.compile(r"\W{0,4}(?:[\w.~/-]*[\w-]\.[A-Za-z]\w{0,5}:\d+\b(?!\.\d)|<tool_use_error>)")
_FILLER = re.compile("|".join(re.escape(o) for o in FILLER_OPENERS))
_ASIDE = re.compile("|".join(re.escape(o) for o in ASIDE_MARKERS))


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the curator learned from one text.

    Attributes:
        sentences: the window's sentences in order.
        scores: one L1 score per sentence.
        cues: per sentence, the cue categories found in it (with "fact" added for first-person
            sentences that name something specific).
        filler: per sentence, True for pleasantries and acknowledgements ("Thanks!").
        entities: every entity occurrence, in order.
        sentence_entities: per sentence, the entities inside it.
        keywords: topical words, most telling first.
    """

    sentences: tuple[Sentence, ...]
    scores: tuple[float, ...]
    cues: tuple[frozenset[str], ...]
    filler: tuple[bool, ...]
    entities: tuple[Entity, ...]
    sentence_entities: tuple[tuple[Entity, ...], ...]
    keywords: tuple[str, ...]


def analyse(text: str, kind: str = "") -> Analysis:
    """Analyse ``text`` (an item of the given journal ``kind``) for curation."""
    view = window(text)
    lowered = lower_same_length(view)
    sentences = split_sentences(view)
    entities = find_entities(view)
    starts = [s.start for s in sentences]
    ends = [s.end for s in sentences]
    per_cues: list[set[str]] = [set() for _ in sentences]
    appended = False  # entities found by the cue scan must be sorted in
    for start, end, category in scan(lowered):
        if category == "duration":
            entities.append(Entity(" ".join(view[start:end].split()), "duration", start))
            appended = True
            continue
        if category == "count":
            # "five tops": a spelled-out count is a quantity with the noun after it.
            noun = _NEXT_WORD.match(lowered, end)
            if noun and noun.group(1) not in STOPWORDS:
                entities.append(Entity(" ".join(view[start:noun.end()].split()), "quantity", start))
                appended = True
            continue
        index = bisect_right(starts, start) - 1
        if index >= 0 and start < ends[index] and not sentences[index].code:
            per_cues[index].add(category)
    if appended:
        entities.sort(key=_START)
    per_entities: list[list[Entity]] = [[] for _ in sentences]
    for entity in entities:
        index = bisect_right(starts, entity.start) - 1
        if index >= 0 and entity.start < ends[index]:
            per_entities[index].append(entity)
    for index, sentence in enumerate(sentences):
        # A first-person sentence naming something specific states a fact ("I paid $40").
        found = per_cues[index]
        if (
            "fact" not in found
            and per_entities[index]
            and not sentence.code
            and not SPECIFIC_KINDS.isdisjoint([e.kind for e in per_entities[index]])
            and is_first_person(lowered, sentence.start, sentence.end)
        ):
            found.add("fact")
    filler = [_FILLER.match(lowered, s.start) is not None for s in sentences]
    words = [set(_WORD.findall(lowered, s.start, s.end)) - STOPWORDS for s in sentences]
    spread: Counter[str] = Counter(chain.from_iterable(words))
    scores = _score(sentences, lowered, words, spread, per_cues, per_entities, filler, kind)
    return Analysis(
        sentences=tuple(sentences),
        scores=tuple(scores),
        cues=tuple(map(frozenset, per_cues)),
        filler=tuple(filler),
        entities=tuple(entities),
        sentence_entities=tuple(map(tuple, per_entities)),
        keywords=_keywords(words, spread, scores),
    )


def _score(
    sentences: list[Sentence],
    lowered: str,
    words: list[set[str]],
    spread: Counter[str],
    cues: list[set[str]],
    entities: list[list[Entity]],
    filler: list[bool],
    kind: str,
) -> list[float]:
    """One L1 score per sentence: the sum of the features in the module docstring."""
    if not sentences:
        return []
    # Centrality: how many other sentences share each content word, per sqrt(length).
    raw = [(sum(map(spread.__getitem__, ws)) - len(ws)) / (1.0 + len(ws)) ** 0.5 for ws in words]
    scale = 1.0 / (max(raw) or 1.0)
    prose = [s.index for s in sentences if not s.code]
    last_prose = prose[-1] if prose else -1
    scores = [r * scale for r in raw]
    # Position: a goal states itself first; a chat turn often opens by answering the last
    # reply, so its opening counts for less. The closing sentence holds a conclusion.
    scores[0] += 1.0 if kind in ("user_goal", "error") else 0.6
    if len(scores) > 1:
        scores[1] += 0.3
    if last_prose > 0:
        scores[last_prose] += 0.8 if kind == "conclusion" else 0.3
    error_kind = kind == "error"
    diagnostics: list[int] = []
    for i, sentence in enumerate(sentences):
        score = scores[i]
        found = cues[i]
        if found:
            score += len(found & _WEIGHTY_CUES) + (1.0 if "fact" in found else 0.0)
        mentioned = entities[i]
        if mentioned:
            specific = len(mentioned) - [e.kind for e in mentioned].count("identifier")
            score += 0.5 * (specific if specific < 4 else 4)
        elif len(words[i]) < 2:
            score -= 1.5  # a fragment: "Done." "Yes!"
        error_line = _ERROR_LINE.match(sentence.text) is not None
        if error_kind and not error_line and _DIAGNOSTIC_LINE.match(sentence.text) is not None:
            error_line = True
            diagnostics.append(i)
        if sentence.code:
            score -= 2.5
            if error_line:
                score += 3.0 if error_kind else 1.5
        elif error_line:
            score += 2.0 if error_kind else 0.5
        if filler[i]:
            score -= 2.0
        elif _ASIDE.match(lowered, sentence.start):
            score += 1.5  # "By the way, ..." brings in news
        if sentence.end - sentence.start > 400:
            score -= 0.5
        scores[i] = score
    # A diagnostic's message is the prose line beside its location ("...:57:13:pattern_match"
    # then "The pattern can never match the type."; credo writes the message first).
    for i in diagnostics:
        for j in (i - 1, i + 1):
            if 0 <= j < len(sentences) and j not in diagnostics and not sentences[j].code \
                    and len(sentences[j].text.split()) >= 4:
                scores[j] += 1.5
    return scores


def _keywords(words: list[set[str]], spread: Counter[str], scores: list[float], limit: int = 4) -> tuple[str, ...]:
    """Topical words: those in most sentences first, then the words of the best sentence
    (longest first), alphabetical among equals; filler and short words are skipped."""
    if not words:
        return ()
    # Sorted by word, then (stably) by count: set iteration order (hash seeded) never shows.
    by_count = sorted(spread.items())
    by_count.sort(key=_COUNT, reverse=True)
    repeated = [w for w, count in takewhile(_is_repeated, by_count)]
    best = max(range(len(words)), key=scores.__getitem__)
    ranked = repeated + sorted(words[best], key=_longest_first)
    out: list[str] = []
    for w in ranked:
        if len(w) > 3 and w not in CHATTER and w.isalpha() and w not in out:
            out.append(w)
            if len(out) == limit:
                break
    return tuple(out)


def _longest_first(word: str) -> tuple[int, str]:
    return (-len(word), word)


def _is_repeated(pair: tuple[str, int]) -> bool:
    """A (word, sentence count) pair of a word in more than one sentence."""
    return pair[1] > 1
