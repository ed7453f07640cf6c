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
