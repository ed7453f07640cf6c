#!/usr/bin/env python3
"""Wall time of one ``atc hook user-prompt`` process on a curated 10k-item home.

Claude Code runs the hook as a new process before every prompt, so what counts is the whole
process: interpreter start, imports, loading the Prolog rules, opening the home (snapshot plus
journal tail), loading the embedder, the frame, the ambient decision and the output. The home is
the generated corpus of ``--items`` items (``gen_corpus.py``), curated with ``--embedder``
(cached under ``.local/bench-cache/``). Each run pipes a UserPromptSubmit payload (a goal from
the corpus's own vocabulary, a fresh session id) into a new ``atc hook user-prompt``.

    .venv/bin/python scripts/bench/hook_speed.py --items 10000 --embedder hash --runs 40
    .venv/bin/python scripts/bench/hook_speed.py --home .local/bench-cache/ambient-minilm/07741c44/home

Also prints the CPU time of each hook process (less sensitive than wall time to a machine
shared with other work), the warm server's own time per prompt, and where one cold process
spends its time (in-process phases, measured once).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import build_home, percentile_ms, run_header  # noqa: E402

PROMPTS = [
    "why does the retry policy fail on processor timeouts",
    "what did we decide about the webhook signature check",
    "tests failing in the payments module after the refactor",
    "how is the idempotency key stored",
    "fix the flaky integration test for refunds",
    "which files touch the logging configuration",
    "what broke in the deploy last week",
    "add pagination to the invoices endpoint",
]

PHASES = r"""
import sys, time
t0 = time.perf_counter()
from attention_cloud.agents import hooks
t1 = time.perf_counter()
from attention_cloud.bridge import get_prolog
get_prolog()
t2 = time.perf_counter()
from attention_cloud import Memory
mem = Memory.open(sys.argv[1], create=False)
t3 = time.perf_counter()
mem.jump.embedder
t4 = time.perf_counter()
r = hooks.ambient_recall(mem, sys.argv[2], session_id="phases", budget=800, record=False)
t5 = time.perf_counter()
mem.close()
print(f"imports {1000*(t1-t0):.0f} ms, Prolog rules {1000*(t2-t1):.0f} ms, open home "
      f"{1000*(t3-t2):.0f} ms, embedder {1000*(t4-t3):.0f} ms, frame+decision "
      f"{1000*(t5-t4):.0f} ms (inject={r.inject})")
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--home", type=Path, default=None,
                        help="Time this existing curated home instead (e.g. a MiniLM one).")
    args = parser.parse_args(argv)
    home = args.home or build_home(args.items, embedder=args.embedder, curate=True).path
    atc = str(Path(sys.executable).parent / "atc")
    what = f"{args.home}" if args.home else f"a {args.items}-item home ({args.embedder})"
    print(run_header(f"atc hook user-prompt on {what}"))
    from attention_cloud.agents.recall_server import ask, socket_path

    for mode in ("cold", "warm"):
        env = {**os.environ, "ATC_HOOK_SERVER": "off" if mode == "cold" else "on"}
        payload = {"session_id": "warm", "transcript_path": "", "cwd": "/nowhere",
                   "hook_event_name": "UserPromptSubmit", "prompt": PROMPTS[0]}
        # one untimed run first: the page cache; in warm mode it starts the recall server
        subprocess.run([atc, "hook", "user-prompt", "--home", str(home), "--segment", "default"],
                       input=json.dumps(payload), capture_output=True, text=True, env=env)
        if mode == "warm":
            deadline = time.monotonic() + 120
            while not socket_path(home).exists() and time.monotonic() < deadline:
                time.sleep(0.2)
        times, cpu, injected = [], [], 0
        for n in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            payload = {**payload, "session_id": f"bench-{mode}-{n}-{time.time()}",
                       "prompt": PROMPTS[n % len(PROMPTS)]}
            started = time.perf_counter()
            run = subprocess.run([atc, "hook", "user-prompt", "--home", str(home),
                                  "--segment", "default"],
                                 input=json.dumps(payload), capture_output=True, text=True,
                                 env=env)
            times.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            injected += bool(run.stdout.strip())
            if run.returncode != 0:
                print(f"run {n}: exit {run.returncode}: {run.stderr.strip()}")
        what = ("cold: a new process does everything (ATC_HOOK_SERVER=off)" if mode == "cold"
                else "warm: the hook process asks the home's recall server")
        print(f"{what}\n  runs: {args.runs}  injected: {injected}  "
              f"p50: {percentile_ms(times, 50):.0f} ms  p95: {percentile_ms(times, 95):.0f} ms  "
              f"min: {1000 * min(times):.0f} ms  max: {1000 * max(times):.0f} ms  "
              f"CPU of the hook process p50: {percentile_ms(cpu, 50):.0f} ms")
        if mode == "warm":
            took = [int(line.split(" ms=")[1].split()[0])
                    for line in (home / "hooks.log").read_text(encoding="utf-8").splitlines()
                    if "via=server" in line and " ms=" in line and f"bench-{mode}-" in line][-args.runs:]
            print(f"  the server's own time per prompt (hooks.log): "
                  f"p50 {percentile_ms([t / 1000 for t in took], 50):.0f} ms  "
                  f"p95 {percentile_ms([t / 1000 for t in took], 95):.0f} ms")
    ask(home, {"stop": True})
    env = {**os.environ}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    print(f"bare python start: {1000 * (time.perf_counter() - start):.0f} ms")
    phases = subprocess.run([sys.executable, "-c", PHASES, str(home), PROMPTS[0]],
                            capture_output=True, text=True, env=env)
    print(f"one process: {phases.stdout.strip() or phases.stderr.strip()[-400:]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
