"""Durability of the journal: reopen, torn tails, failed batches, snapshots."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import InputError, Memory
from attention_cloud.bridge import Var

SESSION = [
    {"type": "user", "uuid": "u1", "sessionId": "S1", "timestamp": "2026-01-01T10:00:00Z",
     "message": {"role": "user", "content": "Make the retry loop use exponential backoff"}},
    {"type": "assistant", "uuid": "a1", "sessionId": "S1", "timestamp": "2026-01-01T10:01:00Z",
     "message": {"role": "assistant",
                 "content": "Done: backoff doubles from 100 ms up to 5 retries; tests pass."}},
]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def handles(mem: Memory) -> set[str]:
    return {row["H"] for row in mem.query("item(H)", limit=10_000).rows}


def test_items_survive_reopen(home, tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", SESSION)
    with Memory.open(home) as mem:
        report = mem.ingest([src])
        before = handles(mem)
    assert report.new == 2 and len(before) == 2
    with Memory.open(home) as mem:
        assert handles(mem) == before


def test_reingest_is_an_upsert_and_growth_adds_only_new(home, tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", SESSION)
    with Memory.open(home) as mem:
        first = mem.ingest([src])
        again = mem.ingest([src])
        assert (first.new, again.new, again.files_unchanged) == (2, 0, 1)
        grown = SESSION + [{"type": "user", "uuid": "u2", "sessionId": "S1",
                            "message": {"role": "user", "content": "Now cap the delay at 2 s"}}]
        write_jsonl(src, grown)
        third = mem.ingest([src])
        assert third.new == 1 and third.unchanged == 2


def test_torn_journal_tail_is_cut_and_committed_items_stay(home, tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", SESSION)
    with Memory.open(home) as mem:
        mem.ingest([src])
        kept = handles(mem)
    journal = home / "journal.pl"
    size = journal.stat().st_size
    with open(journal, "a", encoding="utf-8") as fh:  # a batch that died mid-write
        fh.write("a(atc_journal:item_(it_torn, s, 'S', 0, error, user, \"g\", \"\", default, \"p\")).\n"
                 "a(atc_journal:text_(it_to")
    with Memory.open(home) as mem:
        assert handles(mem) == kept
        assert mem.open_info.truncated_bytes > 0
    assert journal.stat().st_size == size


def test_a_reader_that_cut_a_torn_tail_does_not_keep_writers_out(home, tmp_path):
    import subprocess
    import sys

    with Memory.open(home) as mem:
        mem.ingest([write_jsonl(tmp_path / "s.jsonl", SESSION)])
    with open(home / "journal.pl", "a", encoding="utf-8") as fh:  # a batch that died mid-write
        fh.write("a(atc_journal:text_(it_to")
    reader = Memory.open(home)
    try:
        assert reader.open_info.truncated_bytes > 0
        other = write_jsonl(tmp_path / "o.jsonl", [dict(SESSION[0], sessionId="S9", uuid="z")])
        done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "ingest", str(other),
                               "--home", str(home)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    finally:
        reader.close()


def test_failed_batch_leaves_journal_unchanged(home, tmp_path, monkeypatch):
    import attention_cloud.memory as memory

    monkeypatch.setattr(memory, "BATCH_ITEMS", 1)    # a.jsonl is written before bad's turn
    goods = [write_jsonl(tmp_path / f"{n}.jsonl",
                         [dict(r, sessionId=n, uuid=f"{r['uuid']}-{n}") for r in SESSION])
             for n in ("a", "b")]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\x00\x01\x02 binary garbage \xff\xfe")
    with Memory.open(home) as mem:
        with pytest.raises(InputError, match="bad.jsonl"):
            mem.ingest([*goods, bad])
        assert handles(mem) == set()
    assert not (home / "journal.pl").exists()


def test_snapshot_then_tail_replay(home, tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", SESSION)
    with Memory.open(home) as mem:
        mem.ingest([src])
        assert mem.snapshot() >= 2
        more = tmp_path / "t.jsonl"
        write_jsonl(more, [dict(SESSION[0], sessionId="S2", uuid="x1")])
        mem.ingest([more])
        everything = handles(mem)
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts >= 2
        assert mem.open_info.replayed > 0
        assert handles(mem) == everything


def test_snapshot_from_another_prolog_version_is_ignored(home, tmp_path):
    src = write_jsonl(tmp_path / "s.jsonl", SESSION)
    with Memory.open(home) as mem:
        mem.ingest([src])
        mem.snapshot()
        everything = handles(mem)
    meta = home / "snapshot.meta"
    fmt, version, rest = meta.read_text().split(",", 2)
    meta.write_text(f"{fmt},{int(version) - 1},{rest}", encoding="utf-8")  # another SWI-Prolog
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts == 0  # rebuilt from the journal instead
        assert handles(mem) == everything


def test_second_writer_is_refused(home, tmp_path):
    import subprocess
    import sys

    src = write_jsonl(tmp_path / "s.jsonl", SESSION)
    other_src = write_jsonl(tmp_path / "o.jsonl", [dict(SESSION[0], sessionId="S9", uuid="z")])
    with Memory.open(home) as mem:
        mem.ingest([src])  # holds the write lock now
        other = subprocess.run(
            [sys.executable, "-m", "attention_cloud.cli", "ingest", str(other_src),
             "--home", str(home)],
            capture_output=True, text=True, timeout=120)
    assert other.returncode != 0
    assert "another process is writing" in other.stderr


@pytest.mark.parametrize("value", ["ten", "-1", "inf", "nan"])
def test_an_atc_lock_wait_that_is_no_number_of_seconds_is_refused(home, tmp_path, value):
    """It was taken as 10 s without a word ("ten"), or as a wait without end ("inf")."""
    import os
    import subprocess
    import sys

    src = write_jsonl(tmp_path / "s.jsonl", SESSION)
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "ingest", str(src),
                           "--home", str(home)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ATC_LOCK_WAIT": value})
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        f"atc: ATC_LOCK_WAIT must be a number of seconds (0 or more), not {value!r}")
    assert not (home / "journal.pl").exists()


def test_large_ingests_are_written_in_batches_of_whole_files(home, tmp_path, monkeypatch):
    import attention_cloud.memory as memory

    monkeypatch.setattr(memory, "BATCH_ITEMS", 3)
    files = []
    for n in range(4):
        files.append(write_jsonl(tmp_path / f"s{n}.jsonl",
                                 [dict(r, sessionId=f"S{n}", uuid=f"{r['uuid']}-{n}") for r in SESSION]))
    with Memory.open(home) as mem:
        report = mem.ingest(files)
        assert report.new == 8
        assert (home / "journal.pl").read_text().count("commit(") >= 3
        assert mem.ingest(files).files_unchanged == 4


def test_file_batches_never_split_a_file():
    from attention_cloud.memory import _file_batches, _Parsed

    def parsed(n: int) -> _Parsed:
        return _Parsed(encoded=["x"] * n, records_read=n, evicted=0, envelopes_stripped=0,
                       skipped=[])

    files = [(name, parsed(n)) for name, n in [("a", 2), ("b", 5), ("c", 1), ("d", 0)]]
    assert [[name for name, _ in batch] for batch in _file_batches(iter(files), 3)] \
        == [["a"], ["b"], ["c", "d"]]
    assert list(_file_batches(iter([]), 3)) == []


def test_a_bad_file_after_written_batches_leaves_the_journal_as_it_was(home, tmp_path,
                                                                      monkeypatch):
    import attention_cloud.memory as memory

    monkeypatch.setattr(memory, "BATCH_ITEMS", 2)
    cuts: list[int] = []
    cut = Memory._cut_journal
    monkeypatch.setattr(Memory, "_cut_journal", lambda self, size: (cuts.append(size),
                                                                    cut(self, size)))
    first = write_jsonl(tmp_path / "a.jsonl", SESSION)
    with Memory.open(home) as mem:
        mem.ingest([first])
        before_bytes = (home / "journal.pl").read_bytes()
        before = handles(mem)
        goods = [write_jsonl(tmp_path / f"g{n}.jsonl",
                             [dict(r, sessionId=f"G{n}", uuid=f"{r['uuid']}-{n}") for r in SESSION])
                 for n in range(3)]
        bad = tmp_path / "z-bad.jsonl"
        bad.write_bytes(b"\x00\x01\x02 binary garbage \xff\xfe")
        with pytest.raises(InputError, match="z-bad.jsonl"):
            mem.ingest([*goods, bad])   # the good files' batches were written before bad's turn
        assert cuts == [len(before_bytes)]     # something had been written, and was cut
        assert handles(mem) == before
        assert (home / "journal.pl").read_bytes() == before_bytes
        assert mem.ingest(goods).new == 6   # their watermarks were undone too
    with Memory.open(home) as mem:
        assert len(handles(mem)) == 8


def test_a_memory_closed_by_opening_another_home_refuses_to_answer(tmp_path):
    """One Memory per process: opening home B closes A, and A must then refuse rather than
    answer from B's data (or write B's engine under A's lock)."""
    from attention_cloud import UsageError

    first = Memory.open(tmp_path / "a")
    first.ingest([write_jsonl(tmp_path / "s.jsonl", SESSION)])
    second = Memory.open(tmp_path / "b")
    try:
        assert handles(second) == set()
        with pytest.raises(UsageError, match=r"this Memory is closed \(by opening another "
                                             r"Memory in this process"):
            first.query("item(H)")
        with pytest.raises(UsageError, match="this Memory is closed"):
            first.ingest([tmp_path / "s.jsonl"])
        assert handles(second) == set()
        first.close()  # closing again is harmless
    finally:
        second.close()
    with Memory.open(tmp_path / "a") as again:
        assert len(handles(again)) == 2
