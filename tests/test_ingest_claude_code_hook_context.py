"""A tool hook's additional context (a check Claude Code ran after an edit: a compile error, a
linter's finding) is what a user asks about later ("why did the build break after that edit"):
it is kept as the session's tool output, said by the hook (qa203). Claude Code 2.1.39 writes it
as a meta user record holding a ``<system-reminder>``, in the real sessions only in the
compaction subagent's file; later versions as a ``hook_additional_context`` attachment. The
prompt hook's frame, a session start's primer, and a hook's blocking error (which the blocked
call's own result repeats) stay unread."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_record

SID = "40b7c0de-0000-4000-8000-0000000000aa"
GOAL = "Rename find_transcript/1 to find_transcript_file/1 everywhere."
DIAGNOSTIC = ("[COMPILE ERROR]\nCompiling 2 files (.ex)\n    error: undefined function "
              "find_transcript/1 (expected Sync to define such a function)\n"
              "    └─ lib/sync.ex:41:9: Sync.run/1")
CLAUDE = Path("/work/shared/data/claude-code-real")


def _meta(n: int, text: str, **extra) -> dict:
    record = cc21_record(n, "user", text, session=SID, cwd="/srv/app", branch="main",
                         timestamp=f"2026-03-03T08:00:{n:02d}.000Z")
    record.update(isMeta=True, **extra)
    return record


def _session(tmp_path: Path, middle: list[dict], name: str = f"{SID}.jsonl") -> Path:
    records = [cc21_record(1, "user", GOAL, session=SID, cwd="/srv/app", branch="main",
                           timestamp="2026-03-03T08:00:01.000Z"), *middle]
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _hooked(items):
    return [(i.kind, i.role, i.speaker, i.goal, i.text) for i in items
            if ("hook", "PostToolUse:Edit") in [(p, o) for _, p, o in i.relations]]


def test_a_tool_hooks_context_in_a_meta_record_is_the_sessions_tool_output(tmp_path):
    reminder = f"<system-reminder>\nPostToolUse:Edit hook additional context: {DIAGNOSTIC}\n</system-reminder>"
    items = parse_path(_session(tmp_path, [_meta(2, reminder)])).items
    assert _hooked(items) == [("error", "tool", "", GOAL, f"PostToolUse:Edit hook: {DIAGNOSTIC}")]


def test_a_tool_hooks_context_attachment_is_read_the_same(tmp_path):
    attachment = {"type": "attachment", "sessionId": SID, "uuid": "u-0002",
                  "timestamp": "2026-03-03T08:00:02.000Z",
                  "attachment": {"type": "hook_additional_context", "hookName": "PostToolUse:Edit",
                                 "hookEvent": "PostToolUse", "content": [DIAGNOSTIC]}}
    result = parse_path(_session(tmp_path, [attachment]))
    assert _hooked(result.items) == [("error", "tool", "", GOAL, f"PostToolUse:Edit hook: {DIAGNOSTIC}")]
    assert "attachment/hook_additional_context" not in result.ignored


def test_kept_from_the_compaction_file_it_is_the_sessions_not_a_subagents(tmp_path):
    reminder = f"<system-reminder>\nPostToolUse:Edit hook additional context: {DIAGNOSTIC}\n</system-reminder>"
    hook = _meta(2, reminder, isSidechain=True, agentId="acompact-5e1f00")
    prompt = cc21_record(3, "user", "Your task is to create a detailed summary of the conversation",
                         session=SID, cwd="/srv/app", branch="main",
                         timestamp="2026-03-03T08:00:03.000Z")
    prompt.update(isSidechain=True, agentId="acompact-5e1f00")
    path = tmp_path / SID / "subagents" / "agent-acompact-5e1f00.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(hook) + "\n" + json.dumps(prompt) + "\n")
    result = parse_path(path)
    (item,) = result.items
    assert (item.kind, item.session, item.speaker) == ("error", SID, "")
    assert not [p for _, p, _ in item.relations if p in ("sidechain", "agent")]
    assert result.ignored == {"compaction": 1}


def test_in_a_subagents_own_file_it_is_the_subagents(tmp_path):
    reminder = f"<system-reminder>\nPostToolUse:Edit hook additional context: {DIAGNOSTIC}\n</system-reminder>"
    hook = _meta(2, reminder, isSidechain=True, agentId="a7c1d2e")
    path = tmp_path / SID / "subagents" / "agent-a7c1d2e.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(hook) + "\n")
    result = parse_path(path)
    (item,) = result.items
    assert (item.kind, item.speaker, result.subagent) == ("error", "subagent", "a7c1d2e")
    assert ("agent", "a7c1d2e") in [(p, o) for _, p, o in item.relations]


@pytest.mark.parametrize("text, counted", [
    # the prompt hook's frame and a session start's primer
    ("<system-reminder>\nUserPromptSubmit hook additional context: <memory-frame>…"
     "</memory-frame>\n</system-reminder>", "meta"),
    ("<system-reminder>\nSessionStart:compact hook additional context: # Beads Workflow"
     "\n</system-reminder>", "meta"),
    # the blocked call's result says the same
    ('<system-reminder>\nPreToolUse:Bash hook blocking error from command: "pre-commit.sh": '
     "Pre-commit validation failed\n</system-reminder>", "meta"),
])
def test_other_meta_text_stays_unread(tmp_path, text, counted):
    result = parse_path(_session(tmp_path, [_meta(2, text)]))
    assert [i.text for i in result.items] == [GOAL]
    assert result.ignored == {counted: 1}


def test_a_check_that_passed_is_no_news(tmp_path):
    reminder = "<system-reminder>\nPostToolUse:Edit hook additional context: [FORMAT] ok\n</system-reminder>"
    result = parse_path(_session(tmp_path, [_meta(2, reminder)]))
    assert [i.text for i in result.items] == [GOAL]
    assert result.ignored == {"acknowledgement": 1}


@pytest.mark.parametrize("hook", ["UserPromptSubmit", "SessionStart:startup"])
def test_other_hooks_context_attachments_stay_counted(tmp_path, hook):
    attachment = {"type": "attachment", "sessionId": SID, "uuid": "u-0002",
                  "timestamp": "2026-03-03T08:00:02.000Z",
                  "attachment": {"type": "hook_additional_context", "hookName": hook,
                                 "content": ["<memory-frame>…</memory-frame>"]}}
    result = parse_path(_session(tmp_path, [attachment]))
    assert [i.text for i in result.items] == [GOAL]
    assert result.ignored == {"attachment/hook_additional_context": 1}


@pytest.mark.skipif(not CLAUDE.is_dir(), reason=f"{CLAUDE} is not here")
def test_the_real_compile_errors_after_edits_are_kept():
    # 2.1.39 kept them only in the compaction subagent's file, as meta records
    (path,) = CLAUDE.glob("fa812bfe-*/subagents/agent-acompact-*.jsonl")
    texts = "\n".join(i.text for i in parse_path(path).items)
    assert "error: undefined function find_transcript_file/1" in texts
    assert "sync_transcripts.ex:547:11 Function body is nested too deep" in texts
