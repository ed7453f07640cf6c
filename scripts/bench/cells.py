#!/usr/bin/env python3
"""Cells: build time and memory, incremental cost per item, distance to a rebuild, and
hydration latency with the cell walk against the entity walk.

1. **Build** at each ``--sizes`` (homes from the synthetic corpus, ``hash`` embedder, cached
   as for hydrate.py): ``atc cells rebuild`` through the API, wall time and the process's RSS
   before and at its peak (the vectors gathered, the k-means, the facts written).
2. **Incremental**: ``--new`` items from another corpus seed are ingested into a copy of the
   home and curated; curation places them in their cells (:func:`attention_cloud.cells.update`);
   the cost per item is that step's time over the items placed.
3. **Distance to a rebuild** at ``--ari-size``: three fifths of the corpus curated (the first
   build), the rest ingested and curated (assigned incrementally: half and half would reach
   twice what was built, where a curate builds anew), then compared with a build from
   nothing of the same items (a rebuild starts from the cells it replaces) by the adjusted
   Rand index; beside it, two rebuilds with different k-means
   seeds, the noise floor of k-means itself. tests/test_cells.py holds the bound (0.5).
4. **Hydration** at each size: ``--queries`` agent goals (hydrate.py's generator), each
   hydrated with cells and without (``cells=False``: the entity walk) in the same process,
   goal by goal; p50/p95 wall and process CPU time and how many facts the cell walk
   contributed; then the same goals again through hydrate.py's instrumented hydrate/3 for the
   Prolog CPU of each phase (walk, the bridge after it, jump, select, promote, the rest).

    .venv/bin/python scripts/bench/cells.py --sizes 100000 --new 1000 --ari-size 10000
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import (build_home, corpus, markdown_table, percentile_ms, progress, rss_mb,  # noqa: E402
                       run_header, update_benchmarks)
from hydrate import PHASES_PL, agent_goals, load_phases  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build_and_hydrate(items: int, args: argparse.Namespace) -> dict:
    from attention_cloud import Memory
    from attention_cloud.cells import cells_stats, rebuild

    built = build_home(items, curate=True, echoes=items <= 500_000,
                       distillation_vectors=items <= 500_000)
    work = Path(tempfile.mkdtemp(prefix="cells-bench-"))
    home = work / "home"
    progress(f"{items}: copying the home")
    shutil.copytree(built.path, home)
    out: dict = {"items": items}
    try:
        mem = Memory.open(home)
        mem.jump.vectors.wait_for_index()
        before = rss_mb()
        started = time.perf_counter()
        report = rebuild(mem)
        out["build_s"] = time.perf_counter() - started
        out["rss_before_mb"], out["peak_mb"] = before, peak_mb()
        out["stats"] = cells_stats(mem)
        progress(f"{items}: built {report.cells} cells in {out['build_s']:.1f} s")
        goals = agent_goals(args.queries + 3, 7)
        for goal in goals[:3]:
            mem.hydrate(goal, budget=2000)
            mem.hydrate(goal, budget=2000, cells=False)
        times: dict[str, list[float]] = {"cells": [], "entity": []}
        cpu: dict[str, list[float]] = {"cells": [], "entity": []}
        from_cells = []
        for goal in goals[3:]:
            for label, cells in (("cells", True), ("entity", False)):
                t, c = time.perf_counter(), time.process_time()
                frame = mem.hydrate(goal, budget=2000, cells=cells)
                times[label].append(time.perf_counter() - t)
                cpu[label].append(time.process_time() - c)
                if cells:
                    from_cells.append(sum(f["seeded_by"] == "cell_adjacency"
                                          for f in frame.receipt["facts"]))
        out["p50"] = {k: percentile_ms(v, 50) for k, v in times.items()}
        out["p95"] = {k: percentile_ms(v, 95) for k, v in times.items()}
        out["cpu50"] = {k: percentile_ms(v, 50) for k, v in cpu.items()}
        out["cpu95"] = {k: percentile_ms(v, 95) for k, v in cpu.items()}
        out["load_after"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        out["cell_facts"] = sum(from_cells) / max(1, len(from_cells))
        out["walk"] = walk_phases(mem, goals[3:])
        mem.close()
        progress(f"{items}: hydration p95 cells {out['p95']['cells']:.1f} ms, "
                 f"entity {out['p95']['entity']:.1f} ms")
        if args.new:
            extra = corpus(args.new, seed=99)
            mem = Memory.open(home)
            mem.ingest([extra])
            started = time.perf_counter()
            cur = mem.curate()
            out["curate_new_s"] = time.perf_counter() - started
            out["assign"] = cur.cells
            mem.close()
            progress(f"{items}: placed {cur.cells.get('assigned')} new items in "
                     f"{cur.cells.get('seconds')} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def walk_phases(mem, goals: list[str]) -> dict:
    """Prolog thread CPU per goal of the walk, the bridge after it, the jump, selection,
    promotion, the other phases and all of them, with cells and without: hydrate.py's
    instrumented hydrate/3 (each goal of hydrate_segment_/6 clocked), here with the bridge on
    a clock of its own."""
    from attention_cloud.bridge import Atom, Var

    load_phases(mem, PHASES_PL.replace("phase_(bridge_, walk).", "phase_(bridge_, bridge)."))
    phases = ("walk", "bridge", "jump", "select", "promote", "other phases", "all phases")
    cpu: dict[str, list[float]] = {f"{p} {w}": [] for p in phases for w in ("cells", "entity")}
    for goal in goals:
        for label, cells in (("cells", "true"), ("entity", "false")):
            options = {"budget": 2000, "plane": Atom("default"), "ceiling": Atom("l0"),
                       "segments": [], "cells": Atom(cells)}
            (_, times) = mem.pl.once("bench_hydrate_phases:timed_hydrate", goal, options, Var(), Var())
            seen = {str(t.args[0]): float(t.args[2]) for t in times}
            seen["all phases"] = sum(seen.values())
            seen["other phases"] = seen["all phases"] - sum(seen.get(p, 0.0) for p in phases[:5])
            for phase in phases:
                cpu[f"{phase} {label}"].append(seen.get(phase, 0.0))
    return {k: (percentile_ms(v, 50), percentile_ms(v, 95)) for k, v in cpu.items()}


def distance(items: int) -> dict:
    """Three fifths built, the rest assigned, against a build from nothing (and two seeds of
    k-means)."""
    from attention_cloud import Memory
    from attention_cloud.cells import adjusted_rand, rebuild
    from attention_cloud.cells import api as cells_api
    from attention_cloud.cells import partition as P
    from attention_cloud.bridge import Var
    from attention_cloud.home import write_config

    data = corpus(items, seed=1)
    files = sorted(data.rglob("*.jsonl"))
    half = len(files) * 3 // 5
    work = Path(tempfile.mkdtemp(prefix="cells-ari-"))
    try:
        home = work / "home"
        home.mkdir()
        write_config(home, {"embedder": "hash"})
        mem = Memory.open(home)
        mem.ingest(files[:half])
        mem.curate()
        mem.ingest(files[half:])
        t = time.perf_counter()
        cur = mem.curate()
        progress(f"ari: the rest curated in {time.perf_counter() - t:.1f} s, {cur.cells}")

        def membership() -> dict[str, str]:
            (pairs,) = mem.pl.once("atc_cells:cells_membership", Var())
            return {str(p.args[0]): str(p.args[1]) for p in pairs}

        incremental = membership()
        # a build from nothing: a rebuild of this home would start from the cells it has
        # (partition.seed_centroids) and measure how far it moved them, not the drift
        cells_api._store(mem, [], cells_api._cell_ids(mem), [], [])
        cells_api._drop_state(mem)
        rebuild(mem)
        full = membership()
        hs = sorted(full)
        ari = adjusted_rand([incremental[h] for h in hs], [full[h] for h in hs])
        inputs = cells_api._inputs(mem, None)
        vectors, dim = cells_api._vectors(mem, inputs.handles)
        feats = P.feature_space(dim, inputs.times).features(vectors, inputs.keys, inputs.times)
        k = P.cell_count(len(inputs.handles))
        seeds = adjusted_rand([str(x) for x in P.kmeans(feats, k, seed=1)],
                              [str(x) for x in P.kmeans(feats, k, seed=2)])
        cells_inc, cells_full = len(set(incremental.values())), len(set(full.values()))
        mem.close()
        return {"items": len(hs), "ari": ari, "seeds_ari": seeds, "cells_incremental": cells_inc,
                "cells_rebuild": cells_full, "assign": cur.cells}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def render(results: list[dict], dist: dict | None, args: argparse.Namespace) -> str:
    lines = [run_header("Cells"), ""]
    rows = []
    for r in results:
        s = r["stats"]
        a = r.get("assign", {})
        per_item = (1000 * a["seconds"] / a["assigned"]) if a.get("assigned") else float("nan")
        rows.append([f"{r['items']:,}", s["cells"], f"{s['smallest']}..{s['largest']}", s["links"],
                     f"{r['build_s']:.1f} s", f"{r['rss_before_mb']:.0f} → {r['peak_mb']:.0f} MB",
                     f"{a.get('assigned', 0)} in {a.get('seconds', 0):.2f} s ({per_item:.2f} ms/item)",
                     f"{r['p50']['cells']:.1f} / {r['p95']['cells']:.1f}",
                     f"{r['cpu50']['cells']:.1f} / {r['cpu95']['cells']:.1f}",
                     f"{r['p50']['entity']:.1f} / {r['p95']['entity']:.1f}",
                     f"{r['cpu50']['entity']:.1f} / {r['cpu95']['entity']:.1f}",
                     f"{r['cell_facts']:.1f}"])
    lines.append(markdown_table(
        ["items", "cells", "sizes", "links", "rebuild", "RSS before → peak", "incremental",
         "hydrate p50/p95 ms, cells", "CPU p50/p95 ms, cells", "p50/p95 ms, entity walk",
         "CPU p50/p95 ms, entity walk", "cell facts / frame"], rows))
    lines += ["", "Prolog CPU (thread) per goal, p50 / p95 ms, the same goals again through hydrate.py's "
              "instrumented hydrate/3: " + "; ".join(
                  f"{r['items']:,}: " + ", ".join(f"{k} {a:.2f} / {b:.2f}" for k, (a, b) in r["walk"].items())
                  for r in results) + "."]
    lines += ["", "Load average after the hydrations: "
              + "; ".join(f"{r['items']:,}: {r['load_after']}" for r in results) + "."]
    if dist:
        lines += ["", f"Incremental against a build from nothing ({dist['items']:,} items: three "
                  f"fifths curated first, the rest assigned as curated): adjusted Rand **{dist['ari']:.3f}** "
                  f"({dist['cells_incremental']} cells incremental, {dist['cells_rebuild']} "
                  f"rebuilt); two full k-means runs with different seeds on the same features: "
                  f"{dist['seeds_ari']:.3f}."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--new", type=int, default=1000, help="items placed incrementally")
    parser.add_argument("--ari-size", type=int, default=10_000, help="0 skips the distance run")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--update-md", action="store_true", help="write BENCHMARKS.md's section")
    args = parser.parse_args(argv)
    results = [build_and_hydrate(n, args) for n in args.sizes]
    dist = distance(args.ari_size) if args.ari_size else None
    text = render(results, dist, args)
    print(text)
    if args.update_md:
        update_benchmarks("Cells (issue 17)", "Build, incremental, hydration", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
