#!/usr/bin/env python3
"""The CPU of curation's start-of-run check (``curation._repair_indexes``: does every curated
item and arc have its vector and BM25 entry?), which every ``atc curate`` and every watcher
wake that curates pays before anything else, for one or more code trees on one home.

Each ``--tree NAME=FOLDER`` (a folder holding ``attention_cloud``, e.g. ``git archive REV host``
unpacked; ``here`` is this checkout's ``host/``) runs in a fresh process per round, the trees
alternated round by round: the home is opened, its vectors and BM25 touched, then the check is
timed ``--calls`` times (the first call is what ``atc curate`` pays, the later ones what a
long-lived watcher pays). Run it on a home both trees have curated, so that neither finds
anything to repair::

    .venv/bin/python scripts/bench/repair_check.py --home HOME \\
        --tree before=/tmp/before/host --tree after=host --rounds 3
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import markdown_table, run_header  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

#: One process of one tree: open, touch the indexes, time the check; prints JSON.
CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from attention_cloud import Memory, curation
with Memory.open(sys.argv[2]) as mem:
    mem.jump.vectors, mem.jump.lexical
    out = []
    for _ in range(int(sys.argv[3])):
        start = time.process_time()
        repaired = curation._repair_indexes(mem, True)
        out.append([repaired, time.process_time() - start])
print(json.dumps(out))
"""


def one_process(folder: str, home: Path, calls: int) -> list[list[float]]:
    """``[repaired, CPU s]`` of each call of the check in a fresh process of ``folder``'s tree."""
    done = subprocess.run([sys.executable, "-c", CHILD, folder, str(home), str(calls)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the check failed in {folder}:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Parse the options, run the rounds, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a curated home")
    parser.add_argument("--tree", action="append", metavar="NAME=FOLDER", default=[],
                        help="a tree to time (repeatable; default: here=host)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=3, help="checks timed in each process")
    args = parser.parse_args()
    trees = [t.split("=", 1) for t in (args.tree or [f"here={ROOT / 'host'}"])]
    timed: dict[str, list[list[list[float]]]] = {name: [] for name, _ in trees}
    for _ in range(args.rounds):
        for name, folder in trees:
            timed[name].append(one_process(folder, args.home, args.calls))
    print(run_header("Curation's start-of-run check"))
    rows = []
    for name, runs in timed.items():
        firsts = [f"{run[0][1]:.2f}" for run in runs]
        later = sorted(call[1] for run in runs for call in run[1:])
        rows.append([name, ", ".join(firsts),
                     f"{later[0]:.2f}–{later[-1]:.2f}" if later else "—",
                     str(max(call[0] for run in runs for call in run))])
    print(markdown_table(["tree", "first call, CPU s (each round)", "later calls, CPU s",
                          "repaired"], rows))


if __name__ == "__main__":
    main()
