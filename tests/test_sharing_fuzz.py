"""A small run of scripts/bench/sharing_fuzz.py: random policies and reads checked against an
independent oracle (the bench runs 10,000 trials; BENCHMARKS.md, "Sharing")."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts" / "bench"))

from sharing_fuzz import run_fuzz  # noqa: E402


def test_random_policies_and_reads_never_exceed_a_grant(tmp_path):
    counts = run_fuzz(150, seed=7, workdir=tmp_path)
    violations = {k: v for k, v in counts.items() if k.startswith("violation")}
    assert violations == {}
    for op in ("hydrate", "query", "rules", "raw", "pool"):
        assert counts[f"trials: {op}"] > 0, op
    assert counts["facts checked"] > 500
    assert counts["grants revoked"] > 0 and counts["labels set"] > 0
    assert "pool member sees nothing (unexpected)" not in counts
