"""Scenario records, split into what a policy may see and what only the evaluator knows.

:class:`VisibleScenario` holds trusted metadata and untrusted text; it is the only part ever
rendered for a policy (see :mod:`.interface`). :class:`LatentScenario` holds the truth, the real
channel parameters and the pre-drawn outcome of every possible inspection; it never leaves the
evaluator.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping


@dataclass(frozen=True)
class Belief:
    """A stored belief about a claim: what the agent currently thinks, and why."""

    value: bool
    confidence: float
    observed_at_s: float
    origin: str                 # summary | memory | self_hypothesis | triage
    source_object: str | None   # the object this belief was copied from, if any


@dataclass(frozen=True)
class Claim:
    """A binary fact about the world, with both phrasings and the agent's stored belief."""

    claim_id: str
    claim_type: str
    subject: str
    true_text: str
    false_text: str
    volatility: str
    hazard_per_hour: float
    belief: Belief | None


@dataclass(frozen=True)
class Option:
    option_id: str
    text: str


@dataclass(frozen=True)
class RuleRow:
    """``option_id`` is the right choice when the claims take the values in ``when``."""

    when: tuple[tuple[str, bool], ...]
    option_id: str


@dataclass(frozen=True)
class Goal:
    """A decision the agent owes, with its options, decision rule and stakes."""

    goal_id: str
    text: str
    kind: str                   # task | interruption
    current: bool
    depends_on: tuple[str, ...]
    options: tuple[Option, ...]
    rule: tuple[RuleRow, ...]
    loss_if_wrong: float
    defer_option: str | None
    defer_cost: float
    deadline_s: float | None    # seconds from now
    irreversible: bool = False
    safety_critical: bool = False

    def rule_map(self) -> dict[tuple[bool, ...], str]:
        """The rule keyed by truth values in ``depends_on`` order."""
        out: dict[tuple[bool, ...], str] = {}
        for row in self.rule:
            when = dict(row.when)
            out[tuple(when[c] for c in self.depends_on)] = row.option_id
        return out


@dataclass(frozen=True)
class InspectableObject:
    """Something the agent may inspect: trusted metadata plus an untrusted preview."""

    object_id: str
    kind: str
    title: str
    about_claim: str | None
    authority: float | None     # declared accuracy for its claim when its content was produced
    cost: float
    switch_cost: float
    content_as_of_s: float | None   # None: live, reports the present
    arrived_at_s: float
    trusted: bool
    trusted_priority: float | None
    sender: str
    goal_id: str | None         # the goal whose context this object belongs to
    untrusted_preview: str


@dataclass(frozen=True)
class Event:
    """Something that happened: a source change, an interruption, a notification."""

    event_id: str
    kind: str                   # source_changed | interruption | notification
    at_s: float
    source_object: str | None
    claim_id: str | None
    goal_id: str | None
    trusted_priority: float | None
    untrusted_payload: str


@dataclass(frozen=True)
class VisibleScenario:
    """Everything a policy is allowed to know before inspecting anything."""

    trial_id: str
    task_text: str
    announced_instruction: str
    now_s: float
    horizon_s: float
    max_inspections: int
    claims: tuple[Claim, ...]
    goals: tuple[Goal, ...]
    objects: tuple[InspectableObject, ...]
    events: tuple[Event, ...]

    def claim(self, claim_id: str) -> Claim:
        return next(c for c in self.claims if c.claim_id == claim_id)

    def object(self, object_id: str) -> InspectableObject:
        return next(o for o in self.objects if o.object_id == object_id)

    def scored_goals(self) -> tuple[Goal, ...]:
        """Goals whose decision falls inside this session (deadline within the horizon)."""
        return tuple(g for g in self.goals
                     if g.deadline_s is None or g.deadline_s <= self.horizon_s)


@dataclass(frozen=True)
class ObjectTruth:
    """The evaluator's knowledge of one object: real channel and the pre-drawn outcome."""

    accuracy: float             # P(reading matches the current value), 0.5 = no information
    failure_prob: float
    echo_value: bool | None     # repeats this stored value whatever the world is
    outcome: bool | None        # what inspecting it returns in this trial (None: tool failure)
    content: str                # the observation text a policy receives


@dataclass(frozen=True)
class LatentScenario:
    """Ground truth by construction: never passed to a policy."""

    truth: Mapping[str, bool]
    prior_true: Mapping[str, float]
    objects: Mapping[str, ObjectTruth]
    generator_notes: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Scenario:
    """One generated trial: family, seed, the visible part and the latent part."""

    family: str
    seed: int
    visible: VisibleScenario
    latent: LatentScenario
    salient_objects: frozenset[str] = frozenset()   # loud or adversarial distractors (scoring)
