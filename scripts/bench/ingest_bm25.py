#!/usr/bin/env python3
"""What indexing BM25 at ingest costs: ``Memory.ingest`` with ``index_at_ingest`` off and on.

One synthetic corpus (scripts/bench/gen_corpus.py, ``--items``) ingested into fresh homes,
rounds alternating the setting; prints wall and CPU seconds and items/s for each. The same code
runs both ways: the difference is the BM25 work ingest now does (and curation then skips).

    nice .venv/bin/python scripts/bench/ingest_bm25.py --items 20000 --rounds 2
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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the parse workers
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    from attention_cloud import Memory
    from attention_cloud.home import write_config
    from gen_corpus import generate

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="ingest-bm25-"))
    try:
        data = work / "data"
        generate(args.items, data, seed=1)
        print(f"{args.items} items; cpus {os.cpu_count()}; load {os.getloadavg()[0]:.1f}")
        for round_ in range(args.rounds):
            for index in ((False, True) if round_ % 2 == 0 else (True, False)):
                home = work / f"home-{round_}-{index}"
                home.mkdir()
                write_config(home, {"embedder": "hash", "index_at_ingest": index})
                wall, used = time.perf_counter(), cpu()
                with Memory.open(home) as mem:
                    new = mem.ingest([data]).new
                wall, used = time.perf_counter() - wall, cpu() - used
                print(f"index_at_ingest {str(index).lower():5}: {new} items in {wall:.1f} s "
                      f"({new / wall:,.0f} items/s), CPU {used:.1f} s ({new / used:,.0f} items/CPU-s), "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
                shutil.rmtree(home)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
