"""A reference policy: exact planning on the declared metadata alone.

It shows how well *any* policy could do from the interface: the same search the oracle runs,
but on the model a policy can build from trusted metadata (:class:`~.reasoner.VisibleReasoner`),
without the hidden deviations, failure rates or truth. It is not the product's controller.
"""
from __future__ import annotations

import numpy as np

from ..decision_math import REPORTED_FALSE, REPORTED_TRUE
from ..search import AdaptiveOracle, static_oracle
from ..session import PolicyContext, PolicyReport
from .reasoner import VisibleReasoner


class VisibleBayesPolicy:
    """Bayes-optimal inspection planning from what the interface declares."""

    name = "bayes_visible"
    description = "exact planning on declared metadata (reference for what is achievable)"

    def run(self, ctx: PolicyContext) -> PolicyReport:
        doc = ctx.interface
        reasoner = VisibleReasoner(doc)
        model = reasoner.session_model()
        observations = []
        if ctx.mode == "static":
            chosen, _ = static_oracle(model, ctx.budget_left)
            observations = ctx.inspect_batch([model.object_ids[i] for i in chosen])
        else:
            w = model.prior.copy()
            used: set[int] = set()
            while ctx.budget_left > 0:
                nxt = AdaptiveOracle(model, ctx.budget_left, prior=w / w.sum(),
                                     exclude=used).choose(())
                if nxt is None:
                    break
                obs = ctx.inspect(model.object_ids[nxt])
                observations.append(obs)
                used.add(nxt)
                if obs["ok"] and obs["reports"]:
                    code = REPORTED_TRUE if obs["reports"]["value"] else REPORTED_FALSE
                    updated = w * model.likelihood[nxt, code]
                    w = updated if updated.sum() > 0 else w
        ctx.decide(reasoner.decide(observations))
        return PolicyReport(notes={"planned_on": int(np.size(model.prior))})
