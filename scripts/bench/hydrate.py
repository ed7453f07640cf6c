#!/usr/bin/env python3
"""Hydration latency: p50/p95 of ``Memory.hydrate`` in a warm process, with its breakdown.

Homes of ``--sizes`` items are built from the cached synthetic Claude Code-like corpus
(``gen_corpus.py``): ingested, curated and snapshotted, then cached under
``.local/bench-cache/``. Curating a million items with MiniLM takes hours on two cores, so every
size uses the ``hash`` embedder and MiniLM is measured at ``--minilm-size`` (10k) only.

Queries are agent goals written from the corpus's vocabulary by a separate seeded generator
(error classes, modules, features, projects, status codes), so they are new text that shares
identifiers with memory, like a real next goal. After ``--warmup`` hydrations, each query is
hydrated once and timed (wall clock):

* **total**: the ``Memory.hydrate`` call, wall clock and process CPU time.
* **embed query**, **vector search**, **BM25**: the Python calls Prolog's jump makes, timed by
  wrapping the home's embedder, ``VectorStore.search`` and ``LexicalIndex.search``.
* **render**: :func:`attention_cloud.hydration.build_frame` (receipt, text, receipt file).

The Prolog side is split in a second pass over the same queries by a bench-only module that runs
``hydrate/3`` from its own clauses, read at run time with ``clause/2``: each goal of ``hydrate/3``
and of ``hydrate_segment_/6`` (and of ``segment_candidates_/6``; an if-then-else's parts too) is
wrapped in a clock (``get_time/1`` and thread CPU time) and
charged to its phase by predicate name: *plan* (plane, segment budgets), *jump* (nearest/4 and
lexical/4 including the Python callbacks, fusion), *walk*, *select* (merge, selection: how many facts, near-duplicates; it places each at its fovea rung), *fovea*,
*excerpt* (excerpts of long records, the host's sentence scoring included), *budget* (demotion), *promote* (detail bought back), *breadcrumbs*, *render* (fact terms), *other*. It follows hydrate.pl as it
changes; the run checks that it returns the facts ``hydrate/3`` returns.

Baseline in the same run: a plain flat faiss top-k (``IndexFlatIP``, k = 24, the jump's fetch)
over the same vectors, query embedding included. Goals: p95 ≤ 25 ms at 100k, ≤ 80 ms at 1M.

    .venv/bin/python scripts/bench/hydrate.py --sizes 10000 100000 1000000 [--update-md]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if "--blas-threads" in sys.argv:  # must precede numpy's import to take effect
    os.environ["OPENBLAS_NUM_THREADS"] = sys.argv[sys.argv.index("--blas-threads") + 1]

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from bench_env import (BuiltHome, build_home, consult_text, markdown_table, peak_rss_mb,  # noqa: E402
                       percentile_ms, progress, rss_mb, run_header, update_benchmarks)
from gen_corpus import ERRORS, FEATURES, MODULES, PROJECTS, VERBS  # noqa: E402

GOAL_P95_MS = {100_000: 25.0, 1_000_000: 80.0}
FLAT_K = 24

# Bench-only: hydrate/3 run from its own clauses with a clock around each goal (see module doc).
PHASES_PL = r"""
:- module(bench_hydrate_phases, [timed_hydrate/4]).
:- use_module(library(lists)).
:- dynamic acc_/3.

%!  timed_hydrate(+Goal, +Options, -Frame, -Times) is det.
%   atc_hydrate:hydrate/3 with each goal of its clause and of hydrate_segment_/6 timed; Times is a
%   list of phase(Name, WallSeconds, CpuSeconds).
timed_hydrate(Goal, Options, Frame, Times) :-
    retractall(acc_(_, _, _)),
    clause(atc_hydrate:hydrate(Goal, Options, Frame), Body0), !,
    instrument_(Body0, Body),
    call(Body),
    findall(phase(P, W, C), acc_(P, W, C), Times).

segment_(A, B, C, D, E, F) :-
    clause(atc_hydrate:hydrate_segment_(A, B, C, D, E, F), Body0), !,
    instrument_(Body0, Body),
    call(Body).

candidates_(A, B, C, D, E, F) :-
    clause(atc_hydrate:segment_candidates_(A, B, C, D, E, F), Body0), !,
    instrument_(Body0, Body),
    call(Body).

instrument_((A0, B0), (A, B)) :- !,
    instrument_(A0, A),
    instrument_(B0, B).
instrument_((C0 -> T0 ; E0), (C -> T ; E)) :- !,
    instrument_(C0, C),
    instrument_(T0, T),
    instrument_(E0, E).
instrument_(G0, bench_hydrate_phases:G) :-
    G0 =.. [segment_candidates_|Args], !,
    G =.. [candidates_|Args].
instrument_(foldl(Closure0, L, P, S0, S), atc_hydrate:foldl(bench_hydrate_phases:Closure, L, P, S0, S)) :-
    Closure0 =.. [hydrate_segment_|Args], !,
    Closure =.. [segment_|Args].
instrument_(G, bench_hydrate_phases:timed_(Phase, atc_hydrate:G)) :-
    goal_name_(G, Name),
    (   phase_(Name, Phase) -> true ; Phase = other ).

goal_name_(G, Name) :-
    (   G =.. [Meta, Closure|_], memberchk(Meta, [maplist, foldl, exclude, include]), callable(Closure)
    ->  functor(Closure, Name, _)
    ;   functor(G, Name, _)
    ).

phase_(plane_settings_, plan).
phase_(segment_budgets_, plan).
phase_(jump_, jump).
phase_(walk_, walk).
phase_(bridge_, walk).
phase_(merge_candidates_, select).
phase_(split_at_, select).
phase_(select_facts_, select).
phase_(fovea_, fovea).
phase_(excerpts_, excerpt).
phase_(fit_, budget).
phase_(used_tokens_, budget).
phase_(promote_, promote).
phase_(breadcrumbs_, breadcrumbs).
phase_(render_fact_, render).

timed_(Phase, G) :-
    statistics(cputime, C0), get_time(W0),
    call(G),
    get_time(W1), statistics(cputime, C1),
    (   retract(acc_(Phase, W2, C2)) -> true ; W2 = 0, C2 = 0 ),
    W3 is W2 + W1 - W0, C3 is C2 + C1 - C0,
    assertz(acc_(Phase, W3, C3)).
"""
PHASES = ("plan", "jump", "walk", "select", "fovea", "excerpt", "budget", "promote", "breadcrumbs",
          "render", "other")
PARTS = ("embed", "vector", "bm25", "render")


def agent_goals(count: int, seed: int) -> list[str]:
    """``count`` agent goals from the corpus vocabulary, new text but shared identifiers."""
    rng = random.Random(seed)
    templates = (
        lambda: f"Why does the {rng.choice(ERRORS)} keep happening in the {rng.choice(MODULES)} module?",
        lambda: f"Fix the failing tests/test_{rng.choice(MODULES)}.py ({rng.choice(ERRORS)})",
        lambda: f"Add {rng.choice(FEATURES)} to the {rng.choice(PROJECTS)} {rng.choice(MODULES)} code",
        lambda: f"What did we decide about {rng.choice(FEATURES)} in {rng.choice(PROJECTS)}?",
        lambda: f"The {rng.choice(PROJECTS)} service returns {rng.choice((500, 502, 503, 429))} errors; "
                f"find the cause",
        lambda: f"Make the {rng.choice(MODULES)} worker {rng.choice(VERBS).rstrip('s')} fewer items per call",
        lambda: f"Where is the {rng.choice(MODULES)}_{rng.choice(VERBS)} function defined and who calls it?",
        lambda: f"Resume the {rng.choice(FEATURES)} work on src/{rng.choice(PROJECTS).replace('-', '_')}/"
                f"{rng.choice(MODULES)}.py",
        # a goal naming a time: the jump also compares it with the items of that window
        lambda: f"What did we change in the {rng.choice(MODULES)} module "
                f"{rng.choice(('yesterday', 'last week', 'two days ago', 'this week'))}?",
    )
    return [rng.choice(templates)() for _ in range(count)]


def clocked(fn: Any, sink: list[tuple[float, float]]) -> Any:
    """``fn`` wrapped so that each call's (wall, CPU) seconds are appended to ``sink``."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            sink.append((time.perf_counter() - wall, time.process_time() - cpu))

    return wrapper


class TimedEmbedder:
    """Stands in for the home's embedder and times each ``embed`` call."""

    def __init__(self, inner: Any, sink: list[tuple[float, float]]) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.embed = clocked(inner.embed, sink)


@dataclass
class Sample:
    """Per-query seconds (lists aligned by query); ``wall`` and ``cpu`` keyed by part."""

    total: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    parts: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {c: {p: [] for p in PARTS} for c in ("wall", "cpu")})
    phases: dict[str, dict[str, list[float]]] = field(
        default_factory=lambda: {c: {p: [] for p in PHASES} for c in ("wall", "cpu")})
    flat: list[float] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    spent: list[int] = field(default_factory=list)
    phases_match: bool = True
    paths: set[str] = field(default_factory=set)


@dataclass
class SizeResult:
    label: str
    items: int
    embedder: str
    sample: Sample
    build: dict[str, Any]
    index_kind: str
    vectors: int
    rss_mb: float
    open_s: float
    time_index_s: float
    week_items: int


def measure_home(items: int, embedder: str, goals: list[str], args: argparse.Namespace) -> SizeResult:
    from attention_cloud import Memory
    import attention_cloud.hydration as hydration

    if args.home:  # a home built elsewhere (or whose build was stopped): measured as it is
        built = BuiltHome(args.home, {"echoes": True, "distillation_vectors": True})
    else:
        built = build_home(items, embedder=embedder, curate=True, rebuild=args.rebuild,
                           echoes=items <= args.echoes_up_to,
                           distillation_vectors=items <= args.distillation_vectors_up_to)
    progress(f"{items} {embedder}: open")
    started = time.perf_counter()
    mem = Memory.open(built.path)
    open_s = time.perf_counter() - started
    jump = mem.jump
    s = Sample()
    per_call: dict[str, list[tuple[float, float]]] = {part: [] for part in PARTS}
    jump._embedder = TimedEmbedder(jump.embedder, per_call["embed"])
    jump.vectors.search = clocked(jump.vectors.search, per_call["vector"])
    jump.lexical.search = clocked(jump.lexical.search, per_call["bm25"])
    original_build = hydration.build_frame
    hydration.build_frame = clocked(original_build, per_call["render"])
    index_kind = str(jump.vectors.wait_for_index())
    # The day index behind `now` and time-anchored goals is built on first use after a change.
    started = time.perf_counter()
    week = mem.query("memory_now(Now), From is Now - 7 * 86400, items_between(From, Now, Hs), "
                     "length(Hs, N)").rows[0]["N"]
    time_index_s = time.perf_counter() - started
    try:
        progress(f"{items} {embedder}: warm-up ({args.warmup})")
        for goal in goals[: args.warmup]:
            mem.hydrate(goal, budget=args.budget, plane=args.plane)
        progress(f"{items} {embedder}: {len(goals)} timed hydrations")
        for goal in goals:
            for sink in per_call.values():
                sink.clear()
            started, cpu_started = time.perf_counter(), time.process_time()
            frame = mem.hydrate(goal, budget=args.budget, plane=args.plane)
            s.total.append(time.perf_counter() - started)
            s.cpu.append(time.process_time() - cpu_started)
            for part, calls in per_call.items():
                s.parts["wall"][part].append(sum(w for w, _ in calls))
                s.parts["cpu"][part].append(sum(c for _, c in calls))
            s.facts.append(len(frame.facts))
            s.spent.append(frame.receipt["budget"]["spent"])
            s.paths.add(frame.receipt["path"])
    finally:
        hydration.build_frame = original_build
    progress(f"{items} {embedder}: Prolog phases")
    phase_pass(mem, goals, args, s)
    resident = rss_mb()  # before the baseline's own copy of the vectors
    if items <= args.flat_up_to:
        progress(f"{items} {embedder}: flat faiss baseline")
        flat_pass(jump, goals, s)
    vectors = len(jump.vectors)
    mem.close()
    return SizeResult(label=f"{items:,} {embedder}", items=items, embedder=embedder, sample=s,
                      build=built.info, index_kind=index_kind, vectors=vectors, rss_mb=resident,
                      open_s=open_s, time_index_s=time_index_s, week_items=int(week))


def load_phases(mem: Any, source: str = PHASES_PL, module: str = "bench_hydrate_phases") -> None:
    """Load the instrumented hydrate/3 (``source``, PHASES_PL or a variant of its phase
    table, defining ``module``) into the home's engine, once per process."""
    from attention_cloud.bridge import Atom

    if mem.pl.once("user:current_module", Atom(module)) is None:
        consult_text(mem, source)


def phase_pass(mem: Any, goals: list[str], args: argparse.Namespace, s: Sample) -> None:
    """Time hydrate.pl's phases per query (instrumented clauses); check the facts match."""
    from attention_cloud.bridge import Atom, Var

    load_phases(mem)
    options = {"budget": args.budget, "plane": Atom(args.plane), "ceiling": Atom("l0"), "segments": []}
    for goal in goals:
        (frame, times) = mem.pl.once("bench_hydrate_phases:timed_hydrate", goal, options, Var(), Var())
        seen = {str(t.args[0]): (float(t.args[1]), float(t.args[2])) for t in times}
        for phase in PHASES:
            wall, cpu = seen.get(phase, (0.0, 0.0))
            s.phases["wall"][phase].append(wall)
            s.phases["cpu"][phase].append(cpu)
        if goal is goals[0]:
            reference = mem.hydrate(goal, budget=args.budget, plane=args.plane)
            s.phases_match = [str(f.args[0]) for f in frame.args[1]] == [f.handle for f in reference.facts]


def flat_pass(jump: Any, goals: list[str], s: Sample) -> None:
    """Plain flat faiss over every vector of the home: embed the query, top-k, nothing else."""
    import faiss

    store = jump.vectors
    keys = store.keys()
    matrix = np.empty((len(keys), store.dim), dtype=np.float32)
    for row, key in enumerate(keys):
        matrix[row] = store.vector(key)
    index = faiss.IndexFlatIP(store.dim)
    index.add(matrix)
    del matrix
    embedder = jump.embedder.inner if isinstance(jump.embedder, TimedEmbedder) else jump.embedder
    for goal in goals[:3]:
        index.search(embedder.embed([goal]), FLAT_K)
    for goal in goals:
        started = time.perf_counter()
        index.search(embedder.embed([goal]), FLAT_K)
        s.flat.append(time.perf_counter() - started)


def p(values: list[float], q: float) -> str:
    return f"{percentile_ms(values, q):.1f}"


def report(results: list[SizeResult], args: argparse.Namespace) -> str:
    rows = []
    for r in results:
        s = r.sample
        goal = GOAL_P95_MS.get(r.items)
        p95 = percentile_ms(s.total, 95)
        verdict = "—" if goal is None else (f"≤ {goal:g} ms " + ("met" if p95 <= goal else "**missed**"))
        rows.append([r.label, f"{r.vectors:,}", r.index_kind, p(s.total, 50), p(s.total, 95),
                     p(s.cpu, 50), p(s.cpu, 95)]
                    + ([p(s.flat, 50), p(s.flat, 95), f"{p95 / max(percentile_ms(s.flat, 95), 1e-9):.0f}×"]
                       if s.flat else ["—", "—", "—"]) + [verdict])
    main_table = markdown_table(
        ["home (items, embedder)", "vectors", "index", "hydrate p50 ms", "hydrate p95 ms",
         "CPU p50 ms", "CPU p95 ms", "flat faiss p50 ms", "flat faiss p95 ms", "p95 ratio", "goal"], rows)
    rows = []
    for r in results:
        s = r.sample
        for clock, totals in (("wall", s.total), ("cpu", s.cpu)):
            parts = s.parts[clock]
            rest = [t - sum(parts[part][i] for part in PARTS) for i, t in enumerate(totals)]
            rows.append([r.label, clock.upper() if clock == "cpu" else clock, p(totals, 50)]
                        + [p(parts[part], 50) for part in PARTS] + [p(rest, 50)]
                        + [p(s.phases[clock][ph], 50) for ph in PHASES]
                        + ["yes" if s.phases_match else "**no**"])
    breakdown = markdown_table(
        ["home", "clock", "total", "embed query", "vector search", "BM25", "render (Python)",
         "Prolog + bridge (rest)"] + [f"Prolog: {ph}" for ph in PHASES] + ["same facts as hydrate/3"],
        rows)
    rows = []
    for r in results:
        b = r.build
        cur = b.get("curate", {})
        rows.append([r.label, f"{b.get('ingest_s', 0):.0f}", f"{b.get('curate_s', 0):.0f}",
                     f"{cur.get('arcs', 0):,}", f"{cur.get('echoes', 0):,}" if r.build.get("echoes", True) else "off",
                     "on" if r.build.get("distillation_vectors") else "off", f"{r.open_s:.1f}",
                     f"{r.time_index_s:.1f}", f"{r.week_items:,}",
                     f"{r.rss_mb:,.0f}", f"{np.mean(r.sample.facts):.0f}",
                     f"{np.mean(r.sample.spent):.0f}", ", ".join(sorted(r.sample.paths))])
    homes = markdown_table(
        ["home", "ingest s", "curate s", "arcs", "echoes", "L2 vectors", "open s", "time index s",
         "items in the last week", "RSS MB (warm)", "facts per frame",
         "tokens spent", "jump path"], rows)
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    return (main_table + "\n" + f"{len(results[0].sample.total)} queries per home, budget {args.budget}, plane "
            f"{args.plane}, after {args.warmup} warm-up hydrations; OpenBLAS threads: {blas}. *CPU* is the "
            "process CPU time of each call (all its threads): on a busy shared machine wall time "
            "includes waiting for a core, CPU time does not (but counts BLAS threads spinning).\n\n"
            "Breakdown, p50 ms per query, wall and CPU (each column is its own median, so they need "
            "not add up). Embed, vector search, BM25 and render are the Python calls made during "
            "`Memory.hydrate`; *Prolog + bridge* is the rest of the call. The *Prolog:* columns come "
            "from a second pass running hydrate/3's own clauses with a clock around each goal "
            "(*jump* includes the Python callbacks and the fusion; *plan* is the plane and segment "
            "budgets).\n\n" + breakdown + "\n" + "Homes (built once, "
            "cached; curation with one BLAS thread). *Time index* is the first time query after "
            "opening (memory_now/1 and items_between/3 share a day index, built once per change of "
            "the items); one goal template in nine names a time (\"last week\", \"yesterday\").\n\n" + homes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000],
                        help="home sizes in items, hash embedder (default 10000 100000 1000000)")
    parser.add_argument("--minilm-size", type=int, default=10_000,
                        help="also measure a MiniLM home of this size (0: skip; default 10000)")
    parser.add_argument("--queries", type=int, default=60, help="timed queries per home (default 60)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed hydrations first (default 5)")
    parser.add_argument("--budget", type=int, default=2000, help="token budget (default 2000)")
    parser.add_argument("--plane", default="default", help="plane (default default)")
    parser.add_argument("--seed", type=int, default=7, help="query generator seed (default 7)")
    parser.add_argument("--blas-threads", help="set OPENBLAS_NUM_THREADS for this run (experiment)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached homes")
    parser.add_argument("--echoes-up-to", type=int, default=500_000,
                        help="curate larger homes with echo detection off (config echoes: false); "
                             "it costs one neighbour search per item, ~1 h of a core at 1M (default 500000)")
    parser.add_argument("--distillation-vectors-up-to", type=int, default=500_000,
                        help="curate larger homes with one vector per item (config "
                             "distillation_vectors: false; default 500000)")
    parser.add_argument("--flat-up-to", type=int, default=10_000_000,
                        help="skip the flat faiss baseline above this many items (it holds a float32 "
                             "copy of every vector: 3.5 GB at 1M; default: never skip)")
    parser.add_argument("--home", type=Path,
                        help="measure this curated home (its item count given as the one --sizes; "
                             "build figures left blank) instead of building one")
    parser.add_argument("--update-md", action="store_true",
                        help="write the tables into BENCHMARKS.md (## Hydration speed)")
    args = parser.parse_args(argv)
    header = run_header("Hydration latency (warm process)")
    goals = agent_goals(args.queries, args.seed)
    plan = [(n, "hash") for n in args.sizes]
    if args.minilm_size:
        plan.insert(0, (args.minilm_size, "minilm"))
    results = [measure_home(n, e, goals, args) for n, e in plan]
    body = (header + "\n" + report(results, args)
            + f"\nPeak RSS of the benchmark process: {peak_rss_mb():,.0f} MB.\n")
    print(body)
    if args.update_md:
        sub = "Warm hydration" + (f" (OpenBLAS threads {args.blas_threads})" if args.blas_threads else "")
        update_benchmarks("Hydration speed", sub, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
