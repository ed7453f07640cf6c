#!/usr/bin/env python3
"""What the arithmetic guard (rules/arith_guard.pl) costs a small query and a frame.

Opens HOME, then times, alternately with the guard's wrappers of is/2 and the comparisons
on and taken away (unwrap_predicate/2), ROUNDS rounds of: a small query with arithmetic
(`item(H), H = H, X is 2 * 3 + 1, X > 0` over the first 50 items, then a sum over 2,000
numbers by foldl/4) and one `hydrate`. Prints the median seconds of each and the ratio
guarded / unguarded, measured in the same process.

    .venv/bin/python scripts/bench/guard_cost.py HOME [--rounds 7]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

QUERY = ("findall(X, (limit(50, item(H)), X is 2 * 3 + 1, X > 0), L1), "
         "numlist(1, 2000, Ns), foldl([N, A0, A]>>(A is A0 + N * 2), Ns, 0, S)")


def _set_guard(pl, on: bool) -> None:
    pl.once("atc_arith_guard:arith_guard_" + ("wrapped" if on else "unwrapped"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    from attention_cloud import Memory

    memory = Memory.open(args.home)
    memory.query(QUERY)
    memory.hydrate("what went wrong with the tests")      # warm: indexes, tables
    times: dict[tuple[str, bool], list[float]] = {}
    for _ in range(args.rounds):
        for on in (True, False):
            _set_guard(memory.pl, on)
            for name, run in (("query", lambda: memory.query(QUERY)),
                              ("hydrate", lambda: memory.hydrate("what went wrong with the tests"))):
                start = time.perf_counter()
                run()
                times.setdefault((name, on), []).append(time.perf_counter() - start)
    _set_guard(memory.pl, True)
    memory.close()
    for name in ("query", "hydrate"):
        on, off = (statistics.median(times[(name, flag)]) for flag in (True, False))
        print(f"{name:8s} guarded {on * 1000:8.1f} ms  unguarded {off * 1000:8.1f} ms  "
              f"ratio {on / off:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
