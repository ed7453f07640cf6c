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
"""
from __future__ import annotations

import argparse
import json
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
    return {"tree": str(Path(attention_cloud.__file__).parents[2]), "goal": goal,
            "bytes": grown, "cpu_s": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="folder holding home/")
    parser.add_argument("--build", action="store_true", help="build the home first")
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--goal", default=GOAL)
    parser.add_argument("--calls", type=int, default=5)
    opts = parser.parse_args()
    if opts.build:
        build(opts.home, opts.turns)
    print(json.dumps(measure(opts.home, opts.goal, opts.calls)))


if __name__ == "__main__":
    main()
