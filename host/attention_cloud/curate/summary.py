"""L1, the summary: the best sentence of an item, with a second when both fit the cap.

The sentence scores come from :mod:`.analysis`. A single best sentence is often a bare
request ("Can you recommend a flash?") while the fact that matters sits beside it ("... for my
Sony A7R IV"), so a second sentence is added when it scores well and the pair still fits the
L1 cap; the pair is kept in text order so it reads as the original did.
"""
from __future__ import annotations

from .analysis import Analysis, analyse
from .distill import strip_openers
from .tokens import estimate_tokens, truncate_to_tokens

#: Largest L1, in tokens (see :mod:`.ladder` for the full set of rung invariants).
L1_TOKENS = 40
#: A second sentence joins only if it scores at least this fraction of the best one.
_SECOND_FRACTION = 0.25
_NEIGHBOUR_BONUS = 0.5
#: Most of L1 a call's label may take (a long command is cut; the output's line keeps the rest).
CALL_TOKENS = 16
_CALL_SEPARATOR = " → "


def summarise(analysis: Analysis, budget: int = L1_TOKENS) -> str:
    """The L1 text of an analysed item, at most ``budget`` tokens ("" for an empty text)."""
    if not analysis.sentences:
        return ""
    order = sorted(range(len(analysis.sentences)), key=lambda i: (-analysis.scores[i], i))
    best = order[0]
    first = strip_openers(analysis.sentences[best].text)
    used = estimate_tokens(first)
    if used >= budget:
        return truncate_to_tokens(first, budget)
    best_score = analysis.scores[best]
    # A neighbour of the best sentence reads on from it, so it gets a small head start.
    seconds = sorted(
        order[1:], key=lambda i: (-(analysis.scores[i] + (_NEIGHBOUR_BONUS if abs(i - best) == 1 else 0.0)), i)
    )
    for other in seconds[:3]:
        score = analysis.scores[other]
        if score <= 0 or score < best_score * _SECOND_FRACTION:
            continue
        second = strip_openers(analysis.sentences[other].text)
        pair = (first, second) if best < other else (second, first)
        joined = " ".join(pair)
        if estimate_tokens(joined) <= budget:
            return joined
    return first


def summarise_output(text: str, kind: str, budget: int = L1_TOKENS) -> str:
    """The L1 text of a tool's output whose first line is its call's label: the label (cut to
    :data:`CALL_TOKENS`), then the summary of the output after it, within ``budget`` tokens
    (``$ git status → no changes added to commit …``). An output with nothing after its label
    is summarised by the label alone."""
    head = _call_head(text, budget)
    body = text.strip().partition("\n")[2]
    rest = budget - estimate_tokens(head + _CALL_SEPARATOR)
    said = summarise(analyse(body, kind), rest) if body.strip() and rest > 0 else ""
    return f"{head}{_CALL_SEPARATOR}{said}" if said else head


def name_call(text: str, said: str, budget: int = L1_TOKENS) -> str:
    """``said`` (another curator's summary of the tool output ``text``) after the call's label,
    as :func:`summarise_output` puts it, within ``budget`` tokens."""
    head = _call_head(text, budget)
    said = " ".join(said.split())
    if not said or said.startswith(head.rstrip("…")):
        return truncate_to_tokens(said, budget) if said else head
    rest = budget - estimate_tokens(head + _CALL_SEPARATOR)
    return f"{head}{_CALL_SEPARATOR}{truncate_to_tokens(said, rest)}" if rest > 0 else head


def _call_head(text: str, budget: int) -> str:
    label = " ".join(text.strip().partition("\n")[0].split())
    return truncate_to_tokens(label, min(CALL_TOKENS, budget))
