"""What every policy implements, and helpers the built-in policies share."""
from __future__ import annotations

import hashlib
from typing import Any, Protocol

import numpy as np

from ..session import PolicyContext, PolicyReport


class Policy(Protocol):
    """A way of choosing inspections. ``run`` must call ``ctx.decide`` exactly once."""

    name: str
    description: str

    def run(self, ctx: PolicyContext) -> PolicyReport: ...


def stable_rng(*parts: str) -> np.random.Generator:
    """A generator seeded from text (e.g. the trial id), identical on every run and machine."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def inspect_in_order(ctx: PolicyContext, object_ids: list[str]) -> list[dict[str, Any]]:
    """Inspect the objects in order within the budget (one batch in static mode)."""
    chosen = object_ids[:max(ctx.budget_left, 0)]
    if ctx.mode == "static":
        return ctx.inspect_batch(chosen)
    return [ctx.inspect(oid) for oid in chosen]
