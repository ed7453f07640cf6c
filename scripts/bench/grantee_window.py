"""Whether a time window's hidden items show in how long a grantee's window read takes.

Two homes of the same size, each a small shared segment (``team``: --shared chat turns over a
week of March 2024) and a large one no grantee reads (``private``: --hidden turns), bob granted
the whole of ``team`` at L2 (no label in the home, so no kept set: his window reads go through
the home's day index). In home IN the hidden turns are written in the same week, in home OUT a
year earlier. Both are served by ``atc serve``; bob's ``items_between`` over that week (with no
Max, and with Max 10) and his frame for a goal naming a day of it (/v1/hydrate) are timed over HTTP, --rounds times each after one warm-up, the homes'
requests interleaved (only `team` is curated: a frame needs rungs, hidden turns do not). The ratio IN/OUT is what a grantee could read of the hidden turns in
the window.

    nice .venv/bin/python scripts/bench/grantee_window.py [--shared 60] [--hidden 20000] [--rounds 15]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal
from attention_cloud.sharing.mounts import call_mount

WINDOW = ('items_between("2024-03-04T00:00:00Z", "2024-03-10T23:59:59Z", {max}Hs)')
#: a frame whose goal names a day of that week: its window's items join the candidates
FRAME_GOAL = "what did we plan for lunch on 6 March 2024"


def chat(day: str, turns: int, words: str) -> str:
    """``turns`` timestamped chat lines on ``day`` (one every few seconds from 08:00)."""
    lines = []
    for i in range(turns):
        s = 8 * 3600 + i * 3
        who = "Dana" if i % 2 == 0 else "Omar"
        lines.append(f"[{day} {s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}] {who}: "
                     f"{words} note number {i} about the plan.")
    return "\n".join(lines) + "\n"


def make_home(root: Path, shared: int, hidden: int, hidden_day: str) -> tuple[Path, str]:
    """A home as the module says; returns (home, bob's token)."""
    root.mkdir()
    (root / "team.txt").write_text(chat("2024-03-06", shared, "lunch"), encoding="utf-8")
    (root / "private.txt").write_text(chat(hidden_day, hidden, "secret"), encoding="utf-8")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "none"}', encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([root / "team.txt"], format="text", segment="team")
        mem.curate()                                # bob's frames need his items' rungs
        mem.ingest([root / "private.txt"], format="text", segment="private")
        add_principal(mem, "alice", owner=True)
        token = add_principal(mem, "bob")
        add_grant(mem, "bob", segments=["team"], ceiling="L2")
    return home, token


def serve(home: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", "serve", "--port", "0",
                             "--home", str(home)], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    return proc, line.split()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=int, default=60)
    parser.add_argument("--hidden", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grantee_window_"))
    homes = {"IN": make_home(work / "in", args.shared, args.hidden, "2024-03-06"),
             "OUT": make_home(work / "out", args.shared, args.hidden, "2023-03-06")}
    servers = {name: serve(home) for name, (home, _) in homes.items()}
    try:
        reads = [(label, "/v1/query", {"goal": WINDOW.format(max=max_), "limit": 1},
                  lambda a: len(a["rows"][0]["Hs"]))
                 for label, max_ in (("no Max", ""), ("Max 10", "10, "))]
        reads.append(("frame", "/v1/hydrate", {"goal": FRAME_GOAL, "budget": 1000},
                      lambda a: len(a["facts"])))
        for label, path, payload, count in reads:
            times: dict[str, list[float]] = {"IN": [], "OUT": []}
            answers = {}
            for r in range(args.rounds + 1):
                for name in ("IN", "OUT"):
                    _, url = servers[name]
                    start = time.perf_counter()
                    answer = call_mount(url, homes[name][1], path, payload, timeout=120)
                    took = time.perf_counter() - start
                    if r:                               # the first round warms up
                        times[name].append(took)
                    answers[name] = count(answer)
            med = {n: statistics.median(t) for n, t in times.items()}
            print(f"{label}: IN {med['IN'] * 1000:8.1f} ms  OUT {med['OUT'] * 1000:8.1f} ms  "
                  f"ratio {med['IN'] / med['OUT']:5.2f}  (items answered: {answers})")
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
