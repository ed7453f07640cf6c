"""scripts/bench/reader_soak.py runs, tiny: one round of each soak with every kill taken.

The benchmark follows a folder with `atc watch` while CLI writers remember and forget (some
SIGKILLed), and serves a grantee over `atc serve` beside `atc mcp` while another process
forgets what they remember; it had no test, so a change to a command it drives could break it
unseen until the next long run. One round with `--kill-share 1` takes every path: a writer,
the watcher and a server killed and started again.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_one_round_of_each_soak_with_kills_finds_nothing_wrong(tmp_path):
    out = tmp_path / "soak.json"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "reader_soak.py"),
                           "--rounds", "1", "--kill-share", "1", "--seed", "3",
                           "--json", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    figures = json.loads(out.read_text(encoding="utf-8"))
    watch, servers = figures["watch"], figures["servers"]
    assert watch["rounds"] == servers["rounds"] == 1
    assert watch["watcher_kills"] == 1 and servers["restarts"] == 1   # the kill paths ran
    assert watch["missing_turns"] == [] and watch["tracebacks"] == 0
    assert watch["leaks"] == [] and watch["writer_failures"] == []
    assert servers["leaks"] == [] and servers["file_leaks"] == []
    assert servers["failed_calls"] == [] and servers["writer_failures"] == []
    assert watch["doctor"] is None and servers["doctor"] is None
