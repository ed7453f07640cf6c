"""Goal-focused excerpts: the sentences of a long record nearest a frame's goal, verbatim.

When a record's verbatim text (L0) is too long for the share of the budget a frame can give it,
hydration shows a shorter rung: its one-sentence summary (L1), chosen at curation time without
knowing the goal. An *excerpt* may stand in for that rung: the sentences (or lines) of the L0
text that hold the goal's terms, in their original order, cut nowhere else, joined by an
ellipsis where text was left out. It is never rewritten, so a reader can trust every word of
it; the receipt says which spans of the L0 it kept.

rules/hydrate.pl plans the frame and, once the fit has placed every fact, asks for excerpts
mid-proof through ``atc_hydrate:host_excerpts/3`` (registered by :func:`register` when a home's
jump opens) for the few facts it left below L0 whose L0 is long, each with the tokens it may
take (those of the rung it would replace and what the frame left over) and that rung, to which
it must hold more of the goal (:func:`excerpts`). The excerpt's tokens are what the frame
counts, with the same estimator as every rung.

Scoring is lexical and cheap (no embedding per sentence): a unit (a sentence, a line, or a run
of words of an over-long line) scores the sum of the BM25 inverse document frequencies of the
goal's distinct terms it holds (:func:`~attention_cloud.embed.terms.lexical_terms`: folded
words, whole identifiers, numbers, names). The best units are taken while they fit the cap,
then their neighbours (the line introducing a list item, the sentence after) while room is
left. A record none of whose units holds a goal term gets no excerpt.

Example::

    >>> ex = excerpt_text("Books are fine. MusicTheory.net has free lessons. Bye.",
    ...                   goal_weights("website with free lessons"), cap=11)
    >>> ex.text
    '… MusicTheory.net has free lessons. …'
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from math import fsum
from typing import Any, Callable, NamedTuple

from .curate.sentences import sentence_bounds
from .curate.tokens import estimate_tokens, tokens_for, utf8_size
from .embed.terms import WORD_RUN, lexical_terms

__all__ = ["Excerpt", "core_excerpt", "excerpt_text", "excerpts", "goal_weights", "register", "GAP"]

#: Marks text left out between two kept units (and before the first, after the last).
GAP = "…"
#: A line longer than this many words is cut into runs of RUN_WORDS words (a JSON blob or a
#: log line without sentence ends would otherwise be one unit that never fits).
LONG_UNIT_WORDS = 60
RUN_WORDS = 40
#: Only this much of a record is read for an excerpt (a multi-megabyte tool result stays cheap).
READ_CHARS = 200_000

_LINE = re.compile(r"[^\n]+")
_WORD = re.compile(r"\S+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


class Unit(NamedTuple):
    """One piece of a record's text: ``text[start:end]``, its position, and the goal's terms
    it holds."""

    start: int
    end: int
    index: int
    terms: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Excerpt:
    """An excerpt of a record's text.

    Attributes:
        text: the kept units in their order, adjacent ones with the whitespace between them,
            others joined by :data:`GAP`.
        tokens: its estimated tokens.
        spans: ``(start, end)`` character offsets (Python string indices) of the kept units
            in the record's text.
        units: how many units the text has (``len(spans)`` of them kept).
        coverage: the share of the goal's weight present in the text that the excerpt holds.
    """

    text: str
    tokens: int
    spans: tuple[tuple[int, int], ...]
    units: int
    coverage: float


def goal_weights(goal: str, idf: Callable[[str], float] | None = None) -> dict[str, float]:
    """The goal's distinct lexical terms, each weighted by ``idf`` (1.0 without one)."""
    weights: dict[str, float] = {}
    for term in lexical_terms(goal):
        if term not in weights:
            weights[term] = float(idf(term)) if idf is not None else 1.0
    return weights


@lru_cache(maxsize=256)  # a benchmark or a session asks for the same records again and again
def _spans(text: str) -> tuple[tuple[int, int], ...]:
    """The ``(start, end)`` of each unit of ``text`` (see module doc)."""
    spans: list[tuple[int, int]] = []
    read = text[:READ_CHARS]
    for line in _LINE.finditer(read):
        base = line.start()
        for s, e in sentence_bounds(line.group()):
            piece = line.group()[s:e]
            start = base + s + len(piece) - len(piece.lstrip())
            end = base + e - (len(piece) - len(piece.rstrip()))
            if start >= end:
                continue
            # more than LONG_UNIT_WORDS words take more than twice as many characters
            if end - start > 2 * LONG_UNIT_WORDS and len(read[start:end].split()) > LONG_UNIT_WORDS:
                words = list(_WORD.finditer(read, start, end))
                spans.extend((run[0].start(), run[-1].end())
                             for run in (words[i:i + RUN_WORDS] for i in range(0, len(words), RUN_WORDS)))
            else:
                spans.append((start, end))
    return tuple(spans)


@lru_cache(maxsize=64)
def _prefixes(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    """A pattern finding where a word that may fold to one of ``terms`` starts: the term's
    first letters (a folded word is a prefix of the word, but for "ies" -> "y")."""
    if not terms:
        return None
    heads = sorted({t[:max(3, len(t) - 1)] for t in terms}, key=len, reverse=True)
    return re.compile(r"(?<![^\W_])(?:" + "|".join(map(re.escape, heads)) + ")")


def _units(text: str, weights: dict[str, float]) -> tuple[Unit, ...]:
    """The units of ``text`` with the goal's terms each holds, exactly as lexical_terms
    reads them: the text is scanned once for where a goal term may start and only those runs
    of letters are read (a unit with accented letters or another script is read whole)."""
    goal = frozenset(weights)
    spans = _spans(text)
    pattern = _prefixes(tuple(sorted(goal)))
    if pattern is None or not spans:
        return tuple(Unit(s, e, i) for i, (s, e) in enumerate(spans))
    found: list[set[str]] = [set() for _ in spans]
    whole = [False] * len(spans)
    if not text.isascii():
        for i, (s, e) in enumerate(spans):
            whole[i] = any(c.isalnum() for c in _NON_ASCII.findall(text, s, e))
    lower = text.lower()
    if len(lower) != len(text):  # a letter whose lowercase is longer: offsets would shift
        whole = [True] * len(spans)
    else:
        starts = [s for s, _ in spans]
        for hit in pattern.finditer(lower, 0, spans[-1][1]):
            i = bisect_right(starts, hit.start()) - 1
            if i >= 0 and not whole[i] and hit.start() < spans[i][1]:
                run = WORD_RUN.match(lower, hit.start(), spans[i][1])
                if run is not None:
                    found[i].update(lexical_terms(run.group()))
    return tuple(Unit(s, e, i, frozenset(lexical_terms(text[s:e]) if whole[i] else found[i]) & goal)
                 for i, (s, e) in enumerate(spans))


def _parts(text: str, units: tuple[Unit, ...], chosen: list[Unit]) -> list[str]:
    """The chosen units in order, the original text between neighbours, GAP elsewhere."""
    kept = sorted(chosen, key=lambda u: u.index)
    parts = [GAP + " "] if kept[0].index > 0 else []
    for i, unit in enumerate(kept):
        if i:
            before = kept[i - 1]
            if unit.index == before.index + 1:
                parts.append(text[before.end:unit.start])
            else:
                parts.append(f"\n{GAP}\n" if "\n" in text[before.end:unit.start] else f" {GAP} ")
        parts.append(text[unit.start:unit.end])
    if kept[-1].index < len(units) - 1:
        parts.append(" " + GAP)
    return parts


def _tokens(parts: list[str], sizes: dict[str, tuple[int, int, bool, bool]]) -> tuple[int, int]:
    """estimate_tokens("".join(parts)) and its UTF-8 bytes, from each part's bytes and
    words (memoised in ``sizes``): a word split across two parts counts once."""
    size = words = 0
    ends_in_space = True  # nothing before the first part
    for part in parts:
        if not part:
            continue
        found = sizes.get(part)
        if found is None:
            found = sizes[part] = (utf8_size(part), len(part.split()), part[0].isspace(),
                                   part[-1].isspace())
        size += found[0]
        words += found[1]
        if not ends_in_space and not found[2]:
            words -= 1  # the last word so far goes on in this part
        ends_in_space = found[3]
    return tokens_for(size, words), size


def excerpt_text(text: str, weights: dict[str, float], cap: int,
                 units: tuple[Unit, ...] | None = None,
                 pinned: tuple[int, ...] = ()) -> Excerpt | None:
    """The excerpt of ``text`` for a goal's term ``weights`` in at most ``cap`` tokens; None
    when no unit holds a goal term, or none fits. ``units``: ``_units(text, weights)`` when
    the caller has them. ``pinned``: indexes of units kept first, all of them when they fit
    (an error summary's diagnostic, :func:`_pinned`)."""
    units = units if units is not None else _units(text, weights)
    if len(units) < 2 or cap <= 0:
        return None
    score = {u.index: weight_of(u.terms, weights) for u in units}
    ranked = sorted((u for u in units if score[u.index] > 0), key=lambda u: (-score[u.index], u.index))
    if not ranked:
        return None
    chosen: list[Unit] = []
    used = used_bytes = 0
    sizes: dict[str, tuple[int, int, bool, bool]] = {}

    def take_all(group: list[Unit]) -> bool:
        """Add every unit of ``group`` when they all fit the cap together, else none (a group
        whose own bytes overflow what is left is not even tried: a byte a character at least)."""
        nonlocal used, used_bytes
        extra = [u for u in group if u not in chosen]
        if not extra:
            return False
        if used_bytes + sum(u.end - u.start for u in extra) > 4 * cap:
            return False
        tokens, size = _tokens(_parts(text, units, chosen + extra), sizes)
        if tokens > cap:
            return False
        chosen.extend(extra)
        used, used_bytes = tokens, size
        return True

    if pinned:
        take_all([units[i] for i in pinned])
    for unit in ranked:
        # a heading holds the goal's words but says only what follows is about them: it is
        # taken with what it heads, or not at all (three headings and no content said nothing)
        if take_all(_headed(text, units, unit)) and used >= cap - 2:  # full: nothing else fits
            break
    if not chosen:
        return None
    # context: the neighbours of what was kept (the line a list item follows, the next
    # sentence), around the best units first, ring after ring while they fit
    taken = {u.index for u in chosen}
    grew = True
    while grew:
        grew = False
        for unit in sorted(chosen, key=lambda u: (-score[u.index], u.index)):
            for near in (unit.index - 1, unit.index + 1):
                if not 0 <= near < len(units) or near in taken:
                    continue
                # the line before heads what was kept; a heading after it, what follows it
                group = [units[near]] if near < unit.index else _headed(text, units, units[near])
                if take_all(group):
                    taken.update(u.index for u in group)
                    grew = True
    rendered = "".join(_parts(text, units, chosen))
    present = set().union(*(u.terms for u in units)) & weights.keys()
    held = set().union(*(u.terms for u in chosen))
    spans = tuple((u.start, u.end) for u in sorted(chosen, key=lambda u: u.index))
    return Excerpt(rendered, estimate_tokens(rendered), spans, len(units),
                   round(coverage(held, present, weights), 4))


#: A line that heads what follows: a Markdown heading, a line that is all emphasis
#: (``**opentelemetry_api**``), one that introduces with a colon ("Here are a few:"), or the
#: fence that opens a code block.
_HEADING = re.compile(r"(?:#{1,6}\s.*|\*\*[^*\n]+\*\*|__[^_\n]+__|.*:|```.*)\Z")
#: How many heading lines in a row are taken with the first unit that is not one.
_HEADING_RUN = 3


def _headed(text: str, units: tuple[Unit, ...], unit: Unit) -> list[Unit]:
    """``unit``, and when its line heads what follows, the whole line and the units after it
    up to the first unit of a line that is not a heading (at most _HEADING_RUN heading lines):
    what an excerpt must keep together. A heading line with nothing after it is itself alone."""
    if not _heads(text, unit):
        return [unit]
    first = unit.index
    while first > 0 and _same_line(text, units[first - 1], units[first]):
        first -= 1
    group, at, lines = [], first, 0
    while at < len(units) and _heads(text, units[at]) and lines < _HEADING_RUN:
        group.append(units[at])
        at += 1
        while at < len(units) and _same_line(text, units[at - 1], units[at]):
            group.append(units[at])
            at += 1
        lines += 1
    if at >= len(units):
        return [unit]  # heads nothing
    return group + [units[at]]


def _same_line(text: str, before: Unit, after: Unit) -> bool:
    """Whether two consecutive units lie on one line."""
    return "\n" not in text[before.end:after.start]


def _heads(text: str, unit: Unit) -> bool:
    """Whether the line ``unit`` lies on heads what follows (_HEADING)."""
    line_start = text.rfind("\n", 0, unit.start) + 1
    line_end = text.find("\n", unit.end)
    line = text[line_start:len(text) if line_end < 0 else line_end].strip()
    return _HEADING.match(line) is not None


#: What holding more of the goal than the summary adds to an excerpt's fidelity, at most.
GOAL_BONUS = 0.2
#: An excerpt no longer than the next rung stands in for it only when it holds at least this
#: much more of the goal's weight (a share): it shadows that rung (the fit demotes past it).
SHADOW_MARGIN = 0.25


@dataclass(frozen=True)
class Next:
    """The rung an excerpt is weighed against (the record's next one below L0): its text,
    tokens and fidelity on hydrate.pl's scale (L0 1.0, L1 0.4, L2 0.15, L3 0.05)."""

    text: str
    tokens: int
    fidelity: float


def weight_of(terms: frozenset[str] | set[str], weights: dict[str, float]) -> float:
    """The goal's weight ``terms`` hold: a sum over a set, exactly rounded (math.fsum) so that
    it does not depend on the set's iteration order, which string hashing randomises per
    process: a plain sum could differ in its last bit between two runs and turn a tie (two
    units, an excerpt against its rung) the other way."""
    return fsum(weights.get(t, 0.0) for t in terms)


def coverage(terms: set[str], present: set[str], weights: dict[str, float]) -> float:
    """The share of the goal's weight ``present`` in a record that ``terms`` hold."""
    total = weight_of(present, weights)
    return weight_of(terms & present, weights) / total if total > 0 else 0.0


def excerpt_fidelity(excerpt: Excerpt, full_tokens: int, below: Next, next_coverage: float) -> float:
    """An excerpt's fidelity: on the line from the next rung's to the L0's (1.0) by its size,
    so that per token it costs and saves what they do, plus up to GOAL_BONUS for the share of
    the goal's weight it holds beyond what the next rung holds; always below the L0's."""
    span = max(1, full_tokens - below.tokens)
    share = min(1.0, max(0.0, (excerpt.tokens - below.tokens) / span))
    bonus = GOAL_BONUS * max(0.0, excerpt.coverage - next_coverage)
    return round(min(0.95, below.fidelity + (1.0 - below.fidelity) * share + bonus), 4)


def excerpts(weights: dict[str, float], text: str, caps: list[int],
             below: Next | None = None, keep: str = "") -> list[tuple[Excerpt, float]]:
    """The distinct excerpts of ``text`` for each cap (largest first), with their fidelity
    against ``below`` (default: an empty summary of fidelity 0.4); only those shorter than
    the text itself that hold more of the goal's weight than ``below`` (SHADOW_MARGIN more
    when they are no longer than it). The sentences of ``text`` that ``keep`` holds are
    kept first when they fit (:func:`_pinned`)."""
    below = below or Next("", 0, 0.4)
    full = estimate_tokens(text)
    units = _units(text, weights)
    present = set().union(*(u.terms for u in units)) if units else set()
    next_coverage = coverage(set(lexical_terms(below.text)), present, weights)
    pinned = _pinned(text, units, keep)
    out: list[tuple[Excerpt, float]] = []
    for cap in sorted({int(c) for c in caps}, reverse=True):
        found = excerpt_text(text, weights, min(cap, full - 1), units, pinned)
        if found is None or any(found.spans == seen.spans for seen, _ in out):
            continue
        if found.coverage <= next_coverage or (
                found.tokens <= below.tokens and found.coverage < next_coverage + SHADOW_MARGIN):
            continue  # not nearer the goal than the rung (clearly, when no longer): keep it
        out.append((found, excerpt_fidelity(found, full, below, next_coverage)))
    return out


def core_excerpt(weights: dict[str, float], text: str, below: Next | None = None,
                 keep: str = "") -> tuple[Excerpt, float] | None:
    """The smallest useful excerpt of ``text``: its unit holding most of the goal's weight
    (with the heading lines it follows, and what ``keep`` pins), alone, with its fidelity
    against ``below``; None when it is the whole text or holds no more of the goal than
    ``below`` (:func:`excerpts`' rule). Hydration lets a top fact's excerpt grow to it, weaker
    facts giving way, when the room the frame left held only a fragment or the summary."""
    units = _units(text, weights)
    scored = [(weight_of(u.terms, weights), u) for u in units]
    if len(units) < 2 or not any(score > 0 for score, _ in scored):
        return None
    best = max(scored, key=lambda pair: (pair[0], -pair[1].index))[1]
    group = {u.index: u for u in _headed(text, units, best)}
    group.update((i, units[i]) for i in _pinned(text, units, keep))
    cap, _ = _tokens(_parts(text, units, list(group.values())), {})
    found = excerpts(weights, text, [cap], below, keep)
    return found[0] if found else None


def _pinned(text: str, units: tuple[Unit, ...], keep: str) -> tuple[int, ...]:
    """The units of ``text`` that ``keep`` holds whole (each a sentence or line of it, with a
    letter or digit): what an excerpt keeps first. Hydration passes an error's summary, which
    curation leads with its diagnostic lines (``lib/x.ex:57:13:pattern_match The pattern can
    never match the type.``): a goal's words ("why did the pre-commit check fail") are in the
    failure's heading lines, not in its cause, and the excerpt they chose showed "Pre-commit
    validation failed ... Checking PLT..." in place of the summary that named it."""
    said = " " + " ".join(keep.split()) + " "
    if not said.strip():
        return ()
    return tuple(u.index for u in units
                 if any(c.isalnum() for c in text[u.start:u.end])
                 and " " + " ".join(text[u.start:u.end].split()) + " " in said)


def register(pl: Any, idf: Callable[[], Callable[[str], float] | None]) -> None:
    """Define ``atc_hydrate:host_excerpts/3`` in ``pl``; ``idf()`` gives the home's BM25
    inverse document frequency (or None: every goal term weighs 1)."""
    from .bridge import Term

    def host_excerpts(goal: Any, requests: Any) -> list[list[Term]]:
        try:
            weigh = idf()
        except Exception:  # noqa: BLE001 - no index yet: plain term counts still rank units
            weigh = None
        weights = goal_weights(str(goal), weigh)
        results = []
        for request in requests:
            if request.name == "core":
                text, next_text, next_tokens, next_fidelity, keep = request.args
                below = Next(str(next_text), int(next_tokens), float(next_fidelity))
                core = core_excerpt(weights, str(text), below, str(keep))
                results.append([] if core is None else [_result(*core)])
                continue
            text, next_text, next_tokens, next_fidelity, caps, keep = request.args
            below = Next(str(next_text), int(next_tokens), float(next_fidelity))
            results.append([_result(found, fidelity)
                            for found, fidelity in excerpts(weights, str(text),
                                                            [int(c) for c in caps], below,
                                                            str(keep))])
        return results

    def _result(found: Excerpt, fidelity: float) -> Term:
        return Term("x", [found.tokens, fidelity, found.text, len(found.spans), found.units,
                          [[s, e] for s, e in found.spans]])

    pl.register("host_excerpts", 3, host_excerpts, module="atc_hydrate")
