"""`atc watch` whose home's file system refuses a write: it says so plainly, stays up, and
completes the batch once writes go through.

The journal's refused write reached the watcher as SWI-Prolog's stream error, and its error
event said `write/2: I/O error in write on stream <stream>(0x55cc55519640) (File too large)`:
a stream's address, where `atc ingest` says `writing to the memory home failed: File too
large`. The event now says what the CLI says. A file-size limit (RLIMIT_FSIZE) stands in for a
full disk, as in tests/test_journal_damage.py.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.paths import samples_dir
from watching import WatchProcess


def test_a_refused_write_is_said_plainly_and_the_batch_completes_once_writes_go_through(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    folder = tmp_path / "sessions"
    folder.mkdir()
    for sample in sorted(Path(samples_dir()).glob("*.jsonl")):
        shutil.copy(sample, folder / sample.name)
    reference = tmp_path / "reference"
    reference.mkdir()
    shutil.copy(home / "config.json", reference / "config.json")
    with Memory.open(reference) as mem:
        expected = mem.ingest([folder]).new
    watcher = WatchProcess(home, str(folder), "--no-curate", file_bytes=20_000)
    try:
        error = watcher.wait_for(lambda e: e["event"] == "error", timeout=120)
        assert error["message"] == "writing to the memory home failed: File too large"
        assert error["retry_in_s"] >= 1
        watcher.lift_file_limit()
        watcher.wait_for(lambda _: sum(b["new"] for b in watcher.batches_since(0)) >= expected,
                         timeout=180)
    finally:
        assert watcher.stop() == 0
    with Memory.open(home) as mem:
        assert len(mem.query("item(H)", limit=10_000).rows) == expected
