"""The oracles are verifiably optimal: cross-checked against plain brute force on tiny models."""
from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_cloud.benchmark.decision_math import (Channel, ClaimPrior, DecisionGoal,
                                                    build_model, combinations_array,
                                                    subset_values)
from attention_cloud.benchmark.families import generate
from attention_cloud.benchmark.oracle import evaluator_model, plan
from attention_cloud.benchmark.search import AdaptiveOracle, random_expectation, static_oracle


# -- an independent brute force, in plain Python loops ----------------------------------------

def _goal_value(model, w):
    total = 0.0
    for block in model.goals:
        rows = range(block.start, block.start + len(block.option_ids))
        total += max(sum(model.utility[a][s] * w[s] for s in range(len(w))) for a in rows)
    return total


def brute_static_value(model, subset):
    """Expected utility of inspecting ``subset`` at once, then deciding optimally."""
    value = 0.0
    for outcomes in itertools.product(range(3), repeat=len(subset)):
        w = [model.prior[s] * math.prod(model.likelihood[i][o][s] for i, o in zip(subset, outcomes))
             for s in range(len(model.prior))]
        value += _goal_value(model, w)
    return value - sum(model.cost[i] for i in subset)


def brute_adaptive_value(model, budget, seen=(), w=None):
    """Best sequential policy by exhaustive recursion over every object (no pruning)."""
    w = list(model.prior) if w is None else w
    best = _goal_value(model, w)
    if len(seen) == budget:
        return best
    mass = sum(w)
    for i in range(model.n_objects):
        if i in seen:
            continue
        v = -model.cost[i] * mass
        for o in range(3):
            child = [w[s] * model.likelihood[i][o][s] for s in range(len(w))]
            if sum(child) > 0:
                v += brute_adaptive_value(model, budget, seen + (i,), child)
        best = max(best, v)
    return best


# -- random tiny models -------------------------------------------------------------------------

@st.composite
def tiny_models(draw):
    n_claims = draw(st.integers(1, 2))
    claims = [ClaimPrior(f"c{r}", draw(st.floats(0.05, 0.95))) for r in range(n_claims)]
    channels = []
    for i in range(draw(st.integers(2, 5))):
        about = draw(st.sampled_from([None] + [c.claim_id for c in claims]))
        echo = draw(st.sampled_from([None, None, True, False])) if about else None
        channels.append(Channel(f"o{i}", about, draw(st.floats(0.5, 1.0)),
                                draw(st.floats(0.0, 0.6)), draw(st.sampled_from([0.0, 0.0, 0.2])),
                                echo))
    goals = []
    for g in range(draw(st.integers(1, 2))):
        deps = tuple(c.claim_id for c in claims)
        keys = list(itertools.product((False, True), repeat=len(deps)))
        n_opt = draw(st.integers(2, 3))
        options = tuple(f"g{g}o{k}" for k in range(n_opt))
        rule = {key: options[draw(st.integers(0, n_opt - 1))] for key in keys}
        defer = options[-1] if draw(st.booleans()) and n_opt == 3 else None
        if defer is not None:
            rule = {k: (v if v != defer else options[0]) for k, v in rule.items()}
        goals.append(DecisionGoal(f"g{g}", deps, options, rule, draw(st.floats(0.5, 10.0)),
                                  defer, draw(st.floats(0.0, 3.0))))
    return build_model(claims, channels, goals), draw(st.integers(0, 3))


@settings(max_examples=60, deadline=None)
@given(tiny_models())
def test_static_oracle_matches_brute_force(case):
    model, budget = case
    best_set, best_value = static_oracle(model, budget)
    subsets = [s for k in range(min(budget, model.n_objects) + 1)
               for s in itertools.combinations(range(model.n_objects), k)]
    brute = max(brute_static_value(model, s) for s in subsets)
    assert best_value == pytest.approx(brute, abs=1e-9)
    assert brute_static_value(model, best_set) == pytest.approx(brute, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(tiny_models())
def test_adaptive_oracle_matches_brute_force(case):
    model, budget = case
    budget = min(budget, 3)
    assert AdaptiveOracle(model, budget).value() == pytest.approx(
        brute_adaptive_value(model, budget), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(tiny_models())
def test_random_expectation_is_the_average_over_all_draws(case):
    model, budget = case
    k = min(budget, model.n_objects)
    draws = list(itertools.combinations(range(model.n_objects), k))
    expected = sum(brute_static_value(model, d) for d in draws) / len(draws)
    assert random_expectation(model, budget) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(tiny_models())
def test_adaptive_is_never_worse_than_static(case):
    model, budget = case
    budget = min(budget, 3)
    assert AdaptiveOracle(model, budget).value() >= static_oracle(model, budget)[1] - 1e-9


def test_vectorised_subset_values_agree_with_brute_force_on_a_real_scenario():
    scenario = generate("A", 11)
    model = evaluator_model(scenario)
    subsets = combinations_array(range(model.n_objects), 2)[:40]
    fast = subset_values(model, subsets)
    slow = [brute_static_value(model, tuple(s)) for s in subsets]
    assert np.allclose(fast, slow, atol=1e-9)


def test_exhaustive_budgeted_search_is_fast_and_agrees_with_the_reduced_one():
    """C(30,5) = 142,506 subsets of size five (174,437 of size at most five) in seconds."""
    scenario = generate("G", 3)
    model = evaluator_model(scenario)
    assert model.n_objects == 30 and scenario.visible.max_inspections == 5
    start = time.perf_counter()
    full = static_oracle(model, 5, exhaustive=True)
    elapsed = time.perf_counter() - start
    assert full[1] == pytest.approx(static_oracle(model, 5)[1], abs=1e-9)
    assert elapsed < 20.0


def test_oracle_path_follows_the_pre_drawn_outcomes_and_decides_on_them():
    scenario = generate("B", 21)
    model = evaluator_model(scenario)
    oracle = plan(scenario, model, "adaptive", scenario.visible.max_inspections)
    for index, outcome in oracle.path:
        truth = scenario.latent.objects[model.object_ids[index]]
        assert outcome == (2 if truth.outcome is None else int(truth.outcome))
    assert set(oracle.decisions) == {g.goal_id for g in scenario.visible.scored_goals()}
    assert oracle.expected_value >= oracle.random_value
    assert oracle.expected_value >= oracle.no_inspection_value - 1e-12
