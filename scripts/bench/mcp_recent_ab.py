#!/usr/bin/env python3
"""MCP ``receipts://recent`` of two code trees, alternated: CPU of one listing each.

``--base`` is a git revision whose ``agents/mcp_server.py`` ``recent`` is taken (``main``
listed by file time, stat-ing every receipt); this checkout's lists by the save lists
(receipt_cap.newest_saved). Both read a made-up home of ``--receipts`` receipt files (25
facts each, one owner's save list), in turn, the order swapped every round, so the load of a
shared machine falls on both alike; the report is each tree's median and the ratio.

    .venv/bin/python scripts/bench/mcp_recent_ab.py --base main --receipts 1000 --rounds 21
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from attention_cloud.agents.mcp_server import recent

ROOT = Path(__file__).resolve().parents[2]


def base_recent(rev: str) -> Callable[[Path], list[dict[str, Any]]]:
    """``recent`` as revision ``rev`` wrote it (a function of the module alone)."""
    source = subprocess.run(["git", "-C", str(ROOT), "show",
                             f"{rev}:host/attention_cloud/agents/mcp_server.py"],
                            check=True, capture_output=True, text=True).stdout
    start = source.index("def recent(")
    end = source.index("\ndef ", start + 1)
    scope: dict[str, Any] = {"Any": Any, "json": json}
    exec(source[start:end], scope)  # noqa: S102 - the project's own code at a revision
    return scope["recent"]


def made_up_home(count: int) -> Path:
    home = Path(tempfile.mkdtemp(prefix="mcp-recent-"))
    folder = home / "receipts"
    folder.mkdir()
    facts = [{"handle": f"it_{i:016x}", "level": "L2", "tokens": 40} for i in range(25)]
    ids = [f"r_{i:016x}" for i in range(count)]
    for i, rid in enumerate(ids):
        created = f"2026-12-07T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
        path = folder / f"{rid}.json"
        path.write_text(json.dumps({"id": rid, "goal": f"goal {i}", "created": created,
                                    "facts": facts}))
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))   # file times in save order
    (folder / ".owner.kept").write_text("".join(rid + "\n" for rid in ids))
    (folder / ".kept.adopted").touch()
    return home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--receipts", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=21)
    opts = parser.parse_args()
    home = made_up_home(opts.receipts)
    trees = {"base": base_recent(opts.base), "new": recent}
    assert trees["base"](home) == trees["new"](home), "the two trees list differently"
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    for turn in range(opts.rounds):
        for name in (("base", "new") if turn % 2 == 0 else ("new", "base")):
            start = time.process_time()
            trees[name](home)
            cpu[name].append(time.process_time() - start)
    median = {name: sorted(times)[len(times) // 2] * 1000 for name, times in cpu.items()}
    print(f"{opts.receipts} receipts, {opts.rounds} rounds: CPU median base "
          f"{median['base']:.2f} ms, new {median['new']:.2f} ms, new/base "
          f"{median['new'] / median['base']:.2f}")


if __name__ == "__main__":
    main()
