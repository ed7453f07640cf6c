#!/usr/bin/env python3
"""Snapshot races: a watcher that snapshots, a second writer, and kill -9 during snapshot writes.

Each trial on one memory home:
  1. a *watcher* process opens the home and waits;
  2. meanwhile a *writer* runs `atc ingest` of another new session and is acknowledged (exit 0),
     so the watcher's view is stale;
  3. the watcher then, over and over, ingests a new session and writes a snapshot;
  4. the watcher is killed with SIGKILL at a random moment, most often inside a snapshot write.
Then the home is checked: every acknowledged item is there (lost: goal 0), it reopens (failed
reopens: goal 0), and its facts equal those of the journal replayed without any snapshot
(duplicated or missing facts: goal 0).

    .venv/bin/python scripts/bench/snapshot_race.py --trials 100
    .venv/bin/python scripts/bench/snapshot_race.py --trials 100 --update-md
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
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

WATCHER = r"""
import json, sys
from pathlib import Path
from attention_cloud import Memory
import attention_cloud.store as store
home, folder, first = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
store.SNAPSHOT_PART_FACTS = int(sys.argv[5])  # small: every snapshot is written in several parts
import time
mem = Memory.open(home)
print("open", flush=True)
time.sleep(float(sys.argv[4]))  # the writer commits meanwhile: this view is now stale
n = first
while True:
    path = folder / f"w{n}.jsonl"
    path.write_text(json.dumps({"type": "user", "uuid": f"w{n}", "sessionId": f"W{n}",
        "timestamp": "2026-02-01T10:00:00Z",
        "message": {"role": "user", "content": f"watcher task {n}"}}) + "\n")
    mem.ingest([path])
    print(f"ack W{n}", flush=True)
    mem.snapshot()
    print(f"snap W{n}", flush=True)
    n += 1
"""

CHECK = r"""
import json, sys
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.bridge import Var
with Memory.open(Path(sys.argv[1])) as mem:
    rows = mem.query("item_session(H, S)", limit=1_000_000).rows
    (facts,) = mem.pl.once("atc_store:store_fact_count", Var())
    print(json.dumps({"sessions": sorted({r["S"] for r in rows}), "facts": facts,
                      "snapshot_facts": mem.open_info.snapshot_facts}))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


def _session_file(folder: Path, name: str) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text(json.dumps({"type": "user", "uuid": name, "sessionId": name,
                                "timestamp": "2026-02-01T11:00:00Z",
                                "message": {"role": "user", "content": f"writer task {name}"}})
                    + "\n")
    return path


def _check(home: Path) -> dict | None:
    proc = subprocess.run([sys.executable, "-c", CHECK, str(home)], capture_output=True,
                          text=True, env=_env(), timeout=600)
    return json.loads(proc.stdout.strip().splitlines()[-1]) if proc.returncode == 0 else None


def trial(home: Path, folder: Path, index: int, rng: random.Random, part_facts: int) -> dict:
    """One trial; what it found."""
    acked: set[str] = set()
    watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(home), str(folder),
                                str(index * 1000), "3", str(part_facts)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=_env())
    assert watcher.stdout is not None
    assert watcher.stdout.readline().strip() == "open"
    writer_name = f"X{index}"
    writer = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", "ingest",
                               str(_session_file(folder, writer_name)), "--home", str(home)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    if writer.wait(timeout=600) == 0:
        acked.add(writer_name)
    deadline = time.monotonic() + rng.uniform(4.0, 9.0)
    os.set_blocking(watcher.stdout.fileno(), False)
    snaps = 0
    while time.monotonic() < deadline and watcher.poll() is None:
        line = watcher.stdout.readline()
        if line.startswith("ack "):
            acked.add(line.split()[1])
        elif line.startswith("snap "):
            snaps += 1
        elif not line:
            time.sleep(0.01)
    watcher.send_signal(signal.SIGKILL)
    watcher.wait()
    for line in watcher.stdout.read().splitlines() if watcher.stdout else []:
        if line.startswith("ack "):
            acked.add(line.split()[1])
    found = _check(home)
    if found is None:
        return {"reopen_failed": 1, "lost": 0, "fact_differences": 0, "snapshots": snaps}
    replayed = Path(tempfile.mkdtemp(prefix="replay-", dir=folder))
    shutil.copy(home / "journal.pl", replayed / "journal.pl")
    truth = _check(replayed)
    shutil.rmtree(replayed)
    lost = len(acked - set(found["sessions"]))
    differences = abs(found["facts"] - truth["facts"]) if truth else 1
    return {"reopen_failed": 0, "lost": lost, "fact_differences": differences,
            "snapshots": snaps, "acked": len(acked)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--part-facts", type=int, default=20,
                    help="facts in each part of the watcher's snapshots (default 20: several parts, "
                         "so kills land between their compilations)")
    ap.add_argument("--update-md", action="store_true")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    totals = {"trials": 0, "acked": 0, "snapshots": 0, "lost": 0, "reopen_failed": 0,
              "fact_differences": 0}
    with tempfile.TemporaryDirectory(prefix="snapshot-race-") as tmp:
        home, folder = Path(tmp) / "home", Path(tmp) / "files"
        folder.mkdir()
        for index in range(args.trials):
            got = trial(home, folder, index, rng, args.part_facts)
            totals["trials"] += 1
            for key in ("acked", "snapshots", "lost", "reopen_failed", "fact_differences"):
                totals[key] += got.get(key, 0)
            print(f"trial {index + 1}/{args.trials}: {json.dumps(got)}", file=sys.stderr,
                  flush=True)
    from bench_env import markdown_table, run_header

    table = markdown_table(["trials", "acknowledged items", "snapshots completed",
                            "lost (goal 0)", "failed reopens (goal 0)",
                            "fact differences vs. journal replay (goal 0)"],
                           [[totals["trials"], totals["acked"], totals["snapshots"],
                             totals["lost"], totals["reopen_failed"],
                             totals["fact_differences"]]])
    print(table)
    if args.update_md:
        from bench_env import update_benchmarks

        update_benchmarks("Crash safety", "Snapshot races",
                          run_header("Snapshot races") + "\n" + table)
    bad = totals["lost"] + totals["reopen_failed"] + totals["fact_differences"]
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
