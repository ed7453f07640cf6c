#!/usr/bin/env python3
"""Bytes a grantee's read adds to the owner's audit log, and its CPU, call by call.

A home of ``--turns`` chat turns (hash embedder, segment ``team``) granted to bob at L0 is
built once (``--build``); each measuring run copies it (so runs never share a log), then has
bob ask ``--goal`` (by default one reading the text of every item) ``--calls`` times through
``reader_query`` (what ``atc query --as`` and ``atc serve`` call) and prints, as one JSON line,
the log's growth and the process CPU of each call. Run it under two trees in turn (this
checkout, and another's ``host/`` on PYTHONPATH) to compare them:

    .venv/bin/python scripts/bench/audit_growth.py --home /tmp/ag --build --turns 8000
    .venv/bin/python scripts/bench/audit_growth.py --home /tmp/ag --calls 5
    PYTHONPATH=/tmp/main/host .venv/bin/python scripts/bench/audit_growth.py --home /tmp/ag
    .venv/bin/python scripts/bench/audit_growth.py --append-only 8000 --calls 20
    .venv/bin/python scripts/bench/audit_growth.py --home /tmp/ag --goal 'item(H), true' \
        --pad-to 32768 --calls 10

``--append-only N`` times ``append_event`` alone (no home, no Prolog): a read naming N random
handles, then all of them again and a random half of them, ``--calls`` times each.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

GOAL = "aggregate_all(count, (item(H), item_text(H, T)), N)"


def build(home_root: Path, turns: int) -> None:
    """The home under ``home_root`` (``home_root/home``), bob granted segment team at L0."""
    from attention_cloud.sharing import add_grant, add_principal
    from granted_home import chat_memory

    home_root.mkdir(parents=True, exist_ok=True)
    lines = [f"Dana: note {i} about the harbour crane number {i} and pier {i % 97}."
             for i in range(turns)]
    with chat_memory(home_root, {"chat.txt": "\n".join(lines) + "\n"}) as memory:
        add_principal(memory, "bob")
        add_grant(memory, "bob", segments=["team"], ceiling="L0")


def measure(home_root: Path, goal: str, calls: int) -> dict:
    """Audit bytes and CPU seconds of each of ``calls`` reads of ``goal`` by bob."""
    import attention_cloud
    from attention_cloud import Memory
    from attention_cloud.sharing import reader_query

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(home_root / "home", home)
        log = home / "audit.jsonl"
        grown, cpu = [], []
        with Memory.open(home) as memory:
            for _ in range(calls):
                before, start = (log.stat().st_size if log.exists() else 0), time.process_time()
                reader_query(memory, "bob", goal)
                cpu.append(round(time.process_time() - start, 3))
                grown.append(log.stat().st_size - before)
    shown = goal if len(goal) <= 200 else f"{' '.join(goal.split())} ({len(goal):,} chars)"
    return {"tree": str(Path(attention_cloud.__file__).parents[2]), "goal": shown,
            "bytes": grown, "cpu_s": cpu}


def measure_append(records: int, calls: int) -> dict:
    """Audit bytes and CPU milliseconds of appending a read naming ``records`` handles (after
    one such read), all of them and a random half of them, ``calls`` times each."""
    import attention_cloud
    from attention_cloud.audit import append_event

    facts = [{"handle": f"it_{random.getrandbits(64):016x}", "level": "L0"}
             for _ in range(records)]
    out: dict = {"tree": str(Path(attention_cloud.__file__).parents[2])}
    with tempfile.TemporaryDirectory() as tmp:
        home, log = Path(tmp), Path(tmp) / "audit.jsonl"
        read = {"event": "read", "reader": "bob", "op": "query", "goal": GOAL, "via": "cli"}
        append_event(home, {**read, "facts": facts})
        for name, named in (("all", facts), ("half", random.sample(facts, records // 2))):
            size, start = log.stat().st_size, time.process_time()
            for _ in range(calls):
                append_event(home, {**read, "facts": named})
            out[name] = {"bytes": (log.stat().st_size - size) // calls,
                         "ms": round((time.process_time() - start) / calls * 1000, 2)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="folder holding home/")
    parser.add_argument("--append-only", type=int, metavar="N",
                        help="time append_event alone for a read naming N records")
    parser.add_argument("--build", action="store_true", help="build the home first")
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--goal", default=GOAL)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--pad-to", type=int, default=0, metavar="CHARS",
                        help="pad the goal with spaces to CHARS characters (a grantee's goal "
                             "may be 32,768: what the log keeps of a long one)")
    opts = parser.parse_args()
    goal = opts.goal.replace(" ", " " * (1 + opts.pad_to - len(opts.goal)), 1) \
        if opts.pad_to > len(opts.goal) else opts.goal
    if opts.append_only:
        print(json.dumps(measure_append(opts.append_only, opts.calls)))
        return
    if opts.home is None:
        parser.error("--home is required (or --append-only N)")
    if opts.build:
        build(opts.home, opts.turns)
    print(json.dumps(measure(opts.home, goal, opts.calls)))


if __name__ == "__main__":
    main()
