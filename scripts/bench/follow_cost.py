#!/usr/bin/env python3
"""What following other writers costs a long-open Memory's reads (README "Erasure", *Readers*).

Every outermost call of a Memory first compares the stamp of the four files writers change
(``writers_stamp``: one ``stat`` each) with the one it last saw, and catches up only when they
changed. On a copy of the cached curated home of ``--size`` items this measures, in one
process, alternating round by round so that the machine's load falls on both alike:

  stamp            ``writers_stamp(home)`` alone
  item, following  ``mem.item(h)`` as shipped (the stamp checked first)
  item, not        the same call with the check switched off for this instance
  frame, following / not   the same for ``mem.hydrate(GOAL, budget=800)``

and, once each, what the first call pays when something did change: after ``atc remember`` in
another process (the new batch replayed) and after ``atc forget`` in another process (the
compacted journal read afresh in place), against ``Memory.open`` of the same home.

    nice .venv/bin/python scripts/bench/follow_cost.py --size 1000 --rounds 200
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import build_home, markdown_table, run_header  # noqa: E402

GOAL = "Why does the timeout keep happening in the cache module?"


def _us(start: float) -> float:
    return (time.perf_counter() - start) * 1e6


def _atc(home: Path, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home), *args],
                   check=True, capture_output=True, timeout=900)


def alternated(mem, rounds: int) -> dict[str, list[float]]:
    """Each call with the check on and off, alternated round by round."""
    from attention_cloud.memory import writers_stamp

    handle = mem.query("item(H)", limit=1).rows[0]["H"]
    following = type(mem)._follow_writers
    calls = {"item": lambda: mem.item(handle),
             "frame": lambda: mem.hydrate(GOAL, budget=800)}
    for call in calls.values():  # warm: indexes open, the frame's one-time work done
        call(), call()
    times: dict[str, list[float]] = {"stamp": []}
    for name in calls:
        times[f"{name}, following"], times[f"{name}, not"] = [], []
    for i in range(rounds):
        start = time.perf_counter()
        writers_stamp(mem.home)
        times["stamp"].append(_us(start))
        for name, call in calls.items():
            if name == "frame" and i % 10:
                continue  # a frame is ~1000x an item: a tenth of the rounds
            for on in ((True, False) if i % 2 else (False, True)):
                mem._follow_writers = (lambda: following(mem)) if on else (lambda: None)
                start = time.perf_counter()
                call()
                times[f"{name}, {'following' if on else 'not'}"].append(_us(start))
    mem._follow_writers = lambda: following(mem)
    del mem._follow_writers  # the class's method again
    return times


def after_writes(home: Path, mem) -> list[tuple[str, float]]:
    """The first call after another process's remember, then after its forget, against
    opening the home."""
    from attention_cloud import Memory

    handle = mem.query("item(H)", limit=1).rows[0]["H"]
    rows = []
    _atc(home, "remember", "a note written by another process while the reader waits")
    start = time.perf_counter()
    mem.item(handle)
    rows.append(("first call after another process's `atc remember` (replay)", _us(start) / 1000))
    victim = mem.query("item(H)", limit=2).rows[1]["H"]
    _atc(home, "forget", victim, "--yes")
    start = time.perf_counter()
    assert mem.item(victim) is None
    rows.append(("first call after another process's `atc forget` (read afresh)",
                 _us(start) / 1000))
    start = time.perf_counter()
    fresh = Memory.open(home, create=False)
    fresh.item(handle)
    rows.append(("`Memory.open` of the home and one call (baseline)", _us(start) / 1000))
    fresh.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=200)
    opts = parser.parse_args()
    from attention_cloud import Memory

    built = build_home(opts.size, curate=True)
    with tempfile.TemporaryDirectory(prefix="follow-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(built.path, home)
        mem = Memory.open(home, create=False)
        try:
            times = alternated(mem, opts.rounds)
            once = after_writes(home, mem)
        finally:
            mem.close()
    print(run_header(f"Following other writers, {opts.size} items, {opts.rounds} rounds"))
    print(markdown_table(["call", "median µs", "p90 µs", "n"],
                         [(name, f"{statistics.median(v):.1f}",
                           f"{sorted(v)[int(0.9 * (len(v) - 1))]:.1f}", len(v))
                          for name, v in times.items()]))
    for name in ("item", "frame"):
        on, off = (statistics.median(times[f"{name}, {k}"]) for k in ("following", "not"))
        print(f"- {name}: following costs {on - off:+.1f} µs a call (ratio {on / off:.3f})")
    print()
    print(markdown_table(["after a write elsewhere", "ms"], [(n, f"{ms:.1f}") for n, ms in once]))


if __name__ == "__main__":
    main()
