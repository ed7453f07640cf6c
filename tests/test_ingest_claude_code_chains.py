"""Claude Code sessions resumed more than once (``claude --continue`` after ``--continue``):
three files A, B, C, each a new session id. Whether the later files hold copies of the earlier
records (rewritten with their own id) or only their new records (each first record following
on, ``parentUuid``, from the last of the file before), every record is one item, every item
has the goal A's user set, and ingesting the files again, in any order, adds nothing."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_turn, write_records

A = "a0000001-0000-4000-8000-000000000001"
B = "b0000002-0000-4000-8000-000000000002"
C = "c0000003-0000-4000-8000-000000000003"
GOAL = "Find out why the nightly export job writes an empty CSV and fix it."


def _chain(folders: list[Path], copies: bool) -> list[Path]:
    """A's file, then B's (resuming A: ``continue``), then C's (resuming B: ``go on``), in
    ``folders`` (one each)."""
    a = cc21_turn(A, 1, GOAL, "dry-run")
    b_new = cc21_turn(B, 4, "continue", "full")
    c_new = cc21_turn(C, 7, "go on", "again")
    b = [dict(r, sessionId=B) for r in a] + b_new if copies else b_new
    c = [dict(r, sessionId=C) for r in a + b_new] + c_new if copies else c_new
    return [write_records(folder / f"{sid}.jsonl", records)
            for folder, sid, records in zip(folders, (A, B, C), (a, b, c))]


def test_the_third_file_of_new_records_goes_on_with_the_first_files_goal(tmp_path):
    # C follows on from B's last record; B's own first record follows on from A's: the goal
    # at B's end is A's task (B's "continue" a turn under it), not B's nudge nor none.
    files = _chain([tmp_path] * 3, copies=False)
    assert [(i.session, i.goal) for i in parse_path(files[2]).items] == [(C, GOAL)]


@pytest.mark.parametrize("copies", [True, False], ids=["copies", "new-records-only"])
def test_a_chain_of_three_in_any_order_is_held_once_with_its_goal(tmp_path, copies):
    for n, order in enumerate(itertools.permutations(range(3))):
        files = _chain([tmp_path / f"run{n}"] * 3, copies)
        with Memory.open(tmp_path / f"home{n}") as mem:
            for i in order:
                mem.ingest([str(files[i])])
            again = mem.ingest([str(f) for f in reversed(files)])
            rows = mem.query("item_text(H, T), item_goal(H, G)", limit=100).rows
        assert again.new == 0, order
        assert len(rows) == len({r["T"] for r in rows}) == 4, order   # none twice
        assert {r["G"] for r in rows} == {GOAL}, order


@pytest.mark.parametrize("copies", [True, False], ids=["copies", "new-records-only"])
def test_files_of_a_chain_in_three_folders_read_in_order_are_held_once(tmp_path, copies):
    # Each file in a folder of its own (a project moved between resumes, sessions copied
    # aside, ingested from a backup): the earlier files are found among those memory read.
    files = _chain([tmp_path / "x", tmp_path / "y", tmp_path / "z"], copies)
    with Memory.open(tmp_path / "home") as mem:
        news = [mem.ingest([str(f)]).new for f in files]
        again = mem.ingest([str(f) for f in files])
        rows = mem.query("item_text(H, T), item_session(H, S), item_goal(H, G)", limit=100).rows
    assert again.new == 0 and sum(news) == len(rows) == 4
    assert {r["G"] for r in rows} == {GOAL}
    assert sorted(r["S"] for r in rows) == [A, A, B, C]


def test_copies_of_a_chain_in_three_folders_are_held_once_in_any_order(tmp_path):
    # A file read before the one it copies is read again after it (its copies superseded).
    for n, order in enumerate(itertools.permutations(range(3))):
        files = _chain([tmp_path / f"{n}" / d for d in ("x", "y", "z")], copies=True)
        with Memory.open(tmp_path / f"home{n}") as mem:
            for i in order:
                mem.ingest([str(files[i])])
            again = mem.ingest([str(f) for f in files])
            rows = mem.query("item_text(H, T), item_session(H, S)", limit=100).rows
        assert again.new == 0, order
        assert sorted(r["S"] for r in rows) == [A, A, B, C], order


def test_a_resumed_file_read_with_its_earlier_file_from_another_folder_is_not_doubled(tmp_path):
    a, b, _ = _chain([tmp_path / "backup", tmp_path / "project", tmp_path / "z"], copies=True)
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(b), str(a)])
        sessions = sorted(r["S"] for r in mem.query("item_session(H, S)", limit=100).rows)
    assert report.new == 3 and sessions == [A, A, B]


def test_a_file_moved_after_ingest_and_read_again_there_keeps_its_copies_single(tmp_path):
    # A read, then moved to another folder and read there (its items point there now); B,
    # resumed from A in the project folder, is read after.
    a, b, _ = _chain([tmp_path / "old", tmp_path / "project", tmp_path / "z"], copies=True)
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([str(a)])
        moved = tmp_path / "archive" / a.name
        moved.parent.mkdir()
        a.rename(moved)
        assert mem.ingest([str(moved)]).new == 0
        assert mem.ingest([str(b)]).new == 1


def test_a_resumed_file_read_before_the_file_it_copies_is_read_again_after_it(tmp_path):
    # B (resumed from A, its copies rewritten) read first from the project folder, A later
    # from a backup: B is read again after A, its copies become A's items, and the items its
    # first reading made of them (under B's id) are superseded.
    a, b, _ = _chain([tmp_path / "backup", tmp_path / "project", tmp_path / "z"], copies=True)
    with Memory.open(tmp_path / "home") as mem:
        first = mem.ingest([str(b)])
        later = mem.ingest([str(a)])
        again = mem.ingest([str(a), str(b)])
        rows = mem.query("item_text(H, T), item_session(H, S), item_goal(H, G)", limit=100).rows
    assert first.new == 3 and later.superseded == 2 and again.new == 0
    assert [Path(f).name for f, note in later.notes if "read again" in note] == [b.name]
    assert sorted(r["S"] for r in rows) == [A, A, B]
    assert {r["G"] for r in rows} == {GOAL}
