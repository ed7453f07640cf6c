"""OpenHands runs: a saved trajectory (a JSON list of events) and the evaluation harness's
output.jsonl. The task is the goal, commands label their output, a non-zero exit is an error,
editor actions are file operations with what changed, bookkeeping events are counted."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path, parse_text, read_pointer
from attention_cloud.ingest.records import ParseResult

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
TRAJECTORY = FIXTURES / "openhands_trajectory.json"
OUTPUT = FIXTURES / "openhands_output.jsonl"
TASK = "The tide table CLI crashes with KeyError when a port name has a space in it"


def parse(path: Path) -> ParseResult:
    result = parse_path(path)
    assert result.format == "openhands"
    return result


def parse_events(events: list[dict], name: str = "run.json") -> ParseResult:
    return parse_text(json.dumps(events), name=name, format="openhands")


def kinds(result: ParseResult) -> list[tuple[str, str]]:
    return [(i.kind, i.text.split("\n")[0][:40]) for i in result.items]


def test_the_first_user_message_is_the_goal_of_every_item():
    result = parse(TRAJECTORY)
    goals = [i for i in result.items if i.kind == "user_goal"]
    assert [g.text[:len(TASK)] for g in goals] == [TASK]
    assert goals[0].pointer.endswith("openhands_trajectory.json#/1")
    assert {i.goal[:len(TASK)] for i in result.items} == {TASK}
    assert {i.session for i in result.items} == {"openhands_trajectory"}


def test_commands_label_their_output_and_a_non_zero_exit_is_an_error():
    result = parse(TRAJECTORY)
    outputs = [(i.kind, i.text) for i in result.items if i.role == "tool"]
    assert outputs[0] == ("tool_result", "$ ls tidetable tests\ntidetable:\n__init__.py  cli.py"
                                         "  ports.py\n\ntests:\ntest_cli.py")
    failed = [text for kind, text in outputs if kind == "error"]
    assert len(failed) == 1 and failed[0].startswith("$ python -m pytest -q tests\nF.")
    assert failed[0].endswith("1 failed, 1 passed in 0.05s\n(exit code 1)")
    error = next(i for i in result.items if i.kind == "error")
    assert (error.handle, "mentions", "KeyError") in error.relations
    assert (error.handle, "tool", "execute_bash") in error.relations
    assert ("tool_result", "$ python -m pytest -q tests\n...\n3 passed in 0.04s") in outputs


def test_editor_actions_are_file_operations_with_what_changed():
    ops = [i.text for i in parse(TRAJECTORY).items if i.kind == "file_op"]
    assert ops == [
        "read tidetable/ports.py: lines 10-30",
        'edit tidetable/ports.py: "key = name.split()[0].lower()" -> '
        '"key = " ".join(name.split()).lower()"',
        # an older run kept only the path in args: the function call gives the rest
        'write tests/test_quoted.py: 4 lines, starting "from tidetable.ports import lookup def '
        "test_space(): assert lookup('Port Isaac').name == 'Port Isaac'\"",
    ]
    edit = next(i for i in parse(TRAJECTORY).items if i.kind == "file_op" and "edit" in i.text)
    assert (edit.handle, "touches_file", "tidetable/ports.py") in edit.relations
    assert (edit.handle, "tool", "str_replace_editor") in edit.relations


def test_thoughts_think_and_finish_are_conclusions_and_browsing_a_result():
    result = parse(TRAJECTORY)
    said = [(i.kind, i.text[:30]) for i in result.items if i.role == "assistant"
            and i.kind != "file_op"]
    assert said == [
        ("turn", "Let me look at the layout of t"),        # narration of the next step
        ("conclusion", "lookup() keys ports by the fir"),   # a run's thought
        ("conclusion", "Names are now normalised by co"),   # think
        ("conclusion", "Fixed lookup() in tidetable/po"),   # finish's final_thought
    ]
    browse = next(i for i in result.items if i.text.startswith("browser "))
    assert browse.kind == "tool_result" and "Port Talbot" in browse.text


def test_bookkeeping_events_are_counted_not_kept():
    result = parse(TRAJECTORY)
    assert result.ignored == {"system": 1, "recall": 2, "think": 1, "agent_state_changed": 1,
                              "null": 1, "file-op-output": 3}
    assert result.records_read == 23 and result.skipped == []
    assert "You are OpenHands agent" not in " ".join(i.text for i in result.items)


def test_times_come_from_timestamps_and_pointers_address_the_event():
    result = parse(TRAJECTORY)
    assert result.items[0].time == "2025-03-14T09:00:01Z"
    assert [i.time for i in result.items] == sorted(i.time for i in result.items)
    for item in result.items:
        event = read_pointer(item.pointer)
        assert "action" in event or "observation" in event
    error = next(i for i in result.items if i.kind == "error")
    assert read_pointer(error.pointer)["extras"]["metadata"]["exit_code"] == 1


def test_an_output_line_is_a_run_named_by_its_instance():
    result = parse(OUTPUT)
    first = [i for i in result.items if i.session == "tidetable__tidetable-42"]
    assert kinds(ParseResult(items=first, format="openhands")) == [
        ("user_goal", "Moon phase is off by one day after a lea"),  # the template is cut away
        ("conclusion", "The epoch arithmetic in moon.py ignores "),
        ("turn", "Please continue working on the task on w"),  # the harness's stock reply
        ("tool_result", "$ submit (git_patch)"),
    ]
    assert {i.goal[:14] for i in first} == {"Moon phase is "}
    patch = first[-1]
    assert patch.text.split("\n")[1] == "diff --git a/tidetable/moon.py b/tidetable/moon.py"
    assert patch.pointer.endswith("openhands_output.jsonl:1#/test_result/git_patch")
    assert read_pointer(patch.pointer).startswith("diff --git")
    assert result.ignored == {"empty": 1, "null": 1}   # a silent command; a pair's null


def test_an_older_run_of_pairs_keeps_its_failure_and_its_error():
    second = [i for i in parse(OUTPUT).items if i.session == "tidetable__tidetable-57"]
    assert kinds(ParseResult(items=second, format="openhands")) == [
        ("user_goal", "Make `tides export --csv` write a header"),
        ("error", "$ tides export --csv"),
        ("tool_result", "$ submit (git_patch)"),
        ("error", "Agent reached maximum iteration in headl"),
    ]
    assert second[1].text.endswith("command not found\n(exit code 127)")   # extras.exit_code
    assert second[1].pointer.endswith(":2#/history/1/1")
    assert second[2].text == "$ submit (git_patch)\n(no patch submitted)"
    assert second[3].pointer.endswith(":2#/error")


def test_the_instruction_is_the_goal_when_the_history_has_no_user_message(tmp_path):
    run = {"instance_id": "x-1", "instruction": "Rename the --csv flag to --format csv.",
           "test_result": {"git_patch": ""}, "history": [
               {"id": 1, "source": "agent", "action": "run",
                "args": {"command": "grep -rn -- --csv tides/", "thought": ""}},
               {"id": 2, "source": "agent", "cause": 1, "observation": "run",
                "content": "tides/cli.py:12: --csv", "extras": {"metadata": {"exit_code": 0}}}]}
    path = tmp_path / "output.jsonl"
    path.write_text(json.dumps(run) + "\n")
    items = parse(path).items
    assert [(i.kind, i.pointer.rsplit("#", 1)[1]) for i in items] == [
        ("user_goal", "/instruction"), ("tool_result", "/history/1"),
        ("tool_result", "/test_result/git_patch")]
    assert {i.goal for i in items} == {"Rename the --csv flag to --format csv."}


def test_observations_find_their_action_by_cause_and_odd_events_are_skipped():
    result = parse_events([
        {"id": 0, "source": "user", "action": "message", "args": {"content": "Tidy the logs."}},
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "ls logs"}},
        {"id": 2, "source": "agent", "action": "run_ipython",
         "args": {"code": "print(len(open('logs/a.log').readlines()))"}},
        {"id": 3, "cause": 2, "observation": "run_ipython", "content": "41", "extras": {}},
        {"id": 4, "cause": 1, "observation": "run", "content": "a.log b.log",
         "extras": {"metadata": {"exit_code": -1}}},                # -1: no exit code read
        {"id": 5, "source": "agent", "action": "run",
         "args": {"command": "make lint", "hidden": True}},
        {"id": 6, "cause": 99, "observation": "error", "content": "Runtime disconnected",
         "extras": {"error_id": "STATUS$ERROR"}},
        "not an event",
        {"id": 8, "source": "agent", "action": "reject",
         "args": {"outputs": {"reason": "the logs are read-only"}, "thought": ""}},
    ])
    assert kinds(result) == [
        ("user_goal", "Tidy the logs."),
        ("tool_result", ">>> print(len(open('logs/a.log').readlin"),
        ("tool_result", "$ ls logs"),
        ("error", "Runtime disconnected"),
        ("conclusion", "Rejected: the logs are read-only"),
    ]
    assert result.ignored == {"hidden": 1}
    assert result.skipped == [(8, "event 7 is not an OpenHands action or observation")]


def test_detection_takes_every_openhands_shape_and_steals_no_other_format(tmp_path):
    events = json.loads(TRAJECTORY.read_text())
    runs = [json.loads(line) for line in OUTPUT.read_text().splitlines()]
    assert detect_format(json.dumps(events)) == "openhands"              # on one line
    assert detect_format(json.dumps(runs[0], indent=2)) == "openhands"   # one run, laid out
    assert detect_format(json.dumps(runs)) == "openhands"                # a list of runs
    stopped = {"instance_id": "x-2", "instruction": "Fix it.", "history": [],
               "test_result": {}, "error": "Runtime failed to start"}
    assert detect_format(json.dumps(stopped) + "\n" + OUTPUT.read_text()) == "openhands"
    for name, expected in [("swe_agent_run.traj", "trajectory"), ("openai_chat.json", "openai"),
                           ("mini_swe_agent_run.traj.json", "trajectory"),
                           ("sharegpt.json", "sharegpt"), ("claude_code_session.jsonl",
                                                           "claude-code")]:
        assert detect_format(FIXTURES / name) == expected


def test_a_stopped_run_keeps_its_error_and_a_damaged_file_is_refused(tmp_path):
    stopped = {"instance_id": "x-2", "instruction": "Fix the export.", "history": [],
               "test_result": {}, "error": "Runtime failed to start"}
    result = parse_text(json.dumps(stopped), name="out.json")
    assert [(i.kind, i.text) for i in result.items] == [
        ("user_goal", "Fix the export."), ("error", "Runtime failed to start")]
    bad = FIXTURES / "bad" / "truncated_openhands.json"
    out = CliRunner().invoke(main, ["ingest", str(bad), "--home", str(tmp_path / "h")])
    assert out.exit_code == 1
    assert out.output.strip() == (f"atc: {bad}: line 69: invalid JSON: Unterminated string "
                                  f"starting at (column 18)")


def test_ingest_then_hydrate_through_the_cli(home):
    def run(*args: str):
        out = CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        return out

    report = json.loads(run("ingest", str(TRAJECTORY), str(OUTPUT), "--format-output",
                            "json").stdout)
    expected = len(parse(TRAJECTORY).items) + len(parse(OUTPUT).items)
    assert report["new"] == expected and report["files"] == 2
    assert report["ignored"]["recall"] == 2 and report["ignored"]["system"] == 1
    journal = (home / "journal.pl").read_bytes()
    bad = CliRunner().invoke(main, ["ingest", str(FIXTURES / "bad" / "truncated_openhands.json"),
                                    "--home", str(home)])
    assert bad.exit_code != 0 and bad.output.strip().count("\n") == 0
    assert (home / "journal.pl").read_bytes() == journal
    frame = run("hydrate", "why did pytest fail with KeyError on Port Isaac", "--budget",
                "1500").output
    assert "KeyError" in frame and "ports.py" in frame


# -- OpenHands V1 (the software-agent-sdk): events typed by kind -------------------------------

V1_EVENTS = FIXTURES / "openhands_v1_events.json"
V1_FOLDER = FIXTURES / "openhands_v1_conversation"
V1_CONVERSATION = V1_FOLDER / "5e1d0c2a9b8f4e21"
V1_TASK = "The invoice exporter writes totals like 12,50 into invoices.csv"


def test_v1_events_become_a_goal_calls_file_operations_errors_and_conclusions():
    result = parse(V1_EVENTS)
    assert kinds(result) == [
        ("user_goal", "The invoice exporter writes totals like "),
        ("turn", "Let me find where the totals are formatt"),          # a thought: narration
        ("tool_result", "$ grep -rn format_amount ledger/"),
        ("file_op", "read ledger/export.py: lines 10-20"),
        ("conclusion", "The exporter passes a German locale to f"),   # the edit's thought
        ("file_op", "edit ledger/export.py: \"format_amount(to"),
        ("error", "$ python -m pytest -q tests/test_export."),
        ("conclusion", "money.py falls back to the de_DE locale "),   # ThinkAction
        ("conclusion", "I will pin the C locale's output with a "),
        ("file_op", "write tests/test_money.py: 5 lines, star"),
        ("conclusion", "The stale build folder may hold an old w"),
        ("file_op", "write build/: rm -rf build/"),
        ("tool_result", "$ rm -rf build/"),                            # the user's rejection
        ("tool_result", "$ python -m pytest -q"),
        ("turn", "Let me check the CSV spec online."),
        ("error", "Tool 'browser' not found. Available: ['t"),        # AgentErrorEvent
        ("conclusion", "Totals in invoices.csv are now written w"),   # FinishAction's message
        ("conclusion", "Done: invoices.csv totals use a dot deci"),   # the agent's message
    ]
    assert {i.goal[:len(V1_TASK)] for i in result.items} == {V1_TASK}
    assert {i.session for i in result.items} == {"openhands_v1_events"}
    edit = next(i for i in result.items if i.text.startswith("edit "))
    assert edit.text.endswith('-> "format_amount(total, locale=\'C\')"')
    assert (edit.handle, "touches_file", "ledger/export.py") in edit.relations
    assert (edit.handle, "tool", "file_editor") in edit.relations
    failed = next(i for i in result.items if i.kind == "error")
    assert failed.text.endswith("1 failed in 0.03s\n(exit code 1)")
    assert (failed.handle, "tool", "terminal") in failed.relations
    rejected = next(i for i in result.items if i.text.startswith("$ rm -rf"))
    assert rejected.text == ("$ rm -rf build/\nLeave build/ alone, it holds the release "
                             "artefacts.\n(action rejected)")


def test_v1_bookkeeping_is_counted_and_times_and_pointers_address_the_event():
    result = parse(V1_EVENTS)
    assert result.ignored == {"SystemPromptEvent": 1, "ConversationStateUpdateEvent": 2,
                              "Condensation": 1, "PauseEvent": 1, "ThinkObservation": 1,
                              "FinishObservation": 1, "thinking": 1, "file-op-output": 3}
    assert result.records_read == 27 and result.skipped == []
    assert "You are OpenHands agent" not in " ".join(i.text for i in result.items)
    assert result.items[0].time == "2025-11-03T14:01:05Z"
    assert [i.time for i in result.items] == sorted(i.time for i in result.items)
    for item in result.items:
        assert read_pointer(item.pointer)["kind"] in ("MessageEvent", "ActionEvent",
                                                      "ObservationEvent", "AgentErrorEvent",
                                                      "UserRejectObservation")
    failed = next(i for i in result.items if i.kind == "error")
    assert failed.pointer.endswith("openhands_v1_events.json#/10")
    assert read_pointer(failed.pointer)["observation"]["exit_code"] == 1


def test_v1_as_json_lines_keeps_the_same_items_with_line_pointers(tmp_path):
    path = tmp_path / "conversation.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in json.loads(V1_EVENTS.read_text())))
    assert detect_format(path) == "openhands"
    result = parse(path)
    assert [i.text for i in result.items] == [i.text for i in parse(V1_EVENTS).items]
    failed = next(i for i in result.items if i.kind == "error")
    assert failed.pointer == f"{path}:11#"
    assert read_pointer(failed.pointer)["tool_call_id"] == "toolu_04"


def test_each_file_of_a_conversation_folder_is_its_event_in_the_conversation():
    files = sorted((V1_CONVERSATION / "events").iterdir())
    items = [item for path in files for item in parse(path).items]
    assert [i.text for i in items] == [i.text for i in parse(V1_EVENTS).items]
    assert {i.session for i in items} == {"5e1d0c2a9b8f4e21"}
    # the goal and the call an observation answers come from the files saved before it
    assert {i.goal[:len(V1_TASK)] for i in items} == {V1_TASK}
    failed = parse(files[10]).items
    assert [i.kind for i in failed] == ["error"]
    assert failed[0].text.startswith("$ python -m pytest -q tests/test_export.py\n")
    assert failed[0].pointer == f"{files[10].resolve()}#"
    assert read_pointer(failed[0].pointer)["action_id"] == json.loads(files[9].read_text())["id"]
    state = parse_path(V1_CONVERSATION / "base_state.json")
    assert (state.format, state.items, state.ignored) == ("openhands", [], {"base_state": 1})


def test_an_older_sdk_release_its_bash_output_and_error_flag():
    bash = {"kind": "ExecuteBashAction", "command": "make docs"}
    result = parse_events([
        {"kind": "MessageEvent", "id": "m1", "source": "user", "timestamp": "2025-08-01T10:00:00",
         "llm_message": {"role": "user", "content": [{"type": "text",
                                                       "text": "Build the docs and fix links."}]}},
        {"kind": "ActionEvent", "id": "a1", "source": "agent", "timestamp": "2025-08-01T10:00:01",
         "thought": [], "action": bash, "tool_name": "execute_bash", "tool_call_id": "c1",
         "llm_response_id": "r1"},
        {"kind": "ActionEvent", "id": "a2", "source": "agent", "timestamp": "2025-08-01T10:00:01",
         "thought": [], "tool_name": "str_replace_editor", "tool_call_id": "c2",
         "llm_response_id": "r1",
         "action": {"kind": "StrReplaceEditorAction", "command": "insert", "path": "docs/a.md",
                    "insert_line": 3, "new_str": "See [usage](usage.md)."}},
        # answered out of order: each observation finds its action by action_id
        {"kind": "ObservationEvent", "id": "o2", "source": "environment", "action_id": "a2",
         "tool_name": "str_replace_editor", "tool_call_id": "c2",
         "observation": {"kind": "StrReplaceEditorObservation", "output": "inserted",
                         "error": True}},
        {"kind": "ObservationEvent", "id": "o1", "source": "environment", "action_id": "a1",
         "tool_name": "execute_bash", "tool_call_id": "c1",
         "observation": {"kind": "ExecuteBashObservation", "output": "broken link: usage.md",
                         "exit_code": 2, "error": False}},
        {"kind": "TokenEvent", "id": "t1", "source": "agent"},
    ])
    assert kinds(result) == [
        ("user_goal", "Build the docs and fix links."),
        ("file_op", "edit docs/a.md: insert \"See [usage](usag"),
        ("error", "str_replace_editor docs/a.md"),   # a failed edit is kept
        ("error", "$ make docs"),
    ]
    assert result.items[-1].text == "$ make docs\nbroken link: usage.md\n(exit code 2)"
    assert result.ignored == {"TokenEvent": 1}


def test_v1_detection_steals_no_other_format():
    events = json.loads(V1_EVENTS.read_text())
    assert detect_format(json.dumps(events)) == "openhands"                  # on one line
    assert detect_format(json.dumps(events[4], indent=2)) == "openhands"     # one event file
    assert detect_format(V1_CONVERSATION / "base_state.json") == "openhands"
    # "kind" alone is not an OpenHands event: a chat message that carries one stays a chat
    chat = [{"role": "user", "content": "hi", "kind": "MessageEvent"},
            {"role": "assistant", "content": "hello"}]
    assert detect_format(json.dumps(chat)) == "openai"


def test_a_damaged_v1_file_is_refused_through_the_cli(tmp_path):
    bad = FIXTURES / "bad" / "truncated_openhands_v1.json"
    home = tmp_path / "h"
    assert CliRunner().invoke(main, ["ingest", str(V1_EVENTS), "--home", str(home)]).exit_code == 0
    journal = (home / "journal.pl").read_bytes()
    out = CliRunner().invoke(main, ["ingest", str(bad), "--home", str(home)])
    assert out.exit_code == 1
    assert out.output.strip() == (f"atc: {bad}: line 60: invalid JSON: Unterminated string "
                                  f"starting at (column 10)")
    assert (home / "journal.pl").read_bytes() == journal


def test_a_conversation_folder_through_ingest_then_hydrate(home):
    def run(*args: str):
        out = CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        return out

    report = json.loads(run("ingest", str(V1_FOLDER), "--format-output", "json").stdout)
    assert report["new"] == len(parse(V1_EVENTS).items) and report["files"] == 28
    assert report["ignored"]["base_state"] == 1 and report["ignored"]["Condensation"] == 1
    again = json.loads(run("ingest", str(V1_FOLDER), "--format-output", "json").stdout)
    assert again["new"] == 0
    frame = run("hydrate", "why did the CSV totals keep a decimal comma", "--budget",
                "1500").output
    assert "de_DE" in frame and "export.py" in frame
