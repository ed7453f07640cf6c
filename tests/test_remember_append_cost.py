"""`remember` read the whole of remembered.jsonl at every call to count its lines and find its
last one: each note cost a read of every note before it (10,000 notes, ~5 MB, read per call).
It now keeps the count beside the file and reads only the last line; the count is taken from
the file again whenever the file is not the one the count was written for (a crash, an
erasure, an older home), so line numbers, and the pointers made from them, stay right."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.agents.remember import _append_record

PROC_IO = Path("/proc/self/io")


def _note(i: int) -> dict:
    return {"handle": f"it_{i:016x}", "kind": "note", "segment": "default", "role": "user",
            "time": "2026-01-01T00:00:00Z", "goal": "g", "text": f"note {i} " + "word " * 80}


def _fill(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps(_note(i)) + "\n")


def _bytes_read() -> int:
    return int(next(line.split()[1] for line in PROC_IO.read_text().splitlines()
                    if line.startswith("rchar:")))


@pytest.mark.skipif(not PROC_IO.exists(), reason="needs Linux's /proc/self/io")
def test_a_note_reads_no_more_than_the_last_line(tmp_path: Path) -> None:
    path = tmp_path / "remembered.jsonl"
    _fill(path, 10_000)
    size = path.stat().st_size
    assert _append_record(path, _note(10_000)) == 10_001    # counts once: no count kept yet
    before = _bytes_read()
    for i in range(10_001, 10_021):
        assert _append_record(path, _note(i)) == i + 1
    assert _bytes_read() - before < size // 4   # 20 notes; reading the file each was 20x


def test_line_numbers_follow_the_file_when_it_changed_behind_the_count(tmp_path: Path) -> None:
    path = tmp_path / "remembered.jsonl"
    _fill(path, 3)
    assert _append_record(path, _note(3)) == 4
    with path.open("ab") as fh:                  # another writer, and a torn last line
        fh.write((json.dumps(_note(4)) + "\n").encode() + b'{"handle": "torn')
    assert _append_record(path, _note(5)) == 7   # the torn line is ended, and counts
    assert path.read_bytes().count(b"\n") == 7
    path.write_text(json.dumps(_note(0)) + "\n", encoding="utf-8")   # rewritten shorter
    assert _append_record(path, _note(1)) == 2


def test_the_same_record_again_reuses_its_line(tmp_path: Path) -> None:
    path = tmp_path / "remembered.jsonl"
    _fill(path, 5)
    record = _note(5)
    assert _append_record(path, dict(record)) == 6
    again = dict(record, time="2026-02-02T00:00:00Z")
    assert _append_record(path, again) == 6
    assert again["time"] == record["time"]
    assert path.read_bytes().count(b"\n") == 6
