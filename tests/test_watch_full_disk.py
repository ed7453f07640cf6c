"""`atc watch` whose home's file system refuses a write: it says so plainly, stays up, and
completes the batch once writes go through.

The journal's refused write reached the watcher as SWI-Prolog's stream error, and its error
event said `write/2: I/O error in write on stream <stream>(0x55cc55519640) (File too large)`:
a stream's address, where `atc ingest` says `writing to the memory home failed: File too
large`. The event now says what the CLI says. A file-size limit (RLIMIT_FSIZE) stands in for a
full disk, as in tests/test_journal_damage.py.

A full disk met first by the BM25 index's own write (Python's, not Prolog's) ended the watcher
with that error and exit 1: it retried only AtcError, and giving the lock back flushed the
index again and raised again. Now the index lets go of what it held unwritten and the batch is
retried as for the journal.
"""
from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.embed.lexical import LexicalIndex
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir
from attention_cloud.watch import Watcher, WatchOptions
from watching import WatchProcess, drive


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


@pytest.mark.parametrize("refusals", [1, 2], ids=["the batch's flush", "and the release's"])
def test_a_full_disk_met_first_by_the_bm25_index_is_retried_and_every_item_indexed(
        home: Path, tmp_path: Path, monkeypatch, refusals: int) -> None:
    write_config(home, {"embedder": "hash"})
    folder = tmp_path / "sessions"
    folder.mkdir()
    sample = sorted(Path(samples_dir()).glob("*.jsonl"))[0]
    shutil.copy(sample, folder / sample.name)
    real_flush, calls = LexicalIndex.flush, []

    def flush_on_a_full_disk(self) -> None:
        calls.append(1)
        if len(calls) <= refusals:  # the ingest's flush; then the one giving the lock back
            raise OSError(errno.ENOSPC, "No space left on device", "lexical/lexical.jsonl")
        real_flush(self)

    monkeypatch.setattr(LexicalIndex, "flush", flush_on_a_full_disk)
    events: list[dict] = []
    mem = Memory.open(home)
    try:
        watcher = Watcher(mem, [folder], WatchOptions(poll=True, interval=0.2, debounce=0.1,
                                                      settle=0.3, curate=False), events.append)
        missed = drive(watcher, [(lambda: any(e["event"] == "batch" and e["new"]
                                              for e in list(events)), lambda: None)])
    finally:
        mem.close()
    assert missed == [], events
    errors = [e for e in events if e["event"] == "error"]
    assert [e["message"] for e in errors] == [
        "No space left on device: lexical/lexical.jsonl"], events
    monkeypatch.undo()
    with Memory.open(home) as mem:
        handles = [str(r["H"]) for r in mem.query("item(H)", limit=10_000).rows]
        assert handles and sum(e.get("new", 0) for e in events if e["event"] == "batch") \
            == len(handles)
        lexical = mem.jump.lexical
        assert [h for h in handles if not lexical.has(h)] == []
