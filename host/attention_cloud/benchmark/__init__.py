"""The attention benchmark suite (seed 001, §13–23): budgeted and unprompted inspection with
ground truth by construction, exact oracles, baseline and controller policies, paired statistics.

Library use::

    from attention_cloud.benchmark import BenchOptions, run_attention_benchmark
    outcome = run_attention_benchmark(BenchOptions(families="B,G", trials=50, policies="random"))
    print(outcome.markdown)

The evaluator side (generator, latent state, oracle, scoring) and the policy side (the scenario
interface, observations) meet only in :mod:`.session`; outside policies run in their own process
(:mod:`.external`).
"""
from __future__ import annotations

from .api import BenchOptions, BenchOutcome, run_attention_benchmark
from .families import FAMILIES, FamilySpec, generate, resolve_families
from .generator import GENERATOR_VERSION
from .interface import INTERFACE_SCHEMA, OBSERVATION_SCHEMA, render_interface, validate_interface
from .metrics import FAILURE_CODES, TrialRecord
from .oracle import evaluator_model, plan
from .runner import BenchResult, BenchSettings, run_benchmark
from .session import PolicyContext, PolicyProtocolError, PolicyReport

__all__ = [
    "BenchOptions", "BenchOutcome", "run_attention_benchmark",
    "FAMILIES", "FamilySpec", "generate", "resolve_families", "GENERATOR_VERSION",
    "INTERFACE_SCHEMA", "OBSERVATION_SCHEMA", "render_interface", "validate_interface",
    "FAILURE_CODES", "TrialRecord", "evaluator_model", "plan",
    "BenchResult", "BenchSettings", "run_benchmark",
    "PolicyContext", "PolicyProtocolError", "PolicyReport",
]
