"""Claude Code transcripts: kinds, goals, noise, file operations, errors, sessions."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from attention_cloud.ingest import ItemRecord, parse_path, parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
SESSION = FIXTURES / "claude_code_session.jsonl"
TWO_SESSIONS = FIXTURES / "claude_code_two_sessions.jsonl"
SID = "a1b2c3d4-0000-4000-8000-000000000001"
SID2 = "a1b2c3d4-0000-4000-8000-000000000002"


@pytest.fixture(scope="module")
def session_items() -> list[ItemRecord]:
    result = parse_path(SESSION)
    assert result.format == "claude-code"
    assert result.skipped == []
    return result.items


def by_text(items: list[ItemRecord], fragment: str) -> ItemRecord:
    found = [item for item in items if fragment in item.text]
    assert len(found) == 1, f"{fragment!r} in {len(found)} items"
    return found[0]


def links(item: ItemRecord, predicate: str) -> list[str]:
    return [
        obj for subject, pred, obj in item.relations if pred == predicate and subject == item.handle
    ]


def test_kinds_and_roles_in_transcript_order(session_items):
    assert [(i.kind, i.role) for i in session_items] == [
        ("user_goal", "user"),  # the flaky test goal (system reminder stripped)
        ("turn", "assistant"),  # "Let me read the cache module first."
        ("file_op", "assistant"),  # Read src/app/cache.py (its output is not an item)
        ("error", "tool"),  # failing pytest run
        ("file_op", "assistant"),  # Edit
        ("tool_result", "tool"),  # passing pytest run
        ("conclusion", "assistant"),  # the long analysis
        ("user_goal", "user"),  # /review with arguments
        ("file_op", "assistant"),  # Write
        ("error", "system"),  # hook failure reported by a system record
        ("error", "system"),  # API error message
        ("turn", "user"),  # sidechain prompt
        ("conclusion", "assistant"),  # sidechain report
        ("turn", "user"),  # bare "no"
        ("conclusion", "assistant"),  # text block of a text+tool_use record
        ("tool_result", "tool"),  # Grep output
        ("user_goal", "user"),  # text with Prolog syntax, quotes and backslashes
    ]
    assert [i.seq for i in session_items] == list(range(len(session_items)))
    assert {i.session for i in session_items} == {SID}


@pytest.mark.parametrize(
    "noise",
    [
        "SECRET-THINKING",  # thinking block
        "Caveat: The messages below",  # isMeta record
        "/clear",  # slash command without arguments
        "The todo list is empty",  # <system-reminder>
        "COMPACT-SUMMARY-TEXT",  # compaction summary
        "Todos have been modified",  # trivial tool output
        "Running PostToolUse",  # informational system record
        "File created successfully",  # echo of a write
        "has been updated",  # echo of an edit
        "looks like an error but is file content",  # output of a read
        "Request interrupted",
        "Cache ttl fix",  # summary record
    ],
)
def test_noise_never_becomes_an_item(session_items, noise):
    assert not [i for i in session_items if noise in i.text or noise in i.goal]


def test_acknowledgement_is_dropped_and_does_not_change_the_goal(session_items):
    assert not [i for i in session_items if i.text.strip().lower() == "thanks"]
    conclusion = by_text(session_items, "HEAD-MARKER")
    assert conclusion.goal.startswith("Fix the flaky test")


def test_goal_is_the_latest_user_goal_collapsed(session_items):
    first = session_items[0]
    assert first.kind == "user_goal"
    assert (
        first.goal
        == first.text
        == (
            "Fix the flaky test in tests/test_cache.py: it fails with KeyError: 'ttl' when the cache is cold."
        )
    )
    review = by_text(session_items, "/review")
    assert review.text == "/review the eviction policy in src/app/policy.py"
    after = session_items[session_items.index(review) :]
    # Neither the sidechain prompt nor the bare "no" replaces the goal.
    assert {i.goal for i in after[:-1]} == {"/review the eviction policy in src/app/policy.py"}
    assert after[-1].goal.startswith("Now make `foo :- halt.`")


def test_tool_results_in_user_records_are_not_goals(session_items):
    for item in session_items:
        if item.role == "tool":
            assert item.kind in ("error", "tool_result")
            assert item.goal != item.text


def test_file_operation_text_and_relations(session_items):
    edit = by_text(session_items, "edit src/app/cache.py")
    assert edit.kind == "file_op"
    assert (
        edit.text
        == "edit src/app/cache.py: \"return entry['ttl']\" -> \"return entry.get('ttl', TTL)\""
    )
    assert links(edit, "touches_file") == ["src/app/cache.py"]
    assert links(edit, "file_op") == ["edit"]
    assert links(edit, "tool") == ["Edit"]
    assert links(edit, "cwd") == ["/repo"]
    assert links(edit, "in_session") == [SID]
    read = by_text(session_items, "read src/app/cache.py")
    assert links(read, "file_op") == ["read"]
    write = by_text(session_items, "write src/app/policy.py")
    assert write.text.startswith('write src/app/policy.py: 4 lines, starting "MAX_ENTRIES = 1024')
    assert links(write, "file_op") == ["write"]


def test_failed_tool_run_is_an_error_with_its_command_and_error_classes(session_items):
    error = session_items[3]
    assert error.kind == "error"
    assert error.text.startswith(
        "$ python -m pytest tests/test_cache.py -q\nExit code 1\nTraceback"
    )
    assert error.text.endswith("1 failed, 2 passed in 0.05s")
    assert links(error, "mentions") == ["KeyError"]
    assert links(error, "tool") == ["Bash"]
    assert "src/app/cache.py" in links(error, "mentions_file")


def test_passing_run_is_a_tool_result(session_items):
    result = session_items[5]
    assert (result.kind, result.text) == (
        "tool_result",
        "$ python -m pytest tests/test_cache.py -q\n...\n3 passed in 0.04s",
    )


def test_long_conclusion_is_kept_whole_under_its_earlier_handle(session_items):
    record = json.loads(SESSION.read_text().split("\n")[15])
    original = record["message"]["content"][0]["text"]
    item = by_text(session_items, "HEAD-MARKER")
    assert len(original) > 3000
    assert item.text == original.strip()  # the middle too: L0 is verbatim
    # the handle the head-and-tail versions gave this item (re-ingesting into their homes
    # must find it, not add a second copy): derived from the cut they stored
    assert item.handle == "it_c82ad27e8dc1e9fa"


def test_system_and_api_errors(session_items):
    hook = by_text(session_items, "hook failed")
    assert (hook.kind, hook.role) == ("error", "system")
    api = by_text(session_items, "API Error: 529")
    assert (api.kind, api.role) == ("error", "system")


def test_sidechain_items_are_marked(session_items):
    report = by_text(session_items, "SIDECHAIN-REPORT")
    assert links(report, "sidechain") == ["true"]
    assert report.kind == "conclusion"


def test_prolog_quotes_and_backslashes_are_kept_verbatim(session_items):
    assert session_items[-1].text == (
        'Now make `foo :- halt.` a literal in the docs; keep quotes " and backslashes \\ as they are.'
    )


def test_times_are_utc_seconds(session_items):
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", i.time) for i in session_items)
    raw = json.loads(SESSION.read_text().split("\n")[4])["timestamp"]
    assert raw == "2026-02-03T10:00:03.250Z"
    assert session_items[0].time == "2026-02-03T10:00:03Z"


def test_pointers_name_the_absolute_path_and_line(session_items):
    base = os.path.abspath(SESSION)
    assert session_items[0].pointer == f"{base}:5"
    assert session_items[3].pointer == f"{base}:11"


def test_several_sessions_in_one_file_number_their_items_separately():
    items = parse_path(TWO_SESSIONS).items
    assert [(i.session, i.seq) for i in items] == [
        (SID, 0),
        (SID2, 0),
        (SID, 1),
        (SID2, 1),
        ("claude_code_two_sessions", 0),
    ]
    assert items[2].goal == "Session one goal: add pagination to /v1/items."
    assert items[3].goal == "Session two goal: rotate the signing key every 90 days."


def test_session_argument_names_records_without_a_session_id():
    items = parse_path(TWO_SESSIONS, session="named").items
    assert items[-1].session == "named"
    assert items[0].session == SID  # an embedded id wins


def test_items_before_any_goal_have_an_empty_goal():
    lines = [
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Resuming: the build was red."}],
            },
        },
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": "s",
            "message": {"role": "user", "content": "Make the build green."},
        },
    ]
    items = parse_text("\n".join(json.dumps(x) for x in lines) + "\n", name="resume.jsonl").items
    assert [(i.kind, i.goal) for i in items] == [
        ("conclusion", ""),
        ("user_goal", "Make the build green."),
    ]


def test_goal_is_capped_at_300_characters():
    text = "Refactor " + "the payment module " * 40
    line = json.dumps(
        {
            "type": "user",
            "uuid": "u",
            "sessionId": "s",
            "message": {"role": "user", "content": text},
        }
    )
    item = parse_text(line + "\n", name="long.jsonl").items[0]
    assert len(item.goal) == 300 and item.goal.endswith("…")
    assert item.goal.startswith("Refactor the payment module")


def test_shell_commands_that_obviously_write_files_are_file_operations():
    records = [
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": "s",
            "cwd": "/w",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Bash",
                        "input": {"command": "rm -f build/cache.db"},
                    },
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "Bash",
                        "input": {"command": "ls -la"},
                    },
                    {
                        "type": "tool_use",
                        "id": "t3",
                        "name": "Bash",
                        "input": {"command": "sed -i 's/a/b/' /w/src/x.py"},
                    },
                ],
            },
        },
    ]
    items = parse_text(json.dumps(records[0]) + "\n", name="shell.jsonl").items
    assert [(i.kind, links(i, "touches_file"), links(i, "file_op")) for i in items
            if i.kind == "file_op"] == [
        ("file_op", ["build/cache.db"], ["write"]),
        ("file_op", ["src/x.py"], ["edit"]),
    ]
    # ls touches no file: with no result in the file it is kept as a call without one
    assert [i.text for i in items if i.kind != "file_op"] == [
        "$ ls -la\n(no result in the transcript)"]


def test_a_count_a_shell_command_prints_is_kept_not_dropped_as_the_file():
    """`wc -l FILE` was read as a read of FILE, and its output dropped as the file it returned
    (`file-op-output`): the count (what the agent ran it for) was in no item. A `cat`'s
    output is the file and stays out; a `wc`'s is an answer and is kept."""
    def call(uuid, tool_id, command):
        return {"type": "assistant", "uuid": uuid, "sessionId": "s", "cwd": "/w",
                "timestamp": "2026-01-02T03:04:05Z",
                "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": tool_id, "name": "Bash",
                     "input": {"command": command}}]}}

    def result(uuid, tool_id, output):
        return {"type": "user", "uuid": uuid, "sessionId": "s", "cwd": "/w",
                "timestamp": "2026-01-02T03:04:06Z",
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": tool_id, "content": output}]}}

    records = [call("a", "t1", "wc -l src/app.py"), result("b", "t1", "412 src/app.py"),
               call("c", "t2", "cat src/app.py"), result("d", "t2", "import os\nprint(1)")]
    parsed = parse_text("".join(json.dumps(r) + "\n" for r in records), name="s.jsonl")
    assert [i.text for i in parsed.items if i.kind == "tool_result"] == [
        "$ wc -l src/app.py\n412 src/app.py"]
    assert parsed.ignored.get("file-op-output") == 1


def test_a_read_of_a_commands_output_file_keeps_what_it_returned():
    """Claude Code writes a background command's output to /tmp/claude-<uid>/…/tasks/<id>.output
    and the agent reads it (`tail -5 …`, the Read tool): that read was taken for a read of a
    project file and its output dropped (`file-op-output`), so the server log or test summary
    it returned was in no item, and no file keeps it. A read of a temporary folder's file or a
    log keeps its output now; a read of a project file still does not."""
    def call(uuid, tool_id, name, args):
        return {"type": "assistant", "uuid": uuid, "sessionId": "s", "cwd": "/w",
                "timestamp": "2026-01-02T03:04:05Z",
                "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": tool_id, "name": name, "input": args}]}}

    def result(uuid, tool_id, output):
        return {"type": "user", "uuid": uuid, "sessionId": "s", "cwd": "/w",
                "timestamp": "2026-01-02T03:04:06Z",
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": tool_id, "content": output}]}}

    task = "/tmp/claude-1000/-w/tasks/bae407b.output"
    records = [
        call("a", "t1", "Bash", {"command": f"tail -5 {task}"}),
        result("b", "t1", "23:58:02.670 [info] REFUSED JOIN terminal:%2702 in 5ms"),
        call("c", "t2", "Read", {"file_path": "/w/logs/build.log"}),
        result("d", "t2", "     1→5 tests, 0 failures"),
        call("e", "t3", "Read", {"file_path": "/w/src/app.py"}),
        result("f", "t3", "     1→import os")]
    parsed = parse_text("".join(json.dumps(r) + "\n" for r in records), name="s.jsonl")
    kept = [i.text for i in parsed.items if i.kind == "tool_result"]
    assert kept[0] == f"$ tail -5 {task}\n23:58:02.670 [info] REFUSED JOIN terminal:%2702 in 5ms"
    assert kept[1].startswith("Read logs/build.log\n") and kept[1].endswith("5 tests, 0 failures")
    assert len(kept) == 2
    assert [i.text for i in parsed.items if i.kind == "file_op"] == [
        f"read {task}: tail -5 {task}", "read logs/build.log", "read src/app.py"]
    assert parsed.ignored.get("file-op-output") == 1
