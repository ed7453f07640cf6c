"""Baseline policies of the ablation table (§21), each driven by one visible feature.

They share the :class:`~.reasoner.VisibleReasoner` for decisions, so they differ only in what
they inspect. None of them has a stopping rule except "nothing with a positive score is left":
that is part of what they are meant to show.
"""
from __future__ import annotations

import math
import re
from typing import Any, Mapping

from ..session import PolicyContext, PolicyReport
from .base import inspect_in_order, stable_rng
from .reasoner import VisibleReasoner

_SHOUTING = re.compile(r"\b(URGENT|CRITICAL|ASAP|IMMEDIATELY|P0|ACTION REQUIRED|READ FIRST)\b|!!+")


class RankingPolicy:
    """Inspect objects by descending score while scores are positive and budget remains."""

    name = "ranking"
    description = "abstract ranking policy"

    def score(self, obj: Mapping[str, Any], reasoner: VisibleReasoner) -> float:
        raise NotImplementedError

    def run(self, ctx: PolicyContext) -> PolicyReport:
        doc = ctx.interface
        reasoner = VisibleReasoner(doc)
        tiebreak = stable_rng(self.name, doc["trial_id"])
        ranked = sorted(((self.score(o, reasoner), float(tiebreak.random()), o["object_id"])
                         for o in doc["objects"]), reverse=True)
        chosen = [oid for score, _, oid in ranked if score > 0.0]
        observations = inspect_in_order(ctx, chosen)
        ctx.decide(reasoner.decide(observations))
        return PolicyReport()


class RandomPolicy(RankingPolicy):
    name = "random"
    description = "inspects the full budget uniformly at random (lower bound)"

    def score(self, obj: Mapping[str, Any], reasoner: VisibleReasoner) -> float:
        return 1.0          # every object ties; the seeded tie-break makes the draw


class RecencyUrgencyPolicy(RankingPolicy):
    name = "recency_urgency"
    description = "newest and loudest first: arrival recency, priority flags, urgent wording"

    def score(self, obj: Mapping[str, Any], reasoner: VisibleReasoner) -> float:
        age = max(reasoner.now - float(obj["arrived_at_s"]), 0.0)
        shouting = len(_SHOUTING.findall(obj["untrusted_preview"]))
        return (math.exp(-age / 1800.0) + float(obj.get("trusted_priority") or 0.0)
                + 0.5 * min(shouting, 4) + 0.01)


class GoalRelevancePolicy(RankingPolicy):
    name = "goal_relevance"
    description = "objects about the current goal's claims first, then other goals' claims"

    def score(self, obj: Mapping[str, Any], reasoner: VisibleReasoner) -> float:
        cid = obj.get("about_claim")
        best = 0.0
        for g in reasoner.goals.values():
            if cid in g["depends_on"]:
                best = max(best, 1.0 if g["current"] else 0.5)
        return best


class RiskPolicy(RankingPolicy):
    name = "risk"
    description = "objects about the claims with the most at stake (sum of loss if wrong)"

    def score(self, obj: Mapping[str, Any], reasoner: VisibleReasoner) -> float:
        cid = obj.get("about_claim")
        return sum(float(g["loss_if_wrong"]) for g in reasoner.goals.values()
                   if cid in g["depends_on"])


class StalenessPolicy(RankingPolicy):
    name = "staleness"
    description = "objects about the claims whose stored belief is oldest for its volatility"

    def score(self, obj: Mapping[str, Any], reasoner: VisibleReasoner) -> float:
        cid = obj.get("about_claim")
        return reasoner.staleness(cid) if cid in reasoner.claims else 0.0


class ForcedAuthoritativePolicy:
    """Read the most authoritative live source of every claim any goal depends on."""

    name = "forced_authoritative"
    description = "always reads the authoritative source of every goal claim (diagnostic)"

    def run(self, ctx: PolicyContext) -> PolicyReport:
        doc = ctx.interface
        reasoner = VisibleReasoner(doc)
        goals = sorted(doc["goals"], key=lambda g: (not g["current"],
                                                    g["deadline_s"] if g["deadline_s"] is not None
                                                    else math.inf))
        chosen: list[str] = []
        for g in goals:
            for cid in g["depends_on"]:
                sources = [o for o in doc["objects"]
                           if o["about_claim"] == cid and o["content_as_of_s"] is None
                           and o["authority"] is not None and o["trusted"]
                           and not reasoner.is_echo(o["object_id"])]
                if sources:
                    best = max(sources, key=lambda o: (o["authority"], -o["cost"]))
                    if best["object_id"] not in chosen:
                        chosen.append(best["object_id"])
        observations = inspect_in_order(ctx, chosen)
        ctx.decide(reasoner.decide(observations))
        return PolicyReport()


class NoInspectionPolicy:
    """Act on stored beliefs alone: the summary-substitution lower bound."""

    name = "no_inspection"
    description = "never inspects; decides from stored beliefs"

    def run(self, ctx: PolicyContext) -> PolicyReport:
        reasoner = VisibleReasoner(ctx.interface)
        if ctx.mode == "static":
            ctx.inspect_batch([])
        ctx.decide(reasoner.decide())
        return PolicyReport()
