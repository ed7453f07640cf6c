"""Claude Code 2.1 ``attachment`` records (qa195): a prompt the user typed while the agent
worked is written only as a ``queued_command`` attachment, never as a ``user`` record, and is
the user's own words; every other attachment (hook output, the prompt hook's injected frame,
reminders, text another session queued) makes no item and is counted by its type. The prompt
hook's frame, as Claude Code records it (the attachment, or a meta user record holding the
hook's additional context in a ``<system-reminder>``), never comes back as memory."""

from __future__ import annotations

import json

import pytest

from attention_cloud import Memory
from attention_cloud.hydration import envelope
from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_record, recalled_frame

SID = "3f0c51d2-0000-4000-8000-0000000a77ac"
CWD = "/home/dev/shop"
GOAL = "Make the checkout page load faster; the cart query is slow."
QUEUED = "also check whether the cart query is missing an index on user_id"
RID = "r_0a1b2c3d4e5f6071"
RECALLED = "The cart query scans the whole carts table on every page load."
FRAME_TEXT = recalled_frame("why is the cart query slow", RID, "Sun 2026-03-01", RECALLED)


def _attachment(n: int, attachment: dict) -> dict:
    """An attachment record with the fields Claude Code 2.1 writes around it."""
    return {"parentUuid": f"u-{n - 1:04d}", "isSidechain": False, "userType": "external",
            "cwd": CWD, "sessionId": SID, "version": "2.1.90", "gitBranch": "main",
            "type": "attachment", "attachment": attachment, "uuid": f"u-{n:04d}",
            "timestamp": f"2026-03-01T09:00:{n:02d}.000Z"}


def _session(tmp_path, middle: list[dict]) -> str:
    """A session: the goal, a Bash call, the ``middle`` attachments, the call's result and the
    agent's closing words; returns the file's path."""
    records: list[dict] = []

    def add(kind, content, **extra):
        n = len(records) + 1
        record = cc21_record(n, kind, content, session=SID, cwd=CWD, branch="main",
                             timestamp=f"2026-03-01T09:00:{n:02d}.000Z")
        record.update(extra)
        records.append(record)

    add("user", GOAL)
    add("assistant", [{"type": "tool_use", "id": "toolu_01Q", "name": "Bash",
                       "input": {"command": "psql -c 'explain analyze select * from carts'"}}])
    for attachment in middle:
        records.append(_attachment(len(records) + 1, attachment))
    # Claude Code marks the queued prompt taken into the running turn
    records.append({"type": "queue-operation", "operation": "remove", "sessionId": SID,
                    "timestamp": "2026-03-01T09:00:40.000Z", "reason": "absorbed_mid_turn"})
    add("user", [{"tool_use_id": "toolu_01Q", "type": "tool_result", "is_error": False,
                  "content": "Seq Scan on carts  (cost=0.00..18334.00 rows=1000000)"}],
        toolUseResult={"stdout": "Seq Scan on carts", "stderr": "", "interrupted": False})
    add("assistant", [{"type": "text", "text": "The cart query does a sequential scan of "
                                               "carts: there is no index on user_id."}])
    path = tmp_path / f"{SID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


def _queued(prompt, **extra) -> dict:
    return {"type": "queued_command", "prompt": prompt, "commandMode": "prompt",
            "origin": {"kind": "human"}, **extra}


def test_a_prompt_typed_while_the_agent_worked_is_the_users_goal(tmp_path):
    path = _session(tmp_path, [_queued(QUEUED)])
    result = parse_path(path)
    (queued,) = [i for i in result.items if i.text == QUEUED]
    assert (queued.kind, queued.role, queued.speaker) == ("user_goal", "user", "")
    assert queued.time == "2026-03-01T09:00:03Z"
    assert queued.pointer.endswith(f"{SID}.jsonl:3")
    assert queued.session == SID
    # what came after it serves it
    assert result.items[-1].goal == QUEUED
    assert "attachment" not in " ".join(result.ignored)


def test_a_queued_prompt_of_text_blocks_and_an_image_is_read_and_the_image_counted(tmp_path):
    prompt = [{"type": "text", "text": QUEUED},
              {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                           "data": "iVBORw0KGgo="}}]
    result = parse_path(_session(tmp_path, [_queued(prompt)]))
    assert [i.text for i in result.items if i.kind == "user_goal"] == [GOAL, QUEUED]
    assert result.ignored["image block"] == 1


def test_a_queued_task_notification_is_a_result_never_a_goal(tmp_path):
    note = ("<task-notification>\n<task-id>b7c00d1</task-id>\n<status>completed</status>\n"
            "<summary>Background command \"Run tests\" completed (exit code 1)</summary>\n"
            "</task-notification>")
    result = parse_path(_session(tmp_path, [
        {"type": "queued_command", "prompt": note, "commandMode": "task-notification"}]))
    (task,) = [i for i in result.items if ("task", "b7c00d1") in [(p, o) for _, p, o in i.relations]]
    assert (task.kind, task.role) == ("error", "tool")
    assert [i.text for i in result.items if i.kind == "user_goal"] == [GOAL]


@pytest.mark.parametrize("attachment, counted", [
    (_queued("what did the other session find?", origin={"kind": "peer"}, isMeta=True),
     "attachment/queued_command"),
    ({"type": "queued_command", "prompt": "ls -la", "commandMode": "bash"},
     "attachment/queued_command"),
    ({"type": "hook_success", "hookName": "PostToolUse:Bash", "hookEvent": "PostToolUse",
      "content": "", "stdout": "formatted 3 files"}, "attachment/hook_success"),
    ({"type": "todo_reminder", "content": [], "itemCount": 0}, "attachment/todo_reminder"),
    ({"content": "no type"}, "attachment"),
])
def test_other_attachments_make_no_item_and_are_counted(tmp_path, attachment, counted):
    result = parse_path(_session(tmp_path, [attachment]))
    assert [i.text for i in result.items if i.role == "user"] == [GOAL]
    assert result.ignored[counted] == 1
    assert result.skipped == []


def _hook_echoes() -> list[dict]:
    """The prompt hook's frame as Claude Code 2.1 records it after the hook answered with
    ``hookSpecificOutput.additionalContext``: the attachment, and the hook's raw stdout."""
    hook_output = json.dumps({"hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit", "additionalContext": envelope(RID, FRAME_TEXT)}})
    return [
        {"type": "hook_additional_context", "hookName": "UserPromptSubmit",
         "hookEvent": "UserPromptSubmit", "content": [envelope(RID, FRAME_TEXT)]},
        {"type": "hook_success", "hookName": "UserPromptSubmit", "hookEvent": "UserPromptSubmit",
         "content": hook_output, "stdout": hook_output, "exitCode": 0},
        # the same frame pasted back by the user into a prompt typed mid-turn
        _queued(f"{QUEUED}\n\n{envelope(RID, FRAME_TEXT)}"),
    ]


def _meta_hook_record(n: int) -> dict:
    """The hook's additional context as a meta user record, the shape Claude Code gives hook
    context in the transcripts (``<system-reminder>`` around ``<Hook> hook additional
    context: …``)."""
    text = (f"<system-reminder>\nUserPromptSubmit hook additional context: "
            f"{envelope(RID, FRAME_TEXT)}\n</system-reminder>")
    record = cc21_record(n, "user", [{"type": "text", "text": text}], session=SID, cwd=CWD,
                         branch="main", timestamp=f"2026-03-01T09:00:{n:02d}.000Z")
    record["isMeta"] = True
    return record


def test_the_prompt_hooks_frame_never_comes_back_as_memory(tmp_path, home):
    path = _session(tmp_path, _hook_echoes())
    lines = open(path, encoding="utf-8").read().splitlines()
    lines.insert(1, json.dumps(_meta_hook_record(99)))
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    result = parse_path(path)
    assert not any(RID in i.text or RECALLED in i.text or "memory-frame" in i.text
                   for i in result.items)
    assert [i.text for i in result.items if i.kind == "user_goal"] == [GOAL, QUEUED]
    assert result.ignored["attachment/hook_additional_context"] == 1
    assert result.ignored["attachment/hook_success"] == 1
    assert result.ignored["meta"] == 1
    with Memory.open(home) as mem:
        mem.ingest([path])
        journal = "".join(p.read_text(encoding="utf-8") for p in home.rglob("*.pl")
                          if "journal" in p.name)
    assert QUEUED in journal and RECALLED not in journal and RID not in journal
