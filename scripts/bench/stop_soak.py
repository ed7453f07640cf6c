#!/usr/bin/env python3
"""Stop soak: SIGTERM (or Ctrl-C) the long-running commands while they are busy, many times;
each must exit 0 within seconds.

* **watch**: ``atc watch`` on a fresh home (``hash`` embedder) and a folder of three sessions
  (1,200 items: a backfill batch of seconds), a file appended to every 50 ms, and every third
  trial an ``atc remember`` waiting for the lock; signalled after a random delay (1.5-8 s:
  while it opens the home, mid-batch, or between batches).
* **serve**: ``atc serve`` on a small granted home, with four clients sending frames, 3 s
  queries and ``whoami`` requests, and every other trial an ``atc remember`` writing the home;
  signalled after 0.5-4 s.

Per trial: the exit status and the seconds from the signal to the end. A process still alive
``--hang-after`` seconds after the signal is a *hang*: every thread's stack is saved with
``gdb`` (when installed) to the work folder, then it is killed; the work folder is kept (and
named) only when a trial hung, or with ``--keep DIR``. ``--host NAME=DIR`` (repeated)
runs the trials in turn with each package (``DIR`` holding ``attention_cloud``, with
``rules/`` and ``facts/`` beside it, as ``git archive REV host rules facts`` unpacks them), so a
fix and its baseline meet the same load.

    .venv/bin/python scripts/bench/stop_soak.py [--trials 30] [--signal TERM|INT]
        [--commands watch serve] [--seed 1] [--host NAME=DIR ...] [--json PATH] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import ROOT, WorkFolder, run_header  # noqa: E402

ATC = [sys.executable, "-m", "attention_cloud.cli"]


def _env(host: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(host), **extra)


def _turn(session: str, i: int) -> str:
    role = "user" if i % 2 == 0 else "assistant"
    text = f"goal {i} tune retry {i} " * 5
    return json.dumps({"type": role, "uuid": f"{session}-{i}", "sessionId": session,
                       "timestamp": "2026-01-01T10:00:00Z",
                       "message": {"role": role, "content": text}}) + "\n"


def _stopped(proc: subprocess.Popen, sig: int, hang_after: float, work: Path,
             name: str) -> tuple[Any, float | None, str]:
    """Signal ``proc``; (exit status or "hang", seconds to its end, its stderr)."""
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=hang_after)
        return proc.returncode, time.monotonic() - sent, err
    except subprocess.TimeoutExpired:
        if shutil.which("gdb"):
            with open(work / f"hang-{name}-{proc.pid}.txt", "w") as out:
                subprocess.run(["gdb", "-p", str(proc.pid), "-batch", "-ex",
                                "thread apply all bt"], stdout=out, stderr=subprocess.STDOUT)
        proc.kill()
        _, err = proc.communicate()
        return "hang", None, err


def watch_trial(t: int, host: Path, sig: int, rng: random.Random, work: Path,
                hang_after: float) -> dict[str, Any]:
    home, folder = work / f"watch-home-{t}", work / f"watch-src-{t}"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    folder.mkdir()
    for k in range(3):
        (folder / f"s{k}.jsonl").write_text("".join(_turn(f"S{k}", i) for i in range(400)))
    proc = subprocess.Popen(ATC + ["watch", str(folder), "--home", str(home), "--format-output",
                                   "json", "--debounce", "0.1", "--settle", "0.5"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=_env(host))
    done = threading.Event()

    def append() -> None:
        i = 0
        while not done.wait(0.05):
            with open(folder / "live.jsonl", "a", encoding="utf-8") as fh:
                fh.write(_turn("L", i))
            i += 1

    writer = threading.Thread(target=append, daemon=True)
    writer.start()
    other = None
    if t % 3 == 0:
        other = subprocess.Popen(ATC + ["remember", f"note {t}", "--home", str(home)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=_env(host, ATC_LOCK_WAIT="60"))
    delay = rng.uniform(1.5, 8.0)
    time.sleep(delay)
    code, took, _ = _stopped(proc, sig, hang_after, work, "watch")
    done.set()
    writer.join()
    if other is not None:
        other.wait()
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    return {"delay": round(delay, 2), "exit": code, "seconds": took and round(took, 2)}


#: Builds the served home through the Python API in one process of the package under test
#: (argv: the home, the transcript) and prints bob's token. Five ``atc`` commands did it before:
#: the home is not what the soak stops, and each start of Python and SWI-Prolog cost about
#: 1.2 s of CPU to do a few milliseconds of work.
GRANTED_HOME = """
import sys
from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal
with Memory.open(sys.argv[1]) as mem:
    mem.ingest([sys.argv[2]])
    mem.curate()
    add_principal(mem, "alice", owner=True)
    token = add_principal(mem, "bob")
    add_grant(mem, "bob", segments=["default"], ceiling="L2")
print(token)
"""


def _granted_home(work: Path, host: Path) -> tuple[Path, str]:
    home = work / "serve-home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    sample = ROOT / "tests" / "fixtures" / "ingest" / "claude_code_session.jsonl"
    done = subprocess.run([sys.executable, "-c", GRANTED_HOME, str(home), str(sample)],
                          capture_output=True, text=True, env=_env(host), check=True)
    return home, done.stdout.split()[-1]


def _call(url: str, token: str, path: str, body: dict | None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError as exc:
        return type(exc).__name__


def serve_trial(t: int, host: Path, sig: int, rng: random.Random, work: Path,
                hang_after: float, home: Path, token: str) -> dict[str, Any]:
    proc = subprocess.Popen(ATC + ["serve", "--port", "0", "--home", str(home)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(host, PYTHONUNBUFFERED="1"))
    url = proc.stdout.readline().split()[-1]
    done = threading.Event()
    asks = [("/v1/hydrate", {"goal": "retry policy", "budget": 800}),
            ("/v1/query", {"goal": "repeat, fail", "time_limit": 3}), ("/v1/whoami", None)]

    def client(path: str, body: dict | None) -> None:
        while not done.is_set():
            _call(url, token, path, body)

    clients = [threading.Thread(target=client, args=asks[k % 3], daemon=True) for k in range(4)]
    for c in clients:
        c.start()
    other = None
    if t % 2 == 0:
        other = subprocess.Popen(ATC + ["remember", f"serve note {t}", "--no-curate", "--home",
                                        str(home)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, env=_env(host, ATC_LOCK_WAIT="60"))
    delay = rng.uniform(0.5, 4.0)
    time.sleep(delay)
    code, took, _ = _stopped(proc, sig, hang_after, work, "serve")
    done.set()
    for c in clients:
        c.join(timeout=60)
    if other is not None:
        other.wait()
    return {"delay": round(delay, 2), "exit": code, "seconds": took and round(took, 2)}


def summary(trials: list[dict[str, Any]]) -> dict[str, Any]:
    """Exit statuses counted, and the seconds to exit (max, median) of the trials that ended."""
    took = sorted(r["seconds"] for r in trials if r["seconds"] is not None)
    exits: dict[str, int] = {}
    for r in trials:
        exits[str(r["exit"])] = exits.get(str(r["exit"]), 0) + 1
    return {"trials": len(trials), "exits": exits, "hangs": exits.get("hang", 0),
            "max_s": took[-1] if took else None, "p50_s": took[len(took) // 2] if took else None}


def _soak(command: str, args: argparse.Namespace, hosts: dict[str, str], sig: int,
          work: Path) -> dict[str, Any]:
    """The trials of ``command`` with each package, in ``work``; each package's summary."""
    rng = random.Random(args.seed)
    results: dict[str, list] = {name: [] for name in hosts}
    served = {}
    for t in range(args.trials * len(hosts)):
        name = list(hosts)[t % len(hosts)]
        host = Path(hosts[name])
        if command == "watch":
            result = watch_trial(t, host, sig, rng, work, args.hang_after)
        else:
            if name not in served:
                (work / name).mkdir()
                served[name] = _granted_home(work / name, host)
            result = serve_trial(t, host, sig, rng, work, args.hang_after, *served[name])
        results[name].append(result)
        print(f"{command} {name} {t}: {result}", flush=True)
    figures = {name: summary(rs) for name, rs in results.items()}
    print(f"{command}: {json.dumps(figures)}", flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=30, help="per command and package")
    parser.add_argument("--signal", choices=["TERM", "INT"], default="TERM")
    parser.add_argument("--commands", nargs="+", choices=["watch", "serve"],
                        default=["watch", "serve"])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hang-after", type=float, default=90.0, metavar="SECONDS")
    parser.add_argument("--host", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="work in DIR and keep it (without it, the work folder is kept "
                             "only when a trial hung)")
    args = parser.parse_args(argv)
    hosts = dict(h.split("=", 1) for h in args.host) or {"this": str(ROOT / "host")}
    sig = getattr(signal, f"SIG{args.signal}")
    print(run_header("Stop soak: SIGTERM and Ctrl-C of atc watch and atc serve while busy"))
    with WorkFolder("atc-stop-soak-", args.keep) as work:
        figures = {command: _soak(command, args, hosts, sig, work.path)
                   for command in args.commands}
        hangs = sum(r["hangs"] for by_host in figures.values() for r in by_host.values())
        if hangs:
            work.keep(f"{hangs} hang(s): each one's stacks in hang-*.txt when gdb is installed")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
