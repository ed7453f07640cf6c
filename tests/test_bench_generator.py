"""Scenario generation: deterministic, honest metadata, wording independent of the latent truth."""
from __future__ import annotations

import numpy as np
import pytest

from attention_cloud.benchmark.families import FAMILIES, generate, resolve_families
from attention_cloud.benchmark.interface import render_interface, validate_interface
from attention_cloud.benchmark.oracle import evaluator_model, plan
from attention_cloud.benchmark.policies.reasoner import VisibleReasoner


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_renders_a_valid_interface_in_both_conditions(family):
    scenario = generate(family, 7)
    announced = render_interface(scenario.visible, condition="announced", mode="adaptive")
    unprompted = render_interface(scenario.visible, condition="unprompted", mode="adaptive")
    validate_interface(announced)
    validate_interface(unprompted)
    assert "instruction" in announced["task"] and "instruction" not in unprompted["task"]
    assert {k: v for k, v in announced.items() if k != "task"} == \
        {k: v for k, v in unprompted.items() if k != "task"}
    # No word of a test or of verification in the unprompted task (§15.1).
    text = unprompted["task"]["text"].lower()
    assert "test" not in text.split() and "verify" not in text and "inspect" not in text


def test_same_seed_same_scenario_and_different_seeds_differ():
    a = render_interface(generate("C", 42).visible, condition="announced", mode="adaptive")
    b = render_interface(generate("C", 42).visible, condition="announced", mode="adaptive")
    c = render_interface(generate("C", 43).visible, condition="announced", mode="adaptive")
    assert a == b and a != c


def test_redrawing_the_latent_stream_changes_the_truth_but_not_the_interface():
    changed_truth = 0
    for seed in range(12):
        base = generate("B", seed)
        other = generate("B", seed, latent_seed=10_000 + seed)
        assert render_interface(base.visible, condition="announced", mode="adaptive") == \
            render_interface(other.visible, condition="announced", mode="adaptive")
        changed_truth += dict(base.latent.truth) != dict(other.latent.truth)
    assert changed_truth > 0


def test_budgeted_family_has_the_shape_of_section_14_1():
    scenario = generate("G", 1)
    model = evaluator_model(scenario)
    assert len(scenario.visible.objects) == 30 and scenario.visible.max_inspections == 5
    assert 4 <= int(model.informative().sum()) <= 12        # 4 high-value + 6 partial sources
    assert len(scenario.visible.goals[0].options) == 3


def test_structural_features_of_the_families():
    d = generate("D", 2).visible
    assert any(g.kind == "interruption" for g in d.goals)
    assert any(e.kind == "interruption" for e in d.events)
    j = generate("J", 2).visible
    assert len(j.scored_goals()) == 2 and len(j.goals) == 3      # the week goal is out of session
    h = generate("H", 2)
    assert h.salient_objects and any(not o.trusted for o in h.visible.objects)
    i = generate("I", 2).visible
    assert any(c.belief and c.belief.origin == "self_hypothesis" for c in i.claims)


def test_hidden_change_family_sometimes_dirties_a_goal_claim():
    dirty = 0
    for seed in range(20):
        vis = generate("E", seed).visible
        goal_claims = {c for g in vis.scored_goals() for c in g.depends_on}
        dirty += any(e.kind == "source_changed" and e.claim_id in goal_claims for e in vis.events)
    assert 5 <= dirty <= 19


def test_truth_is_drawn_from_the_priors_it_declares():
    """Calibration: across many scenarios the facts come out true as often as their priors say."""
    priors, truths = [], []
    for seed in range(300):
        scenario = generate("C", seed)
        for cid, p in scenario.latent.prior_true.items():
            priors.append(p)
            truths.append(scenario.latent.truth[cid])
    priors, truths = np.array(priors), np.array(truths, dtype=float)
    for bucket in (priors >= 0.0, priors > 0.7, priors < 0.3):
        p, t = priors[bucket], truths[bucket]
        z = abs((t - p).sum()) / np.sqrt((p * (1 - p)).sum())
        assert bucket.sum() > 100 and z < 4.0


def test_declared_metadata_is_close_to_the_hidden_model():
    """Honest metadata: the visible reasoner's prior is within the hidden jitter of the truth's."""
    gaps = []
    for seed in range(30):
        scenario = generate("A", seed)
        reasoner = VisibleReasoner(render_interface(scenario.visible, condition="announced",
                                                    mode="adaptive"))
        for cid, p in scenario.latent.prior_true.items():
            gaps.append(abs(reasoner.p_true(cid) - p))
    assert max(gaps) < 0.12 and float(np.mean(gaps)) < 0.04


def test_every_family_leaves_room_between_oracle_and_random():
    for code, spec in FAMILIES.items():
        gains = []
        for seed in range(10):
            scenario = generate(code, seed)
            model = evaluator_model(scenario)
            oracle = plan(scenario, model, spec.default_mode, scenario.visible.max_inspections)
            gains.append(oracle.expected_value - oracle.random_value)
        assert np.mean(gains) > 0.1, code


def test_family_names_resolve_by_letter_slug_or_all():
    assert [f.code for f in resolve_families("all")] == list(FAMILIES)
    assert [f.code for f in resolve_families("b, budgeted,B")] == ["B", "G"]
    with pytest.raises(KeyError, match="unknown family 'Z'"):
        resolve_families("Z")
