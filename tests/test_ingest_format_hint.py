"""A file skipped as "cannot detect format" points the user at the formats atc reads.

Before, `atc ingest` said only `skipped notes.txt: cannot detect format` (or failed with that
line alone): nothing said which formats there are or that `--format` picks one. Now the run
ends with one hint naming `atc ingest --list-formats`; the per-file lines keep their text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
SESSION = FIXTURES / "claude_code_session.jsonl"
UNDETECTED = FIXTURES / "bad" / "no_speakers.txt"
EMPTY = FIXTURES / "bad" / "empty.txt"
HINT = "atc ingest --list-formats"


def run(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)


@pytest.mark.parametrize("out", ["text", "json"])
def test_a_run_that_skipped_an_undetected_file_ends_with_the_hint(tmp_path, out):
    done = run("ingest", str(SESSION), str(UNDETECTED), "--format-output", out,
               home=tmp_path / "home")
    assert done.exit_code == 0, done.output
    if out == "text":                            # (json: the report's files_skipped says it)
        assert f"skipped {UNDETECTED}: cannot detect format\n" in done.stderr  # unchanged
    last = done.stderr.rstrip("\n").split("\n")[-1]
    assert last.startswith("atc: note: 1 file in no format atc detects") and HINT in last
    assert done.stderr.count(HINT) == 1
    if out == "json":
        json.loads(done.stdout)                  # stdout stays the report alone


def test_an_undetected_file_alone_fails_in_one_line_with_the_hint(tmp_path):
    done = run("ingest", str(UNDETECTED), home=tmp_path / "home")
    assert done.exit_code == 1
    assert done.stderr.startswith(f"atc: {UNDETECTED}: cannot detect format")
    assert done.stderr.count("\n") == 1 and HINT in done.stderr


def test_several_named_files_all_skipped_give_the_hint_once(tmp_path):
    done = run("ingest", str(UNDETECTED), str(EMPTY), home=tmp_path / "home")
    assert done.exit_code == 1
    assert done.stderr.count(HINT) == 1 and done.stderr.rstrip().split("\n")[-1].startswith(
        "atc: nothing ingested")


def test_no_hint_when_nothing_was_undetected(tmp_path):
    done = run("ingest", str(SESSION), str(EMPTY), home=tmp_path / "home")
    assert done.exit_code == 0 and "skipped" in done.stderr
    assert HINT not in done.output
