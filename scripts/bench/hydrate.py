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

* **total**: the ``Memory.hydrate`` call.
* **embed query**, **vector search**, **BM25**: the Python calls Prolog's jump makes, timed by
  wrapping the home's embedder, ``VectorStore.search`` and ``LexicalIndex.search``.
* **render**: :func:`attention_cloud.hydration.build_frame` (receipt, text, receipt file).
* **Prolog + bridge**: the rest of the ``api:api_hydrate`` call.

The Prolog phases are split in a second pass over the same queries by a bench-only module that
calls hydrate.pl's own phase predicates in hydrate's order (``jump_``, ``walk_``, ``fovea_``,
``fit_``, ``breadcrumbs_``, ``render_fact_``), each timed with ``get_time/1``; it checks that the
facts it ends with are those ``hydrate/3`` returns, and says so when they are not.

Baseline in the same run: a plain flat faiss top-k (``IndexFlatIP``, k = 24, the jump's fetch)
over the same vectors, query embedding included. Goals: p95 ≤ 25 ms at 100k, ≤ 80 ms at 1M.

    .venv/bin/python scripts/bench/hydrate.py --sizes 10000 100000 1000000 [--update-md]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if "--blas-threads" in sys.argv:  # must precede numpy's import to take effect
    os.environ["OPENBLAS_NUM_THREADS"] = sys.argv[sys.argv.index("--blas-threads") + 1]

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from bench_env import (build_home, markdown_table, peak_rss_mb, percentile_ms, progress,  # noqa: E402
                       rss_mb, run_header, timed, update_benchmarks)
from gen_corpus import ERRORS, FEATURES, MODULES, PROJECTS, VERBS  # noqa: E402

GOAL_P95_MS = {100_000: 25.0, 1_000_000: 80.0}
FLAT_K = 24

# Bench-only mirror of hydrate:hydrate_segment_/6 with a clock between phases.
PHASES_PL = r"""
:- module(bench_hydrate_phases, [phase_times/5]).
:- use_module(library(apply)).
:- use_module(library(lists)).

%!  phase_times(+Goal, +Plane, +Budget, -Times, -FactIds) is det.
%   Times: list of Phase-Seconds summed over the plane's segments; FactIds: the frame's facts.
phase_times(Goal, Plane, Budget, Times, FactIds) :-
    hydrate:plane_settings_(none, Plane, S0),
    Settings = S0.put(_{ceiling: l0, rules: none, walk: S0.walk}),
    hydrate:segment_budgets_(none, Plane, Budget, [], SegBudgets),
    foldl(segment_(Goal, Settings), SegBudgets, [0,0,0,0,0,0]-[], Sums-Ids0),
    Sums = [J, W, F, B, C, R],
    Times = [jump-J, walk-W, fovea-F, budget-B, breadcrumbs-C, render-R],
    reverse(Ids0, InOrder),
    append(InOrder, FactIds).

segment_(Goal, Settings, Segment-Budget, Acc0-Ids0, Acc-[Ids|Ids0]) :-
    get_time(T0),
    hydrate:jump_(Goal, Segment, Settings.seeds, _Path, Seeds),
    get_time(T1),
    hydrate:walk_(Settings, Segment, Seeds, Expanded),
    get_time(T2),
    hydrate:merge_candidates_(Seeds, Expanded, Cands0),
    hydrate:split_at_(Settings.fact_cap, Cands0, Cands, PastCap),
    maplist(hydrate:fovea_(Settings.ceiling), Cands, Placed0),
    exclude(==(none), Placed0, Placed),
    get_time(T3),
    Reserve is max(0, floor(Budget * Settings.breadcrumbs)),
    FitBudget is Budget - Reserve,
    hydrate:fit_(Placed, FitBudget, Kept, Dropped),
    get_time(T4),
    hydrate:used_tokens_(Kept, Used),
    CrumbBudget is Budget - Used,
    append(Dropped, PastCap, Outside),
    hydrate:breadcrumbs_(Outside, Segment, Settings.ceiling, CrumbBudget, _Crumbs, _),
    get_time(T5),
    maplist(hydrate:render_fact_(Segment), Kept, Facts),
    get_time(T6),
    findall(Id, member(fact(Id, _, _, _, _, _, _, _, _, _), Facts), Ids),
    Acc0 = [J0, W0, F0, B0, C0, R0],
    J is J0 + T1 - T0, W is W0 + T2 - T1, F is F0 + T3 - T2,
    B is B0 + T4 - T3, C is C0 + T5 - T4, R is R0 + T6 - T5,
    Acc = [J, W, F, B, C, R].
"""
PHASES = ("jump", "walk", "fovea", "budget", "breadcrumbs", "render")


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
    )
    return [rng.choice(templates)() for _ in range(count)]


class TimedEmbedder:
    """Stands in for the home's embedder and times each ``embed`` call."""

    def __init__(self, inner: Any, sink: list[float]) -> None:
        self.inner, self.id, self.dim, self.sink = inner, inner.id, inner.dim, sink

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner.embed(texts, batch_size=batch_size)
        finally:
            self.sink.append(time.perf_counter() - start)


@dataclass
class Sample:
    """Per-query seconds of each part (lists aligned by query)."""

    total: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    embed: list[float] = field(default_factory=list)
    vector: list[float] = field(default_factory=list)
    bm25: list[float] = field(default_factory=list)
    render: list[float] = field(default_factory=list)
    phases: dict[str, list[float]] = field(default_factory=lambda: {p: [] for p in PHASES})
    flat: list[float] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)
    spent: list[int] = field(default_factory=list)
    mirror_ok: bool = True
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


def measure_home(items: int, embedder: str, goals: list[str], args: argparse.Namespace) -> SizeResult:
    from attention_cloud import Memory
    import attention_cloud.hydration as hydration

    built = build_home(items, embedder=embedder, curate=True, rebuild=args.rebuild)
    progress(f"{items} {embedder}: open")
    started = time.perf_counter()
    mem = Memory.open(built.path)
    open_s = time.perf_counter() - started
    jump = mem.jump
    s = Sample()
    per_call: dict[str, list[float]] = {"embed": [], "vector": [], "bm25": [], "render": []}
    jump._embedder = TimedEmbedder(jump.embedder, per_call["embed"])
    jump.vectors.search = timed(jump.vectors.search, per_call["vector"])
    jump.lexical.search = timed(jump.lexical.search, per_call["bm25"])
    original_build = hydration.build_frame
    hydration.build_frame = timed(original_build, per_call["render"])
    index_kind = str(jump.vectors.wait_for_index())
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
            s.embed.append(sum(per_call["embed"]))
            s.vector.append(sum(per_call["vector"]))
            s.bm25.append(sum(per_call["bm25"]))
            s.render.append(sum(per_call["render"]))
            s.facts.append(len(frame.facts))
            s.spent.append(frame.receipt["budget"]["spent"])
            s.paths.add(frame.receipt["path"])
    finally:
        hydration.build_frame = original_build
    progress(f"{items} {embedder}: Prolog phases")
    phase_pass(mem, goals, args, s)
    progress(f"{items} {embedder}: flat faiss baseline")
    flat_pass(jump, goals, s)
    resident = rss_mb()
    vectors = len(jump.vectors)
    mem.close()
    return SizeResult(label=f"{items:,} {embedder}", items=items, embedder=embedder, sample=s,
                      build=built.info, index_kind=index_kind, vectors=vectors, rss_mb=resident,
                      open_s=open_s)


def phase_pass(mem: Any, goals: list[str], args: argparse.Namespace, s: Sample) -> None:
    """Time hydrate.pl's phases per query; check the mirror against hydrate/3's facts."""
    from attention_cloud.bridge import Atom, Var

    if mem.pl.once("user:current_module", Atom("bench_hydrate_phases")) is None:
        with tempfile.NamedTemporaryFile("w", suffix=".pl", delete=False) as fh:
            fh.write(PHASES_PL)
        try:
            mem.pl.consult(fh.name)
        finally:
            os.unlink(fh.name)
    for goal in goals:
        (times, ids) = mem.pl.once("bench_hydrate_phases:phase_times", goal, Atom(args.plane),
                                   args.budget, Var(), Var())
        for pair in times:
            s.phases[str(pair.args[0])].append(float(pair.args[1]))
        if goal is goals[0]:
            frame = mem.hydrate(goal, budget=args.budget, plane=args.plane)
            s.mirror_ok = [f.handle for f in frame.facts] == [str(i) for i in ids]


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
                     p(s.cpu, 50), p(s.cpu, 95), p(s.flat, 50), p(s.flat, 95),
                     f"{p95 / max(percentile_ms(s.flat, 95), 1e-9):.0f}×", verdict])
    main_table = markdown_table(
        ["home (items, embedder)", "vectors", "index", "hydrate p50 ms", "hydrate p95 ms",
         "CPU p50 ms", "CPU p95 ms", "flat faiss p50 ms", "flat faiss p95 ms", "p95 ratio", "goal"], rows)
    rows = []
    for r in results:
        s = r.sample
        prolog = [t - e - v - b - rd for t, e, v, b, rd in zip(s.total, s.embed, s.vector, s.bm25, s.render)]
        rows.append([r.label, p(s.total, 50), p(s.embed, 50), p(s.vector, 50), p(s.bm25, 50),
                     p(prolog, 50), p(s.render, 50)]
                    + [p(s.phases[ph], 50) for ph in PHASES]
                    + ["yes" if s.mirror_ok else "**no**"])
    breakdown = markdown_table(
        ["home", "total", "embed query", "vector search", "BM25", "Prolog + bridge", "render (Python)"]
        + [f"Prolog: {ph}" for ph in PHASES] + ["phases match hydrate/3"], rows)
    rows = []
    for r in results:
        b = r.build
        cur = b.get("curate", {})
        rows.append([r.label, f"{b.get('ingest_s', 0):.0f}", f"{b.get('curate_s', 0):.0f}",
                     f"{cur.get('arcs', 0):,}", f"{cur.get('echoes', 0):,}", f"{r.open_s:.1f}",
                     f"{r.rss_mb:,.0f}", f"{np.mean(r.sample.facts):.0f}",
                     f"{np.mean(r.sample.spent):.0f}", ", ".join(sorted(r.sample.paths))])
    homes = markdown_table(
        ["home", "ingest s", "curate s", "arcs", "echoes", "open s", "RSS MB (warm)", "facts per frame",
         "tokens spent", "jump path"], rows)
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    return (main_table + "\n" + f"{len(results[0].sample.total)} queries per home, budget {args.budget}, plane "
            f"{args.plane}, after {args.warmup} warm-up hydrations; OpenBLAS threads: {blas}. *CPU* is the "
            "process CPU time of each call (all its threads): on a busy shared machine wall time "
            "includes waiting for a core, CPU time does not (but counts BLAS threads spinning).\n\n"
            "Breakdown, p50 ms per query (each column is its own median, so they need not add up). "
            "Embed, vector search, BM25 and render are the Python calls made during "
            "`Memory.hydrate`; *Prolog + bridge* is the rest of the call. The *Prolog:* columns come "
            "from a second pass calling hydrate.pl's phase predicates one by one (jump includes "
            "the Python callbacks and the fusion).\n\n" + breakdown + "\n" + "Homes (built once, "
            "cached; curation with one BLAS thread):\n\n" + homes)


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
