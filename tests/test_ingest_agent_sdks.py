"""Message logs written with today's LLM SDKs: Anthropic Messages API conversations, OpenAI
Responses API items and the Codex CLI's session rollouts. Tool calls pair with their results by
id, failing results are errors, reasoning is counted, the goal is the user's task, and pointers
lead back to the verbatim block through ``atc show --source``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path, parse_text, read_pointer
from attention_cloud.ingest.openai_responses import is_responses_document
from attention_cloud.ingest.records import ItemRecord

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
ANTHROPIC = FIXTURES / "anthropic_messages.json"
RESPONSES = FIXTURES / "openai_responses.json"
ROLLOUT = FIXTURES / "codex_rollout.jsonl"

LEAD_EXAMPLE = [
    {"role": "user", "content": "Fix the flaky test in tests/test_cache.py"},
    {"role": "assistant", "content": [
        {"type": "text", "text": "Let me look at the test."},
        {"type": "tool_use", "id": "toolu_01", "name": "bash",
         "input": {"command": "pytest tests/test_cache.py -x"}}]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01",
         "content": "FAILED tests/test_cache.py::test_expiry - AssertionError: 3 != 2",
         "is_error": False}]},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "The expiry uses wall clock."},
        {"type": "text", "text": "The expiry test depends on wall-clock time; I will freeze time."}]},
]


def links(item: ItemRecord, predicate: str) -> list[str]:
    return [obj for _, pred, obj in item.relations if pred == predicate]


def cli(home: Path, *args: str) -> str:
    out = CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return out.stdout


def ingest_report(home: Path, *paths: Path, fmt: str | None = None) -> dict:
    extra = ["--format", fmt] if fmt else []
    return json.loads(cli(home, "ingest", *map(str, paths), *extra, "--format-output", "json"))


# -- Anthropic Messages API --------------------------------------------------------------------

def test_the_leads_conversation_keeps_the_command_and_the_failure_it_produced(tmp_path, home):
    path = tmp_path / "file.json"
    path.write_text(json.dumps(LEAD_EXAMPLE))
    report = ingest_report(home, path)
    assert report["new"] == 4 and report["ignored"] == {"thinking": 1}
    items = parse_path(path).items
    assert [(i.kind, i.role) for i in items] == [
        ("user_goal", "user"), ("turn", "assistant"), ("error", "tool"),
        ("conclusion", "assistant")]
    failure = items[2]
    assert failure.text == ("$ pytest tests/test_cache.py -x\nFAILED tests/test_cache.py::"
                            "test_expiry - AssertionError: 3 != 2")
    assert failure.goal == "Fix the flaky test in tests/test_cache.py"
    assert links(failure, "tool") == ["bash"] and "AssertionError" in links(failure, "mentions")
    source = json.loads(cli(home, "show", failure.handle, "--source"))
    assert source["type"] == "tool_result" and source["tool_use_id"] == "toolu_01"
    grown = [*LEAD_EXAMPLE, {"role": "user", "content": "Also run the whole suite."}]
    path.write_text(json.dumps(grown, indent=1))  # re-read whole: an upsert by handle
    again = ingest_report(home, path)
    assert (again["new"], again["unchanged"]) == (1, 4)
    assert [i.handle for i in parse_path(path).items][:4] == [i.handle for i in items]


def test_a_request_body_reads_system_goal_calls_results_and_conclusion():
    result = parse_path(ANTHROPIC)
    assert result.format == "anthropic" and detect_format(ANTHROPIC) == "anthropic"
    assert result.records_read == 8 and result.skipped == []
    assert result.ignored == {"thinking": 2, "file-op-output": 1, "container_upload block": 1}
    summary = [(i.kind, i.role, i.pointer.split("#")[1]) for i in result.items]
    assert summary == [
        ("turn", "system", "/system"),  # the system prompt: kept, never a goal
        ("user_goal", "user", "/messages/0"),
        ("turn", "assistant", "/messages/1/content/1"),  # narration; thinking counted
        ("error", "tool", "/messages/2/content/0"),  # is_error, content a list of blocks
        ("file_op", "assistant", "/messages/3/content/1"),  # its echo is file-op-output
        ("tool_result", "tool", "/messages/5/content/1"),  # web search: what it found
        ("tool_result", "tool", "/messages/6/content/0"),
        ("tool_result", "tool", "/messages/6/content/1"),  # no matching tool_use: kept
        ("conclusion", "assistant", "/messages/7/content/0"),  # two text blocks, one item
    ]
    system, goal, _, failure, edit, search, passed, orphan, conclusion = result.items
    assert system.goal == "" and system.text.endswith("Never push to main.")
    assert {i.goal for i in result.items[1:]} == {goal.text}
    assert failure.text.startswith("$ pytest tests/test_store.py -x -q\nF\nFAILED")
    assert failure.time == "2026-03-02T09:14:19Z"
    assert edit.text.startswith('edit /srv/tidecache/tidecache/store.py: "expires = datetime')
    assert links(edit, "touches_file") == ["/srv/tidecache/tidecache/store.py"]
    assert search.text.startswith("web_search python datetime.now naive local time")
    assert "https://docs.python.org/3/library/datetime.html" in search.text
    assert passed.text == "$ pytest tests/test_store.py -q\n3 passed in 0.38s"
    assert orphan.text == "orphan output: cache warmed for 12 ports" and links(orphan, "tool") == []
    assert conclusion.text == ("The expiry was computed from naive local time, so after midnight "
                               "UTC the cache kept yesterday's tables.\n\nI made store.py "
                               "compute it in UTC; the rollover test passes now.")
    assert read_pointer(edit.pointer)["id"] == "toolu_02Cd"


def test_json_lines_of_messages_and_a_response_body_laid_out_over_lines(tmp_path):
    lines = tmp_path / "chat.jsonl"
    lines.write_text("".join(json.dumps(m) + "\n" for m in LEAD_EXAMPLE))
    result = parse_path(lines)
    assert result.format == "anthropic"  # the first line alone looks like any chat
    assert [i.kind for i in result.items] == ["user_goal", "turn", "error", "conclusion"]
    assert result.items[2].pointer == f"{lines}:3#/content/0"
    assert read_pointer(result.items[2].pointer)["tool_use_id"] == "toolu_01"
    response = tmp_path / "response.json"
    response.write_text(json.dumps({
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
        "content": [{"type": "text", "text": "The retry budget resets on every reconnect, "
                                             "so the client never gives up."},
                    {"type": "tool_use", "id": "toolu_7", "name": "write_file",
                     "input": {"path": "net/retry.py", "content": "BUDGET = 5\n"}}],
        "usage": {"input_tokens": 2095, "output_tokens": 503}}, indent=2))
    result = parse_path(response)
    assert result.format == "anthropic"
    assert [(i.kind, i.pointer.split("#")[1]) for i in result.items] == [
        ("conclusion", "/content/0"), ("file_op", "/content/1")]
    assert result.items[1].text == 'write net/retry.py: 1 line, starting "BUDGET = 5"'


def test_malformed_blocks_are_counted_and_the_rest_is_kept(tmp_path, home):
    messages = [
        {"role": "user", "content": "Why does the importer drop rows with a BOM?"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "input": {"command": "ls"}},  # no name
            {"type": "hologram", "payload": "?"},
            "a bare string block is text",
            7,
        ]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nowhere",
                                      "content": "Traceback (most recent call last):\n"
                                                 "UnicodeDecodeError: 'utf-8' codec"}]},
    ]
    result = parse_text(json.dumps(messages), name="log.json")
    assert result.format == "anthropic"
    assert sorted(result.skipped) == [(2, "content block 3 is not an object"),
                                      (2, "tool_use block 0 has no name")]
    assert result.ignored == {"hologram block": 1}
    assert [(i.kind, i.text[:27]) for i in result.items] == [
        ("user_goal", "Why does the importer drop "), ("conclusion", "a bare string block is text"),
        ("error", "Traceback (most recent call")]
    truncated = tmp_path / "cut.json"
    truncated.write_text(json.dumps(messages, indent=1)[:-60])
    out = CliRunner().invoke(main, ["ingest", str(truncated), "--home", str(home)])
    assert out.exit_code == 1
    assert out.output.count("\n") == 1 and out.output.startswith(f"atc: {truncated}: line ")
    assert "invalid JSON" in out.output


def test_one_openai_message_laid_out_over_lines_is_read(tmp_path):
    path = tmp_path / "reply.json"  # before: every line was a bad JSON Lines record
    path.write_text(json.dumps({"role": "user", "content": "Pin numpy below 2 in the lock file.",
                                "timestamp": "2026-05-01T10:00:00Z"}, indent=2))
    result = parse_path(path)
    assert result.format == "openai"
    assert [(i.kind, i.text, i.time, i.pointer) for i in result.items] == [
        ("user_goal", "Pin numpy below 2 in the lock file.", "2026-05-01T10:00:00Z", f"{path}#")]


def test_openai_chat_left_to_read_anthropic_blocks_counts_them(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(LEAD_EXAMPLE))
    result = parse_path(path, format="openai")
    assert result.ignored["tool_use block (--format anthropic reads it)"] == 1
    assert result.ignored["tool_result block (--format anthropic reads it)"] == 1


# -- OpenAI Responses API -----------------------------------------------------------------------

def test_responses_items_pair_calls_and_outputs_by_call_id():
    result = parse_path(RESPONSES)
    assert result.format == "openai-responses" and result.skipped == []
    assert result.ignored == {"thinking": 2, "file-op-output": 1, "web_search_call": 1}
    summary = [(i.kind, i.role, i.pointer.split("#")[1]) for i in result.items]
    assert summary == [
        ("turn", "system", "/instructions"),
        ("user_goal", "user", "/input/0"),
        ("file_op", "assistant", "/input/2"),  # read_file: its output is the file
        ("error", "tool", "/input/5"),
        ("conclusion", "assistant", "/output/1"),
    ]
    _, goal, read, failure, conclusion = result.items
    assert goal.text.startswith("Why does the fee calculator charge twice")
    assert read.text == "read fees/calc.py" and links(read, "tool") == ["read_file"]
    assert failure.text == ("run_tests tests/test_calc.py\nFAILED tests/test_calc.py::"
                            "test_large_vessel - assert 900 == 450")
    assert links(failure, "tool") == ["run_tests"] and failure.goal == goal.text[:300]
    assert conclusion.time == "2026-01-02T08:00:00Z"  # the response's created_at
    assert read_pointer(failure.pointer)["call_id"] == "call_test1"


def test_a_bare_list_and_json_lines_of_items(tmp_path):
    items = json.loads(RESPONSES.read_text())["input"]
    listed = tmp_path / "items.json"
    listed.write_text(json.dumps(items))
    result = parse_path(listed)
    assert result.format == "openai-responses"
    assert [(i.kind, i.pointer.split("#")[1]) for i in result.items] == [
        ("user_goal", "/0"), ("file_op", "/2"), ("error", "/5")]
    lines = tmp_path / "items.jsonl"
    lines.write_text("".join(json.dumps(item) + "\n" for item in items) + '{"type": "function_c')
    result = parse_path(lines)
    assert result.format == "openai-responses"
    assert [(i.kind, i.pointer.rsplit(":", 1)[1]) for i in result.items] == [
        ("user_goal", "1"), ("file_op", "3"), ("error", "6")]
    assert [line for line, _ in result.skipped] == [8]  # the cut last line, alone


def test_a_request_with_text_input_and_a_truncated_document(tmp_path, home):
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"model": "gpt-5", "input": "List the flaky tests in ci/.",
                                   "output": [{"type": "message", "role": "assistant", "content": [
                                       {"type": "output_text", "text": "test_retry is flaky."}]}]}))
    result = parse_path(request)
    assert result.format == "openai-responses"
    assert [(i.kind, i.pointer.split("#")[1]) for i in result.items] == [
        ("user_goal", "/input"), ("conclusion", "/output/0")]
    cut = tmp_path / "cut.json"
    cut.write_text(RESPONSES.read_text()[:900])
    out = CliRunner().invoke(main, ["ingest", str(cut), "--home", str(home)])
    assert out.exit_code == 1 and out.output.count("\n") == 1
    assert out.output.startswith(f"atc: {cut}: line ") and "invalid JSON" in out.output


# -- Codex CLI rollouts --------------------------------------------------------------------------

def test_a_codex_rollout_keeps_the_task_commands_failures_patches_and_answer():
    result = parse_path(ROLLOUT)
    assert result.format == "codex" and detect_format(ROLLOUT) == "codex"
    assert result.records_read == 19 and result.skipped == []
    assert result.ignored == {
        "session_meta": 1, "environment-context": 1, "event/user_message": 1, "turn_context": 1,
        "event/agent_reasoning": 1, "thinking": 1, "event/token_count": 1, "file-op-output": 1,
        "event/agent_message": 1}
    assert {i.session for i in result.items} == {"0196a1f2-7c3e-7d10-9e4b-2f5c8a1d0b33"}
    summary = [(i.kind, i.role, int(i.pointer.split(":")[-1].split("#")[0]))
               for i in result.items]
    assert summary == [
        ("turn", "system", 2),  # developer permissions
        ("turn", "system", 3),  # AGENTS.md instructions: never the goal
        ("user_goal", "user", 5),
        ("error", "tool", 11),  # exit code 1
        ("file_op", "assistant", 13), ("file_op", "assistant", 13),  # apply_patch, two files
        ("error", "tool", 16),  # Process exited with code 2
        ("error", "system", 17),  # the stream broke
        ("conclusion", "assistant", 18),
    ]
    task = ("berth_for() in quay/berths.py picks a berth that is already booked when two ships "
            "arrive in the same minute. Fix it and add a test.")
    assert [i.goal for i in result.items] == ["", ""] + [task] * 7
    tests, edit, new_test, check = result.items[3], result.items[4], result.items[5], result.items[6]
    assert tests.text == ("$ pytest tests/test_berths.py -q\nF.\nFAILED tests/test_berths.py::"
                          "test_same_minute - AssertionError: berth B2 booked twice\n"
                          "1 failed, 1 passed in 0.12s\n(exit code 1)")
    assert tests.time == "2026-04-18T10:02:22Z" and links(tests, "tool") == ["shell"]
    assert links(tests, "cwd") == ["/home/mira/quay"]
    assert (edit.text, links(edit, "file_op")) == ("edit quay/berths.py: patch, 1 line added",
                                                   ["edit"])
    assert links(new_test, "touches_file") == ["tests/test_same_minute.py"]
    assert check.text.startswith('$ make check\nmypy quay/\nquay/berths.py:41: error: Name')
    assert check.text.endswith("(exit code 2)")


def test_a_growing_rollout_through_the_cli_is_an_upsert_and_shows_its_source(home, tmp_path):
    lines = ROLLOUT.read_text().splitlines(keepends=True)
    rollout = tmp_path / "rollout-2026-04-18T10-02-11-0196a1f2.jsonl"
    rollout.write_text("".join(lines[:12]))  # Codex is still writing it
    first = ingest_report(home, rollout)
    assert first["new"] == 4 and first["ignored"]["event/token_count"] == 1
    rollout.write_text("".join(lines))
    grown = ingest_report(home, rollout)  # read again whole: earlier items keep their handles
    assert (grown["new"], grown["unchanged"]) == (5, 4)
    failure = parse_path(rollout).items[3]
    source = json.loads(cli(home, "show", failure.handle, "--source"))
    assert source == {"type": "function_call_output", "call_id": "call_Q1xk",
                      "output": source["output"]}
    assert '"exit_code": 1' in source["output"]
    frame = cli(home, "hydrate", "why did the berth test fail", "--budget", "1200")
    assert "booked twice" in frame


def test_an_older_rollout_without_the_envelope(tmp_path):
    lines = [
        {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-05-20T16:09:07.655Z",
         "instructions": "Prefer small commits."},
        {"record_type": "state"},
        {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "Make the CSV export keep leading zeros."}]},
        {"type": "function_call", "name": "shell", "call_id": "call_1",
         "arguments": json.dumps({"command": ["bash", "-lc", "python -m pytest -q tests/csv"]})},
        {"type": "function_call_output", "call_id": "call_1",
         "output": json.dumps({"output": "2 passed", "metadata": {"exit_code": 0}})},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "The export now writes ZIP codes as text."}]},
    ]
    path = tmp_path / "rollout-2025-05-20T16-09-07-5973b6c0.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = parse_path(path)
    assert result.format == "codex"
    assert [(i.kind, i.text) for i in result.items] == [
        ("turn", "Prefer small commits."),
        ("user_goal", "Make the CSV export keep leading zeros."),
        ("tool_result", "$ python -m pytest -q tests/csv\n2 passed"),
        ("conclusion", "The export now writes ZIP codes as text."),
    ]
    assert {i.session for i in result.items} == {"5973b6c0-94b8-487b-a530-2aeb6098ae0e"}
    assert result.ignored == {"state": 1, "session_meta": 1}


def test_detection_keeps_plain_chats_as_openai(tmp_path):
    chat = [{"role": "user", "content": "Summarise the incident."},
            {"role": "assistant", "content": [{"type": "text", "text": "The disk filled up."}]}]
    assert detect_format(json.dumps(chat).encode()) == "openai"
    assert detect_format(b'{"messages": [{"role": "user", "content": "hi there"}]}') == "openai"
    assert detect_format(json.dumps({"model": "claude-sonnet-4-5", "system": "Be brief.",
                                     "messages": chat}).encode()) == "anthropic"


# -- LangChain / LangGraph ------------------------------------------------------------------------

LANGCHAIN = FIXTURES / "langchain_messages.json"


def test_langchain_messages_pair_tool_calls_and_keep_failed_tools_as_errors(home):
    result = parse_path(LANGCHAIN)
    assert result.format == "langchain" and detect_format(LANGCHAIN) == "langchain"
    assert result.skipped == [] and result.ignored == {"thinking": 2}
    summary = [(i.kind, i.role, i.pointer.split("#")[1]) for i in result.items]
    assert summary == [
        ("turn", "system", "/0/data"),
        ("user_goal", "user", "/1/data"),
        ("turn", "assistant", "/2/data/content/1"),  # Anthropic blocks read one by one
        ("error", "tool", "/3/data"),  # the log holds a DeadlockDetected error
        ("error", "tool", "/5/data"),  # status "error"
        ("conclusion", "assistant", "/6/data"),
    ]
    log, denied = result.items[3], result.items[4]
    assert log.text.startswith("read_log reconcile-nightly\n02:10:04 ERROR reconcile:")
    assert denied.text == ("run_sql select pid, query from pg_stat_activity where state = "
                           "'active'\nError: permission denied for view pg_stat_activity")
    assert links(denied, "tool") == ["run_sql"]
    assert {i.goal for i in result.items[1:]} == {
        "Nightly reconciliation job failed at 02:10. Find out why and tell me what to fix."}
    assert ingest_report(home, LANGCHAIN)["new"] == 6
    source = json.loads(cli(home, "show", denied.handle, "--source"))
    assert source["tool_call_id"] == "call_Wq8x" and source["status"] == "error"


def test_langchain_plain_and_dumpd_spellings_and_a_langgraph_state(tmp_path):
    state = {"messages": [
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "HumanMessage"],
         "kwargs": {"content": "Rename the env var LEDGER_DSN to LEDGER_URL everywhere.",
                    "type": "human"}},
        {"type": "ai", "name": "planner", "content": "The variable is read in one place.",
         "tool_calls": [
            {"name": "write_file", "args": {"path": "deploy/.env", "content": "LEDGER_URL=x\n"},
             "id": "call_1", "type": "tool_call"}]},
        {"type": "tool", "content": "wrote deploy/.env", "tool_call_id": "call_1",
         "name": "write_file"},
        {"type": "goblin", "content": "?"},
    ]}
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    result = parse_path(path)
    assert result.format == "langchain"
    assert [(i.kind, i.text, i.pointer.split("#")[1]) for i in result.items] == [
        ("user_goal", "Rename the env var LEDGER_DSN to LEDGER_URL everywhere.",
         "/messages/0/kwargs"),
        ("conclusion", "The variable is read in one place.", "/messages/1"),
        ("file_op", 'write deploy/.env: 1 line, starting "LEDGER_URL=x"', "/messages/1"),
    ]
    assert result.items[1].speaker == "planner"  # a multi-agent graph names its agents
    assert result.skipped == [(4, 'not a LangChain message (no known "type")')]
    assert result.ignored == {"file-op-output": 1}


def test_langchain_messages_keep_the_time_their_metadata_holds():
    """LangChain messages have no time field of their own: apps keep it in
    ``additional_kwargs``, and ChatOllama's replies carry Ollama's ``created_at`` in
    ``response_metadata``. Before, both were ignored and the report said the file wrote no
    time."""
    messages = [
        {"type": "human", "data": {"content": "Which glaze fires at cone 6?", "name": "Priya",
                                   "additional_kwargs": {"timestamp": "2024-05-08T13:56:00Z"}}},
        {"type": "ai", "data": {"content": "Most mid-fire glazes; check the label.",
                                "response_metadata": {"model": "llama3",
                                                      "created_at": "2024-05-08T13:56:04.1Z",
                                                      "done": True, "done_reason": "stop"}}}]
    result = parse_text(json.dumps(messages), name="chat.json")
    assert result.format == "langchain"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2024-05-08T13:56:00Z"), ("", "2024-05-08T13:56:04Z")]
    assert result.notes == []


def test_a_responses_request_of_plain_messages_or_text_is_detected():
    """The Responses API takes ``input`` as text or as messages without ``"type"``
    (``{"role", "content"}``). Before, such a request body was "cannot detect format"."""
    for given in ([{"role": "user", "content": "How long should the kiln hold at peak?"}],
                  "How long should the kiln hold at peak?"):
        body = {"model": "gpt-4.1", "instructions": "Be brief.", "input": given}
        result = parse_text(json.dumps(body), name="request.json")
        assert result.format == "openai-responses"
        assert [(i.role, i.kind) for i in result.items] == [("system", "turn"),
                                                            ("user", "user_goal")]
    # a chain's log of an input and an output names no model nor instructions: no request
    assert not is_responses_document({"input": "hi there", "output": "hello"})
