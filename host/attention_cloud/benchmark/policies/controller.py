"""Driving the product's attention controller through its real API.

:class:`ControllerPolicy` translates the *visible* scenario interface into
:class:`attention_cloud.attention.Controller` calls — sources, beliefs, goals, events — and loops
``attend`` / ``inspect`` until the controller says stop or the budget is spent. Every ranking and
stopping decision is the controller's (Prolog); this module only converts units and executes.

Translation rules (all from trusted metadata and the published world model):

* **Claim types.** The controller answers a claim with any source of its claim type, while a
  benchmark object speaks to one claim; so each claim gets its own registered claim type: the
  one of the same meaning when it is free (feed status is ``live_system_state``), else one that
  suits its volatility. When a scenario has more claims than the registry has types, types are
  shared and a candidate that names a source for a claim it cannot answer is not executed.
* **Staleness.** A belief's volatility is its claim's declared hazard rate, given to the
  controller as a number (per second), and its age is the declared one: the controller's
  P(stale) equals the declared P(redrawn) exactly. Claims are yes/no facts (values ``True`` /
  ``False``), so the controller counts a redrawn fact as a coin flip, as the world model does.
* **Authority.** The benchmark declares the accuracy ``q`` of a binary reading; the controller's
  authority is the probability that a reading reveals the truth, ``2q - 1`` (a reading of
  accuracy q is the truth with probability 2q-1, a coin flip otherwise), so the controller's
  reading accuracy for a yes/no value is q again. Old content is first decayed by its age; the
  recorded source of a belief only repeats it (authority 0).
* **Costs** are in utility units, so the scope's ``cost_weight`` is 1; an object's declared
  switch cost is registered as the source's switch cost (weighted by ``switch_weight``, 1).
* **Readings are cached** for the trial: a source's content does not change within a trial, so
  asking the same source again returns the earlier reading at no cost.

Ablations (§21) run the same controller on the same registration with one component of its value
estimate switched off through the scope's weights (:meth:`Controller.ignore`):
``voc_no_staleness`` sets ``staleness_weight`` 0 (no hazard is seen), ``voc_no_authority``
``authority_weight`` 0 (every source counts as fully authoritative), ``voc_no_switch_cost``
``switch_weight`` 0. ``attention_only`` and ``production`` also draft the goals' claims
(``claim_drafted`` events) and check them with the validator, in attention-only mode (violations
logged, nothing rescued) or production mode (a blocked claim forces the read it asks for,
outside the budget, marked as forced).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from ..session import PolicyContext, PolicyReport
from .base import inspect_in_order
from ..worldmodel import EXPECTED_CHANGE_AFTER_EVENT
from .reasoner import VisibleReasoner

#: The registry claim type that means the same as a benchmark claim type.
_SAME_MEANING = {
    "dependency_version": "dependency_version", "service_health": "live_system_state",
    "feed_status": "live_system_state", "incident_status": "live_system_state",
    "capacity": "live_system_state", "deploy_state": "deploy_state",
    "config_flag": "deploy_state", "queue_depth": "queue_depth",
    "compatibility": "compatibility", "worker_state": "worker_state",
    "certificate": "security_advisory", "design_decision": "historical_decision",
}

#: Registry claim types by preference for each benchmark volatility class.
_TYPE_PREFERENCE = {
    "very_high": ("queue_depth", "live_system_state", "worker_state", "deploy_state"),
    "high": ("live_system_state", "deploy_state", "worker_state", "dependency_version",
             "queue_depth"),
    "medium": ("dependency_version", "compatibility", "deploy_state", "security_advisory",
               "worker_state"),
    "low": ("compatibility", "security_advisory", "dependency_version"),
    "static": ("historical_decision", "historical_result", "documentation"),
}
_ALL_TYPES = ("live_system_state", "deploy_state", "dependency_version", "compatibility",
              "queue_depth", "worker_state", "security_advisory", "historical_decision",
              "historical_result", "documentation", "absence_claim")
_MAX_CACHED_REPEATS = 4

#: Policy name -> the controller components it switches off and its validator mode.
ABLATIONS: dict[str, dict[str, Any]] = {
    "voc": {},
    "voc_no_staleness": {"ignore": ("staleness",)},
    "voc_no_authority": {"ignore": ("authority",)},
    "voc_no_switch_cost": {"ignore": ("switch_cost",)},
    "attention_only": {"validator": "attention-only"},
    "production": {"validator": "production"},
}


def controller_status() -> tuple[bool, str]:
    """Whether the controller can be imported and its Prolog side loaded here."""
    try:
        from attention_cloud.attention import ensure_loaded
        from attention_cloud.bridge import get_prolog

        ensure_loaded(get_prolog())
    except Exception as exc:   # an unusable controller is reported, not raised, for 'all'
        return False, f"the attention controller is unavailable ({type(exc).__name__}: {exc})"
    return True, "attention_cloud.attention.Controller"


def make_controller_policy(name: str) -> "ControllerPolicy":
    return ControllerPolicy(name, **ABLATIONS[name])


class _Translation:
    """The controller's view of one scenario interface (names, types, units).

    ``adaptive`` is False for the static protocol, where the whole batch is chosen before any
    reading is seen: the controller then ranks reads myopically (weight ``lookahead`` 0: a
    follow-up read could not be conditioned on an outcome), and goals carry no decision rule,
    because the batch is planned with assumed readings (:meth:`_Episode.static_selection`) that
    must not decide how much the other claims matter.
    """

    def __init__(self, doc: Mapping[str, Any], reasoner: VisibleReasoner,
                 ignore: tuple[str, ...] = (), *, adaptive: bool = True) -> None:
        self.doc = doc
        self.r = reasoner
        self.now = float(doc["now_s"])
        self.ignore = ignore
        self.adaptive = adaptive
        self.claim_type = self._assign_types()
        self.claim_of = {(self.claim_type[cid], self.r.claims[cid]["subject"]): cid
                         for cid in self.claim_type}
        # A list in interface order: registration order must not depend on hashing.
        self.sources = [oid for oid, o in reasoner.objects.items()
                        if o.get("about_claim") in self.claim_type]

    def _ordered_claims(self) -> list[str]:
        goals = sorted(self.r.goals.values(), key=lambda g: (
            not g["current"], not self.r.goal_in_session(g["goal_id"]),
            g["deadline_s"] if g["deadline_s"] is not None else math.inf))
        order: list[str] = []
        for g in goals:
            order += [c for c in g["depends_on"] if c not in order]
        return order + [c for c in self.r.claims if c not in order]

    def _assign_types(self) -> dict[str, str]:
        used: set[str] = set()
        out: dict[str, str] = {}
        for cid in self._ordered_claims():
            claim = self.r.claims[cid]
            same = _SAME_MEANING.get(claim["claim_type"])
            prefs = ((same,) if same else ()) + _TYPE_PREFERENCE.get(claim["volatility"], ())
            free = [t for t in prefs + _ALL_TYPES if t not in used]
            out[cid] = free[0] if free else (prefs[0] if prefs else _ALL_TYPES[0])
            used.add(out[cid])
        return out

    def hazard(self, cid: str) -> float:
        """The claim's declared hazard rate, per second."""
        return float(self.r.claims[cid]["hazard_per_hour"]) / 3600.0

    def authority(self, oid: str) -> float:
        return min(1.0, max(0.0, 2.0 * self.r.accuracy(oid) - 1.0))

    def switch_cost(self, oid: str) -> float:
        return float(self.r.objects[oid]["switch_cost"] or 0.0)

    def cost(self, oid: str) -> float:
        """What reading the object actually costs: its cost and its switch cost."""
        return float(self.r.objects[oid]["cost"]) + self.switch_cost(oid)

    def register(self, ctl: Any) -> None:
        ctl.set_weight("cost_weight", 1.0)
        # The published chance that a trusted change event changed the fact.
        ctl.set_weight("dirty_p_changed", EXPECTED_CHANGE_AFTER_EVENT)
        if not self.adaptive:     # a static batch: no outcome is seen before the next choice
            ctl.set_weight("lookahead", 0)
        ctl.ignore(*self.ignore)
        for oid in self.sources:
            o = self.r.objects[oid]
            ctl.add_source(oid, claim_type=self.claim_type[o["about_claim"]],
                           authority=self.authority(oid), cost=float(o["cost"]),
                           switch_cost=self.switch_cost(oid), trusted=bool(o["trusted"]),
                           kind=o["kind"])
        changed: dict[str, list[str]] = {}
        for e in self.doc["events"]:
            if e["kind"] == "source_changed" and e["claim_id"] and e["source_object"] in self.sources:
                changed.setdefault(e["claim_id"], []).append(e["source_object"])
        for cid, claim in self.r.claims.items():
            b = claim.get("belief")
            if b is None:
                continue
            source = b.get("source_object") if b.get("source_object") in self.sources else None
            ctl.add_belief(cid, claim_type=self.claim_type[cid], subject=claim["subject"],
                           value=bool(b["value"]), confidence=float(b["confidence"]),
                           observed_at=float(b["observed_at_s"]), volatility=self.hazard(cid),
                           supports=[f"source:{s}" for s in changed.get(cid, [])], source=source)
        for gid, g in self.r.goals.items():
            deps = [c for c in g["depends_on"] if self.r.claims[c].get("belief") is not None]
            # The decision rule is the goal's own, over its claims (belief id = claim id); a rule
            # over a claim nothing is believed about could not be read, so it is left out.
            rule = ([{"when": r["when"], "option": r["option_id"]} for r in g["rule"]]
                    if self.adaptive and len(deps) == len(g["depends_on"]) else None)
            ctl.add_goal(gid, depends_on=deps, loss_if_wrong=float(g["loss_if_wrong"]),
                         deadline_s=g["deadline_s"], irreversible=bool(g["irreversible"]),
                         safety_critical=bool(g["safety_critical"]), rule=rule, now=self.now)
        for e in sorted(self.doc["events"], key=lambda e: e["at_s"]):
            at = min(float(e["at_s"]), self.now)
            if e["kind"] == "source_changed":
                if e["source_object"] in self.sources:
                    ctl.source_changed(e["source_object"], now=at)
            elif e["source_object"]:
                ctl.add_event("interruption", source=e["source_object"], target=e["source_object"],
                              payload_text=e["untrusted_payload"],
                              trusted_priority=e["trusted_priority"], now=at)

    def executable(self, candidate: Any) -> str | None:
        """The object that carries out a candidate, or None if nothing here can.

        Reading a source answers ``inspect_source``; reading the message answers
        ``handle_interruption``. A trial offers no way to diagnose a failed tool (asking the
        same source again fails the same way), so ``diagnose_failure`` is not executable.
        """
        target = candidate.target
        if target not in self.r.objects:
            return None
        if candidate.kind == "inspect_source":
            cid = self.claim_of.get((candidate.claim_type, candidate.subject))
            return target if cid is not None and self.r.objects[target]["about_claim"] == cid else None
        return target if candidate.kind == "handle_interruption" else None


class ControllerPolicy:
    """The product's VOC attention controller (or one of its ablations) as a policy."""

    description = "the product's heuristic VOC attention controller (Prolog), via its API"

    def __init__(self, name: str, *, ignore: tuple[str, ...] = (),
                 validator: str | None = None) -> None:
        self.name = name
        self.ignore = tuple(ignore)
        self.validator = validator

    def run(self, ctx: PolicyContext) -> PolicyReport:
        from attention_cloud.attention import Controller
        from attention_cloud.bridge import get_prolog

        doc = ctx.interface
        reasoner = VisibleReasoner(doc)
        pl = get_prolog()
        ctl = Controller(pl, scope=f"bench-{doc['trial_id']}-{self.name}")
        try:
            ctl.drop()
            tr = _Translation(doc, reasoner, self.ignore, adaptive=ctx.mode != "static")
            tr.register(ctl)
            return _Episode(ctx, ctl, tr, reasoner, self.validator).run()
        finally:
            ctl.drop()


class _Episode:
    """One trial's attend/inspect loop against one controller scope."""

    def __init__(self, ctx: PolicyContext, ctl: Any, tr: _Translation, reasoner: VisibleReasoner,
                 validator: str | None) -> None:
        self.ctx, self.ctl, self.tr, self.r, self.validator = ctx, ctl, tr, reasoner, validator
        self.now = tr.now
        self.observations: list[dict[str, Any]] = []
        self.cache: dict[str, dict[str, Any]] = {}
        self.inspections: dict[str, list[str]] = {}    # claim id -> controller inspection ids
        self.candidates: set[str] = set()
        self.turns = 0

    def goal_order(self) -> list[str]:
        goals = [g for gid, g in self.r.goals.items() if self.r.goal_in_session(gid)]
        goals.sort(key=lambda g: (not g["current"], g["deadline_s"] if g["deadline_s"] is not None
                                  else math.inf))
        return [g["goal_id"] for g in goals if any(
            self.r.claims[c].get("belief") is not None for c in g["depends_on"])]

    def attend(self, goal: str, budget: int) -> Any:
        result = self.ctl.attend(goal, budget=budget, now=self.now)
        self.turns += 1
        for c in result.ranked:
            oid = self.tr.executable(c)
            if oid is not None:
                self.candidates.add(oid)
        return result

    def pick(self, result: Any, *, forced_only: bool = False) -> tuple[Any, str] | None:
        """The controller's choice if this world can execute it, else its best executable one."""
        ranked = list(result.ranked)
        if result.decision == "inspect" and result.chosen is not None:
            ranked = [result.chosen] + [c for c in ranked if c.candidate_id != result.chosen.candidate_id]
        for c in ranked:
            if forced_only and "validator_forced" not in (c.triggers or [c.trigger]):
                continue
            if not forced_only and not (c.eligible and (c.plan_voc > 0 or c.floor)):
                continue
            oid = self.tr.executable(c)
            if oid is not None and not (oid in self.cache and not self.cache[oid]["ok"]):
                return c, oid          # a source that already failed in this trial stays down
        return None

    def execute(self, candidate: Any, oid: str, *, forced: bool = False) -> None:
        cached = oid in self.cache
        obs = self.cache[oid] if cached else self.ctx.inspect(oid, forced=forced)
        if not cached:
            self.cache[oid] = obs
            self.observations.append(obs)
        value = obs["reports"]["value"] if obs["ok"] and obs["reports"] else None
        outcome = self.ctl.inspect(candidate.candidate_id, result=value, now=self.now,
                                   succeeded=bool(obs["ok"]),
                                   cost=0.0 if cached else self.tr.cost(oid) if oid in self.tr.sources
                                   else float(self.r.objects[oid]["cost"]))
        cid = self.r.objects[oid].get("about_claim")
        if cid and outcome.inspection_id:
            self.inspections.setdefault(cid, []).append(outcome.inspection_id)

    def loop(self) -> None:
        if self.ctx.mode == "static":
            self.static_selection()
            return
        for goal in self.goal_order():
            repeats = 0
            while self.ctx.budget_left > 0 and repeats <= _MAX_CACHED_REPEATS:
                result = self.attend(goal, self.ctx.budget_left)
                if result.decision != "inspect":
                    break
                choice = self.pick(result)
                if choice is None:
                    break
                repeats += choice[1] in self.cache
                self.execute(*choice)

    def static_selection(self) -> None:
        """Static protocol: plan the whole batch with the controller, then inspect it at once.

        The controller is sequential, so the batch is planned as a sequence of turns in which
        each planned reading is reported as confirming what is currently believed (its outcome
        is not known yet); that is how the controller learns the claim is covered and moves on.
        """
        budget = self.ctx.budget_left
        chosen: list[str] = []
        for goal in self.goal_order():
            repeats = 0
            while len(chosen) < budget and repeats <= _MAX_CACHED_REPEATS:
                result = self.attend(goal, budget - len(chosen))
                if result.decision != "inspect":
                    break
                choice = self.pick(result)
                if choice is None:
                    break
                candidate, oid = choice
                repeats += oid in chosen
                if oid not in chosen:
                    chosen.append(oid)
                cid = self.r.objects[oid].get("about_claim")
                assumed = None if cid is None else self.r.p_true(cid) >= 0.5
                outcome = self.ctl.inspect(candidate.candidate_id, result=assumed, now=self.now,
                                           succeeded=True, cost=self.tr.cost(oid))
                if cid and outcome.inspection_id:
                    self.inspections.setdefault(cid, []).append(outcome.inspection_id)
        for obs in inspect_in_order(self.ctx, chosen):
            self.cache[obs["object_id"]] = obs
            self.observations.append(obs)

    def draft_claims(self) -> None:
        for goal in self.goal_order():
            for cid in self.r.goals[goal]["depends_on"]:
                if cid in self.tr.claim_type:
                    self.ctl.add_event("claim_drafted", source="agent",
                                       target=self.tr.claim_type[cid], now=self.now)

    def check_claims(self, mode: str) -> list[str]:
        """Claim what each due goal's decision rests on; return the claims that were blocked."""
        blocked = []
        for goal in self.goal_order():
            for cid in self.r.goals[goal]["depends_on"]:
                if cid not in self.tr.claim_type or self.r.claims[cid].get("belief") is None:
                    continue
                claim = self.r.claims[cid]
                value = self._believed(cid)
                evidence = self.inspections.get(cid) or [cid]
                verdict = self.ctl.claim(claim["true_text"] if value else claim["false_text"],
                                         claim_type=self.tr.claim_type[cid], evidence=evidence,
                                         mode=mode, now=self.now, subject=claim["subject"])
                if not verdict.allowed:
                    blocked.append(goal)
        return blocked

    def _believed(self, cid: str) -> bool:
        """The value the agent now holds for the claim (posterior above one half)."""
        return self.r.posterior_true(cid, self.observations) >= 0.5

    def run(self) -> PolicyReport:
        if self.validator:
            self.draft_claims()
        self.loop()
        attention_decisions = self.r.decide(self.observations)
        notes: dict[str, Any] = {"turns": self.turns}
        if self.validator == "production":
            for goal in self.check_claims("production"):
                result = self.attend(goal, 1)
                choice = self.pick(result, forced_only=True)
                if choice is not None and choice[1] not in self.cache:
                    self.execute(*choice, forced=True)
        elif self.validator == "attention-only":
            self.check_claims("attention-only")
        self.ctx.decide(self.r.decide(self.observations))
        return PolicyReport(candidates=frozenset(self.candidates), notes=notes,
                            attention_decisions=attention_decisions
                            if self.validator == "production" else None)
