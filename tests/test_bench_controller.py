"""The VOC policies drive the product's real controller (Prolog) through its Python API."""
from __future__ import annotations

import pytest

pytest.importorskip("attention_cloud.attention", reason="the attention controller is not installed")

from attention_cloud.attention import Controller  # noqa: E402
from attention_cloud.benchmark.families import FAMILIES, generate  # noqa: E402
from attention_cloud.benchmark.interface import render_interface  # noqa: E402
from attention_cloud.benchmark.metrics import score_trial  # noqa: E402
from attention_cloud.benchmark.oracle import evaluator_model, plan  # noqa: E402
from attention_cloud.benchmark.policies import make_policy  # noqa: E402
from attention_cloud.benchmark.policies.controller import ControllerPolicy, _Translation  # noqa: E402
from attention_cloud.benchmark.policies.reasoner import VisibleReasoner  # noqa: E402
from attention_cloud.benchmark.runner import run_policy  # noqa: E402
from attention_cloud.bridge import get_prolog  # noqa: E402


def _registered(scenario, ignore=()):
    pl = get_prolog()
    doc = render_interface(scenario.visible, condition="announced", mode="adaptive")
    reasoner = VisibleReasoner(doc)
    ctl = Controller(pl, scope=f"bench-test-{scenario.family}-{scenario.seed}-{len(ignore)}")
    ctl.drop()
    tr = _Translation(doc, reasoner, tuple(ignore))
    tr.register(ctl)
    return ctl, tr, reasoner, doc


def test_translation_preserves_declared_staleness_and_authority():
    scenario = generate("B", 12)
    ctl, tr, reasoner, doc = _registered(scenario)
    try:
        for cid, claim in reasoner.claims.items():
            if claim["belief"] is None:
                continue
            info = ctl.belief(cid, now=doc["now_s"])
            assert info["p_stale"] == pytest.approx(reasoner.staleness(cid), abs=1e-6)
            assert info["age_s"] == pytest.approx(doc["now_s"] - claim["belief"]["observed_at_s"])
        for oid in tr.sources:
            expected = max(0.0, 2 * reasoner.accuracy(oid) - 1)
            assert ctl.source(oid)["authority"] == pytest.approx(expected, abs=1e-9)
            if reasoner.is_echo(oid):
                assert ctl.source(oid)["authority"] == 0.0
        assert ctl.weight("cost_weight") == 1.0
        assert len(set(tr.claim_type.values())) == len(tr.claim_type)   # one type per claim
    finally:
        ctl.drop()


def test_ablations_register_the_same_world_and_switch_one_weight_off():
    """An ablation runs the real controller on the full registration: only the component's
    weight differs, and the candidates' estimates show the component gone."""
    scenario = generate("D", 3)
    full, tr, reasoner, doc = _registered(scenario)
    ablated, _, _, _ = _registered(scenario, ignore=("staleness", "authority", "switch_cost"))
    try:
        for oid in tr.sources:
            assert ablated.source(oid) == full.source(oid)
        switchy = [oid for oid in tr.sources if reasoner.objects[oid]["switch_cost"] > 0]
        assert switchy and all(full.source(o)["switch_cost"] == reasoner.objects[o]["switch_cost"]
                               for o in switchy)
        for name, off in (("staleness_weight", 0.0), ("authority_weight", 0.0),
                          ("switch_weight", 0.0), ("cost_weight", 1.0)):
            assert ablated.weight(name) == off
        assert full.weight("staleness_weight") == full.weight("authority_weight") == 1.0
        goal = next(g for g in reasoner.goals if reasoner.goals[g]["current"])
        ranked = ablated.attend(goal, budget=1, now=doc["now_s"]).ranked
        inspected = [c for c in ranked if c.kind == "inspect_source"]
        assert inspected and all(c.authority == 1.0 for c in inspected)
        assert all(c.switch_cost == 0 or c.net_voc == pytest.approx(c.predicted_voc - c.cost)
                   for c in ranked)
    finally:
        full.drop()
        ablated.drop()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_voc_policy_runs_every_family_and_leaves_no_scope_behind(family):
    scenario = generate(family, 8)
    mode = FAMILIES[family].default_mode
    policy = make_policy("voc")
    session, report, _, error = run_policy(policy, scenario, condition="announced", mode=mode)
    assert error is None
    assert set(session.decisions) >= {g.goal_id for g in scenario.visible.scored_goals()}
    assert len({r.object_id for r in session.inspections}) == len(session.inspections)
    assert sum(not r.forced for r in session.inspections) <= scenario.visible.max_inspections
    assert report.candidates is not None
    leftover = Controller(get_prolog(), scope=f"bench-{scenario.visible.trial_id}-voc")
    assert leftover.beliefs(now=scenario.visible.now_s) == []


def _paired_values(family, names, seeds):
    totals = {n: 0.0 for n in names}
    for seed in seeds:
        scenario = generate(family, seed)
        model = evaluator_model(scenario)
        oracle = plan(scenario, model, "adaptive", scenario.visible.max_inspections)
        for name in names:
            session, report, ms, _ = run_policy(make_policy(name), scenario,
                                                condition="unprompted", mode="adaptive")
            totals[name] += score_trial(scenario, model, oracle, session, report, policy=name,
                                        wall_ms=ms).value
    return totals


def test_controller_beats_baselines_and_its_authority_ablation_on_summary_trials():
    totals = _paired_values("B", ("voc", "voc_no_authority", "no_inspection", "random"), range(20))
    assert totals["voc"] > totals["no_inspection"] + 1.0
    assert totals["voc"] > totals["random"] + 1.0
    assert totals["voc"] > totals["voc_no_authority"] + 1.0


def test_production_marks_validator_forced_reads_and_keeps_the_attention_decisions():
    """Where the validator blocks a claim, production reads what it asks for, marked forced;
    the same trial in attention-only mode reads nothing extra."""
    for seed in range(80):
        scenario = generate("B", seed)
        session, report, _, error = run_policy(make_policy("production"), scenario,
                                               condition="announced", mode="adaptive")
        assert error is None and report.attention_decisions is not None
        forced = [r for r in session.inspections if r.forced]
        if not forced:
            continue
        due_claims = {c for g in scenario.visible.scored_goals() for c in g.depends_on}
        for r in forced:
            obj = scenario.visible.object(r.object_id)
            assert obj.about_claim in due_claims and obj.authority >= 0.9
        twin, twin_report, _, _ = run_policy(make_policy("attention_only"), scenario,
                                             condition="announced", mode="adaptive")
        assert not any(r.forced for r in twin.inspections)
        assert twin_report.attention_decisions is None
        assert [r.object_id for r in twin.inspections] == \
            [r.object_id for r in session.inspections if not r.forced]
        return
    pytest.fail("the validator never forced a read in 80 summary trials")


def test_static_protocol_batches_distinct_objects_within_budget():
    scenario = generate("G", 4)
    session, _, _, error = run_policy(make_policy("voc"), scenario, condition="announced",
                                      mode="static")
    assert error is None and session.batch_done
    ids = [r.object_id for r in session.inspections]
    assert 0 < len(ids) <= 5 and len(set(ids)) == len(ids)
