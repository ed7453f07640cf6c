#!/usr/bin/env python3
"""Where a warm process's memory goes: the resident set of one process opening a home, step by step.

Opens ``--home`` (a curated home, left unchanged: every step reads) in this process and prints its
RSS after each step a serving process takes, so the figure the issue asks for (a warm process
holding a home) is split by what loads it:

1. ``Memory.open`` (the Prolog journal or snapshot: facts, atoms, clause indexes);
2. the BM25 index (``Jump.lexical``);
3. the vector store (``Jump.vectors``: key tables, the index, mapped rows touched);
4. the day index behind ``memory_now/1`` and time-anchored goals;
5. a first frame with the entity walk, then one with cells (clause indexes built on first use);
6. ``--goals`` more frames, the last RSS being the warm figure.

A home whose vector store still holds an index of an older kind keeps it until a writer opens
the store (``--upgrade-vectors`` does that first, waits for the new index and saves it); a home
whose snapshot holds facts the current code implies (the in_session links of items written
before 2026-12-03) keeps them until its snapshot is rewritten (``--upgrade-snapshot``).

    .venv/bin/python scripts/bench/warm_rss.py --home HOME [--upgrade-vectors] [--upgrade-snapshot]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import markdown_table, peak_rss_mb, rss_mb, run_header  # noqa: E402

GOALS = ["why do processor retries fail", "what did we decide about the cache",
         "deploy failed on staging two weeks ago", "who changed the webhook timeout",
         "migration of the billing tables", "what broke in the tests yesterday"]


def rss_kinds_mb() -> dict[str, float]:
    """RssAnon, RssFile and RssShmem of this process in MB (Linux; empty elsewhere)."""
    try:
        lines = Path("/proc/self/status").read_text().splitlines()
    except OSError:
        return {}
    return {name: int(value.split()[0]) / 1024 for name, value in
            (line.split(":", 1) for line in lines if line.startswith("Rss"))}


def upgrade_vectors(home: Path) -> str:
    """Open the home's vector store as its writer, wait for its index and save it."""
    from attention_cloud import Memory
    from attention_cloud.embed.store import VectorStore

    with Memory.open(home) as mem:
        embedder = mem.jump.embedder
        embedder_id, dim = embedder.id, embedder.dim
    store = VectorStore.open(home / "vectors", embedder_id=embedder_id, dim=dim)
    try:
        return str(store.wait_for_index(1800))
    finally:
        store.flush()
        store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a curated home (read only)")
    parser.add_argument("--goals", type=int, default=20, help="frames after the first two")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--upgrade-vectors", action="store_true",
                        help="first let a writer replace an older kind of vector index")
    parser.add_argument("--upgrade-snapshot", action="store_true",
                        help="first let a writer rewrite the journal's snapshot (what a writer "
                             "does once its journal has grown): facts of older forms that the "
                             "current code implies are left out of it")
    args = parser.parse_args(argv)
    if args.upgrade_vectors:
        print(f"vector index after a writer's open: {upgrade_vectors(args.home)}")
    if args.upgrade_snapshot:
        from attention_cloud import Memory

        with Memory.open(args.home, create=False) as mem:
            print(f"snapshot rewritten: {mem.snapshot():,} facts")

    from attention_cloud import Memory
    from attention_cloud.bridge import Var

    rows: list[list[str]] = []
    before = rss_mb()

    def step(name: str, started: float) -> None:
        now, cpu = rss_mb(), time.process_time()
        rows.append([name, f"{time.perf_counter() - started:.2f}", f"{cpu - step.cpu:.2f}",
                     f"{now - step.last:+.0f}", f"{now:.0f}"])
        step.last, step.cpu = now, cpu
    step.last, step.cpu = before, time.process_time()

    t = time.perf_counter()
    mem = Memory.open(args.home, create=False)
    step("Memory.open", t)
    items = mem.query("aggregate_all(count, item(_), N)").rows[0]["N"]
    t = time.perf_counter()
    mem.jump.lexical
    step("BM25 index", t)
    t = time.perf_counter()
    mem.jump.vectors
    step("vector store", t)
    t = time.perf_counter()
    mem.pl.once("atc_when:memory_now", Var())
    step("day index (memory_now/1)", t)
    t = time.perf_counter()
    mem.hydrate(GOALS[0], budget=args.budget, cells=False)
    step("first frame, entity walk", t)
    t = time.perf_counter()
    mem.hydrate(GOALS[0], budget=args.budget)
    step("first frame, cells (when memory has them)", t)
    t = time.perf_counter()
    for i in range(args.goals):
        mem.hydrate(GOALS[i % len(GOALS)], budget=args.budget)
    step(f"{args.goals} more frames", t)
    kinds = rss_kinds_mb()  # before close: the mapped index files are still mapped
    mem.close()

    print(run_header("Warm process memory by step"))
    print()
    print(f"Home {args.home} ({int(items):,} items); RSS of the bare "
          f"interpreter with the package imported: {before:.0f} MB.")
    print()
    print(markdown_table(["step", "seconds", "CPU s", "RSS change MB", "RSS MB"], rows))
    print()
    print(f"Peak RSS of the process: {peak_rss_mb():.0f} MB; after the frames {kinds.get('RssAnon', 0):.0f} MB "
          f"anonymous, {kinds.get('RssFile', 0):.0f} MB file-backed (libraries, mapped index files: "
          "page cache the kernel may drop and re-read).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
