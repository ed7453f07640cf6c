"""The ladder: curate journal items into L1/L2/L3 rungs, arcs, session rollups and echoes.

Pure Python over plain data, no Prolog: the caller reads items into :class:`ItemView`,
stores the :class:`Rungs` it gets back as facts, and records echoes.

    from attention_cloud.curate import ItemView, curate_items, plan_arcs, curate_arc
    rungs = curate_items(items)                       # one Rungs per item, L1/L2/L3
    for plan in plan_arcs(items):                     # consecutive same-goal runs
        members = [i for i in items if i.handle in plan.members]
        arc = curate_arc(plan, members, [r for r in rungs if r.handle in plan.members])

Modules: :mod:`.tokens` (the project's token estimator), :mod:`.sentences`, :mod:`.entities`,
:mod:`.cues` and :mod:`.analysis` (reading a text), :mod:`.summary` (L1), :mod:`.distill`
(L2), :mod:`.skeleton` (L3), :mod:`.ladder` (items and the size invariants), :mod:`.arcs`
(arcs and rollups), :mod:`.echoes` (paraphrase recycling), :mod:`.model` (model curator).
"""
from __future__ import annotations

import importlib
from typing import Any

# Names are imported from their modules on first use (PEP 562), so that a process that only
# needs the token estimator (every process that loads the Prolog rules) does not import the
# whole curator and numpy with it.
_WHERE = {
    "ArcPlan": "records",
    "CURATOR_VERSION": "records",
    "Distillation": "distill",
    "EXTRACTIVE": "records",
    "ItemView": "records",
    "L1_TOKENS": "summary",
    "L2_TOKENS": "ladder",
    "L3_TOKENS": "skeleton",
    "ModelCurator": "model",
    "Rungs": "records",
    "curate_arc": "arcs",
    "curate_item": "ladder",
    "curate_items": "ladder",
    "curate_session": "arcs",
    "estimate_tokens": "tokens",
    "find_echoes": "echoes",
    "ngram_overlap": "echoes",
    "plan_arcs": "arcs",
    "session_rollup_id": "arcs",
    "truncate_to_tokens": "tokens",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ArcPlan",
    "CURATOR_VERSION",
    "Distillation",
    "EXTRACTIVE",
    "ItemView",
    "L1_TOKENS",
    "L2_TOKENS",
    "L3_TOKENS",
    "ModelCurator",
    "Rungs",
    "curate_arc",
    "curate_item",
    "curate_items",
    "curate_session",
    "estimate_tokens",
    "find_echoes",
    "ngram_overlap",
    "plan_arcs",
    "session_rollup_id",
    "truncate_to_tokens",
]
