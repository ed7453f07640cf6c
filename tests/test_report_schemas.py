"""`atc ingest` and `atc stats` print JSON that scripts parse: each has a JSON Schema shipped
in the package (printed by `atc ingest --schema` and `atc stats --schema`, loaded by
`ingest_schema()` and `stats_schema()`), and the real output of many kinds of input meets it,
from the command line (a real subprocess) and from the Python API alike."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.schemas import ingest_schema, schema_problems, stats_schema

ROOT = Path(__file__).resolve().parent.parent
ATC = str(Path(sys.executable).parent / "atc")
INGEST_FIXTURES = ROOT / "tests" / "fixtures" / "ingest"


def _atc(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "ATC_HOME"}
    return subprocess.run([ATC, *args], capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> dict:
    """Every ingest fixture (many formats, bad lines, unreadable times, files no format reads,
    an empty file) ingested by the real command, then a second time (all unchanged)."""
    root = tmp_path_factory.mktemp("reports")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    (root / "empty.jsonl").write_text("", encoding="utf-8")
    paths = [str(INGEST_FIXTURES), str(root / "empty.jsonl")]
    first = _atc("ingest", *paths, "--format-output", "json", "--home", str(home))
    again = _atc("ingest", *paths, "--format-output", "json", "--home", str(home))
    stats = _atc("stats", "--format", "json", "--home", str(home))
    return {"home": home, "first": first, "again": again, "stats": stats}


def test_the_schemas_are_printed_by_the_commands_they_describe() -> None:
    for argv, schema in ((["ingest", "--schema"], ingest_schema()),
                         (["stats", "--schema"], stats_schema())):
        out = CliRunner().invoke(main, argv)
        assert out.exit_code == 0, out.output
        assert json.loads(out.output) == schema
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_real_ingest_reports_meet_the_schema(ingested) -> None:
    for run in (ingested["first"], ingested["again"]):
        assert run.returncode == 0, run.stderr
        report = json.loads(run.stdout)          # stdout is the report alone
        assert schema_problems(report, "ingest") == []
    first = json.loads(ingested["first"].stdout)
    assert first["new"] > 0 and first["skipped"] and first["files_skipped"] and first["ignored"]
    assert json.loads(ingested["again"].stdout)["new"] == 0


def test_real_stats_meet_the_schema(ingested, tmp_path) -> None:
    assert ingested["stats"].returncode == 0, ingested["stats"].stderr
    stats = json.loads(ingested["stats"].stdout)
    assert schema_problems(stats, "stats") == [] and stats["items"] > 0
    empty = tmp_path / "empty-home"
    with Memory.open(empty) as mem:             # a new home, and the API's own dict
        assert schema_problems(mem.stats(), "stats") == []
        report = mem.ingest([str(INGEST_FIXTURES / "transcript.md")])
        assert schema_problems(report.as_dict(), "ingest") == []
        assert schema_problems(mem.stats(), "stats") == []


def test_a_document_that_departs_is_named_line_by_line() -> None:
    problems = schema_problems({"files": -1}, "ingest")
    assert "files: -1 is less than the minimum of 0" in problems
    assert any("'notes' is a required property" in p for p in problems)


def test_ingest_watch_in_json_prints_one_report_a_line(tmp_path) -> None:
    """`atc ingest --watch --format-output json` printed each batch's report indented over
    twenty lines: a supervisor reading its stdout line by line (as it reads `atc watch`'s
    events) got fragments. Each report (and each curate report) is now one line of JSON,
    meeting the ingest schema."""
    import time

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "session.jsonl").write_bytes(
        (INGEST_FIXTURES / "claude_code_session.jsonl").read_bytes())
    env = {k: v for k, v in os.environ.items() if k != "ATC_HOME"}
    proc = subprocess.Popen([ATC, "ingest", str(folder), "--watch", "--curate", "--interval",
                             "0.3", "--format-output", "json", "--home", str(home)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first, curated = proc.stdout.readline(), proc.stdout.readline()
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    report = json.loads(first)
    assert schema_problems(report, "ingest") == [] and report["new"] > 0
    assert json.loads(curated)["curate"]["items"] == report["new"]
