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

from .arcs import curate_arc, curate_session, plan_arcs, session_rollup_id
from .distill import Distillation
from .echoes import find_echoes, ngram_overlap
from .ladder import L2_TOKENS, curate_item, curate_items
from .model import ModelCurator
from .records import CURATOR_VERSION, EXTRACTIVE, ArcPlan, ItemView, Rungs
from .skeleton import L3_TOKENS
from .summary import L1_TOKENS
from .tokens import estimate_tokens, truncate_to_tokens

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
