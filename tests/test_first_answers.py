"""First answers while curation works: ingest makes items findable by BM25 at once.

A user who ingests a large history asks a question before ``atc curate`` finishes: the frame
finds the item by an exact word (path ``lexical``) and the receipt says how much of memory is
not embedded yet; after curation the same goal is answered ``hybrid``.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.ingest_index import PENDING_FILE, finish_pending

TRANSCRIPT = """Support chat export, 2026-02-11

User: The nightly export job crashes with MemoryError on tables over 2 GB.
Assistant: The job calls fetchall() in exporter.py; I switched it to a server-side cursor.
User: Also the quokkaline staging bucket keeps refusing uploads after midnight.
Assistant: The bucket policy denies writes outside business hours; I widened the window.
User: And please compress the output with gzip, level 6.
"""


def run(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)


def write_transcript(tmp_path: Path, text: str = TRANSCRIPT) -> Path:
    path = tmp_path / "support.txt"
    path.write_text(text)
    return path


def frame(home: Path, goal: str) -> dict:
    out = run("hydrate", "--goal", goal, "--format", "json", "--budget", "400", home=home)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_ingest_then_hydrate_finds_a_rare_word_before_curation(home, tmp_path):
    write_config(home, {"embedder": "hash"})
    assert run("ingest", str(write_transcript(tmp_path)), home=home).exit_code == 0
    before = frame(home, "what happened with the quokkaline bucket")
    receipt = before["receipt"]
    assert receipt["path"] == "lexical"
    assert receipt["uncurated"] == 5 and receipt["unembedded"] == 5
    first = receipt["facts"][0]
    assert first["seeded_by"] == "relevance"  # the BM25 hit seeds the frame, not recency
    with Memory.open(home) as mem:
        assert "quokkaline" in mem.item(first["handle"]).text
    assert not (home / PENDING_FILE).exists()

    assert run("curate", home=home).exit_code == 0
    after = frame(home, "what happened with the quokkaline bucket")
    assert after["receipt"]["path"] == "hybrid"
    assert after["receipt"]["uncurated"] == 0 and after["receipt"]["unembedded"] == 0
    assert after["receipt"]["facts"][0]["handle"] == first["handle"]


def test_curation_keeps_the_entry_ingest_wrote(home, tmp_path):
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        report = mem.ingest([write_transcript(tmp_path)])
        lexical = mem.jump.lexical
        assert all(lexical.has(h) for h in report.new_handles)
        log = home / "lexical" / "lexical.jsonl"
        size = log.stat().st_size
        mem.curate()
        # curation added arcs, never a second entry for an item ingest had indexed
        records = [json.loads(line) for line in log.read_text().splitlines()]
        keys = [r["k"] for r in records if "k" in r]
        assert len(keys) == len(set(keys))
        assert log.stat().st_size > size
        assert lexical.meta(report.new_handles[0])["record"] == "item"


def test_a_killed_ingest_is_indexed_by_the_next_writer(home, tmp_path):
    """The batch was committed but the kill came before its BM25 entries: the pending file
    names its items and the next ingest (or curate) indexes those still live."""
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        report = mem.ingest([write_transcript(tmp_path)])
        mem.jump.remove(report.new_handles)  # as if the entries were never written
        mem.jump.flush()
        (home / PENDING_FILE).write_text(
            json.dumps({"items": report.new_handles + ["it_0000000000000000"]}) + "\n{\"items\": [")
        assert finish_pending(mem) == 5
        assert all(mem.jump.lexical.has(h) for h in report.new_handles)
        assert not mem.jump.lexical.has("it_0000000000000000")
        assert not (home / PENDING_FILE).exists()
        # the same, finished by the next ingest even when that one has nothing new to write
        mem.jump.remove(report.new_handles)
        mem.jump.flush()
        (home / PENDING_FILE).write_text(json.dumps({"items": report.new_handles}) + "\n")
        again = mem.ingest([write_transcript(tmp_path)])
        assert again.new == 0 and not (home / PENDING_FILE).exists()
        assert all(mem.jump.lexical.has(h) for h in report.new_handles)


def test_no_embedder_home_says_nothing_of_embedding(home, tmp_path):
    write_config(home, {"embedder": "none"})
    assert run("ingest", str(write_transcript(tmp_path)), home=home).exit_code == 0
    receipt = frame(home, "quokkaline bucket")["receipt"]
    assert receipt["path"] == "lexical" and "unembedded" not in receipt


def test_a_frame_during_curation_uses_what_is_already_embedded(home, monkeypatch):
    """Curation commits batch by batch; a reader between two batches gets a hybrid frame over
    the embedded part, and its receipt counts the rest as not embedded yet."""
    import subprocess
    import sys

    import attention_cloud.curation as curation
    from attention_cloud.paths import samples_dir

    write_config(home, {"embedder": "hash"})
    monkeypatch.setattr(curation, "BATCH", 20)
    seen: list[dict] = []

    def read_between_batches(event):
        if event.phase == "curating items" and event.done == 20:
            out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "hydrate", "--goal",
                                  "retry policy", "--format", "json", "--home", str(home)],
                                 capture_output=True, text=True, timeout=300)
            assert out.returncode == 0, out.stderr
            seen.append(json.loads(out.stdout)["receipt"])

    with Memory.open(home) as mem:
        total = mem.ingest([samples_dir()]).new
        mem.curate(progress=read_between_batches)
    (during,) = seen
    assert during["path"] == "hybrid"
    assert during["uncurated"] == during["unembedded"] == total - 20


def _written_long_ago(path: Path) -> Path:
    """``path`` with a modification time an hour back: a finished transcript, which the
    watcher reads whole at once (the last turn of a file changed within its settle time, 10 s,
    is held back until the file has been quiet that long: test_watch.py's subject, and here
    ten seconds of waiting for nothing)."""
    old = time.time() - 3600
    os.utime(path, (old, old))
    return path


def test_the_watcher_curates_what_each_poll_ingested(home, tmp_path):
    import subprocess
    import sys

    from watching import PipeLines

    write_config(home, {"embedder": "hash"})
    folder = tmp_path / "live"
    folder.mkdir()
    _written_long_ago(write_transcript(folder))
    proc = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", "ingest", str(folder),
                             "--watch", "--curate", "--interval", "0.3", "--home", str(home)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ})
    out, err = PipeLines(proc.stdout), PipeLines(proc.stderr)

    def curated(batches: int, goal: str) -> dict:
        """Wait for the watcher's report of its ``batches``-th curate (it prints one after
        each batch it curated), then frame ``goal``; the frame's receipt."""
        out.wait_for(lambda lines: sum(line.startswith("curate: items: ") for line in lines)
                     >= batches, proc, f"curate report {batches}", timeout=240)
        return frame(home, goal)["receipt"]

    try:
        receipt = curated(1, "quokkaline bucket")
        assert receipt["path"] == "hybrid" and receipt["uncurated"] == 0, receipt
        # a finished file moved in (as a copy would arrive whole)
        later = tmp_path / "later.txt"
        later.write_text("User: the zebrafinch cron job runs at 04:10 UTC now.\n")
        _written_long_ago(later)
        os.replace(later, folder / "later.txt")
        receipt = curated(2, "zebrafinch cron")
        assert receipt["path"] == "hybrid" and receipt["uncurated"] == 0, receipt
        assert receipt["facts"][0]["seeded_by"] == "relevance", receipt
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    reports = [line for line in out.text().splitlines() if line.startswith("curate: items: ")]
    # the first file whole in the first batch, then the new file's one turn
    assert len(reports) == 2, out.text() + err.text()
    assert reports[0].startswith("curate: items: 5 ") and reports[1].startswith("curate: items: 1 ")


def test_curate_on_ingest_needs_watch(home, tmp_path):
    out = run("ingest", str(write_transcript(tmp_path)), "--curate", home=home)
    assert out.exit_code != 0
    assert out.output.startswith("atc: --curate goes with --watch")
    assert not (home / "journal.pl").exists()


def test_bm25_entries_come_from_the_wire_text_even_with_a_nul_and_a_speaker():
    from attention_cloud.ingest_index import entries_of
    from attention_cloud.wire import decode_fields, encode_fields

    fields = ["it_1", "src", "S", "3", "user", "user", "goal", "", "work", "=1",
              "zebra\x00finch \x1f text", "speaker", "Priya", "mentions", "x"]
    assert decode_fields(encode_fields(fields)) == fields
    (entry,) = entries_of([encode_fields(fields)])
    assert entry.handle == "it_1" and entry.text == "Priya: zebra\x00finch \x1f text"
    assert entry.meta == {"record": "item", "level": "l0", "kind": "user", "segment": "work"}


def test_a_strict_ingest_that_fails_leaves_no_bm25_entry_behind(home, tmp_path, monkeypatch):
    import attention_cloud.memory as memory
    from attention_cloud.errors import InputError

    monkeypatch.setattr(memory, "BATCH_ITEMS", 1)  # the good file is written before the bad one
    session = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_session.jsonl"
    good, second = tmp_path / "a.jsonl", tmp_path / "a2.jsonl"
    good.write_bytes(session.read_bytes())
    second.write_bytes(session.read_bytes())  # a batch is written when the next file arrives
    bad = tmp_path / "b.jsonl"
    bad.write_bytes(b"\x00\x01\x02 binary garbage \xff\xfe")
    write_config(home, {"embedder": "hash"})
    import attention_cloud.ingest_index as ingest_index

    dropped: list[str] = []
    real_drop = ingest_index.drop_entries
    monkeypatch.setattr(ingest_index, "drop_entries",
                        lambda mem, handles: (dropped.extend(handles), real_drop(mem, handles)))
    with Memory.open(home) as mem:
        with pytest.raises(InputError, match="b.jsonl"):
            mem.ingest([good, second, bad])
        assert dropped  # the good file had been written and indexed, then cut off
        assert len(mem.jump.lexical) == 0
        assert not (home / PENDING_FILE).exists()
