"""A Claude Code session that recalled memory: the MCP ``hydrate`` answer (envelope plus its
receipt line), ``atc hydrate`` run through Bash (a plain-text frame), a printed receipt and the
prompt hook's injected context are what recall added, never new memory; what the user and the
agent said stays (qa130)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud.agents.mcp_server import receipt_line
from attention_cloud.cli import main
from attention_cloud.hydration import envelope
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_record, recalled_frame

SID = "7a3c9e10-0000-4000-8000-0000000f7a3e"
RID = "r_5d0c1e2a3b4f6071"
GOAL = "Why do our payment retries keep failing in staging? Check memory first."
RECALLED = "Payment retries fail because the idempotency key is regenerated on every retry."
FRAME_TEXT = recalled_frame("why do payment retries fail", RID, "Tue 2026-02-10", RECALLED)
CONCLUSION = "The key is regenerated per retry; I made it stable across retries in retry.py."


def _session(tmp_path):
    records: list[dict] = []

    def add(kind, content, **extra):
        n = len(records) + 1
        record = cc21_record(n, kind, content, session=SID, cwd="/home/dev/payments",
                             branch="main", timestamp=f"2026-02-10T10:00:{n:02d}.000Z")
        record.update(extra)
        records.append(record)

    def call(call_id, name, arguments):
        add("assistant", [{"type": "tool_use", "id": call_id, "name": name, "input": arguments,
                           "caller": {"type": "direct"}}])

    def result(call_id, content, outcome):
        add("user", [{"tool_use_id": call_id, "type": "tool_result", "content": content,
                      "is_error": False}], toolUseResult=outcome)

    # the prompt hook's frame, as Claude Code records a hook's additional context
    records.append({"type": "attachment", "sessionId": SID, "uuid": "u-hook",
                    "timestamp": "2026-02-10T09:59:59.000Z",
                    "attachment": {"type": "hook_additional_context",
                                   "hookName": "UserPromptSubmit",
                                   "content": [envelope(RID, FRAME_TEXT)]}})
    add("user", GOAL)
    mcp_answer = [{"type": "text", "text": envelope(RID, FRAME_TEXT) + "\n" + receipt_line(RID)}]
    call("toolu_01Hyd", "mcp__attention-cloud__hydrate",
         {"goal": "why do payment retries fail", "budget": 1500})
    result("toolu_01Hyd", mcp_answer, mcp_answer)
    call("toolu_01Bash", "Bash", {"command": 'atc hydrate "why do payment retries fail"',
                                  "description": "Recall memory about payment retries"})
    result("toolu_01Bash", FRAME_TEXT, {"stdout": FRAME_TEXT, "stderr": "",
                                        "interrupted": False, "isImage": False})
    receipt = json.dumps({"id": RID, "goal": "why do payment retries fail",
                          "facts": [{"handle": "it_1", "rung": "L0"}]}, indent=2)
    call("toolu_01Rec", "mcp__attention-cloud__receipt", {"receipt_id": RID})
    result("toolu_01Rec", [{"type": "text", "text": receipt}], [{"type": "text", "text": receipt}])
    as_json = json.dumps({"receipt_id": RID, "text": FRAME_TEXT,
                          "receipt": {"id": RID, "facts": []}}, indent=2)
    call("toolu_01Json", "Bash", {"command": "atc hydrate retries --format json"})
    result("toolu_01Json", as_json, {"stdout": as_json, "stderr": ""})
    both = "retry attempts in staging.log: 3\n" + FRAME_TEXT
    call("toolu_01Both", "Bash", {"command": "grep -c retry staging.log; atc hydrate retries"})
    result("toolu_01Both", both, {"stdout": both, "stderr": ""})
    add("assistant", [{"type": "text", "text": CONCLUSION}])
    path = tmp_path / f"{SID}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return _session(tmp_path_factory.mktemp("frame_echo"))


def test_recall_leaves_no_item_and_what_was_said_stays(session):
    result = parse_path(session)
    texts = [(i.kind, i.text) for i in result.items]
    assert texts == [
        ("user_goal", GOAL),
        ("tool_result", "$ grep -c retry staging.log; atc hydrate retries\nretry attempts in staging.log: 3"),
        ("conclusion", CONCLUSION),
    ]
    assert not any(RID in text or "receipt" in text.lower() or RECALLED in text
                   for _, text in texts)
    assert result.ignored["memory recall"] == 4


def test_ingest_cli_keeps_no_recall(session, tmp_path):
    home = tmp_path / "home"
    runner = CliRunner()
    done = runner.invoke(main, ["ingest", str(session), "--home", str(home)])
    assert done.exit_code == 0, done.output
    journal = "".join(p.read_text(encoding="utf-8") for p in home.rglob("*.pl")
                      if "journal" in p.name)
    assert CONCLUSION.split(";")[0] in journal
    assert RID not in journal and RECALLED not in journal


def test_other_formats_drop_the_receipt_line_too():
    from attention_cloud.ingest import parse_text

    messages = [
        {"role": "user", "content": GOAL},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "hydrate", "arguments": '{"goal": "payment retries"}'}}]},
        {"role": "tool", "tool_call_id": "call_1",
         "content": envelope(RID, FRAME_TEXT) + "\n" + receipt_line(RID)},
        {"role": "assistant", "content": CONCLUSION},
    ]
    result = parse_text(json.dumps({"messages": messages}), name="chat.json", format="openai")
    assert [i.kind for i in result.items] == ["user_goal", "conclusion"]
    assert result.ignored["memory recall"] == 1
