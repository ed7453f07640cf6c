"""L3, the skeleton: the pointer back to L0, tags and entities, in the fewest tokens.

Rendered as ``"<pointer> #tag #tag | entity; entity"``. Parts are added in that order while
they fit the budget, so the pointer (what pages back to the verbatim record) goes first and
the least salient entities drop off the end.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .analysis import Analysis

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
    meter = _Meter()
    head = pointer.strip()
    if head and meter.cost_with("", head) <= budget:
        meter.add("", head)
    # The first few tags, then entities, then any remaining tags: a skeleton of only tags
    # would lose the names a reader recognises an item by.
    lead, rest = tags[:_LEAD_TAGS], tags[_LEAD_TAGS:]
    _add_tags(meter, lead, budget)
    separator = " | "
    placed = False
    for value in entities:
        joint = separator if meter.parts else ""
        if meter.cost_with(joint, value) > budget:
            continue
        meter.add(joint, value)
        separator = "; "
        placed = True
    if not placed:
        _add_tags(meter, rest, budget)
    return "".join(meter.parts)


def _add_tags(meter: _Meter, tags: tuple[str, ...], budget: int) -> None:
    for value in tags:
        joint = " " if meter.parts else ""
        if meter.cost_with(joint, "#" + value) > budget:
            break
        meter.add(joint, "#" + value)


class _Meter:
    """Builds a text piece by piece, knowing its :func:`estimate_tokens` cost at each step
    without re-measuring the whole text: bytes and words add up, given that every piece is
    stripped and every joint is one of "", " ", " | " or "; "."""

    _JOINT_WORDS = {"": 0, " ": 0, " | ": 1, "; ": 0}

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.words = 0

    def _measure(self, joint: str, piece: str) -> tuple[int, int]:
        size = len(piece) if piece.isascii() else len(piece.encode("utf-8", "surrogatepass"))
        words = len(piece.split())
        if joint == "" and self.parts:
            words -= 1  # glued to the previous word
        return self.size + len(joint) + size, self.words + self._JOINT_WORDS[joint] + words

    def cost_with(self, joint: str, piece: str) -> int:
        size, words = self._measure(joint, piece)
        by_bytes, by_words = -(-size // 4), -(-words * 13 // 10)
        return by_bytes if by_bytes >= by_words else by_words

    def add(self, joint: str, piece: str) -> None:
        self.size, self.words = self._measure(joint, piece)
        self.parts.append(joint)
        self.parts.append(piece)
