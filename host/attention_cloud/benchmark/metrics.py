"""Scoring one trial: attention regret, the diagnostic metrics of §17–18, and failure codes.

Every quantity is computed on the evaluator side from the scenario's hidden part and what the
policy did. Values are *paired*: in adaptive mode the policy and the oracle are scored on the same
pre-drawn inspection outcomes (common random numbers), so a policy that inspects what the oracle
inspects has exactly zero regret; in static mode both are exact expectations.

Failure codes follow Appendix B; each trial also gets the first failing stage of the four-way
split (§13): ``attention``, ``retrieval``, ``evidence``, ``reasoning`` or ``pass``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .decision_math import (FAILED, DecisionModel, best_decisions, decision_utility,
                            path_value, realised_utility, subset_values, weights_after)
from .model import Scenario
from .oracle import OraclePlan, true_state
from .session import PolicyReport, TrialSession
from .worldmodel import persistence

STAGES = ("attention", "retrieval", "evidence", "reasoning", "pass")
FAILURE_CODES = (
    "ATTN_CANDIDATE_MISSING", "ATTN_SELECTION_WRONG", "ATTN_SWITCH_WRONG", "ATTN_STARVATION",
    "ATTN_OVERINSPECTION", "ATTN_UNDERINSPECTION", "ATTN_SALIENCE_CAPTURE",
    "ATTN_SUMMARY_SUBSTITUTION", "ATTN_STALE_STATE", "ATTN_SOURCE_AUTHORITY_NEGLECT",
    "RETRIEVAL_FAILED", "EVIDENCE_IGNORED", "REASONING_FAILED", "VALIDATOR_RESCUED")

#: Declared authority from which a live source counts as authoritative for its claim.
AUTHORITATIVE = 0.9
#: Share of the stakes below which a shortfall is not counted as a failed stage.
TOLERANCE = 0.005


@dataclass
class TrialRecord:
    """Everything measured on one (family, seed, condition, policy) trial."""

    family: str
    seed: int
    condition: str
    mode: str
    policy: str
    value: float                 # attention value: decide optimally on the policy's evidence
    oracle_value: float          # the oracle's value on the same draws (static: exact)
    oracle_expected: float
    random_value: float
    no_inspection_value: float
    decision_value: float        # expected utility of the policy's own decisions, minus cost
    realised_utility: float      # utility of its decisions in the true state, minus cost
    decision_correct: bool
    cost: float
    spontaneous: int
    forced: int
    oracle_inspections: int
    needs_authoritative: bool
    spontaneous_authoritative: bool
    summary_substitution: bool
    critical_total: int
    critical_hit: int
    candidates_reported: bool
    candidate_hit: int
    selected_given_generated: int
    over_inspection: bool | None     # None unless the oracle inspects nothing
    excess_inspections: int
    switch_total: int
    switch_correct: int
    goals_served_by_oracle: int
    goals_starved: int
    attention_pass: bool
    stage: str
    codes: tuple[str, ...]
    rescued: bool | None
    wall_ms: float
    inspected: tuple[str, ...] = field(default=())

    @property
    def regret(self) -> float:
        return self.oracle_value - self.value


def _claim_of(scenario: Scenario, object_id: str) -> str | None:
    return scenario.visible.object(object_id).about_claim


def _belief_rule_decisions(scenario: Scenario) -> dict[str, str]:
    """What each goal's rule prescribes if every stored belief is taken at face value."""
    out: dict[str, str] = {}
    for g in scenario.visible.goals:
        values = []
        for cid in g.depends_on:
            b = scenario.visible.claim(cid).belief
            values.append(b.value if b is not None else True)
        out[g.goal_id] = g.rule_map()[tuple(values)]
    return out


def _informative_reading(scenario: Scenario, object_id: str, outcome: int) -> bool:
    truth = scenario.latent.objects[object_id]
    return outcome != FAILED and truth.echo_value is None and truth.accuracy > 0.5 + 1e-9


def _authoritative_live(scenario: Scenario, object_id: str) -> bool:
    o = scenario.visible.object(object_id)
    truth = scenario.latent.objects[object_id]
    return (o.content_as_of_s is None and o.authority is not None
            and o.authority >= AUTHORITATIVE and truth.echo_value is None and o.trusted)


def _policy_value(model: DecisionModel, session: TrialSession) -> tuple[float, float, list]:
    """Attention value of the policy's inspections, its total cost, and distinct observations."""
    seen: dict[int, int] = {}
    cost = 0.0
    for rec in session.inspections:
        idx = model.index(rec.object_id)
        cost += float(model.cost[idx])
        seen.setdefault(idx, rec.outcome)
    pairs = sorted(seen.items())
    duplicate_cost = cost - float(sum(model.cost[i] for i, _ in pairs))
    if session.mode == "static":
        subset = np.array([[i for i, _ in pairs]], dtype=np.intp)
        value = float(subset_values(model, subset)[0]) - duplicate_cost
    else:
        value = path_value(model, pairs, duplicate_cost)
    return value, cost, pairs


def score_trial(scenario: Scenario, model: DecisionModel, oracle: OraclePlan,
                session: TrialSession, report: PolicyReport, *, policy: str,
                wall_ms: float) -> TrialRecord:
    """Measure one finished trial."""
    vis = scenario.visible
    value, cost, pairs = _policy_value(model, session)
    decisions = session.decisions or {}
    state = true_state(scenario, model)
    w = weights_after(model, pairs)
    decision_value = decision_utility(model, w, decisions) - cost
    realised = realised_utility(model, state, decisions) - cost
    correct = _right(model, state, decisions)
    scale = sum(g.loss_if_wrong for g in vis.scored_goals()) or 1.0
    attention_pass = oracle.path_value - value <= TOLERANCE * scale

    spont = [r for r in session.inspections if not r.forced]
    forced = [r for r in session.inspections if r.forced]
    readings: dict[str, list[tuple[str, int]]] = {}
    for r in session.inspections:
        cid = _claim_of(scenario, r.object_id)
        if cid is not None:
            readings.setdefault(cid, []).append((r.object_id, r.outcome))

    # Critical signals: what the oracle inspected on these draws, at claim level.
    oracle_ids = [model.object_ids[i] for i, _ in oracle.path]
    critical: dict[str, float] = {}
    for oid in oracle_ids:
        cid = _claim_of(scenario, oid)
        if cid is not None:
            critical[cid] = max(critical.get(cid, 0.0), scenario.latent.objects[oid].accuracy)

    def hit(cid: str, *, answered: bool = False) -> bool:
        """The policy tried (or, with ``answered``, got) a reading as good as the oracle's."""
        return any(scenario.latent.objects[oid].accuracy >= critical[cid] - 0.02
                   and scenario.latent.objects[oid].echo_value is None
                   and not (answered and out == FAILED)
                   for oid, out in readings.get(cid, ()))

    missed = [cid for cid in critical if not hit(cid)]
    unanswered = [cid for cid in critical if hit(cid) and not hit(cid, answered=True)]

    # Spontaneous authoritative inspection and summary substitution.
    need_claims = sorted({_claim_of(scenario, oid) for oid in oracle_ids
                          if _authoritative_live(scenario, oid)
                          and vis.claim(_claim_of(scenario, oid) or "").belief is not None}
                         - {None})  # type: ignore[arg-type]
    spont_auth = all(any(_authoritative_live(scenario, r.object_id)
                         and _claim_of(scenario, r.object_id) == cid for r in spont)
                     for cid in need_claims)
    belief_decisions = _belief_rule_decisions(scenario)
    substitution = False
    for cid in need_claims:
        informed = any(_informative_reading(scenario, oid, out) for oid, out in readings.get(cid, ()))
        followed = any(decisions.get(g.goal_id) == belief_decisions[g.goal_id]
                       for g in vis.scored_goals() if cid in g.depends_on)
        substitution |= (not informed) and followed

    # Candidate generation (only for policies that report their candidate set).
    candidates = report.candidates
    cand_hit = sel_given = 0
    if candidates is not None:
        for cid in critical:
            generated = [o.object_id for o in vis.objects
                         if o.about_claim == cid and o.object_id in candidates]
            if generated:
                cand_hit += 1
                sel_given += int(hit(cid))

    # Switching and starvation.
    switch_total = switch_correct = 0
    for g in vis.scored_goals():
        if g.kind == "interruption":
            switch_total += 1
            truth = tuple(scenario.latent.truth[c] for c in g.depends_on)
            switch_correct += int(decisions.get(g.goal_id) == g.rule_map()[truth])
    served = starved = 0
    for g in vis.scored_goals():
        if any(c in critical for c in g.depends_on):
            served += 1
            starved += int(not any(c in readings for c in g.depends_on))

    over = None if oracle.path else bool(spont)
    excess = max(0, len(spont) - len(oracle.path))

    # Failure split.
    codes: list[str] = []
    stage = "pass"
    if not attention_pass:
        if missed:
            stage = "attention"
            codes += _miss_codes(scenario, missed, candidates, spont, oracle_ids, readings,
                                 substitution, starved)
        elif unanswered:
            stage = "retrieval"
            codes.append("RETRIEVAL_FAILED")
        else:
            stage = "attention"
            codes.append("ATTN_OVERINSPECTION" if len(session.inspections) > len(oracle.path)
                         else "ATTN_SELECTION_WRONG")
    elif over:
        codes.append("ATTN_OVERINSPECTION")
    bayes = best_decisions(model, w) if w.sum() > 0 else {}
    scores = model.utility @ (w / w.sum()) if w.sum() > 0 else None
    for block in model.goals:
        chosen = decisions.get(block.goal_id)
        if scores is None or chosen == bayes.get(block.goal_id):
            continue
        seg = scores[block.start:block.start + len(block.option_ids)]
        got = seg[block.option_ids.index(chosen)] if chosen in block.option_ids else seg.min()
        if float(seg.max()) - float(got) <= TOLERANCE * scale:
            continue
        follow = chosen == belief_decisions.get(block.goal_id) and bool(pairs)
        code = "EVIDENCE_IGNORED" if follow else "REASONING_FAILED"
        if code not in codes:
            codes.append(code)
        if stage == "pass":
            stage = "evidence" if follow else "reasoning"
    rescued = None
    if report.attention_decisions is not None:
        before = _right(model, state, report.attention_decisions)
        after = _right(model, state, decisions)
        rescued = bool(forced) and after and not before
        if rescued:
            codes.append("VALIDATOR_RESCUED")

    return TrialRecord(
        family=scenario.family, seed=scenario.seed, condition=session.condition,
        mode=session.mode, policy=policy, value=value, oracle_value=oracle.path_value,
        oracle_expected=oracle.expected_value, random_value=oracle.random_value,
        no_inspection_value=oracle.no_inspection_value, decision_value=decision_value,
        realised_utility=realised, decision_correct=bool(correct), cost=cost,
        spontaneous=len(spont), forced=len(forced), oracle_inspections=len(oracle.path),
        needs_authoritative=bool(need_claims), spontaneous_authoritative=bool(need_claims) and spont_auth,
        summary_substitution=substitution, critical_total=len(critical),
        critical_hit=len(critical) - len(missed), candidates_reported=candidates is not None,
        candidate_hit=cand_hit, selected_given_generated=sel_given, over_inspection=over,
        excess_inspections=excess, switch_total=switch_total, switch_correct=switch_correct,
        goals_served_by_oracle=served, goals_starved=starved, attention_pass=attention_pass,
        stage=stage, codes=tuple(codes), rescued=rescued, wall_ms=wall_ms,
        inspected=tuple(r.object_id for r in session.inspections))


def _right(model: DecisionModel, state: int, decisions: dict[str, str]) -> bool:
    """True when every scored goal got an option that is best in the true state."""
    best = float(sum(model.utility[b.start:b.start + len(b.option_ids), state].max()
                     for b in model.goals))
    return realised_utility(model, state, decisions) >= best - 1e-9


def _miss_codes(scenario: Scenario, missed: list[str], candidates: frozenset[str] | None,
                spont: list, oracle_ids: list[str], readings: dict, substitution: bool,
                starved: int) -> list[str]:
    """Explain an attention miss as specifically as the evidence allows."""
    vis = scenario.visible
    codes: list[str] = []
    if candidates is not None and any(
            not any(o.about_claim == cid and o.object_id in candidates for o in vis.objects)
            for cid in missed):
        codes.append("ATTN_CANDIDATE_MISSING")
    if len(spont) < len(oracle_ids):
        codes.append("ATTN_UNDERINSPECTION")
    if substitution:
        codes.append("ATTN_SUMMARY_SUBSTITUTION")
    if any(scenario.latent.objects[oid].echo_value is not None
           or scenario.latent.objects[oid].accuracy < AUTHORITATIVE
           for cid in missed for oid, _ in readings.get(cid, ())):
        codes.append("ATTN_SOURCE_AUTHORITY_NEGLECT")
    if any(r.object_id in scenario.salient_objects for r in spont):
        codes.append("ATTN_SALIENCE_CAPTURE")
    for cid in missed:
        c = vis.claim(cid)
        if c.belief is None:
            continue
        dirty = any(e.kind == "source_changed" and e.claim_id == cid
                    and e.at_s > c.belief.observed_at_s for e in vis.events)
        stale = 1.0 - persistence(vis.now_s - c.belief.observed_at_s, c.hazard_per_hour) > 0.2
        if dirty or stale:
            codes.append("ATTN_STALE_STATE")
            break
    interruption_claims = {c for g in vis.goals if g.kind == "interruption" for c in g.depends_on}
    if any(cid in interruption_claims for cid in missed) or any(
            vis.object(r.object_id).about_claim in interruption_claims
            and r.object_id not in oracle_ids for r in spont):
        codes.append("ATTN_SWITCH_WRONG")
    if starved:
        codes.append("ATTN_STARVATION")
    if not codes or codes == ["ATTN_UNDERINSPECTION"] and spont:
        codes.append("ATTN_SELECTION_WRONG")
    return codes
