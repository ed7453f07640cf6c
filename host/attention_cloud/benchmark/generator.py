"""Scenario construction with ground truth by construction.

A family recipe (see :mod:`.families`) describes the *structure* of a trial through a
:class:`ScenarioBuilder`: claims and the stored beliefs about them, goals and their stakes,
inspectable objects with declared authority and cost, events. :meth:`ScenarioBuilder.build` then
draws the hidden part — the true values, real channel accuracies, tool failures and the outcome
of every possible inspection — from the published world model (:mod:`.worldmodel`) with small
hidden deviations.

Three independent random streams keep the parts apart: *structure* (numbers a policy sees),
*latent* (truth and noise, never seen) and *wording* (names, ids, sentences, order). Re-drawing
the latent stream changes the answer but not one byte of what a policy sees.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .model import (Belief, Claim, Event, Goal, InspectableObject, LatentScenario, ObjectTruth,
                    Option, RuleRow, Scenario, VisibleScenario)
from .wording import Topic, Wording
from .worldmodel import HAZARD_PER_HOUR, effective_accuracy, keep_probability

#: Bumped whenever generated scenarios change for a given seed (part of the freeze record).
GENERATOR_VERSION = "attention-bench-generator/1.0.0"


@dataclass
class BeliefSpec:
    """A stored belief to attach to a claim; ``value`` None draws it at random."""

    confidence: float
    age_s: float
    origin: str = "summary"
    value: bool | None = None


@dataclass
class _ClaimDraft:
    claim_id: str
    topic: Topic
    subject: str
    true_text: str
    false_text: str
    volatility: str
    belief: BeliefSpec | None
    belief_value: bool
    p_true_override: float | None
    fill: dict[str, str] = field(default_factory=dict)
    source_object: str | None = None
    change_event_at: float | None = None     # seconds ago of a source_changed event


@dataclass
class _ObjectDraft:
    object_id: str
    kind: str
    title: str
    claim: str | None
    authority: float | None
    cost: float
    switch_cost: float
    content_age_s: float | None
    arrived_ago_s: float
    trusted: bool
    trusted_priority: float | None
    sender: str
    goal: str | None
    preview: str
    failure_prob: float
    echo: bool
    salient: bool


@dataclass
class _GoalDraft:
    goal: Goal


@dataclass
class ScenarioBuilder:
    """Collects one trial's structure, then draws its hidden part in :meth:`build`."""

    family: str
    seed: int
    structure: np.random.Generator
    latent: np.random.Generator
    words: Wording
    now_s: float
    claims: list[_ClaimDraft] = field(default_factory=list)
    objects: list[_ObjectDraft] = field(default_factory=list)
    goals: list[_GoalDraft] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    change_probs: dict[str, float] = field(default_factory=dict)

    # -- structure draws -------------------------------------------------------------------
    def uniform(self, lo: float, hi: float) -> float:
        return float(self.structure.uniform(lo, hi))

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]`` inclusive."""
        return int(self.structure.integers(lo, hi + 1))

    def chance(self, p: float) -> bool:
        return bool(self.structure.random() < p)

    # -- claims -----------------------------------------------------------------------------
    def add_claim(self, topic: Topic, *, belief: BeliefSpec | None = None,
                  volatility: str | None = None, p_true: float | None = None,
                  texts: tuple[str, str] | None = None, subject: str | None = None) -> str:
        """A binary fact; with a belief, its prior follows from the belief's age and confidence."""
        subject = subject or self.words.subject()
        old, new = self.words.versions()
        true_text, false_text = texts or (topic.true_text, topic.false_text)
        fill = {"subject": subject, "old": old, "new": new}
        value = belief.value if belief and belief.value is not None else self.chance(0.5)
        draft = _ClaimDraft(self.words.new_id("claim"), topic, subject,
                            true_text.format(**fill), false_text.format(**fill),
                            volatility or topic.volatility, belief, value, p_true, fill)
        self.claims.append(draft)
        return draft.claim_id

    def claim(self, claim_id: str) -> _ClaimDraft:
        return next(c for c in self.claims if c.claim_id == claim_id)

    def keep_for(self, claim_id: str) -> float:
        """The published probability that the claim's stored belief is still right."""
        c = self.claim(claim_id)
        if c.belief is None:
            return 0.5
        return keep_probability(c.belief.confidence, c.belief.age_s,
                                HAZARD_PER_HOUR[c.volatility])

    def age_for_keep(self, keep: float, confidence: float, volatility: str) -> float:
        """Belief age (seconds) at which the published keep probability equals ``keep``."""
        keep = min(max(keep, 0.5 + 1e-6), confidence - 1e-6)
        return 3600.0 * -math.log((keep - 0.5) / (confidence - 0.5)) / HAZARD_PER_HOUR[volatility]

    # -- goals ------------------------------------------------------------------------------
    def add_goal(self, depends_on: Sequence[str], *, loss: float, text: str,
                 options: Sequence[str], rule: dict[tuple[bool, ...], int],
                 kind: str = "task", current: bool = False, deadline_s: float | None = None,
                 defer_text: str | None = None, defer_cost: float = 0.0,
                 irreversible: bool = False, safety_critical: bool = False) -> str:
        """A decision: ``rule`` maps truth values of ``depends_on`` to an index in ``options``."""
        option_records = tuple(Option(self.words.new_id("opt"), t) for t in options)
        defer_id = None
        if defer_text is not None:
            defer_id = self.words.new_id("opt")
            option_records = option_records + (Option(defer_id, defer_text),)
        rows = tuple(RuleRow(tuple(zip(depends_on, key)), option_records[idx].option_id)
                     for key, idx in sorted(rule.items()))
        goal = Goal(self.words.new_id("goal"), text, kind, current, tuple(depends_on),
                    option_records, rows, round(loss, 3), defer_id, round(defer_cost, 3),
                    None if deadline_s is None else round(deadline_s, 1),
                    irreversible, safety_critical)
        self.goals.append(_GoalDraft(goal))
        return goal.goal_id

    # -- objects ----------------------------------------------------------------------------
    def add_object(self, claim: str | None, *, kind: str, title: str, authority: float | None,
                   cost: float, content_age_s: float | None = None, arrived_ago_s: float = 0.0,
                   trusted: bool = True, trusted_priority: float | None = None,
                   sender: str = "system", goal: str | None = None, preview: str | None = None,
                   switch_cost: float = 0.0, failure_prob: float = 0.0, echo: bool = False,
                   salient: bool = False) -> str:
        """An inspectable object. ``echo`` makes it the recorded source of the claim's belief."""
        oid = self.words.new_id("obj")
        subject = self.claim(claim).subject if claim else None
        self.objects.append(_ObjectDraft(
            oid, kind, title, claim, None if authority is None else round(authority, 3),
            round(cost, 3), round(switch_cost, 3),
            None if content_age_s is None else round(content_age_s, 1), round(arrived_ago_s, 1),
            trusted, None if trusted_priority is None else round(trusted_priority, 3), sender,
            goal, preview or self.words.plain_preview(title, subject), failure_prob, echo,
            salient))
        if echo:
            if claim is None or self.claim(claim).belief is None:
                raise ValueError("an echo object needs a claim with a stored belief")
            self.claim(claim).source_object = oid
        return oid

    def add_summary(self, claim: str, *, cost: float, arrived_ago_s: float | None = None,
                    kind: str = "summary", title: str | None = None) -> str:
        """The cached summary a belief was copied from: it repeats the belief, nothing more."""
        c = self.claim(claim)
        assert c.belief is not None
        title = title or f"{self.words.pick(c.topic.summary_sources)} ({c.subject})"
        return self.add_object(claim, kind=kind, title=title, authority=c.belief.confidence,
                               cost=cost, content_age_s=c.belief.age_s,
                               arrived_ago_s=c.belief.age_s if arrived_ago_s is None else arrived_ago_s,
                               echo=True,
                               preview=f"{title}: " + (c.true_text if c.belief_value else c.false_text))

    def add_live(self, claim: str, *, authority: float, cost: float, arrived_ago_s: float = 0.0,
                 failure_prob: float = 0.0, goal: str | None = None, switch_cost: float = 0.0,
                 trusted_priority: float | None = None, preview: str | None = None,
                 salient: bool = False, source_of_belief: bool = False) -> str:
        """An authoritative live instrument for the claim.

        ``source_of_belief`` records that the stored belief is an earlier reading of this
        instrument; reading it again still reports the present, so it is no echo.
        """
        c = self.claim(claim)
        title = f"{self.words.pick(c.topic.live_sources)} ({c.subject})"
        oid = self.add_object(claim, kind="live_instrument", title=title, authority=authority,
                              cost=cost, arrived_ago_s=arrived_ago_s, failure_prob=failure_prob,
                              goal=goal, switch_cost=switch_cost,
                              trusted_priority=trusted_priority, preview=preview,
                              salient=salient)
        if source_of_belief:
            if c.belief is None:
                raise ValueError("source_of_belief needs a claim with a stored belief")
            c.source_object = oid
        return oid

    def add_partial(self, claim: str, *, authority: float, cost: float,
                    content_age_s: float | None = None, arrived_ago_s: float = 0.0,
                    goal: str | None = None) -> str:
        """Indirect evidence: less authoritative, possibly old content."""
        c = self.claim(claim)
        title = f"{self.words.pick(c.topic.partial_sources)} ({c.subject})"
        return self.add_object(claim, kind="indirect_source", title=title, authority=authority,
                               cost=cost, content_age_s=content_age_s,
                               arrived_ago_s=arrived_ago_s if content_age_s is None
                               else max(arrived_ago_s, content_age_s), goal=goal)

    def add_chatter(self, *, cost: float, arrived_ago_s: float, loud: bool = False,
                    trusted_priority: float | None = None, salient: bool = False,
                    trusted: bool = True) -> str:
        """An object that bears on no claim any goal depends on."""
        kind = self.words.chatter_kind()
        preview = self.words.loud_preview(None) if loud else self.words.plain_preview(kind, None)
        return self.add_object(None, kind="chatter", title=kind, authority=None, cost=cost,
                               arrived_ago_s=arrived_ago_s, trusted=trusted,
                               trusted_priority=trusted_priority, sender=self.words.person(),
                               preview=preview, salient=salient or loud)

    # -- events -----------------------------------------------------------------------------
    def add_change_event(self, claim: str, *, ago_s: float, source_object: str | None) -> str:
        """A trusted ``source_changed`` event; how likely the fact really changed stays hidden."""
        c = self.claim(claim)
        c.change_event_at = ago_s
        self.change_probs[c.claim_id] = float("nan")   # drawn from the latent stream in build()
        eid = self.words.new_id("evt")
        self.events.append(Event(eid, "source_changed", round(self.now_s - ago_s, 1),
                                 source_object, claim, None, None,
                                 f"{c.subject}: upstream source reported a change"))
        return eid

    def add_interruption_event(self, goal: str, claim: str, *, ago_s: float,
                               trusted_priority: float, payload: str,
                               source_object: str | None) -> str:
        eid = self.words.new_id("evt")
        self.events.append(Event(eid, "interruption", round(self.now_s - ago_s, 1),
                                 source_object, claim, goal, round(trusted_priority, 3), payload))
        return eid

    def add_notification_event(self, *, ago_s: float, payload: str,
                               source_object: str | None = None) -> str:
        eid = self.words.new_id("evt")
        self.events.append(Event(eid, "notification", round(self.now_s - ago_s, 1),
                                 source_object, None, None, None, payload))
        return eid

    # -- build ------------------------------------------------------------------------------
    def build(self, *, task_text: str, max_inspections: int, horizon_s: float = 3600.0) -> Scenario:
        """Freeze the structure and draw the hidden truth and inspection outcomes."""
        now = self.now_s
        claims: list[Claim] = []
        truth: dict[str, bool] = {}
        prior: dict[str, float] = {}
        hazards: dict[str, float] = {}
        notes: dict[str, float] = {}
        for c in self.claims:                      # creation order: independent of wording
            if c.claim_id in self.change_probs:
                self.change_probs[c.claim_id] = float(self.latent.uniform(0.6, 0.9))
        for c in self.claims:
            declared = HAZARD_PER_HOUR[c.volatility]
            hazard = declared * float(self.latent.uniform(0.8, 1.25))
            hazards[c.claim_id] = hazard
            change = 0.0
            if (c.belief is not None and c.change_event_at is not None
                    and c.change_event_at < c.belief.age_s):
                change = self.change_probs.get(c.claim_id, 0.0)
            if c.p_true_override is not None:
                jitter = float(self.latent.uniform(-0.03, 0.03))
                p = min(max(c.p_true_override + jitter, 0.001), 0.999)
            elif c.belief is not None:
                keep = keep_probability(c.belief.confidence, c.belief.age_s, hazard, change)
                p = keep if c.belief_value else 1.0 - keep
            else:
                p = 0.5
            prior[c.claim_id] = p
            truth[c.claim_id] = bool(self.latent.random() < p)
            belief = None
            if c.belief is not None:
                belief = Belief(c.belief_value, round(c.belief.confidence, 4),
                                round(now - c.belief.age_s, 1), c.belief.origin, c.source_object)
            claims.append(Claim(c.claim_id, c.topic.claim_type, c.subject, c.true_text,
                                c.false_text, c.volatility, declared, belief))

        objects: list[InspectableObject] = []
        truths: dict[str, ObjectTruth] = {}
        for o in self.objects:
            objects.append(InspectableObject(
                o.object_id, o.kind, o.title, o.claim, o.authority, o.cost, o.switch_cost,
                None if o.content_age_s is None else round(now - o.content_age_s, 1),
                round(now - o.arrived_ago_s, 1), o.trusted, o.trusted_priority, o.sender,
                o.goal, o.preview))
            truths[o.object_id] = self._draw_object(o, truth, hazards)

        ordered_objects = [objects[i] for i in self.words.rng.permutation(len(objects))]
        ordered_claims = [claims[i] for i in self.words.rng.permutation(len(claims))]
        goals = [g.goal for g in self.goals]
        ordered_goals = [goals[i] for i in self.words.rng.permutation(len(goals))]
        visible = VisibleScenario(
            trial_id=self.words.new_id("trial"), task_text=task_text,
            announced_instruction=(
                f"Before you decide, you may inspect up to {max_inspections} of the "
                f"{len(objects)} objects listed; each inspection has a cost. Choose what to "
                "inspect, then decide every goal that is due in this session."),
            now_s=round(now, 1), horizon_s=horizon_s, max_inspections=max_inspections,
            claims=tuple(ordered_claims), goals=tuple(ordered_goals),
            objects=tuple(ordered_objects), events=tuple(self.events))
        for cid, rho in self.change_probs.items():
            notes[f"change_prob:{cid}"] = rho
        latent = LatentScenario(truth, prior, truths, notes)
        salient = frozenset(o.object_id for o in self.objects if o.salient)
        return Scenario(self.family, self.seed, visible, latent, salient)

    def _draw_object(self, o: _ObjectDraft, truth: dict[str, bool],
                     hazards: dict[str, float]) -> ObjectTruth:
        fails = bool(self.latent.random() < o.failure_prob)
        noise = float(self.latent.random())
        jitter = float(self.latent.normal(0.0, 0.01))
        if o.claim is None:
            content = self.words.chatter_observation(o.title)
            return ObjectTruth(0.5, o.failure_prob, None, None if fails else True,
                               self.words.failure(o.title) if fails else content)
        c = self.claim(o.claim)
        if o.echo:
            reported = c.belief_value
            accuracy = 0.5
            echo_value: bool | None = c.belief_value
        else:
            authority = min(max((o.authority or 0.5) + jitter, 0.5), 0.995)
            change = 0.0
            if (o.content_age_s is not None and c.change_event_at is not None
                    and o.content_age_s > c.change_event_at):
                # Content written before the change no longer describes the present.
                change = self.change_probs.get(c.claim_id, 0.0)
            accuracy = authority if o.content_age_s is None else effective_accuracy(
                authority, o.content_age_s, hazards[c.claim_id], change)
            reported = truth[c.claim_id] if noise < accuracy else not truth[c.claim_id]
            echo_value = None
        statement = c.true_text if reported else c.false_text
        content = self.words.failure(o.title) if fails else self.words.observation(o.title, statement)
        return ObjectTruth(accuracy, o.failure_prob, echo_value, None if fails else reported, content)


def new_builder(family: str, family_index: int, seed: int, *,
                latent_seed: int | None = None) -> ScenarioBuilder:
    """A builder with the three independent random streams for ``(family, seed)``."""
    root = np.random.SeedSequence(entropy=seed, spawn_key=(family_index,))
    structure, latent, wording = root.spawn(3)
    if latent_seed is not None:
        latent = np.random.SeedSequence(entropy=latent_seed, spawn_key=(family_index, 7))
    words = Wording(np.random.default_rng(wording))
    now = 1_900_000_000.0 + float(words.rng.integers(0, 10_000_000))
    return ScenarioBuilder(family, seed, np.random.default_rng(structure),
                           np.random.default_rng(latent), words, now)
