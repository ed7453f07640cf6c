"""A policy-side reasoner built from the scenario interface alone.

Every built-in policy decides with this reasoner, so the policies differ only in *what they
inspect* — attention — never in how they use evidence. It reads declared metadata (belief age and
confidence, volatility class, source authority, change events) through the published world model
(:mod:`..worldmodel`) and applies exact Bayesian updating. It never sees hidden parameters, so
it can be wrong where the hidden world deviates from what was declared.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..decision_math import (REPORTED_FALSE, REPORTED_TRUE, Channel, ClaimPrior,
                             DecisionGoal, DecisionModel, best_decisions, build_model,
                             weights_after)
from ..worldmodel import (EXPECTED_CHANGE_AFTER_EVENT, effective_accuracy, keep_probability,
                          persistence)


class VisibleReasoner:
    """Beliefs and decisions from the interface and the observations a policy has made."""

    def __init__(self, interface: Mapping[str, Any]) -> None:
        self.doc = interface
        self.now = float(interface["now_s"])
        self.claims = {c["claim_id"]: c for c in interface["claims"]}
        self.objects = {o["object_id"]: o for o in interface["objects"]}
        self.goals = {g["goal_id"]: g for g in interface["goals"]}
        self._changes: dict[str, list[float]] = {}
        for e in interface["events"]:
            if e["kind"] == "source_changed" and e["claim_id"]:
                self._changes.setdefault(e["claim_id"], []).append(float(e["at_s"]))
        self._models = {gid: self._goal_model(g) for gid, g in self.goals.items()}

    # -- declared quantities -------------------------------------------------------------------
    def changed_since(self, claim_id: str, since_s: float) -> bool:
        """True when a trusted change event on the claim came after ``since_s``."""
        return any(t > since_s for t in self._changes.get(claim_id, ()))

    def keep(self, claim_id: str) -> float:
        """Declared probability that the stored belief is still right (0.5 without a belief)."""
        c = self.claims[claim_id]
        b = c.get("belief")
        if b is None:
            return 0.5
        change = EXPECTED_CHANGE_AFTER_EVENT if self.changed_since(claim_id, b["observed_at_s"]) else 0.0
        return keep_probability(b["confidence"], self.now - b["observed_at_s"],
                                c["hazard_per_hour"], change)

    def p_true(self, claim_id: str) -> float:
        b = self.claims[claim_id].get("belief")
        keep = self.keep(claim_id)
        if b is None:
            return 0.5
        return keep if b["value"] else 1.0 - keep

    def staleness(self, claim_id: str) -> float:
        """Probability from age alone that the fact was redrawn since the belief was observed."""
        c = self.claims[claim_id]
        b = c.get("belief")
        if b is None:
            return 0.0
        return 1.0 - persistence(self.now - b["observed_at_s"], c["hazard_per_hour"])

    def is_echo(self, object_id: str) -> bool:
        """True when the object is the cached record its claim's stored belief was copied from."""
        o = self.objects[object_id]
        cid = o.get("about_claim")
        if cid is None or cid not in self.claims or o.get("content_as_of_s") is None:
            return False
        b = self.claims[cid].get("belief")
        return b is not None and b.get("source_object") == object_id

    def accuracy(self, object_id: str) -> float:
        """Declared probability that a reading of the object matches the present (0.5: none)."""
        o = self.objects[object_id]
        cid = o.get("about_claim")
        if cid is None or cid not in self.claims or o.get("authority") is None or self.is_echo(object_id):
            return 0.5
        as_of = o.get("content_as_of_s")
        if as_of is None:
            return float(o["authority"])
        change = EXPECTED_CHANGE_AFTER_EVENT if self.changed_since(cid, as_of) else 0.0
        return effective_accuracy(float(o["authority"]), self.now - as_of,
                                  self.claims[cid]["hazard_per_hour"], change)

    def total_cost(self, object_id: str) -> float:
        o = self.objects[object_id]
        return float(o["cost"]) + float(o.get("switch_cost") or 0.0)

    def goal_in_session(self, goal_id: str) -> bool:
        """Whether the goal's decision falls inside this session's horizon."""
        g = self.goals[goal_id]
        horizon = float(self.doc["limits"]["session_horizon_s"])
        return g.get("deadline_s") is None or float(g["deadline_s"]) <= horizon

    # -- models and decisions ------------------------------------------------------------------
    def _decision_goal(self, goal: Mapping[str, Any]) -> DecisionGoal:
        deps = tuple(goal["depends_on"])
        rule = {tuple(bool(r["when"][c]) for c in deps): r["option_id"] for r in goal["rule"]}
        options = tuple(o["option_id"] for o in goal["options"])
        return DecisionGoal(goal["goal_id"], deps, options, rule, float(goal["loss_if_wrong"]),
                            goal.get("defer_option"), float(goal.get("defer_cost") or 0.0))

    def _model(self, goals: list[Mapping[str, Any]]) -> DecisionModel:
        deps = {c for g in goals for c in g["depends_on"]}
        claims = [ClaimPrior(cid, self.p_true(cid)) for cid in self.claims if cid in deps]
        channels = []
        for oid, o in self.objects.items():
            cid = o.get("about_claim")
            echo = None
            if self.is_echo(oid):
                echo = bool(self.claims[cid]["belief"]["value"])
            channels.append(Channel(oid, cid if cid in deps else None, self.accuracy(oid),
                                    self.total_cost(oid), 0.0, echo))
        return build_model(claims, channels, [self._decision_goal(g) for g in goals])

    def _goal_model(self, goal: Mapping[str, Any]) -> DecisionModel:
        return self._model([goal])

    def session_model(self) -> DecisionModel:
        """One joint model of every goal due in this session (for planning inspections)."""
        return self._model([g for gid, g in self.goals.items() if self.goal_in_session(gid)])

    def model_for(self, goal_id: str) -> DecisionModel:
        return self._models[goal_id]

    def observation_pairs(self, model: DecisionModel,
                          observations: Iterable[Mapping[str, Any]]) -> list[tuple[int, int]]:
        """Successful, distinct readings as ``(object index, outcome)`` pairs for ``model``."""
        seen: set[str] = set()
        pairs = []
        for obs in observations:
            oid = obs.get("object_id")
            if not obs.get("ok") or oid in seen or oid not in self.objects:
                continue
            seen.add(oid)
            reports = obs.get("reports")
            if not reports:
                continue
            pairs.append((model.index(oid), REPORTED_TRUE if reports["value"] else REPORTED_FALSE))
        return pairs

    def posterior_true(self, claim_id: str, observations: Iterable[Mapping[str, Any]]) -> float:
        """Probability the claim is true given the declared prior and these observations."""
        model = self._model([{"goal_id": "_", "depends_on": [claim_id],
                              "options": [{"option_id": "t"}, {"option_id": "f"}],
                              "rule": [{"when": {claim_id: True}, "option_id": "t"},
                                       {"when": {claim_id: False}, "option_id": "f"}],
                              "loss_if_wrong": 1.0}])
        w = weights_after(model, self.observation_pairs(model, observations))
        if w.sum() <= 0.0:
            return self.p_true(claim_id)
        return float(w[1] / w.sum())       # state 1: the only claim is true

    def decide(self, observations: Iterable[Mapping[str, Any]] = ()) -> dict[str, str]:
        """The expected-utility-maximising option of every goal, given the observations."""
        observations = list(observations)
        out: dict[str, str] = {}
        for gid, model in self._models.items():
            w = weights_after(model, self.observation_pairs(model, observations))
            if w.sum() <= 0.0:          # contradicts an echo: fall back to the prior
                w = model.prior
            out.update(best_decisions(model, w))
        return out

