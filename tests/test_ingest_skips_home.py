"""A folder ingested or watched that holds the memory home itself (a project's `.mem`, a
home under `~/.claude`): the home's own files (its receipts, indexes, `remembered.jsonl`)
are never read as transcripts; before, each was read, reported as skipped, and `atc watch`
read them again after each of its own writes."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.ingest.source import find_transcripts
from attention_cloud.watch.files import FileTable

CHAT = ('{"role": "user", "content": "Which queue do we use for billing events?"}\n'
        '{"role": "assistant", "content": "SQS FIFO, deduplicated by invoice id."}\n')


def _project(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    (project / "sessions").mkdir(parents=True)
    (project / "sessions" / "chat.jsonl").write_text(CHAT, encoding="utf-8")
    home = project / ".mem"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    return project, home


def test_ingesting_a_folder_that_holds_the_home_reads_only_the_transcripts(tmp_path):
    project, home = _project(tmp_path)
    runner = CliRunner()
    for args in (["remember", "we deploy on Thursdays"], ["hydrate", "deploy"]):
        out = runner.invoke(main, [*args, "--home", str(home)])
        assert out.exit_code == 0, out.output
    assert list((home / "receipts").iterdir()) and (home / "remembered.jsonl").exists()
    out = runner.invoke(main, ["ingest", str(project), "--home", str(home),
                               "--format-output", "json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["files"] == 1 and report["new"] == 2, report
    assert report["files_skipped"] == [] and report["ignored"] == {}, report


def test_a_relative_folder_and_the_watchers_table_leave_the_home_out(tmp_path, monkeypatch):
    project, home = _project(tmp_path)
    (home / "receipts").mkdir()
    (home / "receipts" / "r_0.json").write_text("{}", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    found = [f.path for f in find_transcripts(["project"], skip=home)]
    assert found == [Path("project/sessions/chat.jsonl")]
    assert find_transcripts([project], skip=home / "elsewhere") != []
    assert find_transcripts([home], skip=home) == []       # the home named: nothing in it
    table = FileTable([Path("project")], skip=home)
    assert table.scan(0.0) == {Path("project/sessions/chat.jsonl")}
    assert not table.watched(Path("project/.mem/receipts/r_0.json"))
    assert table.watched(Path("project/sessions/other.jsonl"))
