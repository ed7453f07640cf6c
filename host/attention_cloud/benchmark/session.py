"""One trial as the evaluator runs it, and the narrow handle a policy gets.

:class:`TrialSession` holds the whole scenario (latent part included) and executes inspections
against the pre-drawn outcomes. A policy only ever receives a :class:`PolicyContext`, whose
methods return plain JSON-like data: the rendered interface, observations of objects it chose
to inspect, and nothing else.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..errors import AtcError
from .decision_math import FAILED, REPORTED_TRUE
from .interface import render_interface
from .model import Scenario
from .oracle import outcome_code


class PolicyProtocolError(AtcError):
    """A policy broke the trial protocol (unknown object, budget exceeded, decided twice...)."""


@dataclass(frozen=True)
class InspectionRecord:
    """One inspection: which object, what came back, and whether a validator forced it."""

    object_id: str
    outcome: int
    forced: bool


@dataclass
class PolicyReport:
    """What a policy tells the evaluator about itself after a trial.

    ``candidates`` are the objects its candidate generator surfaced (None: it considered every
    object); ``notes`` carry policy-specific diagnostics (counts, not answers).
    """

    candidates: frozenset[str] | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    attention_decisions: dict[str, str] | None = None   # before any validator rescue


class TrialSession:
    """The evaluator's side of one trial."""

    def __init__(self, scenario: Scenario, *, condition: str, mode: str) -> None:
        self.scenario = scenario
        self.condition = condition
        self.mode = mode
        self._interface = render_interface(scenario.visible, condition=condition, mode=mode)
        self._objects = {o.object_id: o for o in scenario.visible.objects}
        self._options = {g.goal_id: tuple(o.option_id for o in g.options)
                         for g in scenario.visible.goals}
        self.inspections: list[InspectionRecord] = []
        self.decisions: dict[str, str] | None = None
        self.batch_done = False

    @property
    def budget_left(self) -> int:
        spent = sum(1 for r in self.inspections if not r.forced)
        return self.scenario.visible.max_inspections - spent

    def interface(self) -> dict[str, Any]:
        return copy.deepcopy(self._interface)

    def _observe(self, object_id: str, forced: bool) -> dict[str, Any]:
        if self.decisions is not None:
            raise PolicyProtocolError("inspection after the decision")
        obj = self._objects.get(object_id) if isinstance(object_id, str) else None
        if obj is None:
            raise PolicyProtocolError(f"unknown object {object_id!r}")
        if not forced and self.budget_left <= 0:
            raise PolicyProtocolError("inspection budget exhausted")
        code = outcome_code(self.scenario, object_id)
        self.inspections.append(InspectionRecord(object_id, code, forced))
        truth = self.scenario.latent.objects[object_id]
        reports = None
        if code != FAILED and obj.about_claim is not None:
            reports = {"claim_id": obj.about_claim, "value": code == REPORTED_TRUE}
        return {"object_id": object_id, "ok": code != FAILED, "reports": reports,
                "content": truth.content, "observed_at_s": self.scenario.visible.now_s,
                "budget_left": self.budget_left}

    def inspect(self, object_id: str, *, forced: bool = False) -> dict[str, Any]:
        if self.mode == "static" and not forced:
            raise PolicyProtocolError("static mode: submit every inspection in one batch")
        return self._observe(object_id, forced)

    def inspect_batch(self, object_ids: list[str]) -> list[dict[str, Any]]:
        if self.mode != "static":
            raise PolicyProtocolError("adaptive mode: inspect one object at a time")
        if self.batch_done:
            raise PolicyProtocolError("static mode allows a single batch")
        if not isinstance(object_ids, list) or len(object_ids) > self.budget_left:
            raise PolicyProtocolError(
                f"a batch must be a list of at most {self.budget_left} object ids")
        odd = [oid for oid in object_ids if not isinstance(oid, str)]
        if odd:     # checked before the set below, which an object or a list would break
            raise PolicyProtocolError(f"object ids are strings, not {odd[0]!r}")
        if len(set(object_ids)) != len(object_ids):
            raise PolicyProtocolError("a batch must not repeat an object")
        for oid in object_ids:
            if oid not in self._objects:
                raise PolicyProtocolError(f"unknown object {oid!r}")
        self.batch_done = True
        return [self._observe(oid, False) for oid in object_ids]

    def decide(self, decisions: Mapping[str, str]) -> None:
        if self.decisions is not None:
            raise PolicyProtocolError("decided twice")
        if not isinstance(decisions, Mapping):
            raise PolicyProtocolError("decisions must map goal ids to option ids")
        # Refused, not scored as the worst option: a misspelt id would otherwise cost the goal
        # without a word, and the policy could not correct it.
        for goal_id, option_id in decisions.items():
            if goal_id not in self._options:
                raise PolicyProtocolError(f"unknown goal {goal_id!r}")
            if option_id not in self._options[goal_id]:
                raise PolicyProtocolError(
                    f"{option_id!r} is not an option of goal {goal_id!r}")
        self.decisions = dict(decisions)


class PolicyContext:
    """A policy's handle on its trial: the interface in, inspections, one decision out."""

    __slots__ = ("_inspect", "_batch", "_decide", "_interface", "_budget", "mode")

    def __init__(self, session: TrialSession) -> None:
        # Only what a policy needs. In-process policies are our own code and trusted not to
        # reach behind these methods; the isolation boundary for outside policies is the
        # separate process of the JSON-lines protocol (see .external).
        self._inspect = session.inspect
        self._batch = session.inspect_batch
        self._decide = session.decide
        self._interface = session.interface
        self._budget = lambda: session.budget_left
        self.mode = session.mode

    @property
    def interface(self) -> dict[str, Any]:
        """A fresh copy of the scenario interface."""
        return self._interface()

    @property
    def budget_left(self) -> int:
        return self._budget()

    def inspect(self, object_id: str, *, forced: bool = False) -> dict[str, Any]:
        """Inspect one object (adaptive mode); ``forced`` marks a validator-required read."""
        return self._inspect(object_id, forced=forced)

    def inspect_batch(self, object_ids: list[str]) -> list[dict[str, Any]]:
        """Inspect a whole set at once (static mode)."""
        return self._batch(list(object_ids))

    def decide(self, decisions: Mapping[str, str]) -> None:
        """Choose an option for each goal (goal id -> option id)."""
        self._decide(decisions)
