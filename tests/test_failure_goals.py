"""A goal that asks why something failed is answered by the failure, not by the runs that
went well (QA round 20 on real Claude Code 2.1 sessions: "why did git push fail" showed the
session's successful pushes first, and a 200-token frame held no failure at all)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config
from claude_code_21 import cc21_record

FAILURE = "fatal: The current branch feat-retry has no upstream branch."


def _record(n: int, kind: str, content: object) -> dict:
    return cc21_record(n, kind, content, session="5e55-push", cwd="/home/dev/app",
                       branch="feat-retry", timestamp=f"2026-03-02T10:{n:02d}:00.000Z")


def _session(path: Path) -> Path:
    """A Claude Code 2.1 session that pushes a branch six times: the first push fails (no
    upstream), the fix sets it, and five more pushes go through."""
    records: list[dict] = []

    def add(kind: str, content: object) -> None:
        records.append(_record(len(records) + 1, kind, content))

    def bash(command: str, output: str, error: bool = False) -> None:
        call = f"toolu_{len(records) + 1:04d}"
        add("assistant", [{"type": "tool_use", "id": call, "name": "Bash",
                           "input": {"command": command}}])
        add("user", [{"type": "tool_result", "tool_use_id": call, "content": output,
                      "is_error": error}])

    add("user", "add jitter to the retry backoff and ship it")
    add("assistant", [{"type": "text", "text": "I'll add jitter to the backoff in retry.py."}])
    bash("git push 2>&1", f"Exit code 128\n{FAILURE}\nTo push the current branch and set the "
         "remote as upstream, use\n\n    git push --set-upstream origin feat-retry\n", True)
    bash("git push --set-upstream origin feat-retry 2>&1",
         "To github.com:acme/app.git\n * [new branch]      feat-retry -> feat-retry")
    for old, new in [("1a2b3c4", "5d6e7f8"), ("5d6e7f8", "9a8b7c6"), ("9a8b7c6", "0f1e2d3"),
                     ("0f1e2d3", "4c5b6a7"), ("4c5b6a7", "8e9f0a1")]:
        add("assistant", [{"type": "text", "text": "Pushing the next commit."}])
        bash("git push 2>&1", f"To github.com:acme/app.git\n   {old}..{new}  feat-retry -> feat-retry")
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _frame(home: Path, goal: str, budget: int, plane: str) -> dict:
    out = CliRunner().invoke(main, ["hydrate", goal, "--budget", str(budget), "--plane", plane,
                                    "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_why_did_it_fail_puts_the_failure_first(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    runner = CliRunner()
    session = _session(tmp_path / "push.jsonl")
    assert runner.invoke(main, ["ingest", str(session), "--home", str(home)]).exit_code == 0
    assert runner.invoke(main, ["curate", "--home", str(home)]).exit_code == 0
    for plane in ("default", "execution"):
        frame = _frame(home, "why did git push fail", 200, plane)
        assert FAILURE in frame["text"], frame["text"]
        first = frame["receipt"]["facts"][0]
        assert first["level"] == "L0" and first["source"].endswith("push.jsonl:4")
