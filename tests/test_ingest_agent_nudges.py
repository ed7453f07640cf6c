"""A prompt that only urges the agent on ("continue", "keep going with the rest") keeps the
user's goal in the other agents' transcripts too, as in Claude Code's (qa203): Aider's chat
history, Gemini CLI's sessions and OpenHands' event streams made it the goal of every later
item. A prompt that names something of its own is a new goal there as before."""
from __future__ import annotations

import json

from attention_cloud.ingest import parse_text

GOAL = "fix the login bug in auth.py"


def _goals_after(result) -> list[tuple[str, str, str]]:
    return [(i.kind, i.text, i.goal) for i in result.items if i.role == "user"]


def test_aider_a_nudge_keeps_the_goal():
    text = ("\n# aider chat started at 2025-03-02 14:05:11\n\n"
            f"#### {GOAL}\n\nLooking at auth.py now.\n\n"
            "#### continue with the remaining steps\n\nThe token check was inverted; fixed.\n\n"
            "#### now add a test for the signup page\n\nAdded tests/test_signup.py.\n")
    result = parse_text(text, name=".aider.chat.history.md", format="aider")
    assert _goals_after(result) == [("user_goal", GOAL, GOAL), ("turn", "continue with the remaining steps", GOAL),
                                    ("user_goal", "now add a test for the signup page",
                                     "now add a test for the signup page")]
    assert result.items[-1].goal == "now add a test for the signup page"


def test_gemini_a_nudge_keeps_the_goal():
    def said(n, kind, content):
        return {"id": f"m{n}", "timestamp": f"2025-10-14T09:1{n}:00.000Z", "type": kind,
                "content": content}

    session = {"sessionId": "s-1", "projectHash": "ab" * 32,
               "startTime": "2025-10-14T09:10:00.000Z", "lastUpdated": "2025-10-14T09:19:00.000Z",
               "messages": [said(0, "user", GOAL), said(1, "gemini", "Reading auth.py."),
                            said(2, "user", "keep going, finish the rest"),
                            said(3, "gemini", "The token check was inverted; fixed.")]}
    result = parse_text(json.dumps(session), name="session.json", format="gemini")
    assert _goals_after(result) == [("user_goal", GOAL, GOAL),
                                    ("turn", "keep going, finish the rest", GOAL)]
    assert result.items[-1].goal == GOAL


def test_openhands_a_nudge_keeps_the_goal():
    events = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": GOAL}},
        {"id": 1, "source": "agent", "action": "run", "args": {"command": "pytest tests"}},
        {"id": 2, "cause": 1, "observation": "run", "content": "1 failed",
         "extras": {"metadata": {"exit_code": 1}}},
        {"id": 3, "source": "user", "action": "message", "args": {"content": "go on until all are done"}},
        {"id": 4, "source": "agent", "action": "run", "args": {"command": "pytest tests -x"}},
    ]
    result = parse_text(json.dumps(events), name="run.json", format="openhands")
    assert _goals_after(result) == [("user_goal", GOAL, GOAL), ("turn", "go on until all are done", GOAL)]
    assert {i.goal for i in result.items} == {GOAL}
