#!/usr/bin/env python3
"""Reopen time and memory: ``Memory.open`` of an existing home in a fresh process.

For each ``--items`` size a home is built from the cached synthetic corpus (``gen_corpus.py``):
ingested, optionally curated (``--curated``, hash embedder), snapshotted with
``Memory.snapshot()`` and closed; builds are cached under ``.local/bench-cache/``. Two variants
are measured, each ``--repeat`` times in a new Python process:

* *with snapshot*: ``snapshot.qlf`` loads and the journal is replayed past it (nothing);
* *journal only*: a copy of the home without ``snapshot.qlf``/``snapshot.meta``, so the whole
  journal is replayed.

Per run the child reports: the time of ``Memory.open`` alone (the goal's figure), the process
start until the engine is ready (interpreter, imports, SWI-Prolog and rules: paid by every
process, home or not; measured on an empty home as the baseline), RSS after open, and, for a
curated home, the first hydration after open (lazy load of vectors and BM25, then the frame).
Goals: open ≤ 0.5 s at 100k items, ≤ 5 s at 1M; RSS ≤ 1.5 GB at 1M.

    .venv/bin/python scripts/bench/reopen.py --items 100000 1000000 [--curated] [--update-md]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import (CACHE, ROOT, build_home, markdown_table, progress, run_header,  # noqa: E402
                       update_benchmarks)

GOAL_OPEN_S = {100_000: 0.5, 1_000_000: 5.0}
GOAL_RSS_MB_1M = 1536

# The child: time imports + engine start, then Memory.open, then (optionally) a first hydrate.
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from attention_cloud import Memory
from attention_cloud.bridge import get_prolog
pl = get_prolog()
t1, c1 = time.perf_counter(), time.process_time()
mem = Memory.open(sys.argv[1])
t2, c2 = time.perf_counter(), time.process_time()
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
out = {'startup_s': t1 - t0, 'open_s': t2 - t1, 'open_cpu_s': c2 - c1, 'rss_mb': rss(),
       'snapshot_facts': mem.open_info.snapshot_facts, 'replayed': mem.open_info.replayed,
       'items': mem.stats()['live'], 'cpu_s': time.process_time()}
if sys.argv[2] == '1':
    t3, c3 = time.perf_counter(), time.process_time()
    mem.hydrate(sys.argv[3], budget=2000)
    out['first_hydrate_s'] = time.perf_counter() - t3
    out['first_hydrate_cpu_s'] = time.process_time() - c3
    out['rss_after_hydrate_mb'] = rss()
mem.close()
print(json.dumps(out))
"""


@dataclass
class OpenRun:
    """Medians of the child runs of one home variant."""

    label: str
    items: int
    journal_mb: float
    snapshot_mb: float
    startup_s: float
    open_s: float
    open_min_s: float
    open_cpu_s: float
    rss_mb: float
    snapshot_facts: int
    replayed: int
    first_hydrate_s: float | None
    first_hydrate_cpu_s: float | None
    rss_after_hydrate_mb: float | None


def child(home: Path, hydrate: bool, goal: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "host")}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(home), "1" if hydrate else "0", goal],
                          capture_output=True, text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"reopen child failed on {home}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(label: str, home: Path, items: int, repeat: int, hydrate: bool, goal: str) -> OpenRun:
    runs = [child(home, hydrate, goal) for _ in range(repeat)]
    if runs[0]["items"] != items:
        raise SystemExit(f"{home}: expected {items} live items, the home has {runs[0]['items']}")

    def med(key: str) -> float:
        return statistics.median(r[key] for r in runs)

    size = (lambda name: (home / name).stat().st_size / 1e6 if (home / name).exists() else 0.0)
    return OpenRun(label=label, items=items, journal_mb=size("journal.pl"),
                   snapshot_mb=size("snapshot.qlf"), startup_s=med("startup_s"), open_s=med("open_s"),
                   open_min_s=min(r["open_s"] for r in runs), open_cpu_s=med("open_cpu_s"), rss_mb=med("rss_mb"),
                   snapshot_facts=runs[0]["snapshot_facts"], replayed=runs[0]["replayed"],
                   first_hydrate_s=med("first_hydrate_s") if hydrate else None,
                   first_hydrate_cpu_s=med("first_hydrate_cpu_s") if hydrate else None,
                   rss_after_hydrate_mb=med("rss_after_hydrate_mb") if hydrate else None)


def without_snapshot(home: Path, workdir: Path) -> Path:
    """A copy of ``home`` that has only its journal (and vectors, BM25, config)."""
    copy = workdir / (home.parent.name + "-nosnap")
    shutil.copytree(home, copy, ignore=shutil.ignore_patterns("snapshot.*", ".snap-*", ".lock"))
    return copy


def goal_verdict(run: OpenRun) -> str:
    verdicts = []
    limit = GOAL_OPEN_S.get(run.items)
    if limit is not None:
        if run.open_s <= limit:
            verdicts.append(f"open ≤ {limit:g} s met")
        elif run.open_cpu_s <= limit:
            verdicts.append(f"open ≤ {limit:g} s met in CPU s, not wall")
        else:
            verdicts.append(f"open ≤ {limit:g} s **missed**")
    if run.items >= 1_000_000:
        verdicts.append(f"RSS ≤ 1.5 GB " + ("met" if run.rss_mb <= GOAL_RSS_MB_1M else "**missed**"))
    return "; ".join(verdicts) or "—"


def report(runs: list[OpenRun], baseline: OpenRun, curated: bool) -> str:
    headers = ["home", "items", "journal MB", "snapshot MB", "facts in snapshot", "replayed changes",
               "Memory.open s (median)", "min s", "CPU s", "RSS after open MB"]
    if curated:
        headers += ["first hydrate after open s", "its CPU s", "RSS after it MB"]
    headers += ["process start to engine ready s", "goals"]
    rows = []
    for r in [baseline, *runs]:
        row = [r.label, f"{r.items:,}", f"{r.journal_mb:,.0f}", f"{r.snapshot_mb:,.0f}",
               f"{r.snapshot_facts:,}", f"{r.replayed:,}", f"{r.open_s:.3f}", f"{r.open_min_s:.3f}", f"{r.open_cpu_s:.3f}",
               f"{r.rss_mb:,.0f}"]
        if curated:
            row += ["—" if r.first_hydrate_s is None else f"{r.first_hydrate_s:.2f}",
                "—" if r.first_hydrate_cpu_s is None else f"{r.first_hydrate_cpu_s:.2f}",
                    "—" if r.rss_after_hydrate_mb is None else f"{r.rss_after_hydrate_mb:,.0f}"]
        row += [f"{r.startup_s:.2f}", goal_verdict(r) if r is not baseline else "baseline"]
        rows.append(row)
    return markdown_table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--items", type=int, nargs="+", default=[100_000, 1_000_000],
                        help="home sizes in items (default 100000 1000000)")
    parser.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    parser.add_argument("--curated", action="store_true",
                        help="curate the homes (hash embedder) and time a first hydrate after open")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per variant (default 3)")
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached homes")
    parser.add_argument("--goal", default="Fix the KeyError in the retry client when the cache is cold",
                        help="goal of the first hydrate (with --curated)")
    parser.add_argument("--update-md", action="store_true",
                        help="write the table into BENCHMARKS.md (## Ingest and reopen)")
    args = parser.parse_args(argv)
    header = run_header("Reopen time and RSS" + (" (curated homes)" if args.curated else ""))
    CACHE.mkdir(parents=True, exist_ok=True)
    runs: list[OpenRun] = []
    builds: list[str] = []
    with tempfile.TemporaryDirectory(prefix="reopen-", dir=CACHE) as tmp:
        empty = Path(tmp) / "empty-home"
        baseline = measure("empty home", empty, 0, args.repeat, False, args.goal)
        for items in args.items:
            built = build_home(items, seed=args.seed, curate=args.curated, rebuild=args.rebuild)
            builds.append(f"{items:,} items: " + ", ".join(
                f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                for k, v in built.info.items() if k != "curate"))
            progress(f"{items}: reopen with snapshot")
            runs.append(measure("with snapshot", built.path, items, args.repeat, args.curated, args.goal))
            progress(f"{items}: reopen from the journal alone")
            bare = without_snapshot(built.path, Path(tmp))
            runs.append(measure("journal only", bare, items, args.repeat, args.curated, args.goal))
            shutil.rmtree(bare)
    body = (header + "\n" + report(runs, baseline, args.curated) + "\n"
            "Each figure is the median of fresh processes (`--repeat`). *Memory.open* is the call "
            "alone (snapshot load + journal replay); the process start (interpreter, imports, "
            "SWI-Prolog, rules) is the separate column. Homes were built by: "
            + "; ".join(builds) + ".\n")
    print(body)
    if args.update_md:
        update_benchmarks("Ingest and reopen",
                          "Reopen" + (" (curated homes)" if args.curated else ""), body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
