"""`atc curate --format json` and `atc watch --format-output json` print JSON that
supervisors parse: each has a JSON Schema shipped in the package (printed by `atc curate
--schema` and `atc watch --schema`, loaded by `curate_schema()` and `watch_schema()`), and
real output meets it: every event of a real watcher (start, batch, status, stop), the
`{"curate": ...}` lines of `atc ingest --watch --curate`, and a curate report of the API."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.schemas import curate_schema, schema_problems, watch_schema

from watching import WatchProcess

ROOT = Path(__file__).resolve().parent.parent
ATC = str(Path(sys.executable).parent / "atc")
SESSION = ROOT / "tests" / "fixtures" / "ingest" / "claude_code_session.jsonl"


def _home(path: Path) -> Path:
    path.mkdir()
    write_config(path, {"embedder": "hash"})
    return path


def test_the_schemas_are_printed_by_the_commands_they_describe() -> None:
    for argv, schema in ((["curate", "--schema"], curate_schema()),
                         (["watch", "--schema"], watch_schema())):
        out = CliRunner().invoke(main, argv)    # no PATH needed for --schema
        assert out.exit_code == 0, out.output
        assert json.loads(out.output) == schema
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_real_curate_output_meets_the_schema(tmp_path) -> None:
    home = _home(tmp_path / "home")
    env = {k: v for k, v in os.environ.items() if k != "ATC_HOME"}
    subprocess.run([ATC, "ingest", str(SESSION), "--home", str(home)], check=True,
                   capture_output=True, env=env, timeout=300)
    runs = [subprocess.run([ATC, "curate", "--format", "json", "--home", str(home)],
                           capture_output=True, text=True, env=env, timeout=300)
            for _ in range(2)]                  # the second has nothing to do
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert schema_problems(json.loads(run.stdout), "curate") == []
    assert json.loads(runs[0].stdout)["items"] > 0
    with Memory.open(home) as mem:              # the API's own dict
        assert schema_problems(mem.curate().as_dict(), "curate") == []


def test_a_real_watchers_events_meet_the_schema(tmp_path) -> None:
    home = _home(tmp_path / "home")
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "session.jsonl").write_bytes(SESSION.read_bytes())
    (folder / "notes.jsonl").write_text("not json at all\n", encoding="utf-8")
    watcher = WatchProcess(home, str(folder))
    try:
        watcher.wait_for(lambda e: e["event"] == "batch" and e["curated"] > 0)
        watcher.proc.send_signal(signal.SIGUSR1)
        status = watcher.wait_for(lambda e: e["event"] == "status")
    finally:
        assert watcher.stop() == 0
    # "followed": the files followed now (it said the files every batch had read, summed)
    assert status["followed"] == 2
    kinds = {e["event"] for e in watcher.events}
    assert {"start", "batch", "status", "stop"} <= kinds
    for event in watcher.events:
        assert schema_problems(event, "watch") == [], event


def test_an_event_the_schema_does_not_know_is_named() -> None:
    assert schema_problems({"event": "start", "time": "now"}, "watch") != []
    assert schema_problems({"event": "exploded"}, "watch") != []


def test_ingest_watch_curate_lines_meet_the_curate_schema(tmp_path) -> None:
    home = _home(tmp_path / "home")
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "session.jsonl").write_bytes(SESSION.read_bytes())
    env = {k: v for k, v in os.environ.items() if k != "ATC_HOME"}
    proc = subprocess.Popen([ATC, "ingest", str(folder), "--watch", "--curate", "--interval",
                             "0.3", "--format-output", "json", "--home", str(home)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        report, curated = json.loads(proc.stdout.readline()), json.loads(proc.stdout.readline())
    finally:
        proc.terminate()
        proc.communicate(timeout=60)
    assert schema_problems(report, "ingest") == []
    assert list(curated) == ["curate"]
    assert schema_problems(curated["curate"], "curate") == [] and curated["curate"]["items"] > 0


def test_real_query_output_meets_the_schema(tmp_path) -> None:
    """`atc query --format json` printed JSON with no schema a script could fetch."""
    from attention_cloud.schemas import query_schema

    out = CliRunner().invoke(main, ["query", "--schema"])
    assert out.exit_code == 0 and json.loads(out.output) == query_schema()
    home = _home(tmp_path / "home")
    env = {k: v for k, v in os.environ.items() if k != "ATC_HOME"}
    subprocess.run([ATC, "ingest", str(SESSION), "--home", str(home)], check=True,
                   capture_output=True, env=env, timeout=300)
    for goal in ("item_kind(H, K), item_goal(H, G)", "fail",
                 'X = f(a, "s", [1, 2.5]), Y = [a-1, "t"], Z = _, W is inf, V = 3'):
        run = subprocess.run([ATC, "query", goal, "--format", "json", "--limit", "5",
                              "--home", str(home)], capture_output=True, text=True, env=env,
                             timeout=300)
        assert run.returncode == 0, run.stderr
        assert schema_problems(json.loads(run.stdout), "query") == [], goal
    assert schema_problems([{"X": {"nested": [1, "a"]}}], "query") == []
    assert schema_problems({"X": 1}, "query") != []          # rows, not one object
