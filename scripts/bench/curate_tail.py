#!/usr/bin/env python3
"""The end of a curation, its memory by phase, on an existing (large) home.

``atc curate`` ends with the cells step and, when due, a snapshot. This opens ``--home`` as the
writer, opens the writer's vector and BM25 tables (as curation holds them after its echo pass),
then runs curation's tail: a full (streamed) cells rebuild and a snapshot; a thread samples the
process's RSS every 0.2 s and the peak of each phase is printed. ``--old`` keeps the writer's
tables open through both, as curation did before it closed them first; without it, curation's
order now (close the indexes, the cells step reading vectors through a read-only store, the
snapshot after the indexes are closed). The home's cells and snapshot are rewritten: use a copy.

    .venv/bin/python scripts/bench/curate_tail.py --home COPY [--old]
"""
from __future__ import annotations

import argparse
import resource
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import markdown_table, run_header  # noqa: E402


def rss_mb() -> int:
    """This process's resident set, MB."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    return 0


class PhasePeaks:
    """Samples RSS in a thread and keeps the highest value seen in each named phase."""

    def __init__(self) -> None:
        self.phase, self.peaks, self.seconds = "open", {}, {}
        self._started = time.perf_counter()
        self._stop = threading.Event()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peaks[self.phase] = max(self.peaks.get(self.phase, 0), rss_mb())
            time.sleep(0.2)

    def enter(self, phase: str) -> None:
        now = time.perf_counter()
        self.seconds[self.phase] = now - self._started
        self.phase, self._started = phase, now

    def stop(self) -> None:
        self.enter("end")
        self._stop.set()
        time.sleep(0.3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a copy of a curated home")
    parser.add_argument("--old", action="store_true",
                        help="keep the writer's index tables open through the cells step and the snapshot")
    args = parser.parse_args()
    from attention_cloud import Memory
    from attention_cloud.cells import rebuild
    from attention_cloud.store import write_snapshot

    peaks = PhasePeaks()
    mem = Memory.open(args.home, create=False)
    mem.acquire()
    peaks.enter("writer's vector and BM25 tables open")
    mem.jump.vectors  # noqa: B018 - opening them is the point
    mem.jump.lexical.search("retry policy", 5)
    if not args.old:
        mem.jump.flush()
        mem.jump.close()  # as curation does before its cells step
        mem.give_back_memory()
    peaks.enter("cells rebuild (streamed)")
    rebuild(mem)
    peaks.enter("snapshot")
    if args.old:
        write_snapshot(mem.pl, mem.home, mem.lock)
    else:
        mem.snapshot()
    peaks.stop()
    mem.close()
    print(run_header("The end of a curation, by phase" + (" (writer's tables kept open)" if args.old else "")))
    print(markdown_table(["phase", "seconds", "peak RSS MB"],
                         [[p, f"{peaks.seconds[p]:.0f}", f"{peaks.peaks.get(p, 0):,}"] for p in peaks.seconds]))
    print(f"\nPeak RSS of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024:,} MB.")


if __name__ == "__main__":
    main()
