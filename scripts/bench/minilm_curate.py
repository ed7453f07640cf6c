#!/usr/bin/env python3
"""``atc curate`` throughput with the default embedder (MiniLM) on real Claude Code transcripts,
A/B against another checkout, and whether the vectors agree.

Ingests the corpus (default ``../shared/data/claude-code-real``: two long sessions with their
subagents, long tool results and assistant turns) once into a template home, then for each
round and each tree (``--before DIR`` first, then this checkout) copies the template and runs
``curate`` in a fresh process importing that tree's ``host/``: items/s end to end (the whole
curate call: ladder, arcs, rollups, embedding, BM25, echoes), the seconds in the embedder, the
process CPU seconds and the load average around it. ``--embedders`` runs this checkout once per
embedder spec (``minilm,minilm-q8``: the home's config names it), and so does ``--before``.
the runs so that load from other processes falls on all of them. Finally the vectors each run
stored are compared with the first run's under the same key (cosine and largest coordinate
difference).

    nice .venv/bin/python scripts/bench/minilm_curate.py --before /work/main --rounds 1
    nice .venv/bin/python scripts/bench/minilm_curate.py --before /work/main --embedders minilm,minilm-q8
    nice .venv/bin/python scripts/bench/minilm_curate.py --before /work/main --rounds 2 --phases

``--phases`` clocks each phase's process CPU inside every curate child (wrappers around the
curation functions named in :data:`PHASES`) and prints their medians as a table. A child that
fails stops the run with its traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "claude-code-real"

_CURATE = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from attention_cloud import Memory
mem = Memory.open(sys.argv[2])
mem.jump.embedder  # the model loads before the clock starts (once per process in real use)
phases = PHASE_CLOCK(mem) if sys.argv[3] == "phases" else None
cpu, wall = time.process_time(), time.perf_counter()
report = mem.curate()
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
mem.close()
print(json.dumps({"items": report.items, "embedded": report.embedded, "wall": wall, "cpu": cpu,
                  "extra": report.as_dict(), "phases": phases and phases.figures(cpu)}))
"""

#: ``--phases``: where a curate's process CPU goes. Each entry wraps a function of the curate
#: path (``module:attribute`` or ``module:Class.method``); a phase's CPU is the process CPU (all
#: threads: the embedder's workers, the echo search) while it runs, less that of the wrapped
#: calls it makes, so the phases add up to the whole curate and what no entry covers is "other".
PHASES = [
    ("start-of-run check (every curated record's vectors and BM25 entry)",
     "attention_cloud.curation:_repair_indexes"),
    ("the embedder", "embedder"),  # the class of the home's embedder, whichever it is
    ("the extractive curator (items)", "attention_cloud.curation:curate_items"),
    ("arcs and rollups: plans and rungs", "attention_cloud.curate:plan_arcs"),
    ("arcs and rollups: plans and rungs", "attention_cloud.curate:curate_arc"),
    ("arcs and rollups: plans and rungs", "attention_cloud.curate:curate_session"),
    ("arcs and rollups: the rest (Prolog lookups)", "attention_cloud.curation:_curate_sessions"),
    ("ladder facts into Prolog (store_ladder)", "attention_cloud.memory:Memory.store_ladder"),
    ("BM25 entries", "attention_cloud.embed.lexical:LexicalIndex.add"),
    ("vector store writes", "attention_cloud.embed.store:VectorStore.add"),
    ("index flushes", "attention_cloud.jump:Jump.flush"),
    ("echoes", "attention_cloud.curation:_echoes"),
    ("cells", "attention_cloud.cells:update"),
]

_PHASE_CLOCK = """
def PHASE_CLOCK(mem):
    import functools, importlib, time

    spent, stack = {}, []

    def wrap(label, fn):
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            stack.append([time.process_time(), 0.0])
            try:
                return fn(*args, **kwargs)
            finally:
                started, inner = stack.pop()
                took = time.process_time() - started
                spent[label] = spent.get(label, 0.0) + took - inner
                if stack:
                    stack[-1][1] += took
        return timed

    missing = []
    for label, where in PHASES:
        module_name, _, path = where.partition(":")
        try:
            if where == "embedder":
                owner, name = type(mem.jump.embedder), "embed"
            else:
                owner = importlib.import_module(module_name)
                *parents, name = path.split(".")
                for parent in parents:
                    owner = getattr(owner, parent)
            setattr(owner, name, wrap(label, getattr(owner, name)))
        except (ImportError, AttributeError):
            missing.append(where)  # an older tree without it: its phase reads 0

    class Clock:
        def figures(self, total):
            out = {label: round(spent.get(label, 0.0), 3) for label, _ in PHASES}
            out["other"] = round(total - sum(spent.values()), 3)
            out["missing"] = missing
            return out
    return Clock()
"""


class ChildFailed(RuntimeError):
    """A curate child process exited non-zero; the message ends with its stderr."""


def ingest(data: Path, home: Path) -> int:
    sys.path.insert(0, str(ROOT / "host"))
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    home.mkdir(parents=True)
    # BM25 entries are left to curation, so both trees' curate calls do the same BM25 work
    write_config(home, {"index_at_ingest": False})
    with Memory.open(home) as mem:
        report = mem.ingest([data], strict=False)
    return report.new


def child_script(phases: bool) -> str:
    """The curate child's code: with ``phases``, the phase clock defined in it too."""
    return (f"PHASES = {PHASES!r}\n" + _PHASE_CLOCK if phases else "PHASE_CLOCK = None\n") + _CURATE


def curate(tree: Path, spec: str, template: Path, work: Path, phases: bool = False) -> dict:
    home = work / f"home-{tree.name}-{time.monotonic_ns()}"
    shutil.copytree(template, home)
    config = json.loads((home / "config.json").read_text(encoding="utf-8"))
    (home / "config.json").write_text(json.dumps({**config, "embedder": spec}), encoding="utf-8")
    load = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", child_script(phases), str(tree / "host"), str(home),
                          "phases" if phases else "-"], capture_output=True, text=True)
    if out.returncode != 0:  # its traceback, not a bare CalledProcessError
        raise ChildFailed(f"curate of {home} with {tree / 'host'} exited {out.returncode}:\n"
                          + out.stderr.strip()[-4000:])
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    figures["load"] = round((load + os.getloadavg()[0]) / 2, 1)
    figures["home"] = str(home)
    return figures


def vectors(home: str) -> dict[str, np.ndarray]:
    from attention_cloud.embed import VectorStore

    manifest = json.loads((Path(home) / "vectors" / "manifest.json").read_text())
    store = VectorStore.open(Path(home) / "vectors", embedder_id=manifest["embedder_id"],
                             dim=manifest["dim"], read_only=True)
    try:
        return {key: store.vector(key).copy() for key in store.keys()}
    finally:
        store.close()


def compare(a: str, b: str) -> dict:
    va, vb = vectors(a), vectors(b)
    common = sorted(set(va) & set(vb))
    # rows are stored as float16, so their length is 1 only to ~1e-4: cosines of the rows
    # as stored, renormalised (a plain dot product reads that rounding as a difference)
    cos = np.array([float(va[k] @ vb[k]) / float(np.linalg.norm(va[k]) * np.linalg.norm(vb[k]))
                    for k in common])
    diff = max(float(np.abs(va[k] - vb[k]).max()) for k in common)
    return {"keys_before": len(va), "keys_after": len(vb), "common": len(common),
            "min_cosine": round(float(cos.min()), 6), "mean_cosine": round(float(cos.mean()), 6),
            "below_0.999": int((cos < 0.999).sum()), "max_abs_diff": round(diff, 6)}


def print_phases(runs: dict[str, list[dict]]) -> None:
    """A markdown table: each phase's CPU seconds (median over the rounds) and share, per tree."""
    names = list(runs)
    labels = list(dict.fromkeys([label for label, _ in PHASES] + ["other"]))
    median = {name: {label: float(np.median([f["phases"][label] for f in runs[name]]))
                     for label in labels} for name in names}
    totals = {name: float(np.median([f["cpu"] for f in runs[name]])) for name in names}
    print("| phase | " + " | ".join(f"{n} CPU s | share" for n in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for label in labels:
        print(f"| {label} | " + " | ".join(
            f"{median[n][label]:.2f} | {100 * median[n][label] / totals[n]:.1f} %" for n in names)
            + " |")
    print("| whole curate | " + " | ".join(f"{totals[n]:.2f} | " for n in names) + " |")
    for name in names:
        if runs[name][0]["phases"]["missing"]:
            print(f"{name}: not clocked (absent in that tree): {runs[name][0]['phases']['missing']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout to compare with (its host/ is imported)")
    parser.add_argument("--embedders", default="minilm",
                        help="comma-separated embedder specs this checkout runs (default minilm)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the homes (printed)")
    parser.add_argument("--phases", action="store_true",
                        help="also clock each phase's process CPU in every run (PHASES) and "
                             "print a table of them, median over rounds")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="minilm-curate-"))
    try:
        template = work / "template"
        new = ingest(args.data, template)
        print(f"corpus {args.data}: {new} items; cpus {os.cpu_count()}; "
              f"load {os.getloadavg()[0]:.1f} at start", flush=True)
        specs = [spec.strip() for spec in args.embedders.split(",") if spec.strip()]
        def named(side: str, spec: str) -> str:
            return side if spec == "minilm" else f"{side} {spec}"

        runs_of = ([(named("before", spec), args.before.resolve(), spec) for spec in specs]
                   if args.before else []) + [(named("after", spec), ROOT, spec) for spec in specs]
        runs: dict[str, list[dict]] = {name: [] for name, _, _ in runs_of}
        for round_ in range(args.rounds):
            for name, tree, spec in (runs_of if round_ % 2 == 0 else runs_of[::-1]):
                try:
                    figures = curate(tree, spec, template, work, args.phases)
                except ChildFailed as failed:
                    print(f"{name} round {round_ + 1}: {failed}", file=sys.stderr)
                    return 1
                runs[name].append(figures)
                extra = figures["extra"]
                print(f"{name:6} round {round_ + 1}: {figures['items']} items in "
                      f"{figures['wall']:.1f} s = {figures['items'] / figures['wall']:.1f} items/s; "
                      f"vectors {figures['embedded']}, reused {extra.get('reused', '-')}, "
                      f"embedder {extra.get('embed_seconds', '-')} s; CPU {figures['cpu']:.1f} s "
                      f"= {figures['items'] / figures['cpu']:.1f} items per CPU-s; "
                      f"load {figures['load']}", flush=True)
        # each spec against the same spec before, or every run against the first
        pairs = ([(named("before", spec), named("after", spec)) for spec in specs] if args.before
                 else [(runs_of[0][0], name) for name, _, _ in runs_of[1:]])
        for first, name in pairs:
            print(f"vectors, {first} vs {name}:", json.dumps(compare(runs[first][0]["home"],
                                                                     runs[name][0]["home"])))
        for name, figures in runs.items():
            rates = [f["items"] / f["wall"] for f in figures]
            per_cpu = [f["items"] / f["cpu"] for f in figures]
            print(f"{name}: best {max(rates):.1f} items/s, median {float(np.median(rates)):.1f}; "
                  f"items per CPU-s median {float(np.median(per_cpu)):.1f}")
        if args.phases:
            print_phases(runs)
        if args.keep:
            print("homes kept under", work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
