"""L3, the skeleton: the pointer back to L0, tags and entities, in the fewest tokens.

Rendered as ``"<pointer> #tag #tag | entity; entity"``: the pointer (what pages back to the
verbatim record) first, then up to four tags, then the entities, most salient first; each
part is added only if the whole still fits the budget, so the least salient entities drop
off. The remaining tags follow only when no entity fitted.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .analysis import Analysis
from .tokens import tokens_for, utf8_size

#: Largest L3, in tokens.
L3_TOKENS = 30

#: Tags placed before the entities; the rest follow only when no entity was placed.
_LEAD_TAGS = 4

_TAG_UNSAFE = re.compile(r"[^a-z0-9]+")
_EXTENSION = re.compile(r"\.([A-Za-z0-9]{1,8})$")


@lru_cache(maxsize=4096)
def tag(value: str) -> str:
    """Normalise a label to a tag: lowercase letters, digits and single underscores."""
    return _TAG_UNSAFE.sub("_", value.lower()).strip("_")


def item_tags(kind: str, analysis: Analysis) -> tuple[str, ...]:
    """Tags for an item: its kind, "error" when it names one, the file types it touches, its
    topic words, then the cue categories it carries; distinct, in that order."""
    tags: list[str] = [tag(kind)] if kind else []
    entities = analysis.entities
    if entities:
        if any(e.kind == "error" for e in entities):
            tags.append("error")
        for entity in entities:
            if entity.kind == "path":
                found = _EXTENSION.search(entity.text)
                if found:
                    tags.append(found.group(1).lower())
    # Keywords and cue names are lowercase letters already; no normalising needed.
    tags.extend(analysis.keywords)
    categories = set().union(*analysis.cues) if analysis.cues else set()
    tags.extend(c for c in ("decision", "constraint", "outcome", "fact") if c in categories)
    return tuple(dict.fromkeys(t for t in tags if t))


def render_skeleton(pointer: str, tags: tuple[str, ...], entities: tuple[str, ...], budget: int) -> str:
    """Fit pointer, then tags, then entities into ``budget`` tokens (see module docstring).

    Returns "" when not even the first available part fits. A pointer that does not fit is
    skipped, not cut: half a pointer points nowhere.
    """
    meter = _Meter(budget)
    meter.offer("", pointer.strip())
    # The first few tags, then entities, then any remaining tags: a skeleton of only tags
    # would lose the names a reader recognises an item by.
    for value in tags[:_LEAD_TAGS]:
        if not meter.offer(" " if meter.parts else "", "#" + value):
            break
    separator = " | "
    placed = False
    for value in entities:
        if meter.offer(separator if meter.parts else "", value):
            separator = "; "
            placed = True
    if not placed:
        for value in tags[_LEAD_TAGS:]:
            if not meter.offer(" " if meter.parts else "", "#" + value):
                break
    return "".join(meter.parts)


class _Meter:
    """Builds a text piece by piece within a token budget, knowing its
    :func:`~.tokens.estimate_tokens` cost at each step without re-measuring the whole: bytes
    and words add up, given that every piece is stripped and every joint is one of "", " ",
    " | " or "; " (only " | " is a word of its own)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.parts: list[str] = []
        self.size = 0
        self.words = 0

    def offer(self, joint: str, piece: str) -> bool:
        """Append ``joint + piece`` if the whole still fits the budget; say whether it did."""
        if not piece:
            return False
        size = self.size + len(joint) + utf8_size(piece)
        words = self.words + (joint == " | ") + len(piece.split())
        if tokens_for(size, words) > self.budget:
            return False
        self.size, self.words = size, words
        self.parts.append(joint)
        self.parts.append(piece)
        return True
