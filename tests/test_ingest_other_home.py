"""A folder ingested or watched that holds a memory home, another one or this one.

Another home inside a project folder (`proj/.mem` of a second agent) had each of its files
walked as a transcript: `atc ingest proj` named eight of them skipped ("cannot detect
format"), and `atc watch proj` reported each new receipt that home wrote, for as long as it
ran. `atc watch HOME --home HOME` watched nothing, silently, until stopped.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

SESSION = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_session.jsonl"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """``proj/`` with a transcript and a second memory home that remembered something."""
    from attention_cloud import Memory

    root = tmp_path_factory.mktemp("proj")
    (root / "sessions").mkdir()
    shutil.copy(SESSION, root / "sessions" / SESSION.name)
    other = root / "agent-mem"
    other.mkdir()
    (other / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with Memory.open(other) as mem:
        mem.ingest([root / "sessions"])
        mem.remember("the staging password rotates monthly")
        mem.hydrate("staging password")         # a receipt file in receipts/
    return root, other


def _atc(*args: str):
    return CliRunner().invoke(main, list(args))


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    return home


def test_another_home_in_a_folder_is_left_out_in_one_line(project, tmp_path):
    root, other = project
    home = _home(tmp_path)
    out = _atc("ingest", str(root), "--home", str(home), "--format-output", "json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["new"] > 0
    assert report["files_skipped"] == [
        {"file": str(other), "reason": "a memory home (its files are no transcripts), left out"}]
    assert f"{other}/" not in out.stderr


def test_a_home_named_itself_is_left_out_and_said_so(project, tmp_path):
    _, other = project
    home = _home(tmp_path)
    out = _atc("ingest", str(other), "--home", str(home))
    assert "a memory home (its files are no transcripts), left out" in out.output
    assert f"{other}/" not in out.output


def test_watch_of_the_home_itself_is_refused(tmp_path):
    home = _home(tmp_path)
    for command in (["watch", str(home)], ["ingest", str(home), "--watch"]):
        # a real process with a time limit: before, it watched until stopped
        out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", *command,
                              "--home", str(home)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2, out.stderr
        assert out.stderr == (f"atc: {home}: this is the memory home itself; its files are no "
                              "transcripts (watch the folder the transcripts are in)\n")


def test_a_watch_takes_no_event_from_another_home(project):
    from attention_cloud.watch.files import FileTable

    root, other = project
    table = FileTable([root])
    assert table.watched(root / "sessions" / SESSION.name)
    receipt = next((other / "receipts").iterdir())
    assert not table.watched(receipt)
    assert not table.watched(other / "remembered.jsonl")


def test_strict_ingest_leaves_another_home_out_without_failing(project, tmp_path):
    # --strict fails the call on a file that cannot be ingested; a memory home found in the
    # folder is no such file (this home is left out alike), so the transcripts go in
    root, other = project
    home = _home(tmp_path)
    out = _atc("ingest", str(root), "--strict", "--home", str(home), "--format-output", "json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["new"] > 0 and [s["file"] for s in report["files_skipped"]] == [str(other)]
