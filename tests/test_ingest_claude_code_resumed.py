"""A Claude Code session resumed (``claude --resume``) is written to a new file under a new
session id, after a copy of the records it resumes, which keep their old id and uuids (qa203).
Ingested after the old file, nothing is doubled or lost, and the resumed part goes on with the
goal the old one had; records of another conversation written into a file (no ``parentUuid``
link to the records before them) start with no goal of their own."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_record

OLD = "0ld5e551-0000-4000-8000-000000000001"
NEW = "9e75e551-0000-4000-8000-000000000002"
GOAL = "Find out why the nightly export job writes an empty CSV and fix it."
REAL = Path("/work/shared/data/claude-code-real/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl")


def _records(session: str, start: int, prompt: str, step: str) -> list[dict]:
    """A prompt, a Bash call and its failing result, chained by ``parentUuid``."""
    records = []
    for n, kind, content in (
        (start, "user", prompt),
        (start + 1, "assistant", [{"type": "tool_use", "id": f"toolu_{start}", "name": "Bash",
                                   "input": {"command": f"python export.py --{step}"}}]),
        (start + 2, "user", [{"tool_use_id": f"toolu_{start}", "type": "tool_result",
                              "is_error": True,
                              "content": f"KeyError: 'created_at' in export.py ({step})"}]),
    ):
        record = cc21_record(n, kind, content, session=session, cwd="/srv/app", branch="main",
                             timestamp=f"2026-03-02T10:{n:02d}:00.000Z")
        record["parentUuid"] = f"u-{n - 1:04d}" if n > 1 else None
        records.append(record)
    return records


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_resumed_part_goes_on_with_the_old_goal(tmp_path):
    old = _records(OLD, 1, GOAL, "dry-run")
    resumed = old + _records(NEW, 4, "continue", "full") + _records(NEW, 7, "go on", "again")
    items = parse_path(_write(tmp_path / f"{NEW}.jsonl", resumed)).items
    assert [i.session for i in items if i.role == "tool"] == [OLD, NEW, NEW]
    assert {i.goal for i in items} == {GOAL}


def test_another_conversation_written_into_the_file_takes_no_goal_from_it(tmp_path):
    records = _records(OLD, 1, GOAL, "dry-run") + _records(NEW, 4, "continue", "full")
    records[3]["parentUuid"] = "u-elsewhere"      # follows on from nothing in this file
    items = parse_path(_write(tmp_path / f"{OLD}.jsonl", records)).items
    assert [(i.session, i.goal) for i in items if i.role == "tool"] == [(OLD, GOAL), (NEW, "")]


@pytest.mark.skipif(not REAL.is_file(), reason=f"{REAL} is not here")
def test_a_real_session_resumed_is_neither_doubled_nor_loses_its_goal(tmp_path):
    # The real session cut where its user typed "continue until all are done": the old file
    # ends there, the resumed file copies it and goes on under a new id, as Claude Code does.
    lines = REAL.read_text(encoding="utf-8").splitlines()
    cut = next(n for n, line in enumerate(lines)
               if '"content":"continue until all are done"' in line)
    old_id = json.loads(lines[cut])["sessionId"]
    rest = [json.loads(line) for line in lines[cut:]]
    rest = [dict(r, sessionId=NEW) if "sessionId" in r else r for r in rest]
    old = tmp_path / f"{old_id}.jsonl"
    old.write_text("\n".join(lines[:cut]) + "\n")
    new = _write(tmp_path / f"{NEW}.jsonl", [json.loads(line) for line in lines[:cut]] + rest)
    whole = parse_path(REAL).items
    with Memory.open(tmp_path / "home") as mem:
        first, second = mem.ingest([str(old)]), mem.ingest([str(new)])
        rows = mem.query("item_text(H, T), item_goal(H, G)", limit=100_000).rows
    assert first.new + second.new == len(rows)
    assert Counter(r["T"] for r in rows) == Counter(i.text for i in whole)   # none twice, none lost
    assert {r["G"] for r in rows} == {whole[0].text}
