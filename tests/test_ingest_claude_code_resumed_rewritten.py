"""A Claude Code session resumed (``claude --resume``) into a new file whose copy of the old
records is rewritten with the new ``sessionId`` (round 35, qa213): a record's ``uuid`` names it
across files, so each copy is the item the old file gave (nothing doubled, its pointer the file
read first), and the new records go on with the old goal. Ingesting the files again adds
nothing."""

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


def _resumed_pair(folder: Path) -> tuple[Path, Path]:
    """The old session's file, and the resumed one: its records again under the new id,
    then two turns of its own."""
    old = cc21_turn(OLD, 1, GOAL, "dry-run")
    copies = [dict(r, sessionId=NEW) for r in old]
    folder.mkdir(parents=True, exist_ok=True)
    return (write_records(folder / f"{OLD}.jsonl", old),
            write_records(folder / f"{NEW}.jsonl", copies + cc21_turn(NEW, 4, "continue", "full")
                   + cc21_turn(NEW, 7, "go on", "again")))


def _rows(mem: Memory) -> list[dict]:
    return mem.query("item_text(H, T), item_session(H, S), item_goal(H, G), item_source(H, F)",
                     limit=1000).rows


def test_copies_under_the_new_id_are_the_old_items_and_the_new_ones_keep_the_goal(tmp_path):
    old, new = _resumed_pair(tmp_path / "project")
    with Memory.open(tmp_path / "home") as mem:
        first, second = mem.ingest([str(old)]), mem.ingest([str(new)])
        again = mem.ingest([str(tmp_path / "project")])
        rows = _rows(mem)
    assert (first.new, second.unchanged, second.new, again.new) == (2, 2, 2, 0)
    assert len(rows) == 4 and len({r["T"] for r in rows}) == 4             # none twice
    copies = [r for r in rows if "dry-run" in r["T"]]
    # held from the file read first
    assert {(r["S"], Path(r["F"].rsplit(":", 1)[0]).name) for r in copies} == {(OLD, old.name)}
    assert {r["G"] for r in rows} == {GOAL}


def test_read_in_one_call_the_copies_are_held_once(tmp_path):
    _resumed_pair(tmp_path / "project")
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(tmp_path / "project")])
        rows = _rows(mem)
    assert report.new == len(rows) == 4
    assert {r["G"] for r in rows} == {GOAL}


def test_the_old_file_read_after_the_resumed_one_adds_nothing(tmp_path):
    old, new = _resumed_pair(tmp_path / "project")
    assert [i.session for i in parse_path(new).items] == [OLD, OLD, NEW, NEW]
    with Memory.open(tmp_path / "home") as mem:
        assert (mem.ingest([str(new)]).new, mem.ingest([str(old)]).new) == (4, 0)


def test_a_file_elsewhere_that_starts_alike_is_no_earlier_copy(tmp_path):
    # Only a smaller file beside it, among whose first records its first is, is an earlier
    # reading of the conversation: the same records in another folder are not looked for.
    old, new = _resumed_pair(tmp_path / "a")
    moved = tmp_path / "b" / new.name
    moved.parent.mkdir()
    new.rename(moved)
    assert [i.session for i in parse_path(moved).items] == [NEW] * 4


def test_another_conversation_beside_it_with_the_same_ids_is_no_earlier_copy(tmp_path):
    # Ids that happen to be the same (written by a tool, not Claude Code's random ones) make no
    # copy: the record they name must be the same but for its session id.
    write_records(tmp_path / "p" / f"{OLD}.jsonl", cc21_turn(OLD, 1, GOAL, "dry-run"))
    other = cc21_turn(NEW, 1, "Make the weekly report list refunds on their own line.", "full")
    new = write_records(tmp_path / "p" / f"{NEW}.jsonl", other + cc21_turn(NEW, 4, "go on", "x"))
    assert {i.session for i in parse_path(new).items} == {NEW}


@pytest.mark.skipif(not REAL.is_file(), reason=f"{REAL} is not here")
def test_a_real_session_resumed_with_its_records_rewritten_is_not_doubled(tmp_path):
    # The real session cut where its user typed "continue until all are done": the old file
    # ends there; the resumed file holds every record again, all under the new id.
    old, new = resumed_real_session(REAL, tmp_path / "project", NEW, "rewritten")
    whole = parse_path(REAL).items
    with Memory.open(tmp_path / "home") as mem:
        first, second = mem.ingest([str(old)]), mem.ingest([str(new)])
        again = mem.ingest([str(old.parent)])
        rows = mem.query("item_text(H, T), item_goal(H, G)", limit=100_000).rows
    assert first.new + second.new == len(rows) == len(whole) and again.new == 0
    assert Counter(r["T"] for r in rows) == Counter(i.text for i in whole)   # none twice
    assert {r["G"] for r in rows} == {whole[0].text}
