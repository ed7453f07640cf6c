#!/usr/bin/env python3
"""Whether curation's echo marks depend on the order items are searched in, and what the echo
pass costs, for one or more code trees on one home.

A synthetic corpus (``gen_corpus.py``, ``--items``, ``--seed``; it restates many texts across
sessions) is ingested and curated once with the hash embedder into ``--work``. Then each
``--tree NAME=FOLDER`` (a folder holding ``attention_cloud``: ``git archive REV host``
unpacked; ``here`` is this checkout's ``host/``), in a fresh process, runs the echo pass
(``curation._mark_echoes``) over every curated item in three orders: journal order, reversed,
and the second half first (what a resumed run does: its own items, then the killed run's). Its
writes are captured, not stored, so every order sees the same home. Printed: the marks each
order finds, how many (echo, original, similarity) marks differ from journal order's, and the
CPU seconds of each pass::

    .venv/bin/python scripts/bench/echo_orders.py --items 11000 --seed 7 \\
        --tree before=/tmp/before/host --tree after=here --work /tmp/echo-orders
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from attention_cloud import Memory, curation
from attention_cloud.bridge import Var
home = sys.argv[2]
with Memory.open(home) as mem:
    (raw,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
    handles = [str(h) for h in raw]
    captured = []
    mem.store_ladder = lambda records: captured.extend(
        (str(r.args[0]), str(r.args[1]), round(float(r.args[2]), 5)) for r in records if r.name == "echo")
    half = len(handles) // 2
    out = {"items": len(handles)}
    for name, order in (("journal", handles), ("reversed", handles[::-1]),
                        ("second half first", handles[half:] + handles[:half])):
        captured.clear()
        start = time.process_time()
        curation._mark_echoes(mem, order)
        out[name] = {"cpu": time.process_time() - start, "marks": sorted(set(captured))}
print(json.dumps(out))
"""


def build(work: Path, items: int, seed: int) -> Path:
    """The corpus and its home, curated once (kept in ``work`` for later runs)."""
    corpus, home = work / f"corpus-{items}-s{seed}", work / f"home-{items}-s{seed}"
    if not corpus.exists():
        subprocess.run([sys.executable, str(ROOT / "scripts/bench/gen_corpus.py"), "--items", str(items),
                        "--out", str(corpus), "--seed", str(seed), "--workers", "1"], check=True)
    if not (home / "built").exists():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        (home / "config.json").write_text(json.dumps({"embedder": "hash"}))
        sys.path.insert(0, str(ROOT / "host"))
        from attention_cloud import Memory

        with Memory.open(home) as mem:
            mem.ingest([corpus])
            mem.curate()
        (home / "built").write_text("")
    return home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=11000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tree", action="append", required=True, help="NAME=FOLDER ('here': host/)")
    parser.add_argument("--work", type=Path, required=True, help="folder for the corpus and home")
    args = parser.parse_args()
    home = build(args.work, args.items, args.seed)
    print(f"`{' '.join(sys.argv)}`, started {time.strftime('%H:%M UTC', time.gmtime())}\n")
    print("| tree | order | marks | differ from journal order | CPU s |")
    print("|---|---|---|---|---|")
    for name, folder in (t.split("=", 1) for t in args.tree):
        folder = str(ROOT / "host") if folder == "here" else folder
        done = subprocess.run([sys.executable, "-c", _WORKER, folder, str(home)], check=True,
                              capture_output=True, text=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        base = {tuple(m) for m in result["journal"]["marks"]}
        for order in ("journal", "reversed", "second half first"):
            marks = {tuple(m) for m in result[order]["marks"]}
            print(f"| {name} | {order} | {len(marks)} | {len(marks ^ base)} | {result[order]['cpu']:.2f} |")
    print(f"\n{result['items']:,} curated items; load average at the end "
          f"{open('/proc/loadavg').read().split()[0]}")


if __name__ == "__main__":
    main()
