"""Repeated ``show --source`` in one process (as the MCP server, ``atc serve`` or an API caller
makes them), with and without the per-process cache of a transcript's parse (show.py,
``_pointers_in``), alternated in the same minutes.

Ingests TRANSCRIPT into a new home (hash embedder; HOME must not exist), picks COUNT of its
items spread over the file, then for ROUNDS rounds shows them all once with the cache off
(every file counts as just changed: each show parses the file, as before the cache) and once
with it on (a fresh cache: the first show of the round parses, the rest reuse it). Prints
calls/s and CPU-s per call of each, and their ratio. BENCHMARKS.md, "Agent integration
leftovers" (round 32, qa189).

    nice .venv/bin/python scripts/bench/show_source_cache.py \
        /work/shared/data/claude-code-real/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl \
        /tmp/showbench/home 20 3
"""
from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from attention_cloud import Memory
from attention_cloud import show as show_module
from attention_cloud.show import show_record


def run(mem: Memory, handles: list[str], cached: bool) -> tuple[float, float]:
    """Wall and CPU seconds to show every handle's source once."""
    show_module._cached_pointers.cache_clear()
    show_module.RACY_NS = 2_000_000_000 if cached else 1 << 62
    wall, cpu = time.perf_counter(), time.process_time()
    for handle in handles:
        assert show_record(mem, handle, "l0", True)["verbatim"]
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    transcript, home, count, rounds = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    home.mkdir(parents=True)
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    copy = home.parent / Path(transcript).name  # a copy old enough to cache (mtime kept)
    shutil.copy2(transcript, copy)
    with Memory.open(home) as mem:
        mem.ingest([copy])
        rows = mem.query("item_source(H, P)").rows
        handles = [r["H"] for r in rows][:: max(1, len(rows) // count)][:count]
        time.sleep(2.1)  # past the racy window of the ingest's own reads
        totals = {False: [0.0, 0.0], True: [0.0, 0.0]}
        for _ in range(rounds):
            for cached in (False, True):
                wall, cpu = run(mem, handles, cached)
                totals[cached][0] += wall
                totals[cached][1] += cpu
    calls = len(handles) * rounds
    report = {name: {"calls_per_s": round(calls / wall, 2), "cpu_s_per_call": round(cpu / calls, 4)}
              for name, (wall, cpu) in (("uncached", totals[False]), ("cached", totals[True]))}
    report["items"] = len(handles)
    report["rounds"] = rounds
    report["file_bytes"] = copy.stat().st_size
    report["speedup_calls_per_s"] = round(report["cached"]["calls_per_s"]
                                          / report["uncached"]["calls_per_s"], 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
