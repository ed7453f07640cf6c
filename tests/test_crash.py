"""Fault test: SIGKILL `atc ingest` at random moments; acknowledged batches are never lost."""
from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from attention_cloud import Memory


def _session_file(path: Path, session: str, n: int) -> None:
    lines = []
    for i in range(n):
        if i % 2 == 0:
            rec = {"type": "user", "uuid": f"{session}-u{i}", "sessionId": session,
                   "message": {"role": "user", "content": f"goal {i} of {session}: tune retry {i}"}}
        else:
            rec = {"type": "assistant", "uuid": f"{session}-a{i}", "sessionId": session,
                   "message": {"role": "assistant",
                               "content": f"Concluded step {i} for {session}: latency {i} ms."}}
        lines.append(json.dumps(rec))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _ingest(home: Path, src: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", "ingest", str(src),
                             "--home", str(home), "--format-output", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _live_count(home: Path) -> int:
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "stats", "--home",
                          str(home), "--format", "json"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["live"]


def test_sigkill_never_loses_acknowledged_items(tmp_path):
    rng = random.Random(20261130)
    home = tmp_path / "home"
    acknowledged = 0
    killed = completed = 0
    for attempt in range(22):
        src = tmp_path / f"s{attempt}.jsonl"
        _session_file(src, f"S{attempt}", 2000)
        proc = _ingest(home, src)
        time.sleep(rng.uniform(0.2, 1.8))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        killed += proc.returncode == -signal.SIGKILL
        completed += proc.returncode == 0
        if proc.returncode == 0:  # the report printed: the batch was acknowledged
            acknowledged += json.loads(out)["new"]
        # the home always reopens, and holds at least every acknowledged item
        live = _live_count(home)
        assert live >= acknowledged
        acknowledged = live  # a batch killed after its fsync but before the report counts too
    assert killed >= 4 and completed >= 3, (killed, completed)  # both paths were exercised
    with Memory.open(home) as mem:
        assert mem.stats()["live"] == acknowledged
