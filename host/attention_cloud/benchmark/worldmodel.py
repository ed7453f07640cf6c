"""The published generative assumptions that connect trusted metadata to the world.

Both sides use these formulas: the generator draws the hidden truth from them (with hidden
per-trial deviations), and a policy may use them to reason about what it sees. Publishing them is
what makes the trusted metadata *honest*: a claim's volatility class, a belief's age and
confidence, and a source's declared authority predict how likely an inspection is to matter.

* A stored belief was right with probability ``confidence`` when it was observed; afterwards the
  fact is redrawn (fair coin) at the hazard rate of its volatility class, so
  ``P(still right) = 0.5 + (confidence - 0.5) * exp(-hazard * age)``.
* A trusted ``source_changed`` event after the belief was observed means the fact was redrawn
  with some probability (the published expectation is :data:`EXPECTED_CHANGE_AFTER_EVENT`).
* An inspection reports the value the fact had when the source's content was produced; it is
  right with probability ``authority`` then, and the same decay applies from that moment on.
  Live sources (``content_as_of_s`` null) report the current value.
* A cached record that a belief was copied from (the belief's ``source_object``, with content
  as old as the belief) only repeats that belief: it carries no new information about the
  present. A *live* source of a belief is different: reading it again reports the present.
"""
from __future__ import annotations

import math

#: Hazard rate per hour of each volatility class (the trusted registry).
HAZARD_PER_HOUR: dict[str, float] = {
    "static": 0.0002,
    "low": 0.01,
    "medium": 0.08,
    "high": 0.4,
    "very_high": 2.0,
}

#: Published expectation of the chance a fact changed after a ``source_changed`` event.
EXPECTED_CHANGE_AFTER_EVENT = 0.75


def persistence(age_s: float, hazard_per_hour: float) -> float:
    """Probability that a fact has not been redrawn during ``age_s`` seconds."""
    return math.exp(-max(age_s, 0.0) * hazard_per_hour / 3600.0)


def keep_probability(confidence: float, age_s: float, hazard_per_hour: float,
                     change_after_event: float = 0.0) -> float:
    """Probability that a belief observed ``age_s`` seconds ago is still right.

    ``change_after_event`` is the chance the fact was redrawn because of a later source change
    (0 when no such event happened).
    """
    decay = persistence(age_s, hazard_per_hour) * (1.0 - change_after_event)
    return 0.5 + (confidence - 0.5) * decay


def effective_accuracy(authority: float, content_age_s: float, hazard_per_hour: float,
                       change_after_event: float = 0.0) -> float:
    """Probability that a successful reading matches the *current* value of its fact."""
    decay = persistence(content_age_s, hazard_per_hour) * (1.0 - change_after_event)
    return 0.5 + (authority - 0.5) * decay
