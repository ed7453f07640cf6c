#!/usr/bin/env python3
"""Where curation's memory goes: one ``Memory.curate()`` sampled by phase and by component.

Curates ``--home`` (it is curated in place: pass a copy) or, with ``--items N``, a fresh copy of
bench_env's cached ingested home of the N-item corpus (built once by a child process), in this
process, with the home's configuration (echoes and distillation vectors on by default) and
prints:

* every phase's resident memory at its start and end and its peak, split into anonymous
  memory (the heap: Prolog, Python, faiss) and file-backed pages (mapped files: the float16
  vector log, BM25's arrays, the snapshot), sampled every ``--every`` seconds from
  ``/proc/self/smaps_rollup`` by a thread;
* for each new anonymous peak ``--peak-step`` MB above the last, the main thread's Python
  stack at that moment (what was running when memory rose);
* at the end of each phase, the components: Prolog's stacks, atoms and its largest
  predicates (``predicate_property/2`` ``size``), glibc's heap (in use / free but kept), the
  vector store's key tables and index codes, BM25's delta.

``--stop-after PHASE`` ends the run when the next phase begins (``arcs and rollups`` before the
hour-long echo search of a million-item home). ``--trim`` calls ``Memory.give_back_memory``
at phase ends first (what a change would do), to see what is kept but free.

    ATC_PROLOG=pyswip nice -n 10 .venv/bin/python scripts/bench/curate_memory.py --items 100000
    ATC_PROLOG=pyswip nice -n 10 .venv/bin/python scripts/bench/curate_memory.py --home COPY \\
        --stop-after "arcs and rollups"
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import shutil
import sys
import threading
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import CACHE, build_home, markdown_table, run_header  # noqa: E402

MB = 1 << 20


def smaps_mb() -> dict[str, float]:
    """Rss, RssAnon, RssFile of this process in MB (``/proc/self/smaps_rollup``)."""
    out = {}
    with open("/proc/self/smaps_rollup") as fh:
        for line in fh:
            name, _, rest = line.partition(":")
            if name in ("Rss", "Anonymous", "Pss_File", "Shared_Clean", "Private_Clean", "Private_Dirty"):
                out[name] = int(rest.split()[0]) / 1024
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("RssAnon", "RssFile", "RssShmem")):
                name, rest = line.split(":")
                out[name] = int(rest.split()[0]) / 1024
    return out


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                             "fsmblks", "uordblks", "fordblks", "keepcost")]


def glibc_heap_mb() -> dict[str, float]:
    """glibc malloc: bytes in use, free but kept in its arenas, and in mmapped chunks."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _Mallinfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return {}
    return {"malloc_in_use": (info.uordblks + info.hblkhd) / MB, "malloc_free_kept": info.fordblks / MB,
            "malloc_mmapped": info.hblkhd / MB}


class Sampler(threading.Thread):
    """Samples RSS every ``every`` s; keeps each phase's peak and the stacks at new peaks."""

    def __init__(self, every: float, peak_step: float) -> None:
        super().__init__(daemon=True, name="curate-memory-sampler")
        self.every, self.peak_step = every, peak_step
        self.phase = "open"
        self.main = threading.main_thread().ident
        self.peaks: dict[str, dict[str, float]] = {}
        self.stacks: list[tuple[str, float, float, str]] = []
        self.last_stack_anon = 0.0
        self.stop = threading.Event()

    def sample(self) -> dict[str, float]:
        now = smaps_mb()
        peak = self.peaks.setdefault(self.phase, {"Rss": 0.0, "RssAnon": 0.0, "RssFile": 0.0})
        for k in peak:
            peak[k] = max(peak[k], now.get(k, 0.0))
        if now["RssAnon"] >= self.last_stack_anon + self.peak_step:
            self.last_stack_anon = now["RssAnon"]
            frame = sys._current_frames().get(self.main)
            where = "".join(traceback.format_stack(frame, limit=6)[-6:]) if frame is not None else "?"
            self.stacks.append((self.phase, now["RssAnon"], now["RssFile"], where))
        return now

    def run(self) -> None:
        while not self.stop.wait(self.every):
            self.sample()


def prolog_components(mem) -> dict:
    """Prolog's stacks, atom space, and its largest predicates by size (bytes, clauses)."""
    from attention_cloud.bridge import Atom, Var

    stats = {}
    for key in ("globalused", "localused", "trailused", "atoms", "atom_space", "clauses", "codes"):
        try:
            (value,) = mem.pl.once("user:statistics", Atom(key), Var())
            stats[key] = int(value)
        except Exception as exc:  # noqa: BLE001 - a key this SWI version lacks
            stats[key] = str(exc)[:60]
    return stats


def top_predicates(mem) -> list:
    """atc_* predicates of at least 1 MB as (name, MB, clauses), largest first
    (``curate_memory.pl``, consulted once)."""
    from attention_cloud.bridge import Var

    if not getattr(top_predicates, "loaded", False):
        mem.pl.consult(Path(__file__).with_suffix(".pl"))
        top_predicates.loaded = True
    (found,) = mem.pl.once("atc_bench_memory:bench_top_predicates", 1 << 20, Var())
    return [(str(t.args[0]), round(int(t.args[1]) / MB, 1), int(t.args[2])) for t in found[:15]]


def vector_components(mem) -> dict:
    jump = mem._jump
    if jump is None or jump.disabled or not (mem.home / "vectors").exists():
        return {}
    try:
        store = jump.vectors
    except Exception:  # noqa: BLE001
        return {}
    keys = len(store._keys)
    index = store._index
    codes = int(index.ntotal) * (int(getattr(index, "code_size", 0)) + 8) if index is not None else 0
    return {"keys": keys,
            "key_tables_mb": round(store._keys.nbytes() / MB, 1),
            "index_codes_mb": round(codes / MB, 1), "index_ntotal": int(index.ntotal) if index is not None else 0}


def lexical_components(mem) -> dict:
    jump = mem._jump
    if jump is None:
        return {}
    lex = jump.lexical
    delta_postings = sum(len(p) for p in lex._delta_post.values())
    return {"docs": lex._count, "base_docs": lex._base_docs, "delta_docs": len(lex._delta_fwd),
            "delta_postings": delta_postings, "terms": len(lex._terms)}


@contextlib.contextmanager
def measured_children(peaks: list[float]):
    """Run the snapshot's compile processes under ``/usr/bin/time`` and collect their peak RSS (MB).

    getrusage's ``RUSAGE_CHILDREN`` is no measure of them: a child forked (or vforked) from this
    process starts with this process's pages mapped, and Linux keeps the high-water mark of that
    address space as the child's ``ru_maxrss`` when it execs swipl, so the figure is at least this
    process's own peak at the time. ``/usr/bin/time`` is a small process: the swipl it runs
    reports its own peak (``%M``).
    """
    import subprocess

    import attention_cloud.store as store

    real = subprocess.run

    def run(cmd, *args, **kwargs):
        proc = real(["/usr/bin/time", "-f", "ATC-CHILD-MAXRSS %M", *cmd], *args, **kwargs)
        lines = (proc.stderr or "").splitlines()
        for line in lines:
            if line.startswith("ATC-CHILD-MAXRSS "):
                peaks.append(int(line.split()[1]) / 1024)
        proc.stderr = "\n".join(l for l in lines if not l.startswith("ATC-CHILD-MAXRSS "))
        return proc

    shim = types.SimpleNamespace(**{**vars(subprocess), "run": run})
    store.subprocess = shim
    try:
        yield peaks
    finally:
        store.subprocess = subprocess


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--home", type=Path, help="a home to curate IN PLACE (pass a copy)")
    where.add_argument("--items", type=int, help="curate a fresh copy of the cached ingested N-item home")
    where.add_argument("--ingest", type=int, metavar="N",
                       help="ingest the N-item corpus into a fresh home in this process first, as "
                            "bench_env.build_home's child does (200 files a call above 200k), then curate")
    parser.add_argument("--work", type=Path, default=ROOT / ".local" / "curate-memory",
                        help="where --items copies the ingested home")
    parser.add_argument("--every", type=float, default=0.5, help="sampling period, seconds")
    parser.add_argument("--peak-step", type=float, default=100.0, help="MB of anonymous growth between stacks")
    parser.add_argument("--stop-after", default=None, help="stop when the phase after this one begins")
    parser.add_argument("--steps", default="curate",
                        help="comma-separated steps run in order on the home: curate (Memory.curate), "
                             "vectors (load the vector store and BM25, as curation has by its cells "
                             "step), writer (take the write lock, then the same: the writer's tables, as "
                             "curation holds them after its echoes), release (flush and close them and give "
                             "memory back, as curation now does before its cells step), cells (cells.rebuild), uncells (drop the partition, one batch: a "
                             "later cells step, in this process or another, then writes every cell "
                             "as a first curation does), snapshot (Memory.snapshot: each compile "
                             "process's own peak, from /usr/bin/time)")
    parser.add_argument("--cells-sample", type=int, default=None,
                        help="rows a cell a streamed cells rebuild trains on (cells.api.SAMPLE_PER_CELL)")
    parser.add_argument("--no-snapshot", action="store_true",
                        help="close without the snapshot a grown journal gets")
    parser.add_argument("--trim", action="store_true", help="give_back_memory() at each phase end")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    if args.items:
        built = build_home(args.items, curate=False, snapshot=True)
        home = args.work / f"home-{args.items}"
        if home.exists():
            shutil.rmtree(home)
        home.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(built.path, home)
    elif args.ingest:
        from bench_env import FILES_PER_CALL, ONE_CALL_ITEMS, corpus

        data = corpus(args.ingest)
        home = args.work / f"ingested-{args.ingest}"
        if home.exists():
            shutil.rmtree(home)
    else:
        home = args.home
    from attention_cloud import Memory

    print(run_header(f"curate memory: {home}"))
    sampler = Sampler(args.every, args.peak_step)
    sampler.start()
    marks: list[dict] = []
    order = ["open", "curating items", "arcs and rollups", "echoes", "cells+close"]

    class Stop(Exception):
        pass

    def mark(name: str, mem=None) -> None:
        if args.trim and mem is not None:
            mem.give_back_memory()
        now = sampler.sample()
        entry = {"at": name, "t": round(time.perf_counter() - started, 1), **{k: round(v) for k, v in now.items()},
                 **{k: round(v) for k, v in glibc_heap_mb().items()}}
        if mem is not None:
            entry["prolog"] = prolog_components(mem)
            entry["top_predicates"] = top_predicates(mem)
            entry["vectors"] = vector_components(mem)
            entry["bm25"] = lexical_components(mem)
        marks.append(entry)
        print(json.dumps(entry), flush=True)

    started = time.perf_counter()
    if args.ingest:
        from attention_cloud.home import write_config

        home.mkdir(parents=True)
        write_config(home, {"embedder": "hash", "echoes": True, "distillation_vectors": True})
        mem = Memory.open(home)
        sampler.phase = "ingest"
        files = sorted(Path(data).rglob("*.jsonl"))
        per_call = FILES_PER_CALL if args.ingest > ONE_CALL_ITEMS else len(files)
        for i in range(0, len(files), per_call):
            mem.ingest(files[i:i + per_call])
        mark("end of ingest", mem)
        sampler.phase = "open"
    else:
        mem = Memory.open(home)
    mark("opened", mem)

    def progress(event) -> None:
        if event.phase != sampler.phase:
            mark(f"end of {sampler.phase}", mem)
            if args.stop_after and sampler.phase == args.stop_after:
                raise Stop()
            sampler.phase = event.phase

    import attention_cloud.cells as cells_api

    cells_update = cells_api.update

    def update(mem_):  # curation's cells step reports no progress: mark it here
        mark(f"end of {sampler.phase}", mem_)
        sampler.phase = "cells"
        return cells_update(mem_)

    cells_api.update = update
    if args.cells_sample:
        cells_api.api.SAMPLE_PER_CELL = args.cells_sample
    report = None
    import resource

    for step in args.steps.split(","):
        if step == "curate":
            try:
                report = mem.curate(progress=progress)
                mark(f"end of {sampler.phase}", mem)
            except Stop:
                pass
        elif step == "cells":
            sampler.phase = "cells rebuild"
            print(json.dumps(cells_api.rebuild(mem).as_dict()), flush=True)
            mark("end of cells rebuild", mem)
        elif step == "vectors":
            sampler.phase = "vectors"
            jump = mem.jump
            if not jump.disabled and jump.has_vectors():
                jump.vectors.wait_for_index()
            jump.lexical
            mark("end of vectors", mem)
        elif step == "writer":
            sampler.phase = "writer's tables"
            mem.acquire()
            mem.jump.vectors  # noqa: B018 - opening them is the point
            mem.jump.lexical  # noqa: B018
            mark("end of writer's tables", mem)
        elif step == "release":
            sampler.phase = "release"
            mem.jump.flush()
            mem.jump.close()
            mem.give_back_memory()
            mark("end of release", mem)
        elif step == "uncells":
            sampler.phase = "uncells"
            t = time.perf_counter()
            ids = cells_api.api._cell_ids(mem)
            mem.lock.acquire()
            cells_api.api._store(mem, [], ids, [], [])
            cells_api.api._drop_state(mem)
            print(json.dumps({"dropped_cells": len(ids), "seconds": round(time.perf_counter() - t, 1)}), flush=True)
            mark("end of uncells", mem)
        elif step == "snapshot":
            sampler.phase = "snapshot"
            t = time.perf_counter()
            children: list[float] = []
            with measured_children(children):
                facts = mem.snapshot()
            inherited = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            print(json.dumps({"snapshot_facts": facts, "seconds": round(time.perf_counter() - t, 1),
                              "compile_processes": len(children),
                              "child_peak_rss_mb": round(max(children, default=0)),
                              "rusage_children_mb": round(inherited)}), flush=True)
            mark("end of snapshot", mem)
        else:
            raise SystemExit(f"unknown step {step!r}")
    sampler.phase = "close"
    if args.no_snapshot:
        import attention_cloud.memory as memory_module

        memory_module.snapshot_due = lambda home: False
    mem.close()
    mark("closed")
    sampler.stop.set()
    elapsed = time.perf_counter() - started
    rows = []
    for phase, peak in sampler.peaks.items():
        rows.append([phase, round(peak["Rss"]), round(peak["RssAnon"]), round(peak["RssFile"])])
    print()
    print(markdown_table(["phase", "peak RSS MB", "peak anon MB", "peak file MB"], rows))
    print()
    print("stacks at new anonymous peaks:")
    for phase, anon, file_mb, where in sampler.stacks[-12:]:
        print(f"--- {phase}: anon {anon:.0f} MB, file {file_mb:.0f} MB\n{where}")
    if report is not None:
        print(json.dumps(report.as_dict()))
    print(f"{elapsed:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"marks": marks, "peaks": sampler.peaks,
                                         "stacks": sampler.stacks, "seconds": elapsed,
                                         "report": report.as_dict() if report else None}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
