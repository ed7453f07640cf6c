#!/usr/bin/env python3
"""CPU and wall time of one fresh ``atc`` process per command, for two builds side by side.

Every ``atc`` call (a hook, a script, ``atc query``) is a new process that pays the
interpreter's start, the imports its command needs, and, where it opens a home, loading the
Prolog rules and the home. Each variant is a folder holding the ``attention_cloud`` package
(put first on ``PYTHONPATH``; ``.`` is this checkout's ``host/``), so a baseline is a
``git archive`` of another commit. Runs alternate between variants, command by command, so
both see the same load; the first run of each pair is a warm-up (byte-code and compiled rules
written, page cache filled) and is not counted. Prints the median CPU (user + system, the
process and its children) and wall time per command and variant, and their ratios.

    git archive fd50fe9 | tar -x -C /tmp/base
    .venv/bin/python scripts/bench/cold_start.py --home .local/demo-home \\
        --variant before=/tmp/base/host --variant after=host --runs 10
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAYLOAD = {"session_id": "bench-cold-start", "transcript_path": "", "cwd": "/work/app",
           "hook_event_name": "UserPromptSubmit",
           "prompt": "why did charges fail when the processor timed out?"}


def commands(home: str) -> dict[str, tuple[list[str], bytes | None, str]]:
    """Each measured command: its arguments after ``atc``, what it reads on stdin, and
    ``ATC_HOOK_SERVER`` (``on``: the prompt hook is a client of the home's warm recall
    server, started by the warm-up run; only the client process is measured)."""
    prompt = json.dumps(PAYLOAD).encode()
    return {
        "--version": (["--version"], None, "off"),
        "--help": (["--help"], None, "off"),
        "stats": (["stats", "--home", home], None, "off"),
        "query": (["query", "item_kind(H, error)", "--home", home], None, "off"),
        "hydrate": (["hydrate", "x", "--budget", "500", "--home", home], None, "off"),
        "hook user-prompt": (["hook", "user-prompt", "--home", home], prompt, "off"),
        "hook user-prompt, warm server": (["hook", "user-prompt", "--home", home], prompt, "on"),
    }


def run_once(host: Path, argv: list[str], stdin: bytes | None,
             server: str = "off") -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``atc`` process run from ``host``."""
    env = dict(os.environ, PYTHONPATH=str(host), ATC_HOOK_SERVER=server)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's install keeps its byte-code
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", "from attention_cloud.cli import run; run()",
                             *argv], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    proc.stdin.write(stdin or b"")
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode:
        raise SystemExit(f"atc {' '.join(argv)} exited {proc.returncode}: {err}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True, help="a curated memory home")
    parser.add_argument("--variant", action="append", required=True,
                        help="NAME=FOLDER holding attention_cloud (repeat)")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--only", action="append", help="measure only these commands")
    args = parser.parse_args()
    variants = {}
    for spec in args.variant:
        name, _, folder = spec.partition("=")
        variants[name] = (ROOT / folder).resolve()
    table = commands(str(Path(args.home).resolve()))
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} load {os.getloadavg()[0]:.2f}, "
          f"{args.runs} runs a command and variant, alternated")
    for name, (argv, stdin, server) in table.items():
        if args.only and name not in args.only:
            continue
        samples: dict[str, list[tuple[float, float]]] = {v: [] for v in variants}
        for v, host in variants.items():
            run_once(host, argv, stdin, server)  # warm-up
        for _ in range(args.runs):
            for v, host in variants.items():
                samples[v].append(run_once(host, argv, stdin, server))
        medians = {v: (statistics.median(c for c, _ in s), statistics.median(w for _, w in s))
                   for v, s in samples.items()}
        cells = "  ".join(f"{v}: cpu {c:.3f} s wall {w:.3f} s" for v, (c, w) in medians.items())
        first = next(iter(medians.values()))
        ratios = "  ".join(f"{v}/{next(iter(medians))}: cpu {c / first[0]:.2f} wall {w / first[1]:.2f}"
                           for v, (c, w) in list(medians.items())[1:])
        print(f"{name:30} {cells}  {ratios}", flush=True)
    print(f"# load at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
