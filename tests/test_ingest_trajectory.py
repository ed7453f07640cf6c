"""Agent trajectories (SWE-agent .traj): observations are results or errors, never goals; the
task is the goal; actions are file operations or label their output (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.ingest import detect_format, parse_path, parse_text, read_pointer

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
RUN = FIXTURES / "swe_agent_run.traj"
ISSUE = "ZeroDivisionError in cone_rate() for a zero-minute hold"


def test_the_task_is_the_only_goal_and_observations_are_results():
    result = parse_path(RUN)
    assert detect_format(RUN) == "trajectory" and result.format == "trajectory"
    goals = [i for i in result.items if i.kind == "user_goal"]
    assert [g.text.split("\n")[0] for g in goals] == [ISSUE]   # the template is cut away
    assert "INSTRUCTIONS" not in goals[0].text and "We're currently solving" not in goals[0].text
    assert all(i.role != "user" for i in result.items if i is not goals[0])
    assert {i.kind for i in result.items if i.role == "tool"} == {"error", "tool_result"}
    (traceback,) = [i for i in result.items if i.kind == "error"]
    assert traceback.text.startswith("$ python reproduce.py\nTraceback")
    assert "(Open file:" not in traceback.text                 # SWE-agent's footer is dropped
    assert (traceback.handle, "mentions", "ZeroDivisionError") in traceback.relations


def test_demonstrations_and_repeated_steps_are_counted_not_kept():
    result = parse_path(RUN)
    assert "TimeDelta" not in " ".join(i.text for i in result.items)
    assert result.ignored == {"demonstration": 1, "trajectory-step": 7,
                              "file-op-output": 4, "empty": 1}  # what opened files showed; an empty turn


def test_actions_become_file_operations_relative_to_the_working_directory():
    ops = [(i.text, i.goal[:10]) for i in parse_path(RUN).items if i.kind == "file_op"]
    assert [text for text, _ in ops] == [
        "write reproduce.py",
        'edit reproduce.py: lines 1-1 -> "from glaze.rates import cone_rate print(cone_rate(1222, 0))"',
        "read glaze/rates.py",
        'edit glaze/rates.py: lines 7-7 -> "return peak if minutes == 0 else peak / minutes"',
        "write reproduce.py: rm reproduce.py",
    ]
    assert {goal for _, goal in ops} == {ISSUE[:10]}


def test_the_submitted_patch_is_kept_and_pointers_address_the_history():
    result = parse_path(RUN)
    last = result.items[-1]
    assert last.text.startswith("$ submit (submitted)\ndiff --git a/glaze/rates.py")
    assert last.pointer.endswith("swe_agent_run.traj#/info/submission")
    document = json.loads(RUN.read_text())
    task = [i for i in result.items if i.kind == "user_goal"][0]
    index = int(task.pointer.rsplit("/", 1)[1])
    assert document["history"][index]["content"].count(ISSUE) == 1


def test_a_file_of_steps_only():
    result = parse_path(FIXTURES / "steps_only.traj")
    assert [(i.kind, i.role) for i in result.items] == [
        ("conclusion", "assistant"), ("tool_result", "tool"),
        ("conclusion", "assistant"), ("error", "tool")]       # "1 failed": an error
    assert {i.goal for i in result.items} == {""}              # no task statement, no goal


def test_a_tool_role_observation_from_newer_harnesses():
    doc = {"history": [
        {"role": "user", "content": "<pr_description>\nThe CSV export drops the header row.\n</pr_description>", "agent": "main"},
        {"role": "assistant", "content": "Let me look.", "action": "str_replace_editor view /repo/export.py", "agent": "main"},
        {"role": "tool", "content": "Here's the result of running `cat -n` on /repo/export.py", "message_type": "observation", "agent": "main"},
        {"role": "user", "content": "Traceback (most recent call last):\nValueError: bad header", "message_type": "observation", "agent": "main"},
    ]}
    result = parse_text(json.dumps(doc), name="run.traj")
    assert [(i.kind, i.role) for i in result.items] == [
        ("user_goal", "user"), ("turn", "assistant"), ("file_op", "assistant"), ("error", "tool")]
    assert result.items[0].text == "The CSV export drops the header row."


def test_ingested_folder_walk_finds_traj_files(home):
    with Memory.open(home) as mem:
        report = mem.ingest([str(RUN)])
        assert report.new == len(parse_path(RUN).items)
        assert report.ignored == {"demonstration": 1, "trajectory-step": 7,
                                  "file-op-output": 4, "empty": 1}
        rows = mem.query("item_kind(H, user_goal), item_goal(H, G)").rows
        assert [r["G"].split(" Calling")[0] for r in rows] == [ISSUE]


RUN_1X = FIXTURES / "swe_agent_1x_run.traj"
ISSUE_1X = "Kiln schedule export crashes on an empty segment list"


def test_swe_agent_1x_task_typed_observation_is_the_goal():
    # SWE-agent 1.x writes the task as role user, message_type "observation", content parts
    result = parse_path(RUN_1X)
    assert result.format == "trajectory"
    goals = [i for i in result.items if i.kind == "user_goal"]
    assert [g.text.split("\n")[0] for g in goals] == [ISSUE_1X]
    assert "<uploaded_files>" not in goals[0].text
    after = result.items[result.items.index(goals[0]):]
    assert {i.goal.split(" Calling")[0] for i in after} == {ISSUE_1X}
    assert all(i.role != "user" for i in after[1:])


def test_swe_agent_1x_observation_label_is_cut_and_outputs_follow_their_calls():
    result = parse_path(RUN_1X)
    outputs = [i.text for i in result.items if i.role == "tool"]
    assert not any("OBSERVATION:" in text for text in outputs)
    (error,) = [i for i in result.items if i.kind == "error"]
    assert error.text.startswith("$ cd /testbed && python reproduce.py\nTraceback")
    assert result.items[-1].text.startswith("$ submit (submitted)\ndiff --git a/kiln/export.py")


def test_swe_agent_1x_function_calls_give_the_file_operations_their_change():
    ops = [i.text for i in parse_path(RUN_1X).items if i.kind == "file_op"]
    assert ops == [
        "read kiln/export.py",
        'write reproduce.py: 2 lines, starting "from kiln.export import export_schedule'
        ' export_schedule([])"',
        'edit kiln/export.py: "first = segments[0]" -> "if not segments: return "" first ='
        ' segments[0]"',
    ]


MINI = FIXTURES / "mini_swe_agent_run.traj.json"


def test_mini_swe_agent_messages_are_a_trajectory_not_a_chat():
    # mini-swe-agent writes {"info": {...}, "messages": [...], "trajectory_format": ...}; the
    # environment answers as role user, the action is the reply's ```bash block
    compact = json.dumps(json.loads(MINI.read_text()))
    assert detect_format(MINI) == detect_format(compact) == "trajectory"
    result = parse_path(MINI)
    assert result.format == "trajectory"
    goals = [i for i in result.items if i.kind == "user_goal"]
    assert [g.text for g in goals] == [ISSUE_1X + "\nCalling `export_schedule([])` raises"
                                       " IndexError instead of writing an empty CSV."]
    assert all(i.role in ("system", "assistant", "tool") for i in result.items if i is not goals[0])
    (error,) = [i for i in result.items if i.kind == "error"]
    assert error.text.startswith("$ cd /testbed && python -c 'from kiln.export import")
    thoughts = [i.text for i in result.items if i.kind == "conclusion"]
    assert thoughts[0] == "First I reproduce the crash with the empty list from the issue."
    (op,) = [i.text for i in result.items if i.kind == "file_op"]
    assert op.startswith("edit kiln/export.py: sed -i")
    assert result.items[-1].pointer.endswith("#/info/submission")
    assert result.items[-1].text.startswith("$ submit (Submitted)\ndiff --git a/kiln/export.py")


MINI_BARE = FIXTURES / "mini_swe_agent_messages.json"


def test_an_older_mini_swe_agent_run_saved_as_its_messages_alone_is_a_trajectory():
    # the same messages as MINI without info: a shell block and <returncode> mark them
    compact = json.dumps(json.loads(MINI_BARE.read_text()))
    assert detect_format(MINI_BARE) == detect_format(compact) == "trajectory"
    result = parse_path(MINI_BARE)
    full = parse_path(MINI).items
    assert [(i.kind, i.text) for i in result.items] == [
        (i.kind, i.text) for i in full if not i.pointer.endswith("/info/submission")]
    assert {i.session for i in result.items} == {"mini_swe_agent_messages"}
    (error,) = [i for i in result.items if i.kind == "error"]
    assert error.pointer.endswith("mini_swe_agent_messages.json#/3")
    assert read_pointer(error.pointer)["content"].startswith("<returncode>1</returncode>")


def test_a_chat_that_shows_a_bash_block_or_a_returncode_stays_a_chat():
    shown = [{"role": "user", "content": "How do I list files?"},
             {"role": "assistant", "content": "Run:\n\n```bash\nls -la\n```"}]
    assert detect_format(json.dumps(shown)) == "openai"
    asked = [{"role": "user", "content": "<returncode>1</returncode> what does this mean?"},
             {"role": "assistant", "content": "The command failed."}]
    assert detect_format(json.dumps(asked)) == "openai"
    assert detect_format(json.dumps(shown + asked)) == "trajectory"   # both marks: mini's


def test_mini_swe_agent_output_is_unwrapped_and_a_non_zero_exit_is_an_error():
    result = parse_path(MINI)
    assert not any("<returncode>" in i.text or "<output>" in i.text for i in result.items)
    assert [i.text for i in result.items if i.kind == "tool_result"][0] == (
        "$ cd /testbed && python -m pytest -q tests/test_export.py\n3 passed in 0.04s")
    assert result.ignored == {"empty": 1}                      # the silent sed -i
    doc = {"info": {"exit_status": "LimitsExceeded", "submission": ""}, "messages": [
        {"role": "user", "content": "Please solve this issue: The build script ignores --jobs"},
        {"role": "assistant", "content": "THOUGHT: Check the flag.\n\n```bash\n./build --jobs 4\n```"},
        {"role": "user", "content": "<returncode>2</returncode>\n<output>\nusage: build [-h]\n</output>"},
    ]}
    items = parse_text(json.dumps(doc), name="run.traj.json").items
    assert [(i.kind, i.text) for i in items if i.role == "tool"] == [
        ("error", "$ ./build --jobs 4\nusage: build [-h]\n(exit code 2)"),
        ("tool_result", "$ submit (LimitsExceeded)\n(no patch submitted)")]


MINI_TOOLS = FIXTURES / "mini_swe_agent_toolcalls.traj.json"


def test_mini_swe_agent_2_tool_calls_and_its_exit_message(tmp_path):
    result = parse_path(MINI_TOOLS)
    assert result.format == "trajectory" and result.skipped == []
    tools = [i.text.split("\n")[0] for i in result.items if i.role == "tool"]
    # two calls in one reply, answered out of order: each output follows its own call
    assert tools == ["$ cd /testbed && python -c 'from kiln.export import export_schedule;"
                     " export_schedule([])'", "$ git diff --stat",
                     "$ python -m pytest -q tests/test_export.py", "$ submit (Submitted)"]
    assert result.ignored == {"empty": 1, "exit": 1}
    doc = json.loads(MINI_TOOLS.read_text())
    del doc["info"]                                           # the exit message alone
    (tmp_path / "run.traj.json").write_text(json.dumps(doc))
    last = parse_path(tmp_path / "run.traj.json").items[-1]
    assert last.text.startswith("$ submit (Submitted)\ndiff --git a/kiln/export.py")
    assert last.pointer.endswith("#/messages/10/extra/submission")
    assert read_pointer(last.pointer) == doc["messages"][10]["extra"]["submission"]


def test_a_run_that_submitted_nothing_keeps_how_it_ended(tmp_path):
    doc = json.loads(RUN_1X.read_text())
    doc["info"].update(submission=None, exit_status="exit_cost")
    doc["history"] = doc["history"][:9]                       # stopped before the fix ran
    (tmp_path / "cost.traj").write_text(json.dumps(doc))
    last = parse_path(tmp_path / "cost.traj").items[-1]
    assert (last.kind, last.text) == ("tool_result", "$ submit (exit_cost)\n(no patch submitted)")
    assert read_pointer(last.pointer) == "exit_cost"


def test_a_file_of_steps_keeps_its_submission():
    doc = json.loads((FIXTURES / "steps_only.traj").read_text())
    doc["info"] = {"exit_status": "submitted", "submission": "diff --git a/glaze/rates.py b/glaze/rates.py\n"}
    last = parse_text(json.dumps(doc), name="steps.traj").items[-1]
    assert last.text == "$ submit (submitted)\ndiff --git a/glaze/rates.py b/glaze/rates.py"
    assert last.pointer.endswith("steps.traj#/info/submission")


def test_every_attempt_of_a_retry_loop_is_read(tmp_path):
    # SWE-agent's retry loop: every run in "attempts", the chosen one copied to the top
    chosen = json.loads(RUN_1X.read_text())
    failed = json.loads(RUN_1X.read_text())
    failed["history"] = failed["history"][:8]                  # gave up after the traceback
    failed["info"] = {"exit_status": "exit_context", "submission": None}
    doc = {**chosen, "attempts": [failed, chosen]}
    doc["info"] = {**chosen["info"], "best_attempt_idx": 1}
    (tmp_path / "retry.traj").write_text(json.dumps(doc))
    result = parse_path(tmp_path / "retry.traj")
    assert detect_format(tmp_path / "retry.traj") == "trajectory"
    assert result.ignored["attempt"] == 1 and result.skipped == []
    sessions = {i.session for i in result.items}
    assert sessions == {"retry", "retry/attempt-0"}
    tried = [i for i in result.items if i.session == "retry/attempt-0"]
    assert [i.kind for i in tried if i.role == "user"] == ["user_goal"]
    assert tried[-1].text == "$ submit (exit_context)\n(no patch submitted)"
    (error,) = [i for i in tried if i.kind == "error"]
    assert error.pointer.endswith("retry.traj#/attempts/0/history/7")
    assert read_pointer(error.pointer)["role"] == "tool"
    del doc["history"], doc["trajectory"], doc["info"]          # saved before a choice was made
    (tmp_path / "retry.traj").write_text(json.dumps(doc))
    both = parse_path(tmp_path / "retry.traj")
    assert {i.session for i in both.items} == {"retry/attempt-0", "retry/attempt-1"}


def test_mini_swe_agent_2_message_times_are_read():
    items = parse_path(MINI_TOOLS).items
    (error,) = [i for i in items if i.kind == "error"]
    assert error.time == "2024-12-05T00:53:21Z"               # extra.timestamp 1733360001.2
    assert {i.time for i in items if i.kind == "user_goal"} == {""}  # a message without one
    assert all(i.time == "" for i in parse_path(RUN_1X).items)  # SWE-agent writes none


def test_mini_swe_agent_swebench_template_is_cut_from_the_task():
    doc = json.loads(MINI.read_text())
    doc["messages"][1]["content"] = (
        "<pr_description>\nConsider the following PR description:\n" + ISSUE_1X
        + "\n</pr_description>\n\n<instructions>\n# Task Instructions\n</instructions>")
    items = parse_text(json.dumps(doc), name="run.traj.json").items
    assert [i.text for i in items if i.kind == "user_goal"] == [ISSUE_1X]


def test_mini_swe_agent_2_responses_api_replies():
    # models served through OpenAI's Responses API: a reply is {"object": "response",
    # "output": [reasoning, message, function_call]}, a result a "function_call_output"
    result = parse_path(FIXTURES / "mini_swe_agent_responses.traj.json")
    assert result.skipped == []
    assert result.ignored == {"thinking": 3, "empty": 1, "exit": 1}
    assert [(i.kind, i.text.split("\n")[0]) for i in result.items[2:]] == [
        ("conclusion", "I reproduce the crash first."),
        ("error", "$ cd /testbed && python reproduce.py"),
        ("file_op", "edit kiln/export.py: sed -i 's/^ first = segments\\[0\\]/ if not segments:"
                    ' return ""\\n first = segments[0]/\' kiln/export.py'),
        ("conclusion", "The guard is in; I run the tests."),
        ("tool_result", "$ python -m pytest -q tests/test_export.py"),
        ("tool_result", "$ submit (Submitted)"),
    ]
    assert result.items[3].time == "2024-12-05T00:53:21Z"


def test_model_reasoning_is_counted_not_dropped_silently():
    doc = json.loads(RUN_1X.read_text())
    doc["history"][2]["thinking_blocks"] = [{"type": "thinking", "thinking": "The export..."}]
    mini = json.loads(MINI_TOOLS.read_text())
    mini["messages"][2]["reasoning_content"] = "Reproduce first, then read the code."
    assert parse_text(json.dumps(doc), name="a.traj").ignored["thinking"] == 1
    assert parse_text(json.dumps(mini), name="b.traj.json").ignored["thinking"] == 1


def test_a_submission_that_is_not_a_patch_is_kept_as_json():
    doc = json.loads(RUN_1X.read_text())
    doc["info"]["submission"] = {"answer": "42", "files": ["kiln/export.py"]}
    last = parse_text(json.dumps(doc), name="a.traj").items[-1]
    assert last.text == '$ submit (submitted)\n{"answer": "42", "files": ["kiln/export.py"]}'


def test_mini_swe_agent_xml_action_tags_and_exceptions():
    # swebench_xml: the action in <mswea_bash_command> tags; a timeout reports an <exception>
    doc = {"trajectory_format": "mini-swe-agent-1.1", "messages": [
        {"role": "user", "content": "Please solve this issue: The build script ignores --jobs"},
        {"role": "assistant",
         "content": "THOUGHT: Run it.\n\n<mswea_bash_command>./build --jobs 4</mswea_bash_command>"},
        {"role": "user", "content": "<exception>timed out after 60 s</exception>\n"
                                    "<returncode>-1</returncode>\n<output>\nbuilding\n</output>"},
    ]}
    items = parse_text(json.dumps(doc), name="run.traj.json").items
    assert [(i.kind, i.text) for i in items[1:]] == [
        ("conclusion", "Run it."),
        ("error", "$ ./build --jobs 4\n<exception>timed out after 60 s</exception>\nbuilding\n"
                  "(exit code -1)")]


def test_an_editor_view_range_and_an_issue_description_template():
    # str_replace_editor's view takes view_range [first, last] (-1: to the end); OpenHands'
    # SWE-bench template wraps the issue in <issue_description>, as others wrap theirs
    task = ("<uploaded_files>\n/workspace/kiln\n</uploaded_files>\nI've uploaded a python code "
            "repository. Consider the following issue description:\n\n<issue_description>\n"
            "Cone chart skips cone 6\n</issue_description>\n\nCan you help me?")
    view = {"name": "str_replace_editor", "arguments": json.dumps(
        {"command": "view", "path": "/kiln/chart.py", "view_range": [40, -1]})}
    doc = {"history": [
        {"role": "user", "content": task, "agent": "main"},
        {"role": "assistant", "content": "", "agent": "main",
         "tool_calls": [{"id": "c1", "type": "function", "function": view}]},
    ]}
    result = parse_text(json.dumps(doc), name="run.traj")
    assert [i.text for i in result.items] == ["Cone chart skips cone 6",
                                              "read /kiln/chart.py: lines 40-end"]
