#!/usr/bin/env python3
"""What keeping cell ids across a rebuild costs: ``cells.rebuild`` on ``--home`` (a curated
home; pass a copy: the cells are rebuilt), CPU and wall, with the id matching
(``cells.api._keeping_ids``) and with it left out, alternated ``--rounds`` times in one
process; the best of each is printed::

    nice .venv/bin/python scripts/bench/cells_keep_ids.py --home COPY --rounds 3
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from attention_cloud import Memory
    from attention_cloud.cells import api

    matching = api._keeping_ids
    runs: dict[str, list[tuple[float, float]]] = {"without matching": [], "with matching": []}
    with Memory.open(args.home) as mem:
        for _ in range(args.rounds):
            for name, keep in (("without matching", lambda m, c, s: (c, s)),
                               ("with matching", matching)):
                api._keeping_ids = keep
                cpu, wall = time.process_time(), time.perf_counter()
                report = api.rebuild(mem)
                runs[name].append((time.process_time() - cpu, time.perf_counter() - wall))
        api._keeping_ids = matching
    print(f"| rebuild of {report.items:,} items, {report.cells} cells | best CPU s | best wall s |")
    print("|---|---|---|")
    for name, found in runs.items():
        print(f"| {name} | {min(c for c, _ in found):.2f} | {min(w for _, w in found):.2f} |")


if __name__ == "__main__":
    main()
