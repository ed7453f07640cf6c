"""A goal that asks for nothing but a role's newest words ("what was the user's last request")
is answered by that role's newest turn (QA round 20 on real Claude Code 2.1 sessions: the
frame held tool output that said "user" and "request", and none of the user's turns)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config
from claude_code_21 import cc21_record

LAST = "now make the retry budget configurable per tenant"


def _record(n: int, kind: str, content: object) -> dict:
    return cc21_record(n, kind, content, session="5e55-last", cwd="/home/dev/api", branch="main",
                       timestamp=f"2026-03-02T{10 + n // 60:02d}:{n % 60:02d}:00.000Z")


def _session(path: Path) -> Path:
    """Three user requests, each followed by an agent's tool work about user requests (an
    HTTP API's request handlers), so the goal's words match the tools' output best."""
    records: list[dict] = []

    def add(kind: str, content: object) -> None:
        records.append(_record(len(records) + 1, kind, content))

    for request, module in [("add a retry to the user request handler", "handlers"),
                            ("log every failed user request with its status", "logging"),
                            (LAST, "tenants")]:
        add("user", request)
        for step in range(4):
            call = f"toolu_{len(records) + 1:04d}"
            add("assistant", [{"type": "tool_use", "id": call, "name": "Bash",
                               "input": {"command": f"grep -rn 'user request' api/{module}"}}])
            add("user", [{"type": "tool_result", "tool_use_id": call, "is_error": False,
                          "content": f"api/{module}/user_request_{step}.py:12: def handle_user"
                                     f"_request(request): the user's request is read here"}])
        add("assistant", [{"type": "text", "text": f"Done: {module} now handle the user request."}])
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("last")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    runner = CliRunner()
    session = _session(root / "last.jsonl")
    assert runner.invoke(main, ["ingest", str(session), "--home", str(home)]).exit_code == 0
    assert runner.invoke(main, ["curate", "--home", str(home)]).exit_code == 0
    return home


@pytest.mark.parametrize("goal", ["what was the user's last request",
                                  "what did the user ask for most recently"])
def test_the_users_newest_turn_answers(home, goal):
    out = CliRunner().invoke(main, ["hydrate", goal, "--budget", "300", "--format", "json",
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    frame = json.loads(out.stdout)
    first = frame["receipt"]["facts"][0]
    assert first["speaker"] == "user" and first["level"] == "L0"
    assert f"user: {LAST}" in frame["text"]


def test_a_goal_with_a_topic_is_still_ranked_by_it(home):
    """"the user's last request about logging" names a topic: relevance leads, and the
    newest turn, about tenants, is not put first."""
    out = CliRunner().invoke(main, ["hydrate", "what was the user's last request about logging",
                                    "--budget", "300", "--home", str(home)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    first = lines[next(i for i, line in enumerate(lines) if line.startswith("[L")) + 1]
    assert LAST not in first
