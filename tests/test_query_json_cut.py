"""`atc query --format json` cut at --limit: the JSON array on stdout stays the array users
parse, and stderr says it was cut (the table format and the MCP tool's `more` already did)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main

ATC = str(Path(sys.executable).parent / "atc")


def query(home: Path, *args: str):
    return CliRunner().invoke(main, ["query", *args, "--home", str(home)])


def test_a_cut_json_answer_says_so_on_stderr_and_keeps_stdout_json(home):
    out = query(home, "between(1, 5, X)", "--limit", "3", "--format", "json")
    assert out.exit_code == 0
    assert [row["X"] for row in json.loads(out.stdout)] == [1, 2, 3]
    assert out.stderr == "atc: note: stopped at --limit 3 (more solutions exist)\n"


def test_a_whole_json_answer_has_no_note(home):
    out = query(home, "between(1, 3, X)", "--limit", "3", "--format", "json")
    assert out.exit_code == 0 and len(json.loads(out.stdout)) == 3 and out.stderr == ""


def test_the_real_entry_point_keeps_the_note_off_stdout(home):
    done = subprocess.run([ATC, "query", "between(1, 200, X)", "--format", "json",
                           "--home", str(home)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert len(json.loads(done.stdout)) == 100                       # the default --limit
    assert "stopped at --limit 100" in done.stderr and "Traceback" not in done.stderr
