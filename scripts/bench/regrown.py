#!/usr/bin/env python3
"""What reading a grown file again costs: ``Memory.ingest`` of a text transcript that grew.

A transcript of ``--lines`` speaker lines is written in two steps: ``--first`` of it (a share),
ingested, then the whole, ingested again. A file that only grew is read again whole and that
reading wins (README, *Identity*): the items of the first reading it no longer gives are
superseded, and those it gives again at another place or time take the new reading's fields
(journal_refresh/3, which decodes every item the new reading gives again). Two shapes:

* *appended*: the first part's turns read the same (the usual case: a session goes on);
* *redated*: a WhatsApp export whose dates (1/2/23 to 1/12/23) read month/day until the part
  appended writes 13/12/23: every turn of the first part moves to the day its date says read
  day/month (all updated).

Baseline in the same run: one ingest of the whole file into a fresh home (every item new).
Each figure is the median of ``--repeat`` runs (wall and process CPU seconds).

    .venv/bin/python scripts/bench/regrown.py --lines 40000 --repeat 3
"""
from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import run_header  # noqa: E402

WORDS = ("pottery class Lisbon job move weekend hike coffee studio deadline project review "
         "garden").split()


def transcript(lines: int, seed: int, redated: bool) -> list[str]:
    """Speaker lines of two people; with ``redated``, WhatsApp lines dated 1/2/23 to 1/12/23
    (month/day or day/month, both in order) but the last, dated 13/12/23."""
    rng = random.Random(seed)
    names = ["Priya", "Tomás"]
    out = []
    for i in range(lines):
        said = f"{names[i % 2]}: " + " ".join(rng.choice(WORDS) for _ in range(12)) + f" #{i}"
        if redated:
            day = 2 + i * 11 // lines
            said = f"[1/{day}/23, {1 + i % 12}:{i % 60:02d}:00 PM] {said}"
        out.append(said)
    if redated:
        out[-1] = "[13/12/23, 9:00:00 AM] Priya: see you next week"
    return out


def timed_ingest(home: Path, path: Path) -> tuple[float, float, object]:
    from attention_cloud import Memory

    with Memory.open(home) as mem:
        wall, cpu = time.perf_counter(), time.process_time()
        report = mem.ingest([path])
        return time.perf_counter() - wall, time.process_time() - cpu, report


def run(lines: int, first: float, repeat: int, redated: bool, work: Path) -> dict:
    text = transcript(lines, 7, redated)
    cut = int(len(text) * first)
    grown, whole = [], []
    report = None
    for r in range(repeat):
        for name in ("grown", "whole"):
            shutil.rmtree(work / name, ignore_errors=True)
        chat = work / "chat.txt"
        chat.write_text("\n".join(text[:cut]) + "\n", encoding="utf-8")
        timed_ingest(work / "grown", chat)
        chat.write_text("\n".join(text) + "\n", encoding="utf-8")
        w, c, report = timed_ingest(work / "grown", chat)
        grown.append((w, c))
        w, c, _ = timed_ingest(work / "whole", chat)
        whole.append((w, c))
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    return {"new": report.new, "unchanged": report.unchanged, "superseded": report.superseded,
            "updated": getattr(report, "updated", 0), "grown_wall": med(grown, 0), "grown_cpu": med(grown, 1),
            "whole_wall": med(whole, 0), "whole_cpu": med(whole, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=40000)
    ap.add_argument("--first", type=float, default=0.9, help="share ingested first (0.9)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    print(run_header("Reading a grown file again"))
    print("| shape | lines | new | unchanged | superseded | updated | grown file again: wall s | "
          "CPU s | whole file once (baseline): wall s | CPU s | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="atc-regrown-") as tmp:
        for shape, redated in (("appended", False), ("redated", True)):
            r = run(a.lines, a.first, a.repeat, redated, Path(tmp))
            print(f"| {shape} | {a.lines:,} | {r['new']:,} | {r['unchanged']:,} | "
                  f"{r['superseded']:,} | {r['updated']:,} | {r['grown_wall']:.2f} | "
                  f"{r['grown_cpu']:.2f} | {r['whole_wall']:.2f} | {r['whole_cpu']:.2f} | "
                  f"{r['grown_cpu'] / r['whole_cpu']:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
