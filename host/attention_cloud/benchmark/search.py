"""Search for the best inspections in a :class:`~.decision_math.DecisionModel` (pure numpy).

* :func:`static_oracle` — the best set chosen before any result is seen (§14.3): exhaustive
  subset evaluation, vectorised over subsets and outcome combinations. Objects whose outcome does
  not depend on the decision-relevant state can never raise the value (they cost something and
  tell nothing), so by default only informative objects are enumerated; ``exhaustive=True``
  enumerates every subset of every object (C(30,5) = 142,506 subsets of size 5 take seconds).
* :class:`AdaptiveOracle` — inspect, see the result, choose again (§14.4): exact dynamic
  programming over the observations made so far.
* :func:`random_expectation` — the exact expected value of ``k`` inspections drawn uniformly.

The evaluator runs these on the true model (:mod:`.oracle`); a policy may run them on a model
built from what it can see (:mod:`.policies.bayes`). Values are expected utilities of deciding
optimally afterwards, minus inspection costs.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from .decision_math import DecisionModel, combinations_array, stop_value, subset_values

_TIE = 1e-9


def _tied(a: float, b: float) -> bool:
    return abs(a - b) <= _TIE * (1.0 + abs(a) + abs(b))


def static_oracle(model: DecisionModel, budget: int, *,
                  exhaustive: bool = False) -> tuple[tuple[int, ...], float]:
    """The best set of at most ``budget`` inspections and its exact value.

    Ties go to the smaller set, then to the first set in index order.
    """
    pool = list(range(model.n_objects)) if exhaustive else \
        [int(i) for i in np.flatnonzero(model.informative())]
    best_set: tuple[int, ...] = ()
    best_value = stop_value(model, model.prior)
    for size in range(1, min(budget, len(pool)) + 1):
        subsets = combinations_array(pool, size)
        values = subset_values(model, subsets)
        j = int(np.argmax(values))
        if values[j] > best_value and not _tied(float(values[j]), best_value):
            best_set, best_value = tuple(int(x) for x in subsets[j]), float(values[j])
    return best_set, best_value


def random_expectation(model: DecisionModel, budget: int) -> float:
    """Exact expected value of inspecting ``min(budget, N)`` objects drawn uniformly at random.

    Uninformative objects only add cost, so the expectation splits into the informative part
    (summed over informative subsets, weighted by how many random draws contain exactly that
    subset) and the mean cost of the draw.
    """
    n = model.n_objects
    k = min(budget, n)
    if k == 0:
        return stop_value(model, model.prior)
    informative = [int(i) for i in np.flatnonzero(model.informative())]
    others = n - len(informative)
    total = math.comb(n, k)
    expected_information = 0.0
    for size in range(0, min(k, len(informative)) + 1):
        ways = math.comb(others, k - size)
        if ways == 0:
            continue
        subsets = combinations_array(informative, size)
        gross = subset_values(model, subsets) + model.cost[subsets].sum(axis=1)
        expected_information += float(gross.sum()) * ways / total
    return expected_information - k * float(model.cost.mean())


class AdaptiveOracle:
    """Exact dynamic programming over sequential inspections with a hard budget.

    A node is the set of ``(object, outcome)`` pairs seen so far (order does not matter);
    values are unnormalised (see :mod:`.decision_math`). Only informative objects are
    considered: the others cannot raise the value.
    """

    def __init__(self, model: DecisionModel, budget: int, *, prior: np.ndarray | None = None,
                 exclude: Iterable[int] = ()) -> None:
        self.model = model
        self.budget = budget
        self.prior = model.prior if prior is None else prior
        skip = set(exclude)
        self.candidates = tuple(int(i) for i in np.flatnonzero(model.informative())
                                if int(i) not in skip)
        self.alphabet = model.alphabet()
        self._memo: dict[tuple[tuple[int, int], ...], float] = {}

    def value(self) -> float:
        """Expected value of the optimal adaptive policy (times the mass of the prior)."""
        return self._value((), self.prior)

    def _children(self, key: tuple[tuple[int, int], ...], w: np.ndarray, i: int):
        for o in range(self.alphabet):
            child = w * self.model.likelihood[i, o]
            if child.sum() > 1e-300:
                yield tuple(sorted(key + ((i, o),))), child

    def _inspect_value(self, key: tuple[tuple[int, int], ...], w: np.ndarray, i: int) -> float:
        v = -float(self.model.cost[i]) * float(w.sum())
        for child_key, child in self._children(key, w, i):
            v += self._value(child_key, child)
        return v

    def _value(self, key: tuple[tuple[int, int], ...], w: np.ndarray) -> float:
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        best = stop_value(self.model, w)
        if len(key) < self.budget:
            used = {i for i, _ in key}
            for i in self.candidates:
                if i not in used:
                    best = max(best, self._inspect_value(key, w, i))
        self._memo[key] = best
        return best

    def choose(self, key: tuple[tuple[int, int], ...]) -> int | None:
        """The optimal next inspection after ``key`` (None: stop). Stops on ties."""
        if len(key) >= self.budget:
            return None
        w = self.prior.copy()
        for i, o in key:
            w = w * self.model.likelihood[i, o]
        best_action: int | None = None
        best = stop_value(self.model, w)
        used = {i for i, _ in key}
        for i in self.candidates:
            if i in used:
                continue
            v = self._inspect_value(key, w, i)
            if v > best and not _tied(v, best):
                best_action, best = i, v
        return best_action

    def follow(self, outcomes: dict[int, int]) -> list[tuple[int, int]]:
        """The oracle's inspections when each object returns its pre-drawn outcome."""
        path: list[tuple[int, int]] = []
        while True:
            nxt = self.choose(tuple(sorted(path)))
            if nxt is None:
                return path
            path.append((nxt, outcomes[nxt]))
