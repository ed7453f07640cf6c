#!/usr/bin/env python3
"""Ingest throughput: items per second of ``Memory.ingest`` (parse + journal) on synthetic corpora.

For each ``--items`` size a Claude Code-like corpus (``gen_corpus.py``, cached under
``.local/bench-cache/``) is

1. parsed alone with :func:`attention_cloud.ingest.parse_path`, file by file, in this process
   (the baseline: what the parser costs without any journal);
2. ingested into a fresh memory home with ``Memory.ingest([corpus])`` in one call, as
   ``atc ingest DIR`` does. The call parses in worker processes while it writes the files
   already parsed, batch by batch. It is split by wrapping the functions it calls: waiting
   for parse (the time the call waits for ``memory._parse_all`` to yield the next parsed file:
   parse time not hidden behind the writes), the Prolog batch (``atc_api:api_ingest_with_marks``:
   transfer through the bridge, upserts, journal writes), the fsync, and the rest (the
   watermark lookup, the host's own work);
3. ingested again unchanged (every file skipped by its watermark).

When the one-call ingest fails (a million items exceed SWI-Prolog's default 1 GB stack as one
batch), the failure and its time are reported and the corpus is ingested again into a fresh
home ``--files-per-call`` files per ``Memory.ingest`` call, which is what the table then shows.

The journal's overhead is reported as the ratio ingest time / parse-only time. Goal: at least
20,000 items/s for the whole ingest.

    .venv/bin/python scripts/bench/ingest_speed.py --items 100000 1000000 [--update-md]
"""
from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import (CACHE, CpuClock, corpus, corpus_stats, markdown_table, peak_rss_mb,  # noqa: E402
                       progress, rss_mb, run_header, timed, update_benchmarks)

GOAL_ITEMS_PER_S = 20_000

from attention_cloud.errors import PrologError  # noqa: E402


@dataclass
class IngestRun:
    """Figures of one corpus size."""

    items: int
    files: int
    mbytes: float
    parse_wall: float
    parse_cpu: float
    ingest_wall: float
    ingest_cpu: float
    child_cpu: float
    parse_in_ingest: float
    prolog: float
    fsync: float
    reingest_wall: float
    journal_mb: float
    rss_mb: float
    calls: int = 1
    failure: str = ""

    @property
    def rate(self) -> float:
        return self.items / self.ingest_wall

    @property
    def parse_rate(self) -> float:
        return self.items / self.parse_wall

    @property
    def cpu_rate(self) -> float:
        return self.items / self.ingest_cpu

    @property
    def parse_cpu_rate(self) -> float:
        return self.items / self.parse_cpu


def parse_only(folder: Path) -> tuple[int, CpuClock]:
    """Parse every transcript under ``folder``; return items and the time it took."""
    from attention_cloud.ingest import parse_path

    paths = sorted(p for p in folder.rglob("*.jsonl"))
    items = 0
    with CpuClock() as clock:
        for path in paths:
            items += len(parse_path(path).items)
    return items, clock


def ingest_once(folder: Path, home: Path, per_call: int = 0) -> IngestRun:
    """Ingest ``folder`` into the fresh ``home`` with the phases timed; then re-ingest it.

    ``per_call`` = 0 ingests the folder in one call, else that many files per call.
    """
    import attention_cloud.memory as memory_mod
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    home.mkdir(parents=True)
    write_config(home, {"embedder": "hash"})
    mem = Memory.open(home)
    parse_s: list[float] = []
    fsync_s: list[float] = []
    prolog_s: list[float] = []
    original_parse, original_sync = memory_mod._parse_all, memory_mod.sync_journal
    original_once = mem.pl.once

    def once(pred: str, *args: object) -> object:
        if pred != "atc_api:api_ingest_with_marks":
            return original_once(pred, *args)
        return timed(original_once, prolog_s)(pred, *args)

    def parse_all(*args: object, **kwargs: object) -> Iterator[object]:
        results = original_parse(*args, **kwargs)
        while True:
            started = time.perf_counter()
            try:
                value = next(results)
            except StopIteration:
                parse_s.append(time.perf_counter() - started)
                return
            parse_s.append(time.perf_counter() - started)
            yield value

    memory_mod._parse_all = parse_all
    memory_mod.sync_journal = timed(original_sync, fsync_s)
    mem.pl.once = once  # type: ignore[method-assign]
    files = sorted(folder.rglob("*.jsonl"))
    groups = [files[i:i + per_call] for i in range(0, len(files), per_call)] if per_call else [[folder]]
    try:
        gc.collect()
        with CpuClock() as clock:
            new = sum(mem.ingest(group).new for group in groups)
        # The phases of the ingest alone (the re-ingest below also digests every file).
        phases = sum(parse_s), sum(prolog_s), sum(fsync_s)
        with CpuClock() as again:
            seconds = [mem.ingest(group) for group in groups]
    finally:
        memory_mod._parse_all, memory_mod.sync_journal = original_parse, original_sync
        del mem.pl.once
        if sys.exc_info()[0] is not None:
            mem.close()
    if any(r.new or r.files_unchanged != r.files for r in seconds):
        raise SystemExit("re-ingest was not a no-op")
    resident = rss_mb()
    mem.close()
    journal = (home / "journal.pl").stat().st_size / 1e6
    return IngestRun(items=new, files=len(files), mbytes=0.0, parse_wall=0.0, parse_cpu=0.0,
                     ingest_wall=clock.wall, ingest_cpu=clock.cpu, child_cpu=clock.child_cpu,
                     parse_in_ingest=phases[0],
                     prolog=phases[1], fsync=phases[2], reingest_wall=again.wall,
                     journal_mb=journal, rss_mb=resident, calls=len(groups))


def measure(items: int, seed: int, workdir: Path, per_call: int) -> IngestRun:
    folder = corpus(items, seed)
    stats = corpus_stats(folder)
    progress(f"{items}: parse only")
    parsed, parse_clock = parse_only(folder)
    gc.collect()
    progress(f"{items}: ingest into a fresh home")
    home = workdir / f"home-{items}"
    started = time.perf_counter()
    try:
        run = ingest_once(folder, home)
    except PrologError as exc:
        failed_after = time.perf_counter() - started
        failure = f"one call failed after {failed_after:.0f} s: {str(exc).splitlines()[0]}"
        progress(f"{items}: {failure}; again, {per_call} files per call")
        shutil.rmtree(home, ignore_errors=True)
        gc.collect()
        run = ingest_once(folder, home, per_call)
        run.failure = failure
    shutil.rmtree(home, ignore_errors=True)
    if parsed != run.items:
        raise SystemExit(f"parse-only found {parsed} items but ingest stored {run.items}")
    run.files, run.mbytes = stats["files"], stats["bytes"] / 1e6
    run.parse_wall, run.parse_cpu = parse_clock.wall, parse_clock.cpu
    progress(f"{items}: {run.rate:,.0f} items/s ingest, {run.parse_rate:,.0f} items/s parse only")
    return run


def _verdict(run: IngestRun) -> str:
    wall, cpu = run.rate >= GOAL_ITEMS_PER_S, run.cpu_rate >= GOAL_ITEMS_PER_S
    if wall and cpu:
        return "met"
    if wall:
        return "met in wall time, not per CPU-s"
    return "met per CPU-s, not wall" if cpu else "**missed**"


def report(runs: list[IngestRun]) -> str:
    rows = []
    for r in runs:
        other = r.ingest_wall - r.parse_in_ingest - r.prolog - r.fsync
        rows.append([
            f"{r.items:,}", f"{r.files:,}", f"{r.mbytes:,.0f}", f"{r.calls:,}",
            f"{r.parse_rate:,.0f}", f"{r.rate:,.0f}", f"{r.parse_cpu_rate:,.0f}", f"{r.cpu_rate:,.0f}",
            f"{r.ingest_cpu / r.parse_cpu:.2f}×",
            f"{r.ingest_wall:.1f}", f"{r.parse_in_ingest:.1f}", f"{r.prolog:.1f}", f"{r.fsync:.2f}",
            f"{other:.1f}", f"{r.ingest_cpu:.1f}", f"{r.child_cpu:.1f}",
            f"{r.ingest_cpu / r.ingest_wall:.2f}", f"{r.reingest_wall:.2f}",
            f"{r.journal_mb:,.0f}", f"{r.rss_mb:,.0f}",
            _verdict(r),
        ])
    table = markdown_table(
        ["items", "files", "MB", "ingest calls", "parse only items/s (baseline)", "ingest items/s",
         "parse only items/CPU-s", "ingest items/CPU-s", "ingest / parse (CPU)", "ingest s", "of which waiting for parse s", "Prolog batch s",
         "fsync s", "other s", "CPU s", "of which parse workers CPU s", "CPU/wall", "re-ingest unchanged s", "journal MB", "RSS after MB",
         f"goal ≥ {GOAL_ITEMS_PER_S:,}/s"], rows)
    notes = ("Ingest is one `Memory.ingest([corpus_dir])` call into a fresh home: worker processes "
             "parse while the call writes the files already parsed as Prolog batches of whole files "
             "(about `BATCH_ITEMS` items each, fsynced; all wall-clock seconds). "
             "*Waiting for parse* is the time the call waited for the next parsed file (parse time "
             "not overlapped with writes); *Prolog batch* is the `atc_api:api_ingest_with_marks` calls: transfer "
             "through the bridge, upserts, journal writes; *other* is the watermark lookup and the "
             "host's own work (file digests are taken by the parse workers). *CPU s* counts this process "
             "and its parse workers. *Items/CPU-s* divides by that CPU time instead of wall time: "
             "on a shared machine (CPU/wall well below 1) it does not depend on the neighbours, "
             "but with parse workers it is the total work, not the elapsed time on two cores.\n")
    failures = "".join(f"\n**{r.items:,} items:** {r.failure}; the row shows {r.calls} calls of "
                       f"{r.files // r.calls} files.\n" for r in runs if r.failure)
    return table + "\n" + notes + failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--items", type=int, nargs="+", default=[100_000, 1_000_000],
                        help="corpus sizes (default 100000 1000000)")
    parser.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    parser.add_argument("--files-per-call", type=int, default=200,
                        help="files per Memory.ingest call when one call fails (default 200)")
    parser.add_argument("--update-md", action="store_true",
                        help="write the table into BENCHMARKS.md (## Ingest and reopen)")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.items):
        parser.error("--items must be positive")
    header = run_header("Ingest throughput")
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ingest-", dir=CACHE) as tmp:
        runs = [measure(n, args.seed, Path(tmp), args.files_per_call) for n in args.items]
    body = header + "\n" + report(runs) + f"\nPeak RSS of the benchmark process: {peak_rss_mb():,.0f} MB.\n"
    print(body)
    if args.update_md:
        update_benchmarks("Ingest and reopen", "Ingest throughput", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
