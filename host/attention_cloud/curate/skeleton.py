"""L3, the skeleton: the pointer back to L0, tags and entities, in the fewest tokens.

Rendered as ``"<pointer> #tag #tag | entity; entity"``. Parts are added in that order while
they fit the budget, so the pointer (what pages back to the verbatim record) goes first and
the least salient entities drop off the end.
"""
from __future__ import annotations

import re
from functools import lru_cache

from .analysis import Analysis
from .tokens import estimate_tokens

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
    tags: list[str] = []
    if kind:
        tags.append(kind)
    if any(e.kind == "error" for e in analysis.entities):
        tags.append("error")
    for entity in analysis.entities:
        if entity.kind == "path":
            found = _EXTENSION.search(entity.text)
            if found:
                tags.append(found.group(1))
    tags.extend(analysis.keywords)
    categories = set().union(*analysis.cues) if analysis.cues else set()
    tags.extend(c for c in ("decision", "constraint", "outcome", "fact") if c in categories)
    return tuple(dict.fromkeys(t for t in (tag(x) for x in tags) if t))


def render_skeleton(pointer: str, tags: tuple[str, ...], entities: tuple[str, ...], budget: int) -> str:
    """Fit pointer, then tags, then entities into ``budget`` tokens (see module docstring).

    Returns "" when not even the first available part fits. A pointer that does not fit is
    skipped, not cut: half a pointer points nowhere.
    """
    head = pointer.strip()
    if head and estimate_tokens(head) > budget:
        head = ""
    text = head
    # The first few tags, then entities, then any remaining tags: a skeleton of only tags
    # would lose the names a reader recognises an item by.
    lead, rest = tags[:_LEAD_TAGS], tags[_LEAD_TAGS:]
    text = _add_tags(text, lead, budget)
    separator = " | "
    for value in entities:
        candidate = f"{text}{separator}{value}" if text else value
        if estimate_tokens(candidate) > budget:
            continue
        text = candidate
        separator = "; "
    if separator == "; " and rest:
        return text
    return _add_tags(text, rest, budget)


def _add_tags(text: str, tags: tuple[str, ...], budget: int) -> str:
    for value in tags:
        candidate = f"{text} #{value}" if text else f"#{value}"
        if estimate_tokens(candidate) > budget:
            break
        text = candidate
    return text
