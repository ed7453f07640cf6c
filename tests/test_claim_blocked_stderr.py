"""`atc claim` blocked in production mode exits 1 with a one-line reason on stderr (it said
why on stdout only, so a script capturing stdout saw a failure with nothing on stderr); the
verdict itself stays on stdout, and `--format json` stays one JSON document there."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main

BLOCKED = ["claim", "deploy A", "--type", "live_system_state", "--mode", "production"]


def test_a_blocked_claim_says_why_on_stderr(home: Path) -> None:
    runner = CliRunner()
    text = runner.invoke(main, [*BLOCKED, "--home", str(home)])
    assert text.exit_code == 1, text.output
    assert ": BLOCKED (ATTN_UNDERINSPECTION)" in text.stdout
    assert text.stderr.startswith("atc: ") and text.stderr.count("\n") == 1, text.stderr
    assert "blocked" in text.stderr and "ATTN_UNDERINSPECTION" in text.stderr

    as_json = runner.invoke(main, [*BLOCKED, "--format", "json", "--home", str(home)])
    assert as_json.exit_code == 1, as_json.output
    verdict = json.loads(as_json.stdout)
    assert verdict["allowed"] is False and verdict["failure_code"] == "ATTN_UNDERINSPECTION"
    assert verdict["claim_id"] in as_json.stderr and as_json.stderr.count("\n") == 1


def test_an_allowed_claim_says_nothing_on_stderr(home: Path) -> None:
    out = CliRunner().invoke(main, ["claim", "deploy A", "--type", "live_system_state",
                                    "--home", str(home)])
    assert out.exit_code == 0, out.output
    assert out.stderr == ""
