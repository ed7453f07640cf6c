"""The per-session item budget: how many items of each kind a session keeps.

When a session has more items than the budget, each kind is entitled to a fixed share of it
(:data:`DEFAULT_KIND_SHARES` unless ``kind_shares`` says otherwise); a kind that needs less
than its share leaves the rest to the kinds that need more, in proportion to their shares, and
kinds without a share only get what every kind with a share leaves over. Within a kind the most
recent items are kept. Nothing is dropped silently: the caller gets the evicted items back.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping

from ..errors import UsageError
from .records import ItemRecord

DEFAULT_KIND_SHARES: Mapping[str, float] = {
    "conclusion": 0.25,
    "user_goal": 0.20,
    "error": 0.20,
    "file_op": 0.20,
    "tool_result": 0.10,
    "turn": 0.05,
}
"""Default shares of a session's item budget, by kind; they sum to 1."""


def check_budget(item_budget: object, kind_shares: object) -> dict[str, float]:
    """Validate the budget arguments; return the normalised shares (summing to 1)."""
    if item_budget is not None and (
        isinstance(item_budget, bool) or not isinstance(item_budget, int) or item_budget < 0
    ):
        raise UsageError(f"item budget must be a non-negative integer, not {item_budget!r}")
    shares = DEFAULT_KIND_SHARES if kind_shares is None else kind_shares
    if not isinstance(shares, Mapping):
        raise UsageError(f"kind shares must map kind names to numbers, not {shares!r}")
    for kind, share in shares.items():
        if (
            not isinstance(kind, str)
            or isinstance(share, bool)
            or not isinstance(share, (int, float))
            or not math.isfinite(share)
            or share < 0
        ):
            raise UsageError(
                f"kind share for {kind!r} must be a non-negative number, not {share!r}"
            )
    total = float(sum(shares.values()))
    if total <= 0:
        raise UsageError("kind shares must not all be zero")
    return {kind: share / total for kind, share in shares.items()}


def allocate(counts: Mapping[str, int], budget: int, shares: Mapping[str, float]) -> dict[str, int]:
    """How many items of each kind to keep, given ``counts`` per kind and the ``budget``.

    Deterministic water-filling: every kind with a share gets up to ``floor(budget * share)``;
    what is left goes round again to the kinds still short, in proportion to their shares;
    single leftover slots go to the largest shares first (then kind name); kinds without a
    share come last, in name order.
    """
    keep = {kind: 0 for kind in counts}
    left = budget
    while left > 0:
        hungry = [k for k in counts if keep[k] < counts[k] and shares.get(k, 0.0) > 0]
        if not hungry:
            break
        weight = sum(shares[k] for k in hungry)
        given = 0
        for kind in hungry:
            grant = min(counts[kind] - keep[kind], math.floor(left * shares[kind] / weight))
            keep[kind] += grant
            given += grant
        left -= given
        if given == 0:
            for kind in sorted(hungry, key=lambda k: (-shares[k], k)):
                if left == 0:
                    break
                keep[kind] += 1
                left -= 1
    for kind in sorted(k for k in counts if shares.get(k, 0.0) <= 0):
        grant = min(counts[kind], left)
        keep[kind] += grant
        left -= grant
    return keep


def apply_item_budget(
    items: list[ItemRecord], item_budget: int | None, shares: Mapping[str, float]
) -> tuple[list[ItemRecord], list[ItemRecord]]:
    """Split ``items`` into ``(kept, evicted)`` under a per-session budget (None: keep all).

    Both lists keep transcript order; only sessions over budget lose items.
    """
    if item_budget is None:
        return items, []
    by_session: dict[str, list[ItemRecord]] = defaultdict(list)
    for item in items:
        by_session[item.session].append(item)
    evicted_handles: set[str] = set()
    for session_items in by_session.values():
        if len(session_items) <= item_budget:
            continue
        by_kind: dict[str, list[ItemRecord]] = defaultdict(list)
        for item in session_items:
            by_kind[item.kind].append(item)
        quota = allocate({k: len(v) for k, v in by_kind.items()}, item_budget, shares)
        for kind, kind_items in by_kind.items():
            # Most recent first: the oldest items of a kind are the ones that go.
            for item in kind_items[: len(kind_items) - quota[kind]]:
                evicted_handles.add(item.handle)
    kept = [item for item in items if item.handle not in evicted_handles]
    evicted = [item for item in items if item.handle in evicted_handles]
    return kept, evicted
