"""Aggregating trial records into the report: tables per family and policy, ablations, the
attention-vs-production split, the initiation gap, and the four-stage failure split.

Rendering is pure: :func:`build_report` returns plain data, :func:`render_markdown` turns it into
text, and the JSON output is that same data. A sealed report carries aggregates and failure
categories only, never a per-trial line.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Iterable, Sequence

import numpy as np

from .families import FAMILIES
from .metrics import FAILURE_CODES, STAGES, TrialRecord
from .runner import ORACLE_ROW, BenchResult, dedupe_notes, sealed_notes
from .stats import bootstrap_mean, bootstrap_score, normalised_score, transitions, wilson

#: The reference every ablation is compared with, when it ran.
ABLATION_REFERENCE = "voc"
ABLATIONS = ("voc_no_staleness", "voc_no_authority", "voc_no_switch_cost", "attention_only",
             "production", "forced_authoritative", "goal_relevance", "risk", "staleness",
             "recency_urgency", "random", "no_inspection")


def _rate(num: int, den: int) -> dict[str, Any]:
    ci = wilson(num, den)
    return {"rate": ci.estimate, "low": ci.low, "high": ci.high, "n": den}


def _row(records: Sequence[TrialRecord]) -> dict[str, Any]:
    """All metrics of one (family, policy, condition) cell."""
    value = np.array([r.value for r in records])
    oracle = np.array([r.oracle_value for r in records])
    rand = np.array([r.random_value for r in records])
    regret = oracle - value
    score = bootstrap_score(value, oracle, rand)
    reg = bootstrap_mean(regret)
    need = [r for r in records if r.needs_authoritative]
    crit_total = sum(r.critical_total for r in records)
    cand = [r for r in records if r.candidates_reported]
    cand_total = sum(r.critical_total for r in cand)
    cand_hit = sum(r.candidate_hit for r in cand)
    over = [r for r in records if r.over_inspection is not None]
    spent = sum(r.cost for r in records)
    gain = sum(r.decision_value + r.cost - r.no_inspection_value for r in records)
    switch_total = sum(r.switch_total for r in records)
    served = sum(r.goals_served_by_oracle for r in records)
    stages = Counter(r.stage for r in records)
    codes = Counter(c for r in records for c in r.codes)
    rescued = [r for r in records if r.rescued is not None]
    return {
        "n": len(records),
        "normalized_score": score.estimate, "score_low": score.low, "score_high": score.high,
        "regret_mean": reg.estimate, "regret_low": reg.low, "regret_high": reg.high,
        "regret_median": float(np.median(regret)),
        "value_mean": float(value.mean()), "oracle_mean": float(oracle.mean()),
        "oracle_expected_mean": float(np.mean([r.oracle_expected for r in records])),
        "random_mean": float(rand.mean()),
        "spontaneous_authoritative": _rate(sum(r.spontaneous_authoritative for r in need), len(need)),
        "summary_substitution": _rate(sum(r.summary_substitution for r in need), len(need)),
        "critical_recall": _rate(sum(r.critical_hit for r in records), crit_total),
        "candidate_recall": _rate(cand_hit, cand_total) if cand else None,
        "selection_given_generation": _rate(sum(r.selected_given_generated for r in cand),
                                            cand_hit) if cand else None,
        "utility_per_compute": gain / spent if spent > 1e-12 else None,
        "overinspection": _rate(sum(bool(r.over_inspection) for r in over), len(over)),
        "excess_inspections_mean": float(np.mean([r.excess_inspections for r in records])),
        "inspections_mean": float(np.mean([r.spontaneous for r in records])),
        "forced_mean": float(np.mean([r.forced for r in records])),
        "switch_accuracy": _rate(sum(r.switch_correct for r in records), switch_total),
        "starvation": _rate(sum(r.goals_starved for r in records), served),
        "decision_accuracy": _rate(sum(r.decision_correct for r in records), len(records)),
        "rescue_rate": _rate(sum(bool(r.rescued) for r in rescued), len(rescued)) if rescued else None,
        "stages": {s: stages.get(s, 0) for s in STAGES},
        "codes": {c: codes[c] for c in FAILURE_CODES if codes.get(c)},
        "wall_ms_mean": float(np.mean([r.wall_ms for r in records])),
    }


def _group(records: Iterable[TrialRecord]) -> dict[tuple[str, str, str], list[TrialRecord]]:
    cells: dict[tuple[str, str, str], list[TrialRecord]] = defaultdict(list)
    for r in records:
        cells[(r.family, r.policy, r.condition)].append(r)
    for cell in cells.values():
        cell.sort(key=lambda r: r.seed)
    return cells


def _score(records: Sequence[TrialRecord]) -> float | None:
    """Normalised score of a set of trials (ratio of means)."""
    return normalised_score(np.array([r.value for r in records]),
                            np.array([r.oracle_value for r in records]),
                            np.array([r.random_value for r in records]))


def _paired(a: Sequence[TrialRecord], b: Sequence[TrialRecord]) -> tuple[list, list]:
    by_seed = {r.seed: r for r in b}
    left = [r for r in a if r.seed in by_seed]
    return left, [by_seed[r.seed] for r in left]


def build_report(result: BenchResult, freeze: dict[str, Any], *, sealed: bool) -> dict[str, Any]:
    """All tables of the report as plain data (the JSON output)."""
    cells = _group(result.records)
    policies = [ORACLE_ROW] + list(result.settings.policy_names())
    rows = []
    for (family, policy, condition), recs in sorted(
            cells.items(), key=lambda kv: (kv[0][0], kv[0][2], policies.index(kv[0][1]))):
        spec = FAMILIES[family]
        rows.append({"family": family, "family_slug": spec.slug, "family_title": spec.title,
                     "policy": policy, "condition": condition, "mode": recs[0].mode,
                     **_row(recs)})

    summary = []
    for policy in policies:
        scores = {r["family"] + ("" if r["condition"] == "announced" else "*"): r["normalized_score"]
                  for r in rows if r["policy"] == policy}
        finite = [s for s in scores.values() if s is not None]
        summary.append({"policy": policy, "scores": scores,
                        "mean_score": float(np.mean(finite)) if finite else None,
                        "min_score": float(np.min(finite)) if finite else None})

    ablations = []
    if ABLATION_REFERENCE in policies:
        for (family, policy, condition), recs in sorted(cells.items()):
            if policy == ABLATION_REFERENCE or policy == ORACLE_ROW:
                continue
            ref = cells.get((family, ABLATION_REFERENCE, condition))
            if not ref:
                continue
            a, b = _paired(ref, recs)
            diff = bootstrap_mean([x.value - y.value for x, y in zip(a, b)])
            ref_score, alt_score = _score(a), _score(b)
            ablations.append({
                "family": family, "condition": condition, "policy": policy,
                "reference": ABLATION_REFERENCE, "n": len(a),
                "score_reference": ref_score, "score_policy": alt_score,
                "score_delta": None if ref_score is None or alt_score is None
                else alt_score - ref_score,
                "utility_loss_mean": diff.estimate, "utility_loss_low": diff.low,
                "utility_loss_high": diff.high,
                "attention_transitions": transitions([x.attention_pass for x in a],
                                                     [y.attention_pass for y in b]).as_dict(),
            })

    modes = []
    for (family, policy, condition), recs in sorted(cells.items()):
        if policy != "production":
            continue
        att = cells.get((family, "attention_only", condition))
        if not att:
            continue
        a, b = _paired(att, recs)
        modes.append({
            "family": family, "condition": condition, "n": len(a),
            "attention_score": _score(a), "production_score": _score(b),
            "attention_accuracy": float(np.mean([x.decision_correct for x in a])),
            "production_accuracy": float(np.mean([y.decision_correct for y in b])),
            "rescue_rate": _rate(sum(y.decision_correct and not x.decision_correct
                                     for x, y in zip(a, b)), len(a)),
            "decision_transitions": transitions([x.decision_correct for x in a],
                                                [y.decision_correct for y in b]).as_dict(),
        })

    gaps = []
    for (family, policy, condition), recs in sorted(cells.items()):
        if condition != "announced":
            continue
        other = cells.get((family, policy, "unprompted"))
        if not other:
            continue
        a, b = _paired(recs, other)
        sa, su = _score(a), _score(b)
        need_a = [x for x in a if x.needs_authoritative]
        need_b = [y for y in b if y.needs_authoritative]
        gaps.append({
            "family": family, "policy": policy, "n": len(a),
            "score_announced": sa, "score_unprompted": su,
            "initiation_gap": None if sa is None or su is None else sa - su,
            "spontaneous_authoritative_announced": _rate(
                sum(x.spontaneous_authoritative for x in need_a), len(need_a))["rate"],
            "spontaneous_authoritative_unprompted": _rate(
                sum(y.spontaneous_authoritative for y in need_b), len(need_b))["rate"],
            "attention_transitions": transitions([x.attention_pass for x in a],
                                                 [y.attention_pass for y in b]).as_dict(),
        })

    failures = []
    for policy in policies:
        recs = [r for r in result.records if r.policy == policy]
        stages = Counter(r.stage for r in recs)
        codes = Counter(c for r in recs for c in r.codes)
        failures.append({"policy": policy, "n": len(recs),
                         "stages": {s: stages.get(s, 0) for s in STAGES},
                         "codes": {c: codes[c] for c in FAILURE_CODES if codes.get(c)}})

    out: dict[str, Any] = {"freeze": freeze, "sealed": sealed, "elapsed_s": result.elapsed_s,
                           "rows": rows, "summary": summary, "ablations": ablations,
                           "modes": modes, "initiation_gap": gaps, "failures": failures,
                           "notes": sealed_notes(result.notes) if sealed
                           else dedupe_notes(result.notes)}
    if not sealed:
        out["trials"] = [_trial_dict(r) for r in result.records]
    return out


def _trial_dict(r: TrialRecord) -> dict[str, Any]:
    return {"family": r.family, "seed": r.seed, "condition": r.condition, "policy": r.policy,
            "regret": r.regret, "value": r.value, "oracle_value": r.oracle_value,
            "decision_correct": r.decision_correct, "stage": r.stage, "codes": list(r.codes),
            "inspected": list(r.inspected), "forced": r.forced}


# -- markdown ---------------------------------------------------------------------------------

def _f(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _pct(rate: dict[str, Any] | None) -> str:
    if not rate or rate.get("rate") is None:
        return "–"
    return f"{100 * rate['rate']:.0f}% (n={rate['n']})"


def _table(header: Sequence[str], lines: Iterable[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(line) + " |" for line in lines]
    return out


def render_markdown(report: dict[str, Any]) -> str:
    """The report as markdown: freeze record, summary, one table per family, diagnostics."""
    fr = report["freeze"]
    st = fr["settings"]
    lines = ["# Attention benchmark", "",
             f"- benchmark `{fr['benchmark_version']}`, generator `{fr['generator_version']}`",
             f"- code hash `{fr['code_hash'][:16]}`, git `{fr['git_commit'] or 'n/a'}`",
             f"- families {', '.join(st['families'])}; {st['trials']} trials each; conditions "
             f"`{st['conditions']}`; oracle mode `{st['mode']}`",
             f"- seeds from `{st['seeds_source']}` (hash `{st['seeds_hash']}`)"
             + ("; **sealed**: aggregates and failure categories only" if report["sealed"] else ""),
             f"- elapsed {report['elapsed_s']:.1f} s", ""]
    lines += ["## Normalised score by family", "",
              "100 = oracle, 0 = random inspection of the full budget (unclipped). "
              "`*` marks the unprompted rendering.", ""]
    keys: list[str] = []
    for s in report["summary"]:
        keys += [k for k in s["scores"] if k not in keys]
    lines += _table(["policy"] + keys + ["mean", "min"],
                    [[s["policy"]] + [_f(s["scores"].get(k)) for k in keys]
                     + [_f(s["mean_score"]), _f(s["min_score"])] for s in report["summary"]])
    lines.append("")
    by_cell: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in report["rows"]:
        by_cell[(row["family"], row["condition"])].append(row)
    for (family, condition), rows in by_cell.items():
        spec = FAMILIES[family]
        lines += [f"## {family}. {spec.title} — {condition} ({rows[0]['mode']})", "",
                  f"Measures: {spec.measures}.", ""]
        lines += _table(
            ["policy", "n", "score [95% CI]", "regret mean [CI] / median", "spont. auth.",
             "summary subst.", "crit. recall", "cand. recall", "sel.|gen.", "util/compute",
             "over-insp.", "switch acc.", "starvation", "stages A/R/E/Rs/pass"],
            [[r["policy"], str(r["n"]),
              f"{_f(r['normalized_score'])} [{_f(r['score_low'])}, {_f(r['score_high'])}]",
              f"{_f(r['regret_mean'], 3)} [{_f(r['regret_low'], 3)}, {_f(r['regret_high'], 3)}]"
              f" / {_f(r['regret_median'], 3)}",
              _pct(r["spontaneous_authoritative"]), _pct(r["summary_substitution"]),
              _pct(r["critical_recall"]), _pct(r["candidate_recall"]),
              _pct(r["selection_given_generation"]), _f(r["utility_per_compute"], 2),
              _pct(r["overinspection"]), _pct(r["switch_accuracy"]), _pct(r["starvation"]),
              "/".join(str(r["stages"][s]) for s in STAGES)] for r in rows])
        lines.append("")
    if report["ablations"]:
        lines += ["## Ablations (paired with `voc` on identical seeds)", "",
                  "Utility loss = mean(U_voc − U_policy) per trial; transitions count trials "
                  "whose attention passed/failed under voc → under the policy.", ""]
        lines += _table(["family", "condition", "policy", "score voc", "score policy", "Δ score",
                         "utility loss [CI]", "pass→fail / fail→pass"],
                        [[a["family"], a["condition"], a["policy"], _f(a["score_reference"]),
                          _f(a["score_policy"]), _f(a["score_delta"]),
                          f"{_f(a['utility_loss_mean'], 3)} [{_f(a['utility_loss_low'], 3)}, "
                          f"{_f(a['utility_loss_high'], 3)}]",
                          f"{a['attention_transitions']['pass_to_fail']} / "
                          f"{a['attention_transitions']['fail_to_pass']}"]
                         for a in report["ablations"]])
        lines.append("")
    if report["modes"]:
        lines += ["## Attention score vs production score (Appendix D)", ""]
        lines += _table(["family", "condition", "attention score", "production score",
                         "accuracy attention → production", "rescue rate"],
                        [[m["family"], m["condition"], _f(m["attention_score"]),
                          _f(m["production_score"]),
                          f"{100 * m['attention_accuracy']:.0f}% → {100 * m['production_accuracy']:.0f}%",
                          _pct(m["rescue_rate"])] for m in report["modes"]])
        lines.append("")
    if report["initiation_gap"]:
        lines += ["## Initiation gap (announced − unprompted, §15.3)", ""]
        lines += _table(["family", "policy", "score announced", "score unprompted", "gap",
                         "spont. auth. announced", "spont. auth. unprompted"],
                        [[g["family"], g["policy"], _f(g["score_announced"]),
                          _f(g["score_unprompted"]), _f(g["initiation_gap"]),
                          _f(None if g["spontaneous_authoritative_announced"] is None
                             else 100 * g["spontaneous_authoritative_announced"], 0),
                          _f(None if g["spontaneous_authoritative_unprompted"] is None
                             else 100 * g["spontaneous_authoritative_unprompted"], 0)]
                         for g in report["initiation_gap"]])
        lines.append("")
    lines += ["## Four-stage failure split, all families", "",
              "Stages: first failing stage per trial. Codes: Appendix B (a trial may carry several).",
              ""]
    lines += _table(["policy", "n"] + list(STAGES) + ["codes"],
                    [[f["policy"], str(f["n"])] + [str(f["stages"][s]) for s in STAGES]
                     + [", ".join(f"{c} {n}" for c, n in f["codes"].items()) or "–"]
                     for f in report["failures"]])
    lines.append("")
    if report["notes"]:
        lines += ["## Notes", ""] + [f"- {n}" for n in report["notes"]] + [""]
    return "\n".join(lines)
