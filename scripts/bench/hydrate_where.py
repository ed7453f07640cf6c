#!/usr/bin/env python3
"""Where warm hydration's CPU goes, frame by frame, in one process: the map to read before
cutting (issue 17's p95).

On one home, hydrate.py's agent goals (its 60 timed ones by default, after its warm-up
hydrations of the first of them) are hydrated ``--rounds`` times each (receipts not stored),
and four tables are printed:

* **goals**: each goal's least CPU over the rounds; p50, p95 and mean of those, and the
  ``--slowest`` goals (the frames that make the p95: of one kind, or of every kind).
* **parts**: the CPU of ``hydration.hydrate`` a frame, split into the Prolog call
  (``api_hydrate_json``, host callbacks included), ``build_frame``, ``memory_status``,
  ``frame_parts`` and the rest.
* **callbacks**: each Python predicate Prolog called during the frames (``semantic_hits``,
  ``lexical_hits``, ``similarity_scores``, ``similarity_within_scores``, the framing), calls and
  CPU ms a frame (the calling thread's CPU time).
* **clauses**: a pass over the same goals through hydrate.py's instrumented ``hydrate/3``
  (``PHASES_PL``) with every goal its own phase, ``jump_/9``'s goals too: mean CPU ms a frame of
  each (the nearest/4 call shows as ``catch``, the BM25 search as ``reader_fetch_``).
* **calls** (with ``--calls N``): one more pass under SWI-Prolog's profiler
  (``profiler/2``, ``profile_data/1``): the N predicates called most, calls a frame and their
  share of the profiler's own-time samples (what a cut that saves lookups, such as ``item/1``
  calls, is counted by).
* **near-duplicate checks** (with ``--redundancy P``): the selection's ``redundancy_/4`` calls of
  one more pass recorded as they were made (each sig's word sets and numbers as far as made
  then) and replayed in ``P`` passes alternated with passes that only copy the recorded calls:
  the checks' CPU a frame (replay less copies), the largest part of the Prolog side, measured
  to a few per cent where a frame A/B (``hydrate_ab.py``) moves by ten at a shared machine's
  load. Their cost is the same in any tree: a cut there is measured by running this in both.

Process CPU counts every thread; on a shared machine it still grows with the load (caches,
frequency), so compare runs made at the same load, or use ``hydrate_ab.py`` for an A/B.

    .venv/bin/python scripts/bench/hydrate_where.py --home HOME
    .venv/bin/python scripts/bench/hydrate_where.py --home HOME --only "last week" --rounds 3
    .venv/bin/python scripts/bench/hydrate_where.py --home HOME --calls 30
    .venv/bin/python scripts/bench/hydrate_where.py --home HOME --rounds 1 --redundancy 8
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import percentile_ms  # noqa: E402
from hydrate import PHASES_PL, agent_goals, load_phases  # noqa: E402

#: hydrate.py's instrumented hydrate/3 with every goal its own phase, and jump_/9 opened too,
#: as a module of its own (hydrate.py's may be loaded in the same engine).
CLAUSES_PL = PHASES_PL.replace("bench_hydrate_phases", "bench_hydrate_clauses").replace(
    "(   phase_(Name, Phase) -> true ; Phase = other )", "Phase = Name"
).replace(
    "instrument_(G0, bench_hydrate_clauses:G) :-\n    G0 =.. [segment_candidates_|Args], !,",
    "instrument_(G0, bench_hydrate_clauses:jump_(A1, A2, A3, A4, A5, A6, A7, A8, A9)) :-\n"
    "    G0 = jump_(A1, A2, A3, A4, A5, A6, A7, A8, A9), !.\n"
    "instrument_(G0, bench_hydrate_clauses:G) :-\n    G0 =.. [segment_candidates_|Args], !,",
) + """
jump_(A, B, C, D, E, F, G, H, I) :-
    clause(atc_hydrate:jump_(A, B, C, D, E, F, G, H, I), Body0), !,
    instrument_(Body0, Body),
    call(Body).
"""
PARTS = ("frame_parts", "memory_status", "stands_for", "build_frame")


def chosen(goals: list[str], only: list[str] | None) -> list[str]:
    """The goals holding one of the ``only`` texts (all of them without)."""
    return [g for g in goals if not only or any(text in g for text in only)]


def _clocked(fn: Callable[..., Any], sink: dict[str, list[float]], name: str,
             clock: Callable[[], float] = time.process_time) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            tally = sink.setdefault(name, [0, 0.0])
            tally[0] += 1
            tally[1] += clock() - started
    return wrapper


def measure(mem: Any, goals: list[str], rounds: int, budget: int = 2000,
            plane: str = "default") -> dict[str, Any]:
    """The four tables' numbers for ``goals`` on ``mem`` (a warm Memory): ``least`` (a
    (goal, least CPU seconds) pair per goal), ``parts`` and ``callbacks`` (name -> [calls,
    CPU seconds] over all frames), ``clauses`` (goal name -> CPU seconds over all frames),
    ``frames`` (how many frames each total is over) and ``same`` (whether the instrumented
    pass gave each goal the facts hydrate gave it)."""
    import attention_cloud.hydration as hydration
    from attention_cloud.bridge import Atom, Var

    mem.jump  # its search registered now, so that its callables are the ones timed
    parts: dict[str, list[float]] = {}
    callbacks: dict[str, list[float]] = {}
    engine = mem.pl.engine
    registered = dict(engine._callables)
    originals = {name: getattr(hydration, name) for name in PARTS}
    once = mem.pl.once
    timed_once = _clocked(once, parts, "prolog")
    try:
        for key, (fn, nondet) in registered.items():
            engine._callables[key] = (_clocked(fn, callbacks, key, time.thread_time), nondet)
        for name in PARTS:
            setattr(hydration, name, _clocked(originals[name], parts, name))
        mem.pl.once = lambda pred, *args: (  # type: ignore[method-assign]
            timed_once if pred.startswith("atc_api:api_hydrate") else once)(pred, *args)
        cpu: list[list[float]] = [[] for _ in goals]
        for _ in range(rounds):
            for at, goal in enumerate(goals):
                started = time.process_time()
                hydration.hydrate(mem, goal, budget=budget, plane=plane, store_receipt=False)
                cpu[at].append(time.process_time() - started)
    finally:
        engine._callables.update(registered)
        for name, fn in originals.items():
            setattr(hydration, name, fn)
        del mem.pl.once  # the instance's wrapper: the class's method answers again
    total = sum(sum(v) for v in cpu)
    parts["hydrate"] = [len(goals) * rounds, total]
    load_phases(mem, CLAUSES_PL, "bench_hydrate_clauses")
    options = {"budget": budget, "plane": Atom(plane), "ceiling": Atom("l0"), "segments": []}
    clauses: dict[str, float] = {}
    same = True
    for round_ in range(rounds):
        for goal in goals:
            frame, times = once("bench_hydrate_clauses:timed_hydrate", goal, options, Var(), Var())
            for t in times:
                clauses[str(t.args[0])] = clauses.get(str(t.args[0]), 0.0) + float(t.args[2])
            if round_ == 0:
                plain = hydration.hydrate(mem, goal, budget=budget, plane=plane, store_receipt=False)
                same &= [str(f.args[0]) for f in frame.args[1]] == [f.handle for f in plain.facts]
    return {"least": [(g, min(v)) for g, v in zip(goals, cpu)], "parts": parts,
            "callbacks": callbacks, "clauses": clauses, "frames": len(goals) * rounds,
            "same": same}


# SWI-Prolog's profiler over a run of goals: each predicate's calls and own-time samples.
CALLS_PL = r"""
:- module(bench_hydrate_calls, [calls_start/0, calls_rows/3]).
calls_start :- reset_profiler, profiler(_, cputime).
calls_rows(Top, Rows, Ticks) :-
    profiler(_, false),
    profile_data(Data),
    get_dict(nodes, Data, Nodes),
    aggregate_all(sum(T), ( member(Node, Nodes), get_dict(ticks_self, Node, T) ), Ticks),
    findall(Calls-row(Name, Calls, Self),
            ( member(Node, Nodes), get_dict(call, Node, Calls), Calls > 0,
              get_dict(predicate, Node, PI), format(string(Name), "~q", [PI]),
              get_dict(ticks_self, Node, Self) ), Keyed),
    keysort(Keyed, Ascending), reverse(Ascending, Descending),
    pairs_values(Descending, All),
    length(All, N), K is min(Top, N), length(Rows, K), append(Rows, _, All).
"""


def _pass_between(mem: Any, goals: list[str], budget: int, plane: str, source: str, module: str,
                  start: str, stop: Callable[[], Any]) -> Any:
    """One pass of hydrations of ``goals`` (receipts not stored) after ``module:start`` (``source``,
    defining ``module``, loaded once), then ``stop()``, called whatever happened: its answer."""
    from attention_cloud.hydration import hydrate

    load_phases(mem, source, module)
    mem.pl.once(f"{module}:{start}")
    try:
        for goal in goals:
            hydrate(mem, goal, budget=budget, plane=plane, store_receipt=False)
    finally:
        answer = stop()
    return answer


def calls(mem: Any, goals: list[str], top: int, budget: int = 2000,
          plane: str = "default") -> list[tuple[str, float, float]]:
    """One pass over ``goals`` under SWI-Prolog's profiler: the ``top`` predicates called most,
    as (predicate, calls a frame, share of the own-time samples)."""
    from attention_cloud.bridge import Var

    rows, ticks = _pass_between(
        mem, goals, budget, plane, CALLS_PL, "bench_hydrate_calls", "calls_start",
        lambda: mem.pl.once("bench_hydrate_calls:calls_rows", top, Var(), Var()))
    found = [(str(r.args[0]), int(r.args[1]), int(r.args[2])) for r in rows]
    return [(name, n / len(goals), t / max(int(ticks), 1)) for name, n, t in found]


# The selection's near-duplicate checks: each call of redundancy_/4 recorded (a copy of its
# arguments, the sigs' word sets and numbers as far as made then) and replayed on fresh copies.
REDUNDANCY_PL = r"""
:- module(bench_hydrate_redundancy, [redundancy_record/0, redundancy_recorded/1,
                                     redundancy_replay/3, redundancy_forget/0,
                                     redundancy_recording/0]).
:- dynamic recorded_/1.
redundancy_recording :-
    current_predicate_wrapper(atc_hydrate:redundancy_(_, _, _, _), bench_hydrate_redundancy, _, _).
redundancy_record :-
    retractall(recorded_(_)),
    wrap_predicate(atc_hydrate:redundancy_(Sig, Taken, Terms, _), bench_hydrate_redundancy,
                   Wrapped,
                   ( copy_term(c(Sig, Taken, Terms), Call),
                     assertz(bench_hydrate_redundancy:recorded_(Call)),
                     Wrapped )).
redundancy_recorded(N) :-
    ignore(unwrap_predicate(atc_hydrate:redundancy_/4, bench_hydrate_redundancy)),
    aggregate_all(count, recorded_(_), N).
redundancy_replay(What, Passes, Cpu) :-
    findall(Call, recorded_(Call), Calls),
    statistics(cputime, T0),
    forall(between(1, Passes, _), forall(member(Call, Calls), replay_(What, Call))),
    statistics(cputime, T1),
    Cpu is T1 - T0.
redundancy_forget :-
    retractall(recorded_(_)).
replay_(copies, Call) :-
    copy_term(Call, _).
replay_(checks, Call) :-
    copy_term(Call, c(Sig, Taken, Terms)),
    atc_hydrate:redundancy_(Sig, Taken, Terms, _).
"""


def redundancy(mem: Any, goals: list[str], passes: int, budget: int = 2000,
               plane: str = "default") -> dict[str, Any]:
    """The near-duplicate checks of ``goals``' frames: ``calls`` (redundancy_/4 calls a frame),
    ``checks`` and ``copies`` (CPU seconds a frame of each of the ``passes`` replays of the
    recorded calls, alternated: the checks on copies, and the copies alone). The wrapper and
    the recorded calls are gone after."""
    from attention_cloud.bridge import Atom, Var

    (count,) = _pass_between(
        mem, goals, budget, plane, REDUNDANCY_PL, "bench_hydrate_redundancy", "redundancy_record",
        lambda: mem.pl.once("bench_hydrate_redundancy:redundancy_recorded", Var()))
    try:
        cpu: dict[str, list[float]] = {"checks": [], "copies": []}
        for at in range(passes):
            for what in (("checks", "copies") if at % 2 == 0 else ("copies", "checks")):
                (seconds,) = mem.pl.once("bench_hydrate_redundancy:redundancy_replay", Atom(what), 1, Var())
                cpu[what].append(float(seconds) / len(goals))
    finally:
        mem.pl.once("bench_hydrate_redundancy:redundancy_forget")
    return {"calls": int(count) / len(goals), "checks": cpu["checks"], "copies": cpu["copies"]}


def redundancy_report(r: dict[str, Any], frame: float) -> str:
    """The near-duplicate checks' table as text: medians of the passes, and their share of
    ``frame`` (a frame's mean CPU seconds, :func:`measure`'s)."""
    ms = 1000.0
    checks, copies = statistics.median(r["checks"]), statistics.median(r["copies"])
    own = max(0.0, checks - copies)
    return "\n".join([
        f"near-duplicate checks (redundancy_/4), {r['calls']:.1f} calls a frame, replayed in "
        f"{len(r['checks'])} alternated passes, CPU ms a frame (medians):",
        f"  the checks                   {own * ms:6.2f}  ({own / frame:.1%} of a frame's "
        f"{frame * ms:.1f} ms)",
        f"  replay {checks * ms:.2f} less copies {copies * ms:.2f}; passes: checks "
        + " ".join(f"{c * ms:.2f}" for c in r["checks"]) + ", copies "
        + " ".join(f"{c * ms:.2f}" for c in r["copies"])])


def report(m: dict[str, Any], slowest: int, top: int) -> str:
    """The four tables as text."""
    ms = 1000.0
    least = sorted(cpu for _, cpu in m["least"])
    n = m["frames"]
    lines = [f"goals: {len(least)}, least CPU over the rounds: p50 {percentile_ms(least, 50):.1f}"
             f" p95 {percentile_ms(least, 95):.1f} mean {statistics.mean(least) * ms:.1f} ms"]
    for goal, cpu in sorted(m["least"], key=lambda p: -p[1])[:slowest]:
        lines.append(f"  {cpu * ms:6.1f}  {goal}")
    lines.append("parts of hydration.hydrate, CPU ms a frame:")
    rest = m["parts"]["hydrate"][1] - sum(m["parts"].get(p, [0, 0.0])[1] for p in ("prolog",) + PARTS)
    for name, (calls, cpu) in sorted(m["parts"].items(), key=lambda p: -p[1][1]):
        lines.append(f"  {name:<28} {cpu / n * ms:6.2f}")
    lines.append(f"  {'(the rest)':<28} {rest / n * ms:6.2f}")
    lines.append("host callbacks, calls and CPU ms a frame:")
    for name, (calls, cpu) in sorted(m["callbacks"].items(), key=lambda p: -p[1][1]):
        lines.append(f"  {name:<40} {calls / n:5.2f} {cpu / n * ms:6.2f}")
    stale = "" if m["same"] else " (NOT the facts hydrate gives: the instrumentation is stale)"
    lines.append(f"hydrate/3's goals (jump_/9's too), CPU ms a frame{stale}:")
    for name, cpu in sorted(m["clauses"].items(), key=lambda p: -p[1])[:top]:
        lines.append(f"  {name:<40} {cpu / n * ms:6.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--home", type=Path, required=True, help="a curated home")
    parser.add_argument("--queries", type=int, default=60, help="goals (default 60, as hydrate.py)")
    parser.add_argument("--warmup", type=int, default=5,
                        help="untimed hydrations of the first goals first (default 5)")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the goals (default 2)")
    parser.add_argument("--seed", type=int, default=7, help="goal generator seed (default 7)")
    parser.add_argument("--only", nargs="+", metavar="TEXT",
                        help="only the goals holding one of these texts ('last week', 'worker')")
    parser.add_argument("--slowest", type=int, default=12, help="slowest goals listed (default 12)")
    parser.add_argument("--top", type=int, default=25, help="clause goals listed (default 25)")
    parser.add_argument("--calls", type=int, default=0, metavar="N",
                        help="also the N predicates called most a frame, by SWI-Prolog's profiler")
    parser.add_argument("--redundancy", type=int, default=0, metavar="P",
                        help="also the near-duplicate checks' CPU, replayed in P alternated passes")
    args = parser.parse_args(argv)
    from attention_cloud import Memory
    from attention_cloud.hydration import hydrate

    goals = agent_goals(args.queries, args.seed)   # hydrate.py's: the same warm-up, the same goals
    timed = chosen(goals, args.only)
    if not timed:
        parser.error(f"--only {args.only}: no goal holds any of them")
    mem = Memory.open(args.home)
    mem.jump.vectors.wait_for_index()
    mem.query("memory_now(Now), From is Now - 7 * 86400, items_between(From, Now, Hs)")
    for goal in goals[: args.warmup]:
        hydrate(mem, goal, store_receipt=False)
    m = measure(mem, timed, args.rounds)
    print(report(m, args.slowest, args.top))
    if args.calls:
        print("predicates called most, calls a frame and share of all own-time samples:")
        for name, per_frame, share in calls(mem, timed, args.calls):
            print(f"  {name:<48} {per_frame:9.1f} {share:6.1%}")
    if args.redundancy:
        frame = m["parts"]["hydrate"][1] / m["frames"]
        print(redundancy_report(redundancy(mem, timed, args.redundancy), frame))
    mem.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
