"""PNG plots of a benchmark run (matplotlib, Agg backend): regret distributions per policy and
the normalised score per family."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..errors import UsageError
from .metrics import TrialRecord


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise UsageError("--plots needs matplotlib: pip install 'attention-cloud[plots]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def write_plots(report: dict[str, Any], records: Sequence[TrialRecord], directory: Path,
                policies: Sequence[str]) -> list[Path]:
    """Write ``regret_by_policy.png`` and ``score_by_family.png`` into ``directory``."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    written = []

    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(policies) + 2), 4.5))
    data = [[r.regret for r in records if r.policy == p] for p in policies]
    ax.boxplot(data, showfliers=True, flierprops={"markersize": 2})
    ax.set_xticks(range(1, len(policies) + 1), policies, rotation=35, ha="right")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_ylabel("attention regret (utility units, per trial)")
    ax.set_title("Regret per trial, all families and conditions")
    fig.tight_layout()
    path = directory / "regret_by_policy.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    rows = [r for r in report["rows"] if r["condition"] == "announced"]
    families = sorted({r["family"] for r in rows})
    fig, ax = plt.subplots(figsize=(max(7.0, 1.1 * len(families) + 3), 4.8))
    width = 0.8 / max(1, len(policies))
    low = 0.0
    for k, policy in enumerate(policies):
        scores = {r["family"]: r["normalized_score"] for r in rows if r["policy"] == policy}
        xs = [i + k * width - 0.4 + width / 2 for i in range(len(families))]
        ys = [scores.get(f) if scores.get(f) is not None else 0.0 for f in families]
        low = min([low] + ys)
        ax.bar(xs, ys, width=width, label=policy)
    ax.set_xticks(range(len(families)), families)
    ax.axhline(100.0, color="black", linewidth=0.8, linestyle="--")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_ylim(max(low, -150.0) - 5.0, 115.0)
    ax.set_ylabel("normalised score (100 = oracle, 0 = random)")
    ax.set_title("Score per family (announced condition; bars below -150 are cut)")
    ax.legend(fontsize=7, ncol=2, loc="lower left")
    fig.tight_layout()
    path = directory / "score_by_family.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written
