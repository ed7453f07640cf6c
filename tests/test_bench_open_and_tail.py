"""scripts/bench/open_homes.py and curate_memory.py's curation tail end to end on a small curated
home: the first opens two homes in turn in fresh processes and prints their open times; the
second runs a curation's tail (the writer's tables, their release, a cells rebuild, a snapshot)
and prints each phase's peak."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "scripts" / "bench"


def run(script: str, *args: str) -> str:
    proc = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def curated_home(path: Path) -> Path:
    path.mkdir()
    write_config(path, {"embedder": "hash"})
    with Memory.open(path) as mem:
        mem.ingest(sorted(samples_dir().glob("*.jsonl")))
        mem.curate()
        mem.snapshot()
    return path


def test_open_homes_times_each_home_in_turn(tmp_path: Path):
    first = curated_home(tmp_path / "a")
    second = tmp_path / "b"
    shutil.copytree(first, second)
    out = run("open_homes.py", "--home", str(first), "--home", str(second), "--repeat", "2")
    rows = [line.split("|") for line in out.splitlines() if line.startswith(f"| {tmp_path}")]
    assert len(rows) == 2 and rows[0][7].strip() == "1.00"
    assert all(int(row[2].strip().replace(",", "")) > 0 for row in rows)  # opened from the snapshot
    assert all(len(row[3].split(",")) == 2 for row in rows)               # two runs each


def test_curate_memory_runs_a_curations_tail_with_and_without_the_release(tmp_path: Path):
    home = curated_home(tmp_path / "h")
    phase_of = {"writer": "writer's tables", "release": "release", "cells": "cells rebuild",
                "snapshot": "snapshot"}
    for steps in (["writer", "release", "cells", "snapshot"], ["writer", "cells", "snapshot"]):
        out = run("curate_memory.py", "--home", str(home), "--steps", ",".join(steps))
        phases = [line.split("|")[1].strip() for line in out.splitlines() if line.startswith("| ")]
        assert [p for p in phases if p in phase_of.values()] == [phase_of[s] for s in steps]
    with Memory.open(home) as mem:
        assert mem.query("cell_of(H, C)", limit=1).rows  # the cells were rebuilt
