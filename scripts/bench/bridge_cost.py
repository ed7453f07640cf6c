#!/usr/bin/env python3
"""Per-call cost of the Python<->Prolog bridge, in microseconds, for each available backend.

Measures, on a 5-argument fact ``bench_row/5``:
  * Python -> Prolog ``once`` with 0, 1 and 5 output variables,
  * Prolog -> Python: one call of a registered Python predicate (from a Prolog loop),
  * a 100,000-character string sent to Prolog and back (``=``/2 with one variable).

SWI-Prolog is initialised once per process, so each backend runs in its own child process.

    .venv/bin/python scripts/bench/bridge_cost.py            # all available backends
    .venv/bin/python scripts/bench/bridge_cost.py --json     # one JSON object per backend
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

CASES = ["once, 0 vars", "once, 1 var", "once, 5 vars", "callback Prolog->Python",
         "100k-char string round trip"]


def _best_per_call(fn: Callable[[], Any], calls: int, repeats: int = 5) -> float:
    """Best of ``repeats`` runs of ``calls`` calls, in µs per call (the least disturbed run)."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def measure(calls: int) -> dict[str, Any]:
    """Run the cases on this process's backend (chosen by ATC_PROLOG)."""
    from attention_cloud.bridge import Atom, Term, Var, get_prolog

    pl = get_prolog()
    row = [1, "two", Atom("three"), 4.5, [5]]
    pl.once("user:assertz", Term("bench_row", row))
    pl.register("bench_identity", 2, lambda value: value)
    n = Var()
    loop = Term(":-", [Term("bench_loop", [n]),
                       Term("forall", [Term("between", [1, n, Var()]),
                                       Term("bench_identity", [1, Var()])])])
    pl.once("user:assertz", loop)
    text = "x" * 100_000

    results = {
        "once, 0 vars": _best_per_call(lambda: pl.once("user:bench_row", *row), calls),
        "once, 1 var": _best_per_call(lambda: pl.once("user:bench_row", *row[:4], Var()), calls),
        "once, 5 vars": _best_per_call(
            lambda: pl.once("user:bench_row", Var(), Var(), Var(), Var(), Var()), calls),
    }
    # One bench_loop(N) call runs N callbacks; subtract the loop without callbacks.
    empty = Term(":-", [Term("bench_empty", [n]),
                        Term("forall", [Term("between", [1, n, Var()]), Atom("true")])])
    pl.once("user:assertz", empty)
    with_calls = _best_per_call(lambda: pl.once("user:bench_loop", calls), 1) / calls
    without = _best_per_call(lambda: pl.once("user:bench_empty", calls), 1) / calls
    results["callback Prolog->Python"] = with_calls - without
    results["100k-char string round trip"] = _best_per_call(
        lambda: pl.once("user:=", Var(), text), max(calls // 100, 20))
    return {"backend": pl.backend, "version": pl.version, "reason": pl.backend_reason,
            "calls": calls, "us_per_call": results}


def available_backends() -> list[str]:
    """pyswip always; janus when janus-swi and its SWI-Prolog are usable here."""
    from attention_cloud.bridge.janus_engine import janus_status

    backends = ["pyswip"]
    usable, why = janus_status()
    if usable:
        backends.append("janus")
    else:
        print(f"janus: skipped ({why})", file=sys.stderr)
    return backends


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000, help="calls per timed run")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure(args.calls)))
        return 0

    reports = []
    for backend in available_backends():
        env = {**os.environ, "ATC_PROLOG": backend}
        proc = subprocess.run([sys.executable, __file__, "--worker", "--calls", str(args.calls)],
                              env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            print(f"{backend}: failed\n{proc.stderr[-2000:]}", file=sys.stderr)
            return 1
        reports.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    if args.json:
        for report in reports:
            print(json.dumps(report))
        return 0
    width = max(len(c) for c in CASES)
    header = "".join(f"{r['backend'] + ' ' + r['version']:>16}" for r in reports)
    print(f"{'µs per call':<{width}}{header}")
    for case in CASES:
        print(f"{case:<{width}}" + "".join(f"{r['us_per_call'][case]:>16.2f}" for r in reports))
    return 0


if __name__ == "__main__":
    sys.exit(main())
