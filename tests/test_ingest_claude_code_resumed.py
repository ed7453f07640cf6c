"""A Claude Code session resumed (``claude --resume``) is written to a new file under a new
session id, after a copy of the records it resumes, which keep their old id and uuids (qa203).
Ingested after the old file, nothing is doubled or lost, and the resumed part goes on with the
goal the old one had; records of another conversation written into a file (no ``parentUuid``
link to the records before them) start with no goal of their own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_turn, resumed_real_session, write_records

OLD = "0ld5e551-0000-4000-8000-000000000001"
NEW = "9e75e551-0000-4000-8000-000000000002"
GOAL = "Find out why the nightly export job writes an empty CSV and fix it."
REAL = Path("/work/shared/data/claude-code-real/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")


def test_the_resumed_part_goes_on_with_the_old_goal(tmp_path):
    old = cc21_turn(OLD, 1, GOAL, "dry-run")
    resumed = old + cc21_turn(NEW, 4, "continue", "full") + cc21_turn(NEW, 7, "go on", "again")
    items = parse_path(write_records(tmp_path / f"{NEW}.jsonl", resumed)).items
    assert [i.session for i in items if i.role == "tool"] == [OLD, NEW, NEW]
    assert {i.goal for i in items} == {GOAL}


def test_another_conversation_written_into_the_file_takes_no_goal_from_it(tmp_path):
    records = cc21_turn(OLD, 1, GOAL, "dry-run") + cc21_turn(NEW, 4, "continue", "full")
    records[3]["parentUuid"] = "u-elsewhere"      # follows on from nothing in this file
    items = parse_path(write_records(tmp_path / f"{OLD}.jsonl", records)).items
    assert [(i.session, i.goal) for i in items if i.role == "tool"] == [(OLD, GOAL), (NEW, "")]


@pytest.mark.skipif(not REAL.is_file(), reason=f"{REAL} is not here")
def test_a_real_session_resumed_is_neither_doubled_nor_loses_its_goal(tmp_path):
    # The real session cut where its user typed "continue until all are done": the old file
    # ends there, the resumed file copies it and goes on under a new id, as Claude Code does.
    old, new = resumed_real_session(REAL, tmp_path, NEW, "kept")
    whole = parse_path(REAL).items
    with Memory.open(tmp_path / "home") as mem:
        first, second = mem.ingest([str(old)]), mem.ingest([str(new)])
        rows = mem.query("item_text(H, T), item_goal(H, G)", limit=100_000).rows
    assert first.new + second.new == len(rows)
    assert Counter(r["T"] for r in rows) == Counter(i.text for i in whole)   # none twice, none lost
    assert {r["G"] for r in rows} == {whole[0].text}
