"""A writer that cuts damaged lines off the BM25 log says so, and curate re-indexes them.

A writer's open of the BM25 index (ingest, remember, curate) cut the log at its first
unreadable line without a word: the entries after it (items ingested before the damage) were
gone, and so were the later items an ingest wrote after such a cut, unfindable by BM25 with
no sign until a curate happened to repair them; `atc doctor` then found nothing wrong. Now
the cut prints one ``atc: warning:`` line naming the log, `atc doctor` reports it until a
curate has re-indexed the live records, and that curate clears it.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.doctor import run_doctor
from test_damaged_home_files import _garble_line


def _cut_lines(home: Path) -> list[str]:
    return [line for line in run_doctor(str(home))[1] if line.strip().startswith("lexical: CUT")]


def test_a_writer_cutting_a_damaged_bm25_log_warns_and_curate_reindexes(
        curated_samples_home: Path) -> None:
    home = curated_samples_home
    log = home / "lexical" / "lexical.jsonl"
    with Memory.open(home) as mem:
        keys = set(mem.jump.lexical.keys())
    _garble_line(log, 2)
    run = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "remember",
                          "the staging DB is read-only on Fridays", "--no-curate",
                          "--home", str(home)], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    warned = [line for line in run.stderr.splitlines() if line.startswith("atc: warning: ")]
    assert len(warned) == 1 and str(log) in warned[0] and "atc curate" in warned[0], run.stderr
    with Memory.open(home) as mem:
        lost = keys - set(mem.jump.lexical.keys())
    assert lost  # the cut dropped entries ...
    assert _cut_lines(home) and not run_doctor(str(home))[0]  # ... and doctor says so
    with Memory.open(home) as mem:
        assert mem.curate().repaired > 0
        assert keys <= set(mem.jump.lexical.keys())  # every lost entry is back
    assert _cut_lines(home) == []
