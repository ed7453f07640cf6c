"""Result types of the attention API, built from what Prolog returns.

Prolog answers with dicts of atoms, strings and numbers; :func:`plain` turns them into ordinary
Python (``null`` to None, ``true``/``false`` to bools, atoms to str) and the ``from_prolog``
constructors keep exactly the fields the API documents.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..bridge import Atom, Term, Var

_ATOMS = {"null": None, "true": True, "false": False}


def plain(value: Any) -> Any:
    """Convert a value from the bridge to plain Python (recursively)."""
    if isinstance(value, Atom):
        text = str(value)
        return _ATOMS[text] if text in _ATOMS else text
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, Term):
        if value.name == "-" and value.arity == 2:
            return [plain(value.args[0]), plain(value.args[1])]
        return f"{value.name}({', '.join(str(plain(a)) for a in value.args)})"
    if isinstance(value, Var):
        return None
    return value


def _pick(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


@dataclass(frozen=True)
class Candidate:
    """One candidate computation with the fields of the attention seed's §8 representation.

    ``floor`` is False or the name of the lexicographic floor it carries
    (``safety_critical_invariant``, ``irreversible_stale_evidence``, ``mandatory_proof``).
    ``eligible`` is False when a source quota or the exploration share holds it back
    (``skip_reason`` says which). ``predicted_voc`` is ``goal_relevance * novelty *
    max(0, reading_accuracy - (1 - p_belief_wrong)) * stakes`` and ``net_voc`` that less its
    weighted cost; ``plan_voc`` adds ``follow_up``, the expected net value of the best read
    after this one once its outcome is known (one step of lookahead, when the budget allows
    two), and is what the controller ranks, selects and stops by. ``rank_score`` is
    ``plan_voc`` plus the bounded aging bonus for a worthwhile candidate; equal plans (two
    independent reads) are ordered by ``net_voc`` times ``urgency`` (deadline pressure).
    """

    candidate_id: str
    kind: str
    target: str
    trigger: str
    goal_ids: list[str]
    claim_ids: list[str]
    goal_relevance: float
    p_belief_wrong: float | None
    p_decision_changes: float
    loss_if_wrong: float
    authority: float | None
    evidence_age_s: float | None
    volatility: str | None
    deadline_s: float | None
    cost: float
    switch_cost: float
    predicted_voc: float
    net_voc: float
    floor: bool | str
    created_at: float
    expires_at: float
    triggers: list[str] = field(default_factory=list)
    claim_type: str | None = None
    subject: str | None = None
    origin: str = "controller"
    aging_bonus: float = 0.0
    rank_score: float = 0.0
    eligible: bool = True
    skip_reason: str | None = None
    rank: int = 0
    stakes: float = 0.0
    follow_up: float = 0.0
    plan_voc: float = 0.0
    reading_accuracy: float | None = None
    novelty: float = 1.0
    urgency: float = 1.0

    @classmethod
    def from_prolog(cls, raw: dict[str, Any]) -> "Candidate":
        """Build from a candidate dict returned by ``atc_attention_api:attend/6``."""
        data = plain(raw)
        data["subject"] = None if data.get("subject") is None else str(data["subject"])
        return cls(**_pick(cls, data))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class AttendResult:
    """The outcome of one attention turn.

    ``decision`` is ``"inspect"`` (``chosen`` says what) or ``"stop"`` (``reason`` says why:
    ``negative_voc``, ``budget_exhausted`` or ``no_candidates``). ``goal_decision`` is the
    goal's current decision: the value of its deciding belief, and whether that belief is dirty.
    """

    ranked: list[Candidate]
    decision: str
    chosen: Candidate | None
    reason: str
    saturation_alarm: bool
    turn_id: str = ""
    goal_decision: dict[str, Any] | None = None
    dropped: int = 0

    @classmethod
    def from_prolog(cls, raw: dict[str, Any]) -> "AttendResult":
        """Build from the dict returned by ``atc_attention_api:attend/6``."""
        chosen = raw.get("chosen")
        return cls(ranked=[Candidate.from_prolog(c) for c in raw["ranked"]],
                   decision=str(raw["decision"]),
                   chosen=None if plain(chosen) is None else Candidate.from_prolog(chosen),
                   reason=str(raw["reason"]),
                   saturation_alarm=bool(plain(raw["saturation_alarm"])),
                   turn_id=str(raw["turn_id"]),
                   goal_decision=plain(raw["goal_decision"]),
                   dropped=int(raw["dropped"]))

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (what ``atc attend --format json`` prints)."""
        return {"turn_id": self.turn_id, "decision": self.decision, "reason": self.reason,
                "chosen": self.chosen.as_dict() if self.chosen else None,
                "saturation_alarm": self.saturation_alarm, "dropped": self.dropped,
                "goal_decision": self.goal_decision,
                "ranked": [c.as_dict() for c in self.ranked]}


@dataclass(frozen=True)
class InspectOutcome:
    """What an inspection changed.

    ``belief_changed``: the operative belief on the claim now holds a different value
    (``new_belief`` names it); ``dirtied``: beliefs marked dirty as a result;
    ``contradiction``: the reading was too weak to overturn a firmer belief and now contradicts
    it; ``decision_changed``: some goal's decision changed (``utility_delta`` sums their stakes).
    """

    belief_changed: bool
    dirtied: list[str]
    new_belief: str | None
    inspection_id: str | None = None
    contradiction: bool = False
    decision_changed: bool = False
    utility_delta: float = 0.0

    @classmethod
    def from_prolog(cls, raw: dict[str, Any]) -> "InspectOutcome":
        """Build from the dict returned by ``atc_attention_api:inspect/7``."""
        return cls(**_pick(cls, plain(raw)))


@dataclass(frozen=True)
class ClaimVerdict:
    """The validator's answer to a claim.

    ``allowed`` is False only in production mode; ``violations`` explain what evidence is
    missing, ``missing`` names the unmet requirements, ``failure_code`` is the seed's Appendix B
    code for the stage that failed, and ``rescued`` says the validator blocked the claim (an
    enforcement rescue, never counted as attention).
    """

    claim_id: str
    allowed: bool
    mode: str
    violations: list[str]
    missing: list[str]
    failure_code: str | None
    rescued: bool

    @classmethod
    def from_prolog(cls, raw: dict[str, Any]) -> "ClaimVerdict":
        """Build from the dict returned by ``atc_attention_api:claim/8``."""
        return cls(**_pick(cls, plain(raw)))


@dataclass(frozen=True)
class EventReceipt:
    """What became of an event: ``status`` is ``accepted``, ``rate_limited`` or ``queue_full``."""

    status: str
    event_id: str | None
    dirtied: list[str] = field(default_factory=list)
    claim_id: str | None = None

    @classmethod
    def from_prolog(cls, raw: dict[str, Any]) -> "EventReceipt":
        """Build from the dict returned by ``atc_attention_api:add_event/8``."""
        return cls(**_pick(cls, plain(raw)))
