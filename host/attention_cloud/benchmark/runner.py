"""Running the benchmark: every family, seed, condition and policy, paired on identical seeds.

For each (family, seed) the scenario and its oracle are computed once; every policy then runs on
the same scenario under each condition, so comparisons between policies are paired. The oracle's
own run is recorded as the reference row ``oracle``.
"""
from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from typing import Any, Callable, Iterable, Sequence

from ..errors import AtcError, UsageError
from ..progress import ProgressCallback, report as report_progress
from .families import FAMILIES, FamilySpec, generate
from .metrics import TrialRecord, score_trial
from .model import Scenario
from .oracle import OraclePlan, evaluator_model, plan
from .policies import make_policy
from .policies.base import Policy
from .session import InspectionRecord, PolicyContext, PolicyProtocolError, PolicyReport, TrialSession

ORACLE_ROW = "oracle"
#: Separates a note's summary from its per-case detail (dropped from sealed reports).
NOTE_DETAIL = " — "
CONDITION_CHOICES = ("default", "announced", "unprompted", "both")
MODE_CHOICES = ("family", "adaptive", "static")


@dataclass(frozen=True)
class BenchSettings:
    """What to run. ``conditions='default'`` renders every family announced, and the
    state-sensitive families (B, E, I) unprompted as well; ``mode='family'`` uses each family's
    own oracle mode (static for G, adaptive otherwise)."""

    families: tuple[str, ...]
    seeds: tuple[int, ...]
    policies: tuple[str, ...]
    conditions: str = "default"
    mode: str = "family"
    policy_cmd: str | None = None
    policy_timeout_s: float = 30.0
    jobs: int = 1

    def __post_init__(self) -> None:
        if self.conditions not in CONDITION_CHOICES:
            raise UsageError(f"conditions must be one of {CONDITION_CHOICES}")
        if self.mode not in MODE_CHOICES:
            raise UsageError(f"mode must be one of {MODE_CHOICES}")
        unknown = [f for f in self.families if f not in FAMILIES]
        if unknown:
            raise UsageError(f"unknown families {unknown}")
        if not self.seeds:
            raise UsageError("no seeds to run")

    def conditions_for(self, family: FamilySpec) -> tuple[str, ...]:
        if self.conditions == "both":
            return ("announced", "unprompted")
        if self.conditions == "default":
            return ("announced", "unprompted") if family.unprompted_twin else ("announced",)
        return (self.conditions,)

    def mode_for(self, family: FamilySpec) -> str:
        return family.default_mode if self.mode == "family" else self.mode

    def policy_names(self) -> tuple[str, ...]:
        return self.policies + (("external",) if self.policy_cmd else ())


@dataclass
class BenchResult:
    """All trial records of a run, plus notes (skipped policies, protocol errors)."""

    settings: BenchSettings
    records: list[TrialRecord]
    notes: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0


def _oracle_record(scenario: Scenario, model, oracle: OraclePlan, condition: str,
                   mode: str) -> TrialRecord:
    session = TrialSession(scenario, condition=condition, mode=mode)
    session.inspections = [InspectionRecord(model.object_ids[i], o, False) for i, o in oracle.path]
    session.decisions = dict(oracle.decisions)
    return score_trial(scenario, model, oracle, session, PolicyReport(), policy=ORACLE_ROW,
                       wall_ms=0.0)


def run_policy(policy: Policy, scenario: Scenario, *, condition: str, mode: str
               ) -> tuple[TrialSession, PolicyReport, float, str | None]:
    """Run one policy on one trial.

    A protocol violation, or an error the policy's own machinery raises (a Prolog error in the
    controller, say), forfeits that trial and is reported in the notes; it does not end the run.
    """
    session = TrialSession(scenario, condition=condition, mode=mode)
    start = time.perf_counter()
    error = None
    try:
        report = policy.run(PolicyContext(session))
    except PolicyProtocolError as exc:
        report, error = PolicyReport(notes={"protocol_error": str(exc)}), str(exc)
    except UsageError:
        raise                           # a bad command line: stop, do not score
    except AtcError as exc:
        report, error = PolicyReport(notes={"error": str(exc)}), f"{type(exc).__name__}: {exc}"
    wall_ms = (time.perf_counter() - start) * 1000.0
    if session.decisions is None:
        session.decisions = {}          # undecided goals score their worst option
    return session, report, wall_ms, error


def _run_family_seeds(family: str, seeds: Sequence[int], settings: BenchSettings,
                      policies: dict[str, Policy] | None = None,
                      on_seed: Callable[[int], None] | None = None) -> tuple[list[TrialRecord], list[str]]:
    spec = FAMILIES[family]
    own = policies is None
    if policies is None:
        policies = build_policies(settings)
    records: list[TrialRecord] = []
    notes: list[str] = []
    try:
        for done, seed in enumerate(seeds, 1):
            scenario = generate(family, seed)
            model = evaluator_model(scenario)
            mode = settings.mode_for(spec)
            oracle = plan(scenario, model, mode, scenario.visible.max_inspections)
            for condition in settings.conditions_for(spec):
                records.append(_oracle_record(scenario, model, oracle, condition, mode))
                for name, policy in policies.items():
                    session, report, wall_ms, error = run_policy(
                        policy, scenario, condition=condition, mode=mode)
                    if error:
                        notes.append(f"{name} forfeited trials of family {family}"
                                     f"{NOTE_DETAIL}{error}")
                    records.append(score_trial(scenario, model, oracle, session, report,
                                               policy=name, wall_ms=wall_ms))
            if on_seed:
                on_seed(done)
    finally:
        if own:
            close_policies(policies)
    return records, notes


def build_policies(settings: BenchSettings) -> dict[str, Policy]:
    """Fresh policy objects for a run (the external one starts its process here)."""
    policies: dict[str, Policy] = {name: make_policy(name) for name in settings.policies}
    if settings.policy_cmd:
        from .external import ExternalPolicy

        policies["external"] = ExternalPolicy(settings.policy_cmd,
                                              timeout_s=settings.policy_timeout_s)
    return policies


def close_policies(policies: dict[str, Policy]) -> None:
    for policy in policies.values():
        close = getattr(policy, "close", None)
        if callable(close):
            close()


def _chunks(settings: BenchSettings) -> list[tuple[str, tuple[int, ...]]]:
    size = max(1, len(settings.seeds) // max(1, settings.jobs * 2))
    return [(fam, settings.seeds[i:i + size]) for fam in settings.families
            for i in range(0, len(settings.seeds), size)]


def _work(args: tuple[str, tuple[int, ...], BenchSettings]) -> tuple[list[dict], list[str]]:
    family, seeds, settings = args
    records, notes = _run_family_seeds(family, seeds, settings)
    return [asdict(r) for r in records], notes


def run_benchmark(settings: BenchSettings, *,
                  progress: ProgressCallback | None = None) -> BenchResult:
    """Run every family, seed, condition and policy in ``settings``.

    With ``jobs > 1`` (family, seed-chunk) pieces run in separate processes, each with its own
    policies and Prolog engine; results are the same as a single-process run. ``progress``
    hears of every seed done (of every chunk with ``jobs > 1``), one phase ``family X`` per
    family, in trials (each seed's trials under every condition and policy).
    """
    start = time.perf_counter()
    records: list[TrialRecord] = []
    notes: list[str] = []
    if settings.jobs <= 1:
        policies = build_policies(settings)
        try:
            total = len(settings.seeds)
            for family in settings.families:
                phase = f"family {family}"
                report_progress(progress, phase, 0, total, "trials")
                recs, ns = _run_family_seeds(
                    family, settings.seeds, settings, policies,
                    on_seed=lambda done: report_progress(progress, phase, done, total, "trials"))
                records += recs
                notes += ns
        finally:
            close_policies(policies)
    else:
        work = [(fam, seeds, settings) for fam, seeds in _chunks(settings)]
        done: dict[str, int] = {}
        total, families = len(settings.seeds), list(settings.families)
        report_progress(progress, f"family {families[0]}", 0, total, "trials")
        with ProcessPoolExecutor(max_workers=settings.jobs, mp_context=get_context("spawn")) as pool:
            for (fam, seeds, _), (recs, ns) in zip(work, pool.map(_work, work)):
                records += [TrialRecord(**{**r, "codes": tuple(r["codes"]),
                                           "inspected": tuple(r["inspected"])}) for r in recs]
                notes += ns
                done[fam] = done.get(fam, 0) + len(seeds)
                report_progress(progress, f"family {fam}", done[fam], total, "trials")
                if done[fam] == total and fam != families[-1]:  # the next family starts now
                    following = families[families.index(fam) + 1]
                    report_progress(progress, f"family {following}", 0, total, "trials")
    return BenchResult(settings, records, notes, time.perf_counter() - start)


def dedupe_notes(notes: Iterable[str]) -> list[str]:
    """Notes in first-seen order, each with how often it occurred."""
    counts: dict[str, int] = {}
    for n in notes:
        counts[n] = counts.get(n, 0) + 1
    return [n if c == 1 else f"{n} (x{c})" for n, c in list(counts.items())[:50]]


def sealed_notes(notes: Iterable[str]) -> list[str]:
    """Notes without their per-case detail, for a sealed report."""
    return dedupe_notes(n.split(NOTE_DETAIL, 1)[0] for n in notes)


def summarise_settings(settings: BenchSettings, seeds_source: str, seeds_digest: str,
                       sealed: bool) -> dict[str, Any]:
    """Settings as they go into the freeze record (no seed values)."""
    return {"families": list(settings.families), "trials": len(settings.seeds),
            "policies": list(settings.policy_names()), "conditions": settings.conditions,
            "mode": settings.mode, "seeds_source": seeds_source, "seeds_hash": seeds_digest,
            "sealed": sealed, "policy_cmd": settings.policy_cmd, "jobs": settings.jobs}
