"""Curate items into ladder rungs, and the size invariants every rung obeys.

Sizes are counted with :func:`~.tokens.estimate_tokens`. For every item's rungs:

- ``L1 <= min(40, L0)`` and ``L2 <= min(120, L0)``
- ``L3 <= min(30, L1, L2)``

so both chains ``L3 <= L1 <= L0`` and ``L3 <= L2 <= L0`` hold. Arcs and session rollups have
no single verbatim text; for them the caps and ``L3 <= min(L1, L2)`` hold. Typically
``L2 >= L1`` as well, but that is not promised: a text without cues has a short L2.

``Rungs.distillation`` always holds the whole distillation (at most three statements per
section, ten entities); the L2 text renders as much of it as fits.

How the invariants are kept, in order of preference:

1. A rung longer than the verbatim text is replaced by the verbatim text with whitespace
   collapsed (a short item is its own summary). For L2 this also applies when the
   distillation's statements do not all fit within the verbatim size.
2. A rung over its cap is truncated at a clause or word boundary, ending in "…".
3. L3 always starts with the pointer when the pointer fits; otherwise, for a tiny item, L3 is
   the shorter of L1 and L2 (it says everything); for a long one, tags and entities only.
"""
from __future__ import annotations

from .analysis import analyse
from .distill import Distillation, distill, render_within, statement_count
from .records import EXTRACTIVE, ItemView, Rungs
from .skeleton import L3_TOKENS, item_tags, render_skeleton
from .summary import L1_TOKENS, summarise, summarise_output
from .tokens import estimate_tokens, fits, truncate_to_tokens

#: Largest L2, in tokens.
L2_TOKENS = 120


def curate_items(items: list[ItemView]) -> list[Rungs]:
    """Curate each item with the extractive curator; one :class:`Rungs` per item, same order.

    Deterministic: the same item always gives the same rungs, whatever else is in the list.
    """
    return [curate_item(item) for item in items]


def curate_item(item: ItemView) -> Rungs:
    """Curate one item (see :func:`curate_items`)."""
    analysis = analyse(item.text, item.kind)
    tags = item_tags(item.kind, analysis)
    distillation = distill(analysis, tags)
    l1 = summarise_output(item.text, item.kind) if item.answers_call else summarise(analysis)
    l2_text = render_l2(distillation, item.text)
    l1, l2, l3 = settle(
        l1, l2_text, item.pointer, distillation.tags, distillation.entities, verbatim=item.text
    )
    return Rungs(
        handle=item.handle, l1=l1, l2=l2, l3=l3, distillation=distillation,
        provenance=(item.handle,), curator=EXTRACTIVE,
    )


def render_l2(distillation: Distillation, verbatim: str) -> str:
    """The L2 text of an item: as much of its distillation as fits (module docstring).

    A short item whose distillation cannot be rendered whole within the item's own size is
    its own best distillation: its text, whitespace collapsed. "" when nothing was distilled.
    """
    if distillation.is_empty():
        return ""
    if not fits(verbatim, L2_TOKENS):
        return render_within(distillation, L2_TOKENS)[1]
    picked, text = render_within(distillation, estimate_tokens(verbatim))
    if statement_count(picked) < statement_count(distillation) or text != picked.render():
        return " ".join(verbatim.split())  # a statement was dropped or cut
    return text


def settle(
    l1: str,
    l2: str,
    pointer: str,
    tags: tuple[str, ...],
    entities: tuple[str, ...],
    *,
    verbatim: str | None,
) -> tuple[str, str, str]:
    """Apply the size invariants (module docstring) and build L3; returns ``(l1, l2, l3)``.

    ``verbatim`` is the L0 text of an item, or None for arcs and rollups. An empty ``l2``
    (nothing distilled) becomes ``l1``.
    """
    l1 = _bounded(l1, L1_TOKENS, verbatim)
    l2 = _bounded(l2, L2_TOKENS, verbatim) if l2 else l1
    budget = min(L3_TOKENS, estimate_tokens(l1), estimate_tokens(l2))
    pointer = short_pointer(pointer)
    l3 = render_skeleton(pointer, tags, entities, budget)
    if pointer.strip() and not l3.startswith(pointer.strip()):
        # The pointer did not fit. A tiny item is fully said by its shorter rung; a long one
        # keeps whatever skeleton fitted (its pointer stays on the item's source fact).
        shorter = l1 if estimate_tokens(l1) <= estimate_tokens(l2) else l2
        if verbatim is not None and estimate_tokens(shorter) <= L3_TOKENS and _is_small(verbatim):
            l3 = shorter
    if not l3 and budget:
        l3 = truncate_to_tokens(l1 if estimate_tokens(l1) <= estimate_tokens(l2) else l2, budget)
    return l1, l2, l3


def short_pointer(pointer: str) -> str:
    """The pointer as a skeleton shows it: the file's name and the place in it
    (``/home/me/.claude/projects/x/4f1c….jsonl:129`` → ``4f1c….jsonl:129``). The whole
    pointer stays the record's source (the receipt's ``source``, ``atc show``); in a skeleton
    of at most 30 tokens a long absolute path left no room for its tags and names."""
    text = pointer.strip()
    cut = text.rfind("/", 0, text.find("#/") if "#/" in text else len(text))
    return text[cut + 1:] if cut >= 0 else text


def _is_small(verbatim: str) -> bool:
    return fits(verbatim, 2 * L3_TOKENS)


def _bounded(text: str, cap: int, verbatim: str | None) -> str:
    """``text`` within ``cap`` tokens and within the verbatim text's size (rule 1, then rule 2)."""
    if verbatim is not None and not fits(verbatim, cap) and fits(text, cap):
        return text  # common case: a long item, a rung inside its cap
    if verbatim is not None:
        limit = estimate_tokens(verbatim) if fits(verbatim, cap) else cap
        if estimate_tokens(text) > limit:
            collapsed = " ".join(verbatim.split())
            if estimate_tokens(collapsed) <= limit:
                return collapsed
            return truncate_to_tokens(text, limit)
        return text
    return truncate_to_tokens(text, cap)

