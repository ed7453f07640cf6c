"""What the depth check costs a user goal's writes (rules/term_guard.pl).

A user module takes format/2,3 and the other writers from atc_term_guard, which measures a
term's depth before the system's writer runs. Each case is timed with the system's format/3
and the guarded one in the same process, alternating, so the ratio holds on a noisy machine.

    .venv/bin/python scripts/bench/term_guard.py --rounds 3
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_BENCH = r"""
:- use_module('%(guard)s', []).

per_call(G, N, Ms) :-
    statistics(cputime, T0),
    forall(between(1, N, _), G),
    statistics(cputime, T1),
    Ms is (T1 - T0) / N * 1000.

case(Name, Args, N) :-
    per_call(system:format(atom(_), "~w ~q", Args), N, S),
    per_call(atc_term_guard:format(atom(_), "~w ~q", Args), N, G),
    R is G / S,
    format("| ~w | ~4f | ~4f | ~2fx |~n", [Name, S, G, R]).

run :-
    numlist(1, 100000, L),
    numlist(1, 1900, L2), foldl([X, A0, A]>>(A = A0+X), L2, 0, D),
    F = item("it_0123456789abcdef", "Priya", "I signed up for the pottery class", 0.87),
    case('one fact (a frame line)', [F, F], 20000),
    case('a list of 100,000 integers', [L, x], 20),
    case('a chain 1,900 deep', [D, x], 200).
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    swipl = shutil.which("swipl")
    if swipl is None:
        raise SystemExit("swipl is not on PATH (scripts/setup installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        bench = Path(tmp) / "bench.pl"
        bench.write_text(_BENCH % {"guard": ROOT / "rules" / "term_guard.pl"}, encoding="utf-8")
        print("| case | system format ms | guarded format ms | guarded / system |")
        print("|---|---|---|---|")
        for _ in range(args.rounds):
            out = subprocess.run([swipl, "-q", "-g", "run", "-t", "halt", str(bench)],
                                 capture_output=True, text=True, check=True)
            print(out.stdout, end="")


if __name__ == "__main__":
    main()
