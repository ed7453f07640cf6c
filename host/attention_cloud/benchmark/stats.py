"""Statistics for paired benchmark results (§23).

Bootstrap intervals use a fixed seed so a report is reproducible; Wilson intervals for rates;
transition counts for paired binary outcomes on identical seeds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

_BOOTSTRAP_SEED = 20261004

#: An oracle-over-random margin smaller than this is rounding, not a margin: no score is
#: defined on it (the point estimate and each bootstrap resample alike).
_NO_MARGIN = 1e-12


@dataclass(frozen=True)
class Interval:
    estimate: float | None
    low: float | None
    high: float | None

    def as_dict(self) -> dict[str, float | None]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


def bootstrap_mean(values: Sequence[float], *, resamples: int = 2000,
                   level: float = 0.95) -> Interval:
    """Mean with a percentile bootstrap confidence interval."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return Interval(None, None, None)
    rng = np.random.default_rng(_BOOTSTRAP_SEED)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    alpha = (1.0 - level) / 2.0
    return Interval(float(x.mean()), float(np.quantile(means, alpha)),
                    float(np.quantile(means, 1.0 - alpha)))


def normalised_score(policy: np.ndarray, oracle: np.ndarray, random: np.ndarray) -> float | None:
    """``100 * (U - U_random) / (U_oracle - U_random)`` on means, unclipped (§14.5)."""
    span = float(oracle.mean() - random.mean())
    if abs(span) < _NO_MARGIN:
        return None
    return 100.0 * float(policy.mean() - random.mean()) / span


def bootstrap_score(policy: Sequence[float], oracle: Sequence[float], random: Sequence[float], *,
                    resamples: int = 2000, level: float = 0.95) -> Interval:
    """The normalised score with a bootstrap interval over trials (resampled jointly)."""
    p, o, r = (np.asarray(v, dtype=float) for v in (policy, oracle, random))
    if p.size == 0:
        return Interval(None, None, None)
    estimate = normalised_score(p, o, r)
    rng = np.random.default_rng(_BOOTSTRAP_SEED)
    idx = rng.integers(0, p.size, size=(resamples, p.size))
    span = o[idx].mean(axis=1) - r[idx].mean(axis=1)
    # A resample with no margin has no score, as the estimate has none: divided through, a
    # span of 5e-17 (rounding) made a score of 1e5 the interval's upper end.
    scored = np.abs(span) >= _NO_MARGIN
    scores = 100.0 * (p[idx].mean(axis=1)[scored] - r[idx].mean(axis=1)[scored]) / span[scored]
    if estimate is None or scores.size == 0:
        return Interval(estimate, None, None)
    alpha = (1.0 - level) / 2.0
    return Interval(estimate, float(np.quantile(scores, alpha)),
                    float(np.quantile(scores, 1.0 - alpha)))


def wilson(successes: int, total: int, *, z: float = 1.959963984540054) -> Interval:
    """Proportion with its Wilson score interval (None when there were no opportunities)."""
    if total == 0:
        return Interval(None, None, None)
    p = successes / total
    denom = 1.0 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Transitions:
    """Paired binary outcomes of two conditions on the same trials."""

    both_pass: int
    pass_to_fail: int
    fail_to_pass: int
    both_fail: int

    def as_dict(self) -> dict[str, int]:
        return {"both_pass": self.both_pass, "pass_to_fail": self.pass_to_fail,
                "fail_to_pass": self.fail_to_pass, "both_fail": self.both_fail}


def transitions(before: Sequence[bool], after: Sequence[bool]) -> Transitions:
    """Counts of pass/fail transitions from ``before`` to ``after`` on matched trials."""
    if len(before) != len(after):
        raise ValueError("paired outcomes must have the same length")
    pairs = list(zip(before, after))
    return Transitions(sum(a and b for a, b in pairs), sum(a and not b for a, b in pairs),
                       sum(b and not a for a, b in pairs), sum(not a and not b for a, b in pairs))
