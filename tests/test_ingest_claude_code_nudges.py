"""A prompt that only urges the agent on ("continue implementation", "continue until all are
done", "/compact and continue with the remaining tasks") is the user's turn, not a new goal:
the task the user set stays the goal of every later item, and of the subagents launched
after it (qa203). A prompt that names something of its own is a goal as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.ingest import parse_path
from attention_cloud.ingest.textutil import continues_goal
from claude_code_21 import cc21_appender

SID = "7a1c0de5-0000-4000-8000-00000000cafe"
GOAL = "Work on bead shop-4te: make the cart total round half-even. Start with the first ready task."
CLAUDE = Path("/work/shared/data/claude-code-real")


@pytest.mark.parametrize("prompt", [
    "continue implementation",
    "continue until all are done",
    "Go on with the remaining tasks please",
    "/compact and continue with the reamining tasks",   # a slip of "remaining"
    "/tools:work-loop keep going",                      # a namespaced command's name
    "keep going, finish the rest",
    "ok continue with the cart total",                  # its words are the goal's
])
def test_a_prompt_that_names_nothing_new_continues_the_goal(prompt):
    assert continues_goal(prompt, GOAL)


@pytest.mark.parametrize("prompt", [
    "continue with the tax module instead",             # "tax", "module": a task of its own
    "now fix the flaky checkout test",
    "continue retaining the tasks",                     # "retaining" is no slip of "remaining"
    "continue " + "the " * 20 + "work",                 # too long to be a nudge
    "/review",                                          # a command alone names its task
])
def test_a_prompt_with_content_of_its_own_is_a_new_goal(prompt):
    assert not continues_goal(prompt, GOAL)


def test_with_no_goal_yet_nothing_is_continued():
    assert not continues_goal("continue implementation", "")


def test_a_number_of_its_own_makes_a_new_goal():
    """"now fix issue 43" under "fix issue 42" read as a nudge (only its letters were words),
    so the issue worked on next kept the old goal."""
    assert not continues_goal("now fix issue 43", "fix issue 42")
    assert continues_goal("continue with issue 42", "fix issue 42")


def test_the_same_record_written_twice_is_one_item():
    """The goal said again read as a nudge of itself: a user record Claude Code wrote twice
    (same uuid) became the goal, then a turn, two items where the file says one."""
    line = json.dumps({"type": "user", "uuid": "same", "sessionId": SID,
                       "message": {"role": "user", "content": "Bump the version."}})
    assert not continues_goal("Bump the version.", "Bump the version.")
    from attention_cloud.ingest import parse_text

    result = parse_text(f"{line}\n{line}\n", name="repeat.jsonl")
    assert [(i.kind, i.text) for i in result.items] == [("user_goal", "Bump the version.")]


def _session(tmp_path: Path, prompts: list[str]) -> Path:
    """Each prompt, then a Bash call and its result."""
    records: list[dict] = []
    add = cc21_appender(records, session=SID, cwd="/home/dev/shop", branch="main")
    for i, prompt in enumerate(prompts):
        add("user", prompt)
        add("assistant", [{"type": "tool_use", "id": f"toolu_{i}", "name": "Bash",
                           "input": {"command": f"pytest tests/test_cart.py -k step{i}"}}])
        add("user", [{"tool_use_id": f"toolu_{i}", "type": "tool_result", "is_error": True,
                      "content": f"FAILED tests/test_cart.py::test_step{i} - assert 10.01 == 10.0"}])
    path = tmp_path / f"{SID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_nudge_is_the_users_turn_and_the_goal_stays(tmp_path):
    items = parse_path(_session(tmp_path, [GOAL, "continue until all are done",
                                           "now make tax() round the same way"])).items
    prompts = [(i.kind, i.text) for i in items if i.role == "user"]
    assert prompts == [("user_goal", GOAL), ("turn", "continue until all are done"),
                       ("user_goal", "now make tax() round the same way")]
    goals = [i.goal for i in items if i.role == "tool"]
    assert goals == [GOAL, GOAL, "now make tax() round the same way"]


@pytest.mark.skipif(not CLAUDE.is_dir(), reason=f"{CLAUDE} is not here")
def test_in_the_real_sessions_the_task_set_stays_the_goal():
    # Both long sessions start with the task and later say only "continue …"; every item
    # keeps the task as its goal, and each "continue …" is still kept as the user's turn.
    for path in sorted(CLAUDE.glob("*-*-*-*-*.jsonl")):
        items = parse_path(path).items
        first = items[0]
        assert first.kind == "user_goal" and first.text.startswith("Work on bead"), path
        assert {i.goal for i in items} == {first.text}, path
        nudges = [i.text for i in items if i.role == "user" and i.kind == "turn"]
        assert nudges and all("continue" in t for t in nudges), path
