#!/usr/bin/env python3
"""Opening existing homes, alternated: ``Memory.open`` alone, each run in a fresh process.

For comparing two forms of the same home (a snapshot in one part against one in two lanes, a
home before and after a change of its facts) on a noisy machine: the homes are opened in turn,
``--repeat`` rounds, and each run prints the wall time and the process CPU time of the open
call (a snapshot in lanes loads on two threads: less wall time, more CPU). The first home is the
baseline of the median ratios printed at the end.

    .venv/bin/python scripts/bench/open_homes.py --home BEFORE --home AFTER [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import markdown_table, run_header  # noqa: E402

CHILD = """
import json, sys, time
from attention_cloud import Memory
cpu, wall = time.process_time(), time.perf_counter()
mem = Memory.open(sys.argv[1], create=False)
print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
                  "snapshot_facts": mem.open_info.snapshot_facts}))
"""


def open_once(home: Path) -> dict[str, float]:
    """Open ``home`` in a new interpreter; its open call's wall and CPU seconds."""
    proc = subprocess.run([sys.executable, "-c", CHILD, str(home)], capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, action="append", required=True,
                        help="a home to open (give two or more; the first is the baseline)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    args = parser.parse_args()
    runs: dict[Path, list[dict[str, float]]] = {home: [] for home in args.home}
    for _ in range(args.repeat):
        for home in args.home:
            runs[home].append(open_once(home))
            r = runs[home][-1]
            print(f"{home}: wall {r['wall']:.2f} s, CPU {r['cpu']:.2f} s", file=sys.stderr)
    print(run_header("Opening homes, alternated"))
    base = args.home[0]
    rows = []
    for home, rs in runs.items():
        wall = statistics.median(r["wall"] for r in rs)
        cpu = statistics.median(r["cpu"] for r in rs)
        base_wall = statistics.median(r["wall"] for r in runs[base])
        rows.append([str(home), f"{rs[0]['snapshot_facts']:,}",
                     ", ".join(f"{r['wall']:.2f}" for r in rs), ", ".join(f"{r['cpu']:.2f}" for r in rs),
                     f"{wall:.2f}", f"{cpu:.2f}", f"{wall / base_wall:.2f}"])
    print(markdown_table(["home", "snapshot facts", "wall s", "CPU s", "median wall", "median CPU",
                          "wall ratio"], rows))


if __name__ == "__main__":
    main()
