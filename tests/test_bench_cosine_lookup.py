"""scripts/bench/cosine_lookup.py end to end on a small bench home (300 items): it evicts the
vector log, times lookups with the read-ahead off and on, and prints both rows. The home is
built on a clean clone (bench_env.build_home caches it after): at 2,000 items the build cost
about 11 s of CPU, at 300 about 3 s, and both logs are far below the read-ahead's threshold
(store.WARM_LOG_BYTES), so the larger home exercised no more of the script."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "bench" / "cosine_lookup.py"


def test_cosine_lookup_bench_runs_both_modes():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "300", "--lookups", "3", "--keys", "8"],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| 300 |")]
    assert [row.split("|")[2].strip() for row in rows] == ["cold (read-ahead off)", "warm (read ahead at open)"]
    assert all(float(row.split("|")[4]) > 0 for row in rows)  # fresh-key p50 ms measured
