"""Claude Code 2.1 transcripts: task notifications are results, not goals; subagent files
inherit the goal of the turn that launched them (in one call, after the parent, or from the
parent file beside them); compaction is gated out; every record type is counted (issue 15)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.ingest import parse_path

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_21"
SID = "5e55a1f0-0000-4000-8000-00000000c0de"
PARENT = FIXTURE / f"{SID}.jsonl"
SUBAGENT = FIXTURE / SID / "subagents" / "agent-a7c1d2e.jsonl"
COMPACTION = FIXTURE / SID / "subagents" / "agent-acompact-5e1f00.jsonl"
GOAL_1 = "Fix the rounding bug in the checkout total: carts of 3 items are off by one cent."
GOAL_2 = "While that runs, check whether the discount code path rounds the same way."
GOAL_3 = "Now apply the same fix to tax() and add a regression test for three-item carts."


def links(item, predicate):
    return [o for _, p, o in item.relations if p == predicate]


@pytest.fixture(scope="module")
def parent():
    return parse_path(PARENT)


def test_task_notifications_are_results_and_never_goals(parent):
    assert [i.text for i in parent.items if i.kind == "user_goal"] == [GOAL_1, GOAL_2, GOAL_3]
    notes = [i for i in parent.items if links(i, "task")]
    assert [(i.kind, i.role, links(i, "task")) for i in notes] == [
        ("error", "tool", ["b9f00d1"]),        # "completed (exit code 1)": the run failed
        ("tool_result", "tool", ["a0ffee1"]),  # an async agent's report
    ]
    assert all("<task-notification>" not in i.text for i in parent.items)
    # A background command's notification is labelled with the command it ran.
    assert notes[0].text.startswith("$ pytest tests/test_money.py -q\ntask b9f00d1 completed: ")
    assert "the same fix applies in shop/money.py line 58" in notes[1].text


def test_the_real_goal_stays_active_across_notifications(parent):
    goal_of = {i.text[:30]: i.goal for i in parent.items}
    assert goal_of["The test run failed: total() r"] == GOAL_1   # after a notification
    assert goal_of["The discount path calls total("] == GOAL_2
    # The async agent was launched under goal 1; its report keeps that goal although the user
    # asked something else while it ran.
    (report,) = [i for i in parent.items if links(i, "task") == ["a0ffee1"]]
    assert report.goal == GOAL_1


def test_launches_name_the_goal_of_the_launching_turn(parent):
    assert parent.launches == {"a7c1d2e": GOAL_1, "a0ffee1": GOAL_1}
    launched = {links(i, "launched_agent")[0]: i for i in parent.items if links(i, "launched_agent")}
    assert set(launched) == {"a7c1d2e", "a0ffee1"}
    assert launched["a7c1d2e"].goal == GOAL_1 and launched["a7c1d2e"].kind == "tool_result"
    assert parent.subagent == ""


def test_every_skipped_record_type_is_counted(parent):
    assert parent.ignored == {
        "file-history-snapshot": 1, "progress": 2, "queue-operation": 2,
        "system/turn_duration": 1, "system/compact_boundary": 1, "compact-summary": 1,
    }
    assert parent.skipped == []
    lines = PARENT.read_text().count("\n")
    assert parent.records_read == lines


def test_compaction_prompt_and_summary_are_gated_out():
    result = parse_path(COMPACTION)
    # the meta record there, a format hook's "[FORMAT] ok", is a check that passed: no news
    assert result.items == [] and result.ignored == {"compaction": 2, "acknowledgement": 1}
    # The same records with their file renamed are still known by their agent id.
    renamed = parse_path(COMPACTION, session="x")
    assert renamed.items == []


def test_a_subagent_file_names_its_agent_and_waits_for_its_goal():
    result = parse_path(SUBAGENT)
    assert result.subagent == "a7c1d2e"
    assert result.ignored == {"progress": 1}
    assert [(i.kind, i.speaker) for i in result.items] == [
        ("turn", "assistant"), ("tool_result", "subagent"), ("conclusion", "subagent")]
    assert {i.goal for i in result.items} == {""}   # parse_path alone does not resolve it
    assert all(links(i, "agent") == ["a7c1d2e"] for i in result.items)


def _subagent_goals(mem: Memory) -> dict[str, str]:
    rows = mem.query("item_source_name(H, S), sub_atom(S, _, _, _, 'agent-a7c1d2e'), "
                     "item_goal(H, G)").rows
    return {r["H"]: r["G"] for r in rows}


def test_ingested_together_subagent_items_inherit_the_launching_goal(home):
    with Memory.open(home) as mem:
        report = mem.ingest([str(FIXTURE)])
        goals = _subagent_goals(mem)
        assert len(goals) == 3 and set(goals.values()) == {GOAL_1}
        assert report.goals_unresolved == []
        joined = mem.query("relation(L, launched_agent, A), relation(H, agent, A), "
                           "item_kind(L, tool_result)").rows
        assert {r["H"] for r in joined} == set(goals) and {r["A"] for r in joined} == {"a7c1d2e"}
        assert report.ignored["compaction"] == 2 and report.ignored["progress"] == 3
        assert report.as_dict()["ignored"]["queue-operation"] == 2
        kinds = mem.query("item_source_name(H, S), sub_atom(S, _, _, _, acompact)").rows
        assert kinds == []


def test_the_order_of_the_files_does_not_change_goals_or_handles(tmp_path):
    seen = []
    for order, name in (([SUBAGENT, PARENT], "a"), ([PARENT, SUBAGENT], "b")):
        with Memory.open(tmp_path / name) as mem:
            mem.ingest([str(p) for p in order])
            seen.append(sorted(_subagent_goals(mem).items()))
    assert seen[0] == seen[1] and {g for _, g in seen[0]} == {GOAL_1}


def test_ingested_after_its_parent_the_goal_comes_from_the_journal(home, tmp_path):
    copy = tmp_path / "projects"
    shutil.copytree(FIXTURE, copy)
    with Memory.open(home) as mem:
        mem.ingest([str(copy / PARENT.name)])
        (copy / PARENT.name).unlink()          # gone from disk: only the journal knows it
        report = mem.ingest([str(copy / SID)])
        assert report.new == 3 and report.goals_unresolved == []
        assert set(_subagent_goals(mem).values()) == {GOAL_1}


def test_ingested_alone_the_goal_comes_from_the_parent_file_beside_it(home):
    with Memory.open(home) as mem:
        report = mem.ingest([str(SUBAGENT)])
        assert report.goals_unresolved == []
        assert set(_subagent_goals(mem).values()) == {GOAL_1}
        assert mem.query("item_source_name(H, S), sub_atom(S, _, _, _, c0de), "
                         "\\+ sub_atom(S, _, _, _, agent)").rows == []   # the parent was not ingested


def test_an_orphan_subagent_is_kept_and_its_missing_goal_reported(home, tmp_path):
    orphan = tmp_path / "agent-a7c1d2e.jsonl"
    shutil.copy(SUBAGENT, orphan)
    with Memory.open(home) as mem:
        report = mem.ingest([str(orphan)])
        assert report.new == 3
        assert report.goals_unresolved == [(str(orphan), "a7c1d2e")]
        assert set(_subagent_goals(mem).values()) == {""}
    out = CliRunner().invoke(main, ["ingest", str(orphan), "--home", str(tmp_path / "h2")])
    assert out.exit_code == 0
    assert f"goal unresolved {orphan}: subagent a7c1d2e" in out.output


def test_cli_reports_ignored_record_types(tmp_path):
    out = CliRunner().invoke(main, ["ingest", str(FIXTURE), "--home", str(tmp_path / "h"),
                                    "--format-output", "json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["ignored"]["compaction"] == 2
    assert report["ignored"]["file-history-snapshot"] == 1
    assert report["goals_unresolved"] == []
    text = CliRunner().invoke(main, ["ingest", str(PARENT), "--home", str(tmp_path / "t")])
    assert "ignored (no item by design): compact-summary 1, file-history-snapshot 1, " \
           "progress 2, queue-operation 2" in text.output


def test_the_older_layout_finds_the_parent_by_the_session_id(home, tmp_path):
    """Subagent files beside the sessions (no subagents/ folder) name their parent's session."""
    flat = tmp_path / "project"
    flat.mkdir()
    shutil.copy(PARENT, flat / PARENT.name)
    shutil.copy(SUBAGENT, flat / SUBAGENT.name)
    with Memory.open(home) as mem:
        report = mem.ingest([str(flat / SUBAGENT.name)])
        assert report.goals_unresolved == []
        assert set(_subagent_goals(mem).values()) == {GOAL_1}
