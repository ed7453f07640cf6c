#!/usr/bin/env python3
"""Warm hydration of two code trees on one home (or of one tree on two homes), alternated goal
by goal: CPU and wall time of each, and whether their frames hold the same facts.

A speed change to hydration is a few milliseconds of a ~25 ms frame, and on a shared machine
the load moves more than that between two runs a minute apart. Here two worker processes, one
per tree (``--base``: a git revision, or a folder holding ``host/``, ``rules/`` and ``facts/``;
``--new``: this checkout by default), open the same home and hydrate the same goals
(hydrate.py's agent goals) in turn, the order swapped every goal, so load falls on both alike.
Each worker times ``hydration.hydrate`` (wall and process CPU; ``--entity-walk`` walks
the entity graph instead of the cells) and returns the frame's facts
(handle, segment, level, tokens, seeded_by, score) and its text without the receipt line; the
driver reports p50/p95 of each tree per round and counts the goals whose frames differ.

    .venv/bin/python scripts/bench/hydrate_ab.py --home HOME --base main --rounds 3
    .venv/bin/python scripts/bench/hydrate_ab.py --home HOME --base main --only worker --queries 30
    .venv/bin/python scripts/bench/hydrate_ab.py --homes HOME_A HOME_B --rounds 3
    .venv/bin/python scripts/bench/hydrate_ab.py --home HOME --base main --slowest 6

``--homes A B`` compares two homes under one tree (``--new``, this checkout by default): a
change to what curation writes (cells, arcs, an index) measured on the frames it makes, or two
copies of one home, whose difference is the noise of the machine. The report names them
``A`` and ``B``, and counts the goals whose frames differ as it does for two trees.

Receipts are not stored (hydration.hydrate with ``store_receipt=False``): two writers of one
home's receipts would make hot cells, which read them, depend on the interleaving.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import ROOT, percentile_ms, progress  # noqa: E402
from hydrate import agent_goals  # noqa: E402

WORKER = r"""
import json, sys, time
src, home, budget, plane = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
cells = None if sys.argv[5] == "auto" else False
reader = sys.argv[6] or None
sys.path.insert(0, src + "/host")
from attention_cloud import Memory
from attention_cloud.hydration import hydrate
from attention_cloud.sharing import reader_hydrate
mem = Memory.open(home)
mem.jump.vectors.wait_for_index()
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    goal = json.loads(line)["goal"]
    wall, cpu = time.perf_counter(), time.process_time()
    if reader is None:
        frame = hydrate(mem, goal, budget=budget, plane=plane, cells=cells, store_receipt=False)
    else:
        frame = reader_hydrate(mem, reader, goal, budget=budget, plane=plane, cells=cells)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    facts = [[f.handle, f.segment, f.level, f.tokens, f.seeded_by, f.score] for f in frame.facts]
    text = frame.text.split("\n", 2)[-1]
    print(json.dumps({"wall": wall, "cpu": cpu, "facts": facts, "text": text}), flush=True)
"""


def tree_of(spec: str, scratch: Path) -> Path:
    """A folder holding the code of ``spec``: the folder itself, or the git revision ``spec``
    of this repository unpacked (host, rules, facts) under ``scratch``."""
    if Path(spec).is_dir():
        return Path(spec).resolve()
    out = scratch / spec.replace("/", "_")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", spec, "host", "rules", "facts"],
                             check=True, capture_output=True).stdout
    out.mkdir(parents=True)
    with tempfile.TemporaryFile() as fh:
        fh.write(archive)
        fh.seek(0)
        with tarfile.open(fileobj=fh) as tar:
            tar.extractall(out)
    return out


class Worker:
    """One tree's process: hydrate a goal, answer its times and facts."""

    def __init__(self, src: Path, home: Path, budget: int, plane: str, cells: str,
                 reader: str | None = None) -> None:
        env = dict(os.environ, PYTHONPATH=str(src / "host"))
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER, str(src), str(home),
                                      str(budget), plane, cells, reader or ""],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)
        assert json.loads(self.proc.stdout.readline())["ready"]

    def hydrate(self, goal: str) -> dict:
        self.proc.stdin.write(json.dumps({"goal": goal}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def sides(args: argparse.Namespace, scratch: Path) -> dict[str, tuple[Path, Path]]:
    """The two runs compared, each a (tree, home) by name: ``base`` and ``new`` (two trees on
    ``--home``), or ``A`` and ``B`` (the ``--new`` tree on each of ``--homes``)."""
    if args.homes is not None:
        tree = tree_of(args.new, scratch)
        return {"A": (tree, args.homes[0].resolve()), "B": (tree, args.homes[1].resolve())}
    return {"base": (tree_of(args.base, scratch), args.home.resolve()),
            "new": (tree_of(args.new, scratch), args.home.resolve())}


def slowest_lines(goals: list[str], least: dict[str, list[float]], count: int) -> list[str]:
    """The ``count`` goals of the largest CPU time on each side, worst first: ``least`` holds
    each goal's least CPU seconds over the rounds by side (the least, so that a moment of load
    does not make a goal look slow)."""
    lines = []
    for name, cpu in least.items():
        if count <= 0:
            break
        worst = sorted(range(len(goals)), key=lambda i: -cpu[i])[:count]
        lines.append(f"slowest on {name} (least CPU ms over the rounds):")
        lines.extend(f"  {cpu[i] * 1000:6.1f}  {goals[i]}" for i in worst)
    return lines


def chosen_goals(count: int, seed: int, only: str | None = None) -> list[str]:
    """``count`` of hydrate.py's agent goals for ``seed``; with ``only``, the first ``count``
    holding that text (from forty times as many), ValueError when fewer do."""
    if not only:
        return agent_goals(count, seed)
    pool = agent_goals(count * 40, seed)
    goals = [g for g in pool if only in g][:count]
    if len(goals) < count:
        raise ValueError(f"--only {only!r}: {len(goals)} of {len(pool)} goals hold it, fewer "
                         f"than the {count} asked for")
    return goals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    homes = parser.add_mutually_exclusive_group(required=True)
    homes.add_argument("--home", type=Path, help="a curated home (read only), hydrated by both trees")
    homes.add_argument("--homes", type=Path, nargs=2, metavar=("A", "B"),
                       help="two curated homes (read only), both hydrated by the --new tree")
    parser.add_argument("--base", help="git revision or folder: the tree before (with --home)")
    parser.add_argument("--new", default=str(ROOT), help="git revision or folder (default: here)")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--plane", default="default")
    parser.add_argument("--seed", type=int, default=7, help="goal generator seed (default 7)")
    parser.add_argument("--entity-walk", action="store_true",
                        help="walk the entity graph, not the cells (cells=False)")
    parser.add_argument("--only", metavar="TEXT",
                        help="only the goals holding TEXT (one template, e.g. 'worker' or "
                             "'What did we change'): the tail's templates compared on their own")
    parser.add_argument("--slowest", type=int, default=0, metavar="N",
                        help="also list the N goals of the largest CPU time (each goal's least "
                             "over the rounds, on each side): the frames that make the p95")
    parser.add_argument("--as", dest="reader", metavar="PRINCIPAL",
                        help="frame as this grantee of the home (reader_hydrate: each frame is "
                             "logged to the home's audit.jsonl and its receipt stored, so give "
                             "a copy of the home)")
    args = parser.parse_args(argv)

    if args.home is not None and args.base is None:
        parser.error("--home compares two trees: name the one before with --base")
    if args.homes is not None and args.base is not None:
        parser.error("--homes compares two homes under one tree (--new): --base does not apply")
    try:
        goals = chosen_goals(args.queries + args.warmup, args.seed, args.only)
    except ValueError as err:
        parser.error(str(err))
    for home in args.homes or [args.home]:
        if not home.is_dir():
            parser.error(f"no home at {home}")
    warm, timed = goals[: args.warmup], goals[args.warmup:]
    with tempfile.TemporaryDirectory() as scratch:
        cells = "false" if args.entity_walk else "auto"
        runs = sides(args, Path(scratch))
        first, second = runs
        progress(f"{first}: {runs[first][0]} on {runs[first][1]}; "
                 f"{second}: {runs[second][0]} on {runs[second][1]}")
        workers = {name: Worker(src, home, args.budget, args.plane, cells, args.reader)
                   for name, (src, home) in runs.items()}
        try:
            for goal in warm:
                for w in workers.values():
                    w.hydrate(goal)
            differ: set[int] = set()
            least: dict[str, list[float]] = {n: [float("inf")] * len(timed) for n in workers}
            for r in range(args.rounds):
                seen: dict[str, dict[str, list[float]]] = {n: {"wall": [], "cpu": []} for n in workers}
                for i, goal in enumerate(timed):
                    order = [first, second] if (i + r) % 2 == 0 else [second, first]
                    got = {name: workers[name].hydrate(goal) for name in order}
                    for name, out in got.items():
                        seen[name]["wall"].append(out["wall"])
                        seen[name]["cpu"].append(out["cpu"])
                        least[name][i] = min(least[name][i], out["cpu"])
                    if (got[first]["facts"], got[first]["text"]) != (got[second]["facts"], got[second]["text"]):
                        differ.add(i)
                load = os.getloadavg()[0]
                print(f"round {r + 1} (load {load:.1f}): " + "; ".join(
                    f"{name} CPU p50 / p95 {percentile_ms(s['cpu'], 50):.1f} / "
                    f"{percentile_ms(s['cpu'], 95):.1f} ms, wall {percentile_ms(s['wall'], 50):.1f} / "
                    f"{percentile_ms(s['wall'], 95):.1f}, CPU mean {statistics.mean(s['cpu']) * 1000:.2f}"
                    for name, s in seen.items()), flush=True)
            print(f"frames that differ: {len(differ)} of {len(timed)} goals"
                  + (f" ({sorted(differ)})" if differ else ""))
            for line in slowest_lines(timed, least, args.slowest):
                print(line)
        finally:
            for w in workers.values():
                w.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
