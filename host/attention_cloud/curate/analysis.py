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

import bisect
import re
from collections import Counter
from dataclasses import dataclass

from .cues import is_first_person, lower_same_length, scan
from .entities import SPECIFIC_KINDS, Entity, find_entities
from .lexicon import ASIDE_MARKERS, CHATTER, FILLER_OPENERS, STOPWORDS
from .sentences import Sentence, split_sentences, window

_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")
_ERROR_LINE = re.compile(r"^[A-Z][\w.]*(?:Error|Exception|Warning)\b|^(?:error|fatal|FAILED)\b[:\s]", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the curator learned from one text.

    Attributes:
        sentences: the window's sentences in order.
        scores: one L1 score per sentence.
        cues: per sentence, the cue categories found in it (with "fact" added for first-person
            sentences that name something specific).
        entities: every entity occurrence, in order.
        sentence_entities: per sentence, the entities inside it.
        keywords: the most frequent content words, most frequent first.
    """

    sentences: tuple[Sentence, ...]
    scores: tuple[float, ...]
    cues: tuple[frozenset[str], ...]
    entities: tuple[Entity, ...]
    sentence_entities: tuple[tuple[Entity, ...], ...]
    keywords: tuple[str, ...]


def analyse(text: str, kind: str = "") -> Analysis:
    """Analyse ``text`` (an item of the given journal ``kind``) for curation."""
    view = window(text)
    sentences = split_sentences(view)
    entities = find_entities(view)
    starts = [s.start for s in sentences]
    per_cues: list[set[str]] = [set() for _ in sentences]
    durations = False
    for start, end, category in scan(lower_same_length(view)):
        if category == "duration":
            entities.append(Entity(" ".join(view[start:end].split()), "duration", start))
            durations = True
            continue
        index = _sentence_at(starts, sentences, start)
        if index >= 0 and not sentences[index].code:
            per_cues[index].add(category)
    if durations:
        entities.sort(key=lambda e: e.start)
    per_entities: list[list[Entity]] = [[] for _ in sentences]
    if sentences:
        for entity in entities:
            index = _sentence_at(starts, sentences, entity.start)
            if index >= 0:
                per_entities[index].append(entity)
    for index, sentence in enumerate(sentences):
        if (
            "fact" not in per_cues[index]
            and not sentence.code
            and any(e.kind in SPECIFIC_KINDS for e in per_entities[index])
            and is_first_person(sentence.text)
        ):
            per_cues[index].add("fact")
    words = [_content_words(s.text) for s in sentences]
    scores = _score(sentences, words, per_cues, per_entities, kind)
    return Analysis(
        sentences=tuple(sentences),
        scores=tuple(scores),
        cues=tuple(frozenset(c) for c in per_cues),
        entities=tuple(entities),
        sentence_entities=tuple(tuple(e) for e in per_entities),
        keywords=_keywords(words, scores),
    )


def _sentence_at(starts: list[int], sentences: list[Sentence], offset: int) -> int:
    """Index of the sentence containing ``offset``, or -1 when it falls between sentences."""
    index = bisect.bisect_right(starts, offset) - 1
    if index >= 0 and offset < sentences[index].end:
        return index
    return -1


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOPWORDS]


def _score(
    sentences: list[Sentence],
    words: list[list[str]],
    cues: list[set[str]],
    entities: list[list[Entity]],
    kind: str,
) -> list[float]:
    count = len(sentences)
    if not count:
        return []
    # Centrality: how many other sentences share each content word, per sqrt(length).
    spread: Counter[str] = Counter()
    for ws in words:
        spread.update(set(ws))
    raw = []
    for ws in words:
        distinct = set(ws)
        shared = sum(spread[w] - 1 for w in distinct)
        raw.append(shared / (1.0 + len(distinct)) ** 0.5)
    top = max(raw) or 1.0
    last_prose = max((s.index for s in sentences if not s.code), default=-1)
    scores = []
    for i, sentence in enumerate(sentences):
        score = raw[i] / top
        if i == 0:
            # A goal states itself first; a chat turn often opens by answering the last reply.
            score += 1.0 if kind in ("user_goal", "error") else 0.6
        elif i == 1:
            score += 0.3
        if i == last_prose and i > 0:
            score += 0.8 if kind == "conclusion" else 0.3
        found = cues[i]
        score += 1.2 * len(found & {"decision", "constraint", "outcome"}) + (1.0 if "fact" in found else 0.0)
        specific = sum(1 for e in entities[i] if e.kind != "identifier")
        score += 0.5 * min(specific, 4)
        text = sentence.text
        n_words = len(words[i])
        lower = text.lower()
        if sentence.code:
            score -= 2.5
            if _ERROR_LINE.match(text):
                score += 3.0 if kind == "error" else 1.5
        elif _ERROR_LINE.match(text):
            score += 2.0 if kind == "error" else 0.5
        if lower.startswith(FILLER_OPENERS):
            score -= 2.0
        elif lower.startswith(ASIDE_MARKERS):
            score += 1.0
        if n_words < 2 and not entities[i]:
            score -= 1.5
        if len(text) > 400:
            score -= 0.5
        scores.append(score)
    return scores


def _keywords(words: list[list[str]], scores: list[float], limit: int = 4) -> tuple[str, ...]:
    """The topical words: most frequent first, then those of the best-scored sentences, then
    first seen; conversational filler and short words are skipped."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    position = 0
    for ws in words:
        for w in ws:
            if w.isalpha() and len(w) > 3 and w not in CHATTER:
                counts[w] += 1
                first.setdefault(w, position)
            position += 1
    best = sorted(range(len(words)), key=lambda i: (-scores[i], i))[:2]
    favoured = {w for i in best for w in words[i]}
    ranked = sorted(counts, key=lambda w: (-counts[w], w not in favoured, first[w]))
    return tuple(ranked[:limit])
