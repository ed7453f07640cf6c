"""The ladder: curate journal items into L1/L2/L3 rungs, arcs, session rollups and echoes."""
from __future__ import annotations

from .distill import Distillation
from .ladder import curate_items
from .records import CURATOR_VERSION, ArcPlan, ItemView, Rungs
from .tokens import estimate_tokens

__all__ = ["ArcPlan", "CURATOR_VERSION", "Distillation", "ItemView", "Rungs", "curate_items", "estimate_tokens"]
