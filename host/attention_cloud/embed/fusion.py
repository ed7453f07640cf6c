"""Fusing ranked lists from several retrievers (dense vectors, BM25) into one ranking.

Two principled, parameter-light recipes:

* ``"rrf"`` -- reciprocal-rank fusion (Cormack et al. 2009): ``sum_i w_i / (k + rank_i)`` with the
  customary ``k = 60``; uses ranks only, so retrievers with incomparable score scales mix safely.
* ``"minmax"`` -- each list's scores rescaled to [0, 1] over that list, then a weighted sum;
  keeps how *much* better the first hit is, which ranks alone forget.

A key missing from one list contributes nothing from it. Ties break by key, so results are
deterministic.

Contents:
    fuse_rankings
"""
from __future__ import annotations

from typing import Sequence

__all__ = ["fuse_rankings"]


def fuse_rankings(
    rankings: Sequence[Sequence[tuple[str, float]]],
    *,
    method: str = "rrf",
    weights: Sequence[float] | None = None,
    k: int = 60,
    limit: int | None = None,
) -> list[tuple[str, float]]:
    """One ranking from several ``[(key, score), ...]`` lists, each best first.

    Args:
        rankings: the lists to fuse.
        method: ``"rrf"`` or ``"minmax"`` (see module doc).
        weights: one weight per list (default: all 1).
        k: the RRF rank constant.
        limit: keep only this many results.

    Raises:
        ValueError: unknown method or a weights list of the wrong length.
    """
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights):
        if method == "rrf":
            for rank, (key, _score) in enumerate(ranking, start=1):
                fused[key] = fused.get(key, 0.0) + weight / (k + rank)
        elif method == "minmax":
            if not ranking:
                continue
            scores = [score for _key, score in ranking]
            low, high = min(scores), max(scores)
            span = high - low
            for key, score in ranking:
                scaled = (score - low) / span if span > 0 else 1.0
                fused[key] = fused.get(key, 0.0) + weight * scaled
        else:
            raise ValueError(f"unknown fusion method {method!r}: use 'rrf' or 'minmax'")
    ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:limit] if limit is not None else ranked
