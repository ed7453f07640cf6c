#!/usr/bin/env python3
"""Cosines by key: ``Jump.similarity`` over random records, with the vector log cold and warm.

The jump looks up the cosine of records a search did not return (BM25 hits past the semantic
cut, the items of a time window). Those rows of the memory-mapped vector log are random: a page
the kernel has not cached costs a disk read. For each home (the cached curated homes of
``hydrate.py``) the log is evicted from the page cache (``posix_fadvise`` DONTNEED, no root
needed), then ``--lookups`` calls of ``similarity`` over ``--keys`` random records are timed:

* *cold*: the store opened with the background read-ahead switched off;
* *warm*: the store opened as the product opens it (a log over ``WARM_LOG_BYTES`` is read into
  the page cache in the background), after that read has finished.

Baseline in the same run: the same lookups repeated on keys already touched (page cache and
process page tables warm).

    .venv/bin/python scripts/bench/cosine_lookup.py --sizes 100000 1000000 [--update-md]
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import build_home, markdown_table, percentile_ms, progress, run_header, update_benchmarks  # noqa: E402


def evict(path: Path) -> None:
    """Drop ``path``'s clean pages from the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def timed_lookups(mem: object, keys: list[str], count: int, per_call: int, seed: int) -> tuple[list[float], list[float]]:
    """Seconds per ``similarity`` call on fresh random keys, then on the same keys again."""
    rng = random.Random(seed)
    fresh, again = [], []
    for _ in range(count):
        batch = rng.sample(keys, per_call)
        started = time.perf_counter()
        mem.jump.similarity("what did we change in the queue module", batch)
        fresh.append(time.perf_counter() - started)
        started = time.perf_counter()
        mem.jump.similarity("what did we change in the queue module", batch)
        again.append(time.perf_counter() - started)
    return fresh, again


def measure(items: int, warm: bool, args: argparse.Namespace) -> list[str]:
    from attention_cloud import Memory
    import attention_cloud.embed.store as store_module

    built = build_home(items, curate=True, echoes=items <= 500_000,
                       distillation_vectors=items <= 500_000)
    log = next((built.path / "vectors").glob("vectors-*.f*"))  # the float16 log (float32 in older stores)
    evict(log)
    saved = store_module.WARM_LOG_BYTES
    if not warm:
        store_module.WARM_LOG_BYTES = 1 << 62
    try:
        mem = Memory.open(built.path)
        mem.hydrate("warm up", budget=500)  # opens the vector store (and starts the read-ahead)
        for thread in threading.enumerate():
            if thread.name == "atc-vector-warm":
                thread.join()
        keys = [key for key in mem.jump.vectors.keys() if "#" not in key]
        fresh, again = timed_lookups(mem, keys, args.lookups, args.keys, args.seed)
        mem.close()
    finally:
        store_module.WARM_LOG_BYTES = saved
    label = "warm (read ahead at open)" if warm else "cold (read-ahead off)"
    return [f"{items:,}", label, f"{log.stat().st_size / 2**20:,.0f}", f"{percentile_ms(fresh, 50):.2f}",
            f"{percentile_ms(fresh, 95):.2f}", f"{percentile_ms(again, 50):.2f}",
            f"{percentile_ms(fresh, 50) / max(percentile_ms(again, 50), 1e-9):.0f}×"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--lookups", type=int, default=30, help="timed calls per home and mode (default 30)")
    parser.add_argument("--keys", type=int, default=96, help="random records per call (default 96)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--update-md", action="store_true", help="write the table into BENCHMARKS.md")
    args = parser.parse_args(argv)
    header = run_header("Cosines by key, vector log cold and warm")
    rows = []
    for items in args.sizes:
        for warm in (False, True):
            progress(f"{items} {'warm' if warm else 'cold'}")
            rows.append(measure(items, warm, args))
    table = markdown_table(["home items", "vector log", "log MB", f"{args.keys} fresh keys p50 ms",
                            "p95 ms", "same keys again p50 ms", "fresh / again"], rows)
    body = (header + "\n" + f"{args.lookups} calls of `Jump.similarity` over {args.keys} random "
            "records per home and mode; the log evicted from the page cache before each open.\n\n"
            + table)
    print(body)
    if args.update_md:
        update_benchmarks("Hydration speed", "Cosines by key", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
