"""`scripts/bench/repair_check.py` times curation's start-of-run check for each tree it is
given, on a home that needs nothing repaired (the figure BENCHMARKS.md quotes for it)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir

ROOT = Path(__file__).resolve().parent.parent


def test_the_check_is_timed_for_each_tree_and_repairs_nothing(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([samples_dir()])
        mem.curate()
    out = subprocess.run([sys.executable, str(ROOT / "scripts/bench/repair_check.py"),
                          "--home", str(home), "--tree", f"a={ROOT / 'host'}",
                          "--tree", f"b={ROOT / 'host'}", "--rounds", "1", "--calls", "2"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith(("| a |", "| b |"))]
    assert len(rows) == 2, out.stdout
    assert all(row.rstrip(" |").endswith("| 0") for row in rows), rows
