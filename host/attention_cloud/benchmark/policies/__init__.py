"""Policies the benchmark can score, by name.

Baselines live in :mod:`.baselines`; the product's controller is driven through its real API in
:mod:`.controller`; outside policies speak JSON lines (:mod:`..external`).
"""
from __future__ import annotations

from typing import Callable

from ...errors import UsageError
from .base import Policy
from .bayes import VisibleBayesPolicy
from .baselines import (ForcedAuthoritativePolicy, GoalRelevancePolicy, NoInspectionPolicy,
                        RandomPolicy, RecencyUrgencyPolicy, RiskPolicy, StalenessPolicy)

BASELINES: dict[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "no_inspection": NoInspectionPolicy,
    "recency_urgency": RecencyUrgencyPolicy,
    "goal_relevance": GoalRelevancePolicy,
    "risk": RiskPolicy,
    "staleness": StalenessPolicy,
    "forced_authoritative": ForcedAuthoritativePolicy,
    "bayes_visible": VisibleBayesPolicy,
}

#: Controller-driven policies (§21 ablations); available when the controller can be imported.
CONTROLLER_POLICIES = ("voc", "voc_no_staleness", "voc_no_authority", "voc_no_switch_cost",
                       "production", "attention_only")

ALL_POLICIES = tuple(BASELINES) + CONTROLLER_POLICIES


def controller_available() -> tuple[bool, str]:
    """Whether the product controller can be driven here, and why not if it cannot."""
    from .controller import controller_status

    return controller_status()


def make_policy(name: str) -> Policy:
    """A fresh policy object for ``name``."""
    if name in BASELINES:
        return BASELINES[name]()
    if name in CONTROLLER_POLICIES:
        from .controller import make_controller_policy

        return make_controller_policy(name)
    raise UsageError(f"unknown policy {name!r}; known: {', '.join(ALL_POLICIES)}")


def resolve_policy_names(spec: str) -> tuple[list[str], list[str]]:
    """Policy names from ``all`` or a comma list, and notes on any that cannot run here.

    ``all`` silently leaves out the controller policies when the controller is unavailable
    (the note says why); naming one explicitly then is an error.
    """
    notes: list[str] = []
    if spec.strip().lower() == "all":
        names = list(BASELINES)
        ok, why = controller_available()
        if ok:
            names += list(CONTROLLER_POLICIES)
        else:
            notes.append(f"controller policies skipped: {why}")
        return names, notes
    names = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part not in ALL_POLICIES:
            raise UsageError(f"unknown policy {part!r}; known: all, {', '.join(ALL_POLICIES)}")
        if part in CONTROLLER_POLICIES:
            ok, why = controller_available()
            if not ok:
                raise UsageError(f"policy {part!r} needs the attention controller: {why}")
        if part not in names:
            names.append(part)
    if not names:
        raise UsageError("no policy named")
    return names, notes
