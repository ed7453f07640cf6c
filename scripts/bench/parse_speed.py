#!/usr/bin/env python3
"""Measure transcript parsing throughput (items per second) on a generated corpus.

    python scripts/bench/parse_speed.py [--items 100000] [--seed 1] [--dir DIR] [--workers N]

Without ``--dir`` a corpus of ``--items`` items is generated into a temporary folder with
``gen_corpus.py`` (same seed, same corpus) and removed afterwards. Parsing is timed per file
with :func:`attention_cloud.ingest.parse_path`, in one process or, with ``--workers N``, over N
processes (files are independent). Reports wall time and process CPU time; on a shared machine
CPU time is the steadier figure for the single-process run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from attention_cloud.ingest import parse_path  # noqa: E402
from gen_corpus import generate  # noqa: E402


def parse_files(paths: list[str]) -> tuple[int, int, int, dict[str, int]]:
    """Parse ``paths``; return items, records, skipped records and kinds."""
    items = records = skipped = 0
    kinds: Counter[str] = Counter()
    for path in paths:
        result = parse_path(path)
        items += len(result.items)
        records += result.records_read
        skipped += len(result.skipped)
        kinds.update(item.kind for item in result.items)
    return items, records, skipped, dict(kinds)


def measure(folder: Path, workers: int) -> None:
    paths = sorted(str(p) for p in folder.rglob("*.jsonl"))
    size = sum(os.path.getsize(p) for p in paths)
    started, cpu_started = time.perf_counter(), time.process_time()
    if workers <= 1:
        items, records, skipped, kinds = parse_files(paths)
    else:
        chunks = [paths[i::workers] for i in range(workers)]
        items = records = skipped = 0
        kinds: Counter[str] = Counter()
        with ProcessPoolExecutor(workers) as pool:
            for part in pool.map(parse_files, chunks):
                items, records, skipped = items + part[0], records + part[1], skipped + part[2]
                kinds.update(part[3])
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    print(
        f"{len(paths)} files, {size / 1e6:.1f} MB, {records} records, {items} items, "
        f"{skipped} skipped"
    )
    print(f"kinds: {dict(sorted(kinds.items()))}")
    print(
        f"workers={workers}: wall {wall:.2f}s -> {items / wall:,.0f} items/s, "
        f"{size / wall / 1e6:.1f} MB/s"
    )
    if workers <= 1:
        print(f"cpu {cpu:.2f}s -> {items / cpu:,.0f} items/s per core")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--items", type=int, default=100_000, help="items to generate (default 100000)"
    )
    parser.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    parser.add_argument(
        "--dir", type=Path, help="parse this existing corpus instead of generating one"
    )
    parser.add_argument("--workers", type=int, default=1, help="parallel processes (default 1)")
    args = parser.parse_args(argv)
    if args.dir is not None:
        measure(args.dir, args.workers)
        return 0
    with tempfile.TemporaryDirectory(prefix="atc-corpus-") as tmp:
        started = time.perf_counter()
        stats = generate(args.items, Path(tmp), args.seed)
        print(
            f"generated {stats.items} items in {stats.files} sessions "
            f"in {time.perf_counter() - started:.1f}s"
        )
        measure(Path(tmp), args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
