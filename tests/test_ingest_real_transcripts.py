"""Real transcripts nobody here wrote (issue 15): Claude Code 2.1.x sessions with subagent and
compaction files, and a SWE-agent trajectory, read from /work/shared/data (skipped when absent;
never copied into the repository)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_path

DATA = Path("/work/shared/data")
CLAUDE = DATA / "claude-code-real"
TRAJ = DATA / "agent-trajectories" / "swe-agent__test-repo-i1.traj"

needs_claude = pytest.mark.skipif(not CLAUDE.is_dir(), reason=f"{CLAUDE} is not here")
needs_traj = pytest.mark.skipif(not TRAJ.is_file(), reason=f"{TRAJ} is not here")


def _record_types(path: Path) -> Counter:
    counts: Counter = Counter()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            counts[json.loads(line)["type"]] += 1
    return counts


@pytest.fixture(scope="module")
def real_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("real") / "home"
    with Memory.open(home) as mem:
        report = mem.ingest([str(CLAUDE)], strict=False)   # README.md is not a transcript
        rows = mem.query("item_source_name(H, S), item_kind(H, K), item_goal(H, G), "
                         "item_text(H, T)", limit=100_000).rows
    return report, rows


@needs_claude
def test_no_task_notification_is_a_goal_and_none_drives_later_items(real_home):
    _, rows = real_home
    assert rows
    goals = [r for r in rows if r["K"] == "user_goal"]
    assert goals and not [r for r in goals if "<task-notification>" in r["T"]]
    assert not [r for r in rows if "<task-notification>" in r["G"] or "task-notification" in r["T"]]


@needs_claude
def test_subagent_items_carry_the_goal_of_the_turn_that_launched_them(real_home):
    report, rows = real_home
    subagent_files = [p for p in CLAUDE.glob("*/subagents/agent-*.jsonl")
                      if not p.name.startswith("agent-acompact")]
    assert subagent_files
    for path in subagent_files:
        parent = path.parent.parent.with_suffix(".jsonl")
        assert parent.is_file()
        items = [r for r in rows if r["S"] == str(path)]
        assert items, path
        assert all(r["G"] for r in items), f"empty goal in {path.name}"
        launches = parse_path(parent).launches
        assert {r["G"] for r in items} == {launches[path.stem.removeprefix("agent-")]}
    assert report.goals_unresolved == []


@needs_claude
def test_compaction_files_are_gated_out(real_home):
    # but for the tool hooks' diagnostics Claude Code 2.1.39 kept only there (qa203)
    report, rows = real_home
    compaction = list(CLAUDE.glob("*/subagents/agent-acompact-*.jsonl"))
    assert compaction
    kept = [r for r in rows if "acompact" in r["S"]]
    assert kept and all(r["T"].startswith("PostToolUse:Edit hook: [") for r in kept)
    records = sum(sum(_record_types(p).values()) for p in compaction)
    assert report.ignored["compaction"] == records - len(kept)
    assert not [r for r in rows if r["T"].startswith("This session is being continued")]


@needs_claude
def test_every_skipped_record_type_is_counted(real_home):
    report, _ = real_home
    totals: Counter = Counter()
    for path in CLAUDE.rglob("*.jsonl"):
        totals.update(_record_types(path))
    for record_type in ("progress", "queue-operation", "file-history-snapshot"):
        assert totals[record_type] and report.ignored[record_type] == totals[record_type]
    assert report.skipped == []
    assert report.records == sum(totals.values())


@needs_traj
def test_swe_agent_observations_are_results_never_goals():
    result = parse_path(TRAJ)
    assert result.format == "trajectory"
    goals = [i for i in result.items if i.kind == "user_goal"]
    assert len(goals) == 1 and goals[0].text.startswith("SyntaxError: invalid syntax")
    assert "DEMONSTRATION" not in " ".join(i.text for i in result.items)
    assert result.ignored["demonstration"] == 1
    first = result.items.index(goals[0])
    assert [i.role for i in result.items[:first]] == ["system"]   # the SETTING prompt, a turn
    assert {i.goal for i in result.items[first:]} == {goals[0].goal}
    tool = [i for i in result.items if i.role == "tool"]
    assert tool and all(i.kind in ("tool_result", "error") for i in tool)
    edits = [i for i in result.items if i.kind == "file_op" and "edit" in i.text]
    assert edits and edits[0].text.startswith("edit tests/missing_colon.py: lines 4-4")
    assert any(i.text.startswith("$ submit (submitted)\ndiff --git") for i in tool)


@needs_claude
def test_all_a_subagent_did_is_said_by_the_subagent():
    # Its tool output and errors too, not only its words: in a frame a subagent's Grep or test
    # run must not read as the main agent's. Only its prompt is the main agent's.
    files = [p for p in CLAUDE.glob("*/subagents/agent-*.jsonl")
             if not p.name.startswith("agent-acompact")]
    assert files
    for path in files:
        items = parse_path(path).items
        assert {i.kind for i in items} >= {"tool_result", "conclusion"}, path
        assert [(i.role, i.speaker) for i in items if i.speaker != "subagent"] == [
            ("user", "assistant")], path
