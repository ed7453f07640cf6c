"""Claude Code's ``AskUserQuestion`` (qa195): what the user chose when the agent asked is the
user's turn (``question → answer``), never a tool's output; the user's goal stays active."""

from __future__ import annotations

import json

import pytest

from attention_cloud.ingest import parse_path
from claude_code_21 import cc21_record

SID = "6d2e8a40-0000-4000-8000-00000000a5c5"
GOAL = "Set up a release pipeline for the CLI; ask me what you need to know."
QUESTIONS = [
    {"question": "Which registry should releases go to?", "header": "Registry", "multiSelect": False,
     "options": [{"label": "PyPI", "description": "Public index"},
                 {"label": "Internal Artifactory", "description": "Company mirror"}]},
    {"question": "Which platforms need wheels?", "header": "Platforms", "multiSelect": True,
     "options": [{"label": "Linux", "description": "manylinux"},
                 {"label": "macOS", "description": "arm64 and x86_64"},
                 {"label": "Windows", "description": "amd64"}]},
]
ANSWERS = {"Which registry should releases go to?": "Internal Artifactory",
           "Which platforms need wheels?": "Linux, macOS"}
ANSWERED = ('User has answered your questions: "Which registry should releases go to?"='
            '"Internal Artifactory", "Which platforms need wheels?"="Linux, macOS". '
            "You can now continue with the user's answers in mind.")
EXPECTED = ("Which registry should releases go to? → Internal Artifactory\n"
            "Which platforms need wheels? → Linux, macOS")


def _session(tmp_path, outcome, *, content=ANSWERED, is_error=False):
    records = []

    def add(kind, body, **extra):
        n = len(records) + 1
        record = cc21_record(n, kind, body, session=SID, cwd="/home/dev/cli", branch="main",
                             timestamp=f"2026-03-02T10:00:{n:02d}.000Z")
        record.update(extra)
        records.append(record)

    add("user", GOAL)
    add("assistant", [{"type": "tool_use", "id": "toolu_01Ask", "name": "AskUserQuestion",
                       "input": {"questions": QUESTIONS}, "caller": {"type": "direct"}}])
    block = {"type": "tool_result", "content": content, "tool_use_id": "toolu_01Ask"}
    if is_error:
        block["is_error"] = True
    extra = {} if outcome is None else {"toolUseResult": outcome}
    add("user", [block], **extra)
    add("assistant", [{"type": "text", "text": "I will publish Linux and macOS wheels to the "
                                               "internal Artifactory from the release workflow."}])
    path = tmp_path / f"{SID}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _answer_items(result):
    return [i for i in result.items if ("tool", "AskUserQuestion") in
            [(p, o) for _, p, o in i.relations]]


@pytest.mark.parametrize("outcome", [
    {"questions": QUESTIONS, "answers": ANSWERS},           # as Claude Code 2.1 writes it
    {"questions": QUESTIONS, "answers": {**ANSWERS, "Which platforms need wheels?": ["Linux", "macOS"]}},
    None,                                                   # the result's text alone
])
def test_the_users_answers_are_their_turn(tmp_path, outcome):
    result = parse_path(_session(tmp_path, outcome))
    (answer,) = _answer_items(result)
    assert (answer.kind, answer.role, answer.text) == ("turn", "user", EXPECTED)
    assert answer.time == "2026-03-02T10:00:03Z" and answer.pointer.endswith(".jsonl:3")
    # answering is not asking: the goal stays the user's request
    assert [i.text for i in result.items if i.kind == "user_goal"] == [GOAL]
    assert result.items[-1].goal == GOAL


def test_a_declined_question_stays_the_tools_output(tmp_path):
    declined = "User declined to answer questions"
    result = parse_path(_session(tmp_path, "Error: " + declined, content=declined, is_error=True))
    (answer,) = _answer_items(result)
    assert (answer.kind, answer.role) == ("error", "tool")
    assert declined in answer.text
