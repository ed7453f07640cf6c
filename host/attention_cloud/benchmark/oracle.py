"""The evaluator's oracle: optimal inspection under the true, hidden model of a scenario.

:func:`evaluator_model` builds the decision model from the latent part (real priors, real
channel accuracies and failure rates, only the goals due in this session); :func:`plan` runs the
static or adaptive search of :mod:`.search` on it and follows the optimal policy on this trial's
pre-drawn inspection outcomes. The random anchor of the normalised score is the exact expected
value of inspecting the full budget uniformly at random.
"""
from __future__ import annotations

from dataclasses import dataclass

from .decision_math import (FAILED, REPORTED_FALSE, REPORTED_TRUE, Channel, ClaimPrior,
                            DecisionGoal, DecisionModel, best_decisions, build_model, path_value,
                            stop_value, weights_after)
from .model import Scenario
from .search import AdaptiveOracle, random_expectation, static_oracle


def evaluator_model(scenario: Scenario) -> DecisionModel:
    """The true decision model of a scenario: hidden priors, real channels, scored goals only."""
    vis, lat = scenario.visible, scenario.latent
    claims = [ClaimPrior(c.claim_id, lat.prior_true[c.claim_id]) for c in vis.claims]
    channels = []
    for o in vis.objects:
        t = lat.objects[o.object_id]
        channels.append(Channel(o.object_id, o.about_claim, t.accuracy, o.cost + o.switch_cost,
                                t.failure_prob, t.echo_value))
    goals = [DecisionGoal(g.goal_id, g.depends_on, tuple(op.option_id for op in g.options),
                          g.rule_map(), g.loss_if_wrong, g.defer_option, g.defer_cost)
             for g in vis.scored_goals()]
    return build_model(claims, channels, goals)


def true_state(scenario: Scenario, model: DecisionModel) -> int:
    """Index of the joint state the world is actually in."""
    return sum(1 << r for r, cid in enumerate(model.claim_ids) if scenario.latent.truth[cid])


def outcome_code(scenario: Scenario, object_id: str) -> int:
    """The pre-drawn outcome of inspecting ``object_id`` in this trial, as an outcome code."""
    outcome = scenario.latent.objects[object_id].outcome
    if outcome is None:
        return FAILED
    return REPORTED_TRUE if outcome else REPORTED_FALSE


@dataclass(frozen=True)
class OraclePlan:
    """What the oracle achieves on one trial, in expectation and on this trial's draws."""

    mode: str
    budget: int
    expected_value: float
    random_value: float
    no_inspection_value: float
    path: tuple[tuple[int, int], ...]
    path_value: float
    decisions: dict[str, str]


def plan(scenario: Scenario, model: DecisionModel, mode: str, budget: int) -> OraclePlan:
    """Run the oracle of ``mode`` (static | adaptive) on a scenario."""
    outcomes = {i: outcome_code(scenario, oid) for i, oid in enumerate(model.object_ids)}
    if mode == "static":
        best_set, expected = static_oracle(model, budget)
        path = [(i, outcomes[i]) for i in best_set]
    elif mode == "adaptive":
        oracle = AdaptiveOracle(model, budget)
        expected = oracle.value()
        path = oracle.follow(outcomes)
    else:
        raise ValueError(f"unknown oracle mode {mode!r}")
    decisions = best_decisions(model, weights_after(model, path))
    # Static policies are scored by exact expectation, so the oracle is too; adaptive ones on
    # this trial's draws, paired with the oracle's value on the same draws.
    comparator = expected if mode == "static" else path_value(model, path)
    return OraclePlan(mode, budget, expected, random_expectation(model, budget),
                      stop_value(model, model.prior), tuple(path), comparator, decisions)
