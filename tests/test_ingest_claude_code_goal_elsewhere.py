"""A Claude Code record that follows on (``parentUuid``) from a record another file holds goes
on with the goal active there (round 35, qa213): a session resumed into a file that holds only
its new records, and a tool hook's report that Claude Code 2.1.39 kept only in the compaction
subagent's file. Before, both started with goal ``""`` (or with a nudge as their goal)."""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_record, cc21_turn, resumed_real_session, write_records

OLD = "0ld5e551-0000-4000-8000-000000000001"
NEW = "9e75e551-0000-4000-8000-000000000002"
GOAL = "Find out why the nightly export job writes an empty CSV and fix it."
LATER = "Now add a --since option to export.py so a rerun skips rows already written."
REAL = Path("/work/shared/data/claude-code-real")
REAL_SESSION = REAL / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"


def _errors(items) -> list[tuple[str, str]]:
    return [(i.session, i.goal) for i in items if i.kind == "error"]


def test_a_resumed_file_of_new_records_alone_goes_on_with_the_old_goal(tmp_path):
    old = write_records(tmp_path / "p" / f"{OLD}.jsonl", cc21_turn(OLD, 1, GOAL, "dry-run"))
    # its first record follows on from the old file's last; "continue" urges on, no goal
    new = write_records(tmp_path / "p" / f"{NEW}.jsonl", cc21_turn(NEW, 4, "continue", "full"))
    assert _errors(parse_path(new).items) == [(NEW, GOAL)]
    with Memory.open(tmp_path / "home") as mem:            # across ingests, either order
        assert (mem.ingest([str(new)]).new, mem.ingest([str(old)]).new) == (1, 2)
        assert mem.ingest([str(tmp_path / "p")]).new == 0
        goals = {r["G"] for r in mem.query("item_goal(H, G)", limit=100).rows}
    assert goals == {GOAL}


def test_the_goal_is_the_one_active_at_the_record_it_follows(tmp_path):
    # The old session set a second goal later: a resumption of the first turn's end takes
    # the goal active there, not the old session's last.
    old = cc21_turn(OLD, 1, GOAL, "dry-run") + cc21_turn(OLD, 4, LATER, "since")
    write_records(tmp_path / "p" / f"{OLD}.jsonl", old)
    first = cc21_turn(NEW, 7, "keep going", "full")
    first[0]["parentUuid"] = "u-0003"
    new = write_records(tmp_path / "p" / f"{NEW}.jsonl", first)
    assert _errors(parse_path(new).items) == [(NEW, GOAL)]
    first[0]["parentUuid"] = "u-0006"
    assert _errors(parse_path(write_records(new, first)).items) == [(NEW, LATER)]


def test_a_parent_found_nowhere_leaves_the_session_without_a_goal(tmp_path):
    write_records(tmp_path / "p" / f"{OLD}.jsonl", cc21_turn(OLD, 1, GOAL, "dry-run"))
    records = cc21_turn(NEW, 4, "continue", "full")
    records[0]["parentUuid"] = "u-elsewhere"
    assert _errors(parse_path(write_records(tmp_path / "p" / f"{NEW}.jsonl", records)).items) \
        == [(NEW, "")]


def test_a_hook_report_in_the_compaction_file_takes_the_goal_at_the_call_it_follows(tmp_path):
    main = cc21_turn(OLD, 1, GOAL, "dry-run") + cc21_turn(OLD, 4, LATER, "since")
    write_records(tmp_path / "p" / f"{OLD}.jsonl", main)
    reports = []
    for n, parent in ((20, "u-0002"), (21, "u-0005")):       # after each turn's call
        record = cc21_record(n, "user", "<system-reminder>\nPostToolUse:Edit hook additional "
                             f"context: [COMPILE ERROR]\nerror: undefined function run_{n}/1\n"
                             "</system-reminder>", session=OLD, cwd="/srv/app", branch="main",
                             timestamp=f"2026-03-02T10:{n:02d}:00.000Z")
        record.update(isMeta=True, isSidechain=True, agentId="acompact-5e1f00",
                      parentUuid=parent)
        reports.append(record)
    path = write_records(tmp_path / "p" / OLD / "subagents" / "agent-acompact-5e1f00.jsonl",
                         reports)
    assert _errors(parse_path(path).items) == [(OLD, GOAL), (OLD, LATER)]


@pytest.mark.skipif(not REAL_SESSION.is_file(), reason=f"{REAL_SESSION} is not here")
def test_the_real_sessions_hook_reports_and_a_real_resumption_have_the_task_as_goal(tmp_path):
    reports = [i for compaction in sorted(REAL.glob("*/subagents/agent-acompact-*.jsonl"))
               for i in parse_path(compaction).items]
    assert len(reports) == 12 and all(i.goal.startswith("Work on bead spotter-") for i in reports)
    # the real session cut where its user typed "continue until all are done", the rest
    # resumed under a new id in a file of its own
    old, new = resumed_real_session(REAL_SESSION, tmp_path / "p", NEW, "none")
    task = parse_path(old).items[0].text
    assert {i.goal for i in parse_path(new).items} == {task}
