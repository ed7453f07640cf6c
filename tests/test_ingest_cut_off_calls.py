"""A call cut off from its result is still remembered: a session killed mid-call, a log cut off.

"What was it running when it died?" is the question after a crash. In every format that pairs
calls with results, a call whose result is nowhere in the file is kept as the reader keeps a
call with its result (a ``tool_result`` item labelled with the call), its output standing as
"(no result in the transcript)" and marked ``relation(H, no_result, true)``; re-reading gives
the same handle, and a file that holds the result makes one item for the call, not two.
"""

from __future__ import annotations

import json
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.ingest import parse_path, parse_text
from attention_cloud.ingest.records import ItemRecord

NO_RESULT = "(no result in the transcript)"
GOAL = "Why does the nightly build hang on the integration stage?"


def links(item: ItemRecord, predicate: str) -> list[str]:
    return [obj for _, pred, obj in item.relations if pred == predicate]


def cut_off(items: list[ItemRecord]) -> list[ItemRecord]:
    return [item for item in items if links(item, "no_result") == ["true"]]


def jsonl(*records: dict) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


# -- Claude Code ---------------------------------------------------------------------------------
def _cc(uuid: str, role: str, content, when: str = "2026-03-02T02:10:00Z") -> dict:
    return {"type": role, "uuid": uuid, "sessionId": "S", "cwd": "/srv/app", "timestamp": when,
            "message": {"role": role, "content": content}}


CC_GOAL = _cc("u1", "user", GOAL)
CC_CALL = _cc("a1", "assistant", [
    {"type": "text", "text": "I'll run the integration suite with a timeout to see where it stops."},
    {"type": "tool_use", "id": "toolu_run", "name": "Bash",
     "input": {"command": "pytest tests/integration -x --timeout 600"}}], "2026-03-02T02:10:05Z")
CC_RESULT = _cc("u2", "user", [
    {"type": "tool_result", "tool_use_id": "toolu_run",
     "content": "Timeout >600.0s in tests/integration/test_sync.py::test_full_sync"}],
    "2026-03-02T02:20:05Z")


def test_claude_code_call_without_result_is_kept_as_what_was_running():
    items = parse_text(jsonl(CC_GOAL, CC_CALL), name="killed.jsonl").items
    (running,) = cut_off(items)
    assert running is items[-1]
    assert (running.kind, running.role) == ("tool_result", "tool")
    assert running.text == f"$ pytest tests/integration -x --timeout 600\n{NO_RESULT}"
    assert links(running, "tool") == ["Bash"]
    assert running.goal == GOAL                          # the goal the call served
    assert running.time == "2026-03-02T02:10:05Z"        # when the call was made
    assert running.pointer.endswith("killed.jsonl:2")    # the call's line


def test_claude_code_reread_is_an_upsert_and_the_result_replaces_the_cut_off_call():
    first = parse_text(jsonl(CC_GOAL, CC_CALL), name="s.jsonl").items
    again = parse_text(jsonl(CC_GOAL, CC_CALL), name="s.jsonl").items
    assert cut_off(first) and [i.handle for i in cut_off(again)] == [i.handle for i in cut_off(first)]
    assert [i.handle for i in again] == [i.handle for i in first]
    grown = parse_text(jsonl(CC_GOAL, CC_CALL, CC_RESULT), name="s.jsonl").items
    assert cut_off(grown) == []
    about_the_call = [i for i in grown if "pytest tests/integration" in i.text]
    assert [(i.kind, i.text.splitlines()[-1]) for i in about_the_call] == [
        ("tool_result", "Timeout >600.0s in tests/integration/test_sync.py::test_full_sync")]
    # the items before the call keep their handles
    assert [i.handle for i in grown[:2]] == [i.handle for i in first[:2]]


def test_claude_code_file_operation_without_result_is_one_item_and_goal_is_the_calls():
    read = _cc("a2", "assistant", [{"type": "tool_use", "id": "toolu_read", "name": "Read",
                                    "input": {"file_path": "/srv/app/sync.py"}}])
    grep = _cc("a3", "assistant", [{"type": "tool_use", "id": "toolu_grep", "name": "Grep",
                                    "input": {"pattern": "lock_timeout"}}])
    later = _cc("u3", "user", "Forget that; why is the deploy job red since this morning?")
    items = parse_text(jsonl(CC_GOAL, read, grep, later), name="s.jsonl").items
    assert [(i.kind, i.text) for i in items if "sync.py" in i.text] == [("file_op", "read sync.py")]
    (grepping,) = cut_off(items)
    assert grepping.text == f"Grep lock_timeout\n{NO_RESULT}"
    assert grepping.goal == GOAL                          # not the goal that came after it


# -- OpenAI chat, Anthropic Messages, LangChain ---------------------------------------------------
OPENAI = [
    {"role": "user", "content": GOAL},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "run_shell", "arguments": json.dumps({"command": "make integration"})}},
        {"id": "call_2", "type": "function",
         "function": {"name": "search_logs", "arguments": json.dumps({"query": "deadlock"})}}]},
    {"role": "tool", "tool_call_id": "call_2", "content": "02:11:40 deadlock detected in sync"},
]


def test_openai_chat_call_without_result_is_kept_and_the_answered_one_is_not():
    items = parse_text(json.dumps(OPENAI), name="chat.json", format="openai").items
    assert [i.text for i in cut_off(items)] == [f"$ make integration\n{NO_RESULT}"]
    (running,) = cut_off(items)
    assert (running.kind, running.role, running.goal) == ("tool_result", "tool", GOAL)
    assert running.pointer.endswith("chat.json#/1")
    answered = OPENAI + [{"role": "tool", "tool_call_id": "call_1", "content": "make: *** [integration] Error 2"}]
    items = parse_text(json.dumps(answered), name="chat.json", format="openai").items
    assert cut_off(items) == []
    assert sum("make integration" in i.text for i in items) == 1


def test_openai_legacy_function_call_answered_by_name_is_not_cut_off():
    chat = [{"role": "user", "content": GOAL},
            {"role": "assistant", "content": "", "function_call": {
                "name": "run_shell", "arguments": json.dumps({"command": "make integration"})}},
            {"role": "function", "name": "run_shell", "content": "make: *** Error 2"}]
    items = parse_text(json.dumps(chat), name="legacy.json", format="openai").items
    assert cut_off(items) == []
    assert cut_off(parse_text(json.dumps(chat[:2]), name="legacy.json", format="openai").items)


def test_anthropic_call_without_result_is_kept():
    messages = [
        {"role": "user", "content": GOAL},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "bash",
             "input": {"command": "docker compose logs sync"}}]},
    ]
    items = parse_text(json.dumps(messages), name="a.json", format="anthropic").items
    (running,) = cut_off(items)
    assert running.text == f"$ docker compose logs sync\n{NO_RESULT}"
    assert running.pointer.endswith("a.json#/1/content/0")
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sync  | waiting for lock"}]})
    items = parse_text(json.dumps(messages), name="a.json", format="anthropic").items
    assert cut_off(items) == []


def test_langchain_ai_tool_call_without_tool_message_is_kept():
    messages = [
        {"type": "human", "data": {"content": GOAL}},
        {"type": "ai", "data": {"content": "", "tool_calls": [
            {"name": "run_shell", "args": {"command": "make integration"}, "id": "lc_1"}]}},
    ]
    items = parse_text(json.dumps(messages), name="lc.json", format="langchain").items
    assert [i.text for i in cut_off(items)] == [f"$ make integration\n{NO_RESULT}"]
    messages.append({"type": "tool", "data": {"content": "Error 2", "tool_call_id": "lc_1"}})
    assert cut_off(parse_text(json.dumps(messages), name="lc.json", format="langchain").items) == []


# -- OpenAI Responses and Codex rollouts ------------------------------------------------------------
def test_codex_rollout_cut_off_mid_call_keeps_the_call():
    def line(payload: dict) -> dict:
        return {"timestamp": "2026-03-02T02:10:00Z", "type": "response_item", "payload": payload}

    rollout = [
        {"timestamp": "2026-03-02T02:09:59Z", "type": "session_meta",
         "payload": {"id": "rollout-1", "cwd": "/srv/app"}},
        line({"type": "message", "role": "user",
              "content": [{"type": "input_text", "text": GOAL}]}),
        line({"type": "function_call", "name": "shell", "call_id": "call_9",
              "arguments": json.dumps({"command": ["bash", "-lc", "make integration"]})}),
    ]
    items = parse_text(jsonl(*rollout), name="rollout.jsonl", format="codex").items
    (running,) = cut_off(items)
    assert (running.kind, running.text) == ("tool_result", f"$ make integration\n{NO_RESULT}")
    assert running.session == "rollout-1"
    rollout.append(line({"type": "function_call_output", "call_id": "call_9",
                         "output": "make: *** [integration] Error 2"}))
    assert cut_off(parse_text(jsonl(*rollout), name="rollout.jsonl", format="codex").items) == []


# -- ChatGPT export ------------------------------------------------------------------------------
def _chatgpt(*messages: dict) -> str:
    mapping, parent = {}, None
    for number, message in enumerate(messages):
        node = f"n{number}"
        mapping[node] = {"id": node, "message": {"id": node, **message}, "parent": parent,
                         "children": []}
        if parent:
            mapping[parent]["children"].append(node)
        parent = node
    return json.dumps([{"title": "Nightly build", "id": "conv-1", "create_time": 1772417400.0,
                        "current_node": parent, "mapping": mapping}])


def test_chatgpt_code_call_without_output_is_kept():
    user = {"author": {"role": "user"}, "content": {"content_type": "text", "parts": [GOAL]}}
    code = {"author": {"role": "assistant"}, "recipient": "python",
            "content": {"content_type": "code", "text": "import subprocess; subprocess.run(['make'])"}}
    items = parse_text(_chatgpt(user, code), name="conversations.json", format="chatgpt").items
    (running,) = cut_off(items)
    assert running.kind == "tool_result" and running.text.endswith(NO_RESULT)
    assert running.text.startswith("python ")
    output = {"author": {"role": "tool", "name": "python"},
              "content": {"content_type": "execution_output", "text": "CalledProcessError: exit 2"}}
    assert cut_off(parse_text(_chatgpt(user, code, output), name="conversations.json",
                              format="chatgpt").items) == []


# -- memory: a file still being written holds its running calls back ------------------------------
def test_watching_a_live_session_leaves_one_item_per_call(home: Path, tmp_path: Path):
    path = tmp_path / "live.jsonl"
    mem = Memory.open(home)
    try:
        # being written (read as unfinished): the call runs, its result is not written yet
        path.write_text(jsonl(CC_GOAL, CC_CALL), encoding="utf-8")
        mem.ingest([path], unfinished={path: 0})
        assert mem.query("relation(H, no_result, true)", limit=5).rows == []
        # the result arrives: one item for the call, its result
        path.write_text(jsonl(CC_GOAL, CC_CALL, CC_RESULT), encoding="utf-8")
        mem.ingest([path], unfinished={path: path.stat().st_size})
        texts = [r["T"] for r in mem.query("item_text(_, T)", limit=20).rows]
        assert sum("pytest tests/integration" in t for t in texts) == 1
        # a session killed mid-call: once its file is quiet, the call is remembered
        killed = tmp_path / "killed.jsonl"
        killed.write_text(jsonl(CC_GOAL, CC_CALL).replace('"sessionId": "S"', '"sessionId": "K"'),
                          encoding="utf-8")
        mem.ingest([killed], unfinished={killed: 0})
        assert mem.query("relation(H, no_result, true)", limit=5).rows == []
        mem.ingest([killed], unfinished={killed: killed.stat().st_size})
        rows = mem.query("relation(H, no_result, true), item_text(H, T)", limit=5).rows
        assert [r["T"] for r in rows] == [f"$ pytest tests/integration -x --timeout 600\n{NO_RESULT}"]
    finally:
        mem.close()


def test_parse_path_of_a_cut_off_file_is_stable(tmp_path: Path):
    path = tmp_path / "cut.jsonl"
    path.write_text(jsonl(CC_GOAL, CC_CALL), encoding="utf-8")
    items = parse_path(path).items
    assert cut_off(items)
    assert [i.handle for i in parse_path(path).items] == [i.handle for i in items]


# -- ShareGPT ------------------------------------------------------------------------------------
def test_sharegpt_function_call_no_observation_follows_is_kept():
    call = json.dumps({"name": "run_shell", "arguments": {"command": "make integration"}})
    record = {"id": "r1", "conversations": [
        {"from": "human", "value": GOAL},
        {"from": "function_call", "value": call},
        {"from": "gpt", "value": "The build is still running; I will check back."},
    ]}
    items = parse_text(json.dumps([record]), name="sg.json", format="sharegpt").items
    (running,) = cut_off(items)
    assert (running.kind, running.text, running.goal) == (
        "tool_result", f"$ make integration\n{NO_RESULT}", GOAL)
    assert running.pointer.endswith("sg.json#/0/conversations/1")
    record["conversations"].insert(2, {"from": "observation", "value": "make: *** Error 2"})
    assert cut_off(parse_text(json.dumps([record]), name="sg.json", format="sharegpt").items) == []


# -- OpenHands -----------------------------------------------------------------------------------
OH_EVENTS = [
    {"id": 1, "timestamp": "2026-03-02T02:10:00", "source": "user", "action": "message",
     "args": {"content": GOAL}},
    {"id": 2, "timestamp": "2026-03-02T02:10:01", "source": "agent", "action": "run",
     "args": {"command": "make integration", "thought": ""}},
    {"id": 3, "timestamp": "2026-03-02T02:10:02", "source": "environment",
     "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "running"}},
]


def test_openhands_run_action_without_observation_is_kept():
    items = parse_text(json.dumps(OH_EVENTS), name="trajectory.json", format="openhands").items
    (running,) = cut_off(items)
    assert (running.kind, running.text, running.goal) == (
        "tool_result", f"$ make integration\n{NO_RESULT}", GOAL)
    assert running.pointer.endswith("trajectory.json#/1")
    answered = OH_EVENTS + [
        {"id": 4, "timestamp": "2026-03-02T02:20:01", "source": "agent", "cause": 2,
         "observation": "run", "content": "make: *** [integration] Error 2",
         "extras": {"command": "make integration", "metadata": {"exit_code": 2}}}]
    items = parse_text(json.dumps(answered), name="trajectory.json", format="openhands").items
    assert cut_off(items) == []
    assert [i.kind for i in items if "make integration" in i.text] == ["error"]


def test_openhands_v1_event_file_of_an_action_is_not_cut_off():
    # one event a file: the action's observation is saved in a later file
    folder = Path(__file__).parent / "fixtures" / "ingest" / "openhands_v1_conversation"
    for event_file in sorted(folder.glob("*/events/event-*.json")):
        assert cut_off(parse_path(event_file).items) == [], event_file.name


def test_a_json_document_written_anew_with_the_result_supersedes_the_cut_off_call(
        home: Path, tmp_path: Path):
    """qa64: a JSON document (an OpenAI array, a Gemini CLI session) is rewritten whole as it
    grows, so it never "only grew"; the call's earlier reading, "(no result in the
    transcript)", stayed beside its result and a frame said the call never finished."""
    chat = tmp_path / "chat.json"
    call = {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "run_shell", "arguments": '{"command": "pytest tests/integration"}'}}]}
    messages = [{"role": "user", "content": "run the integration tests"}, call]
    session = tmp_path / "session-live.json"
    recording = {"sessionId": "g1", "projectHash": "p", "startTime": "2025-10-14T09:00:00Z",
                 "messages": [{"id": "1", "timestamp": "2025-10-14T09:00:00Z", "type": "user",
                               "content": "run the linter"},
                              {"id": "2", "timestamp": "2025-10-14T09:00:05Z", "type": "gemini",
                               "content": "", "toolCalls": [{
                                   "id": "c", "name": "run_shell_command",
                                   "args": {"command": "ruff check ."}, "status": "executing"}]}]}
    with Memory.open(home) as mem:
        chat.write_text(json.dumps(messages, indent=2))
        session.write_text(json.dumps(recording, indent=2))
        mem.ingest([chat, session])
        assert len(mem.query("relation(H, no_result, true)", limit=5).rows) == 2
        messages += [{"role": "tool", "tool_call_id": "call_1", "content": "12 passed"},
                     {"role": "user", "content": "now deploy to staging"}]
        chat.write_text(json.dumps(messages, indent=2))
        recording["messages"][1]["toolCalls"][0].update(status="success", result=[{
            "functionResponse": {"id": "c", "name": "run_shell_command",
                                 "response": {"output": "Stdout: All checks passed!\nExit Code: 0"}}}])
        session.write_text(json.dumps(recording, indent=2))
        report = mem.ingest([chat, session])
        assert (report.new, report.superseded) == (3, 2)
        assert mem.query("relation(H, no_result, true)", limit=5).rows == []
        texts = [r["T"] for r in mem.query("item_text(_, T)", limit=20).rows]
        assert "$ pytest tests/integration\n12 passed" in texts
        assert sum("ruff check" in t for t in texts) == 1
        # a call still unanswered in a document written anew stays what was running
        messages.append({**call, "tool_calls": [{**call["tool_calls"][0], "id": "call_2"}]})
        chat.write_text(json.dumps(messages, indent=2))
        assert mem.ingest([chat]).superseded == 0
        assert len(mem.query("relation(H, no_result, true)", limit=5).rows) == 1
