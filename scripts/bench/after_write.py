#!/usr/bin/env python3
"""What a write costs the next frame: in the writing process, and in a server beside it.

An agent writes every turn (its transcript captured, a note remembered) and asks for a frame at
once; a long-running server (``atc mcp``, the prompt hook's recall server) answers beside the
processes that write. On a copy of the cached curated home of ``--size`` items this measures,
``--rounds`` times each, against a warm frame of the same goal in the same process (the ratio
is the figure to compare across machines):

  same process     ``remember(curate=False)``, then ``hydrate``: the frame after a write
  server, other    ``atc remember`` in another process, then the server's ``MemoryHost``:
                   getting memory (caught up or reopened) and its first frame
  server, own      the server's own ``remember`` and ``wrote()``, then getting memory and its
                   first frame

    ATC_PROLOG=pyswip .venv/bin/python scripts/bench/after_write.py --size 100000
"""
from __future__ import annotations

import argparse
import os
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


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _warm(mem, rounds: int) -> float:
    for _ in range(3):
        mem.hydrate(GOAL, budget=800)
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        mem.hydrate(GOAL, budget=800)
        times.append(_ms(start))
    return statistics.median(times)


def same_process(home: Path, rounds: int) -> dict[str, float]:
    from attention_cloud import Memory

    mem = Memory.open(home)
    try:
        warm = _warm(mem, rounds)
        after = []
        for i in range(rounds):
            mem.remember(f"a note written by the loop, turn {i}", curate=False)
            start = time.perf_counter()
            mem.hydrate(GOAL, budget=800)
            after.append(_ms(start))
        return {"warm": warm, "after": statistics.median(after)}
    finally:
        mem.close()


def server(home: Path, rounds: int) -> dict[str, float]:
    from attention_cloud.agents.memory_host import MemoryHost

    host = MemoryHost(home)
    env = {**os.environ, "ATC_HOME": str(home)}
    try:
        warm = _warm(host.memory(), rounds)
        other, own, own_write = [], [], []
        for i in range(rounds):
            subprocess.run([sys.executable, "-m", "attention_cloud.cli", "remember",
                            f"a note another process wrote, {i}"], check=True, env=env,
                           capture_output=True, timeout=600)
            start = time.perf_counter()
            host.memory().hydrate(GOAL, budget=800)
            other.append(_ms(start))
        for i in range(rounds):
            start = time.perf_counter()
            host.memory().remember(f"a note the server wrote, {i}")
            host.wrote()
            own_write.append(_ms(start))
            start = time.perf_counter()
            host.memory().hydrate(GOAL, budget=800)
            own.append(_ms(start))
        return {"warm": warm, "other": statistics.median(other), "own": statistics.median(own),
                "own_write": statistics.median(own_write)}
    finally:
        host.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    built = build_home(args.size, embedder="hash", curate=True)
    with tempfile.TemporaryDirectory(prefix="atc-after-write-") as tmp:
        results = {}
        for name, measure in (("same", same_process), ("server", server)):
            home = Path(tmp) / name
            shutil.copytree(built.path, home)
            if name == "server":  # a copied home's cell copies are written anew by its first
                subprocess.run([sys.executable, "-m", "attention_cloud.cli", "curate"],  # curate
                               check=True, env={**os.environ, "ATC_HOME": str(home)},
                               capture_output=True, timeout=1200)
            results[name] = measure(home, args.rounds)
    same, srv = results["same"], results["server"]
    print(run_header("What a write costs the next frame"))
    print(f"{args.size:,} items (hash embedder, curated), budget 800, medians of {args.rounds}.\n")
    rows = [
        ("a `remember(curate=False)`, the next frame (same process)", same["after"], same["warm"]),
        ("another process's `atc remember`, the server's next frame", srv["other"], srv["warm"]),
        ("the server's own `remember` + `wrote()`, its next frame", srv["own"], srv["warm"]),
    ]
    print(markdown_table(["after", "ms", "warm frame (ms)", "ratio"],
                         [(what, f"{ms:.1f}", f"{warm:.1f}", f"{ms / warm:.1f}x") for what, ms, warm in rows]))
    print(f"The server's own `remember` + `wrote()` itself: {srv['own_write']:.0f} ms (median).")

if __name__ == "__main__":
    main()
