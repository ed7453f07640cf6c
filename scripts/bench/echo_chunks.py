#!/usr/bin/env python3
"""Where an echo-detection chunk's time goes: curation's ``_mark_echoes`` on a slice of a home's
items, its steps timed (views of the chunk and of its items' neighbours, its vectors, the batched search, find_echoes'
checks, writing the echo facts).

Takes ``--items`` handles from ``--start`` in the home's item order (the curated items) and
runs ``_mark_echoes`` on them as ``atc curate`` does, with timers wrapped around the functions it
calls. The echo facts found are written only with ``--write`` (they are what a full pass writes:
one echo_/3 fact per echo, replaced, so writing them twice changes nothing); without it the
write is skipped and not timed. Prints one line per step (total ms, ms per chunk, share) and
the echoes found.

    .venv/bin/python scripts/bench/echo_chunks.py --home HOME [--start 0] [--items 5120] [--write]
"""
from __future__ import annotations

import argparse
import resource
import threading
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))


class Clock:
    """Seconds and calls per step, summed over wrapped functions."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._local = threading.local()  # nested calls' time, per thread

    def wrap(self, owner: object, name: str, step: str) -> None:
        """Time every call of ``owner.name`` as ``step`` (nested steps are subtracted)."""
        inner = getattr(owner, name)
        clock = self

        def timed(*args, **kwargs):
            stack = clock._local.__dict__.setdefault("stack", [])
            started = time.perf_counter()
            stack.append(0.0)
            try:
                return inner(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                nested = stack.pop()
                label = step if threading.current_thread() is threading.main_thread() else step + " [search thread]"
                clock.seconds[label] += spent - nested
                clock.calls[label] += 1
                if stack:
                    stack[-1] += spent

        setattr(owner, name, timed)


def main(argv: list[str] | None = None) -> int:
    from attention_cloud import Memory, curation
    from attention_cloud import curate as curate_pkg
    from attention_cloud.bridge import Var

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--start", type=int, default=0, help="first item (in curated-item order)")
    parser.add_argument("--items", type=int, default=10 * curation.ECHO_CHUNK)
    parser.add_argument("--write", action="store_true", help="write the echo facts found (timed)")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    mem = Memory.open(args.home, create=False)
    (raw,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
    handles = [str(h) for h in raw[args.start:args.start + args.items]]
    warmup = raw[max(0, args.start - curation.ECHO_CHUNK):args.start]
    del raw
    store = mem.jump.vectors
    store.wait_for_index()
    print(f"open {time.perf_counter() - started:.1f} s; {len(store):,} vectors; "
          f"{len(handles):,} items from {args.start:,}")

    clock = Clock()
    clock.wrap(curation, "_item_views", "views, a call a chunk (Prolog)")
    clock.wrap(curation, "_lookup_view", "views, a call a neighbour (Prolog)")
    clock.wrap(type(store), "vector", "chunk vectors")
    if hasattr(type(store), "vectors"):
        clock.wrap(type(store), "vectors", "chunk vectors")
    clock.wrap(type(store), "search_many", "search (faiss + rerank)")
    clock.wrap(curate_pkg, "find_echoes", "find_echoes checks")
    if args.write:
        clock.wrap(type(mem), "store_ladder", "write echo facts")
    else:
        type(mem).store_ladder = lambda self, records: None

    if args.start >= curation.ECHO_CHUNK:  # a chunk first: Prolog builds its clause indexes once
        started = time.perf_counter()
        curation._mark_echoes(mem, [str(h) for h in warmup])
        print(f"warm-up chunk (clause indexes built): {time.perf_counter() - started:.2f} s")
        clock.seconds.clear(), clock.calls.clear()
    started = time.perf_counter()
    found = curation._mark_echoes(mem, handles)
    wall = time.perf_counter() - started
    chunks = max(1, -(-len(handles) // curation.ECHO_CHUNK))
    print(f"{found:,} echoes; {wall:.2f} s for {len(handles):,} items "
          f"({len(handles) / wall:.0f} items/s, {wall / chunks * 1000:.0f} ms a chunk of "
          f"{curation.ECHO_CHUNK}; 1M items at this rate: {1e6 / len(handles) * wall / 60:.1f} min)")
    for step, seconds in sorted(clock.seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {step:28s} {seconds * 1000:9.0f} ms  {seconds / chunks * 1000:7.1f} ms a chunk  "
              f"{seconds / wall:5.1%}  ({clock.calls[step]:,} calls)")
    print("  (steps in the search thread overlap the main thread's: shares can sum past 100 %)")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    mem.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
