"""Progress that moves: library callbacks per batch, bars on a terminal, a line per phase elsewhere."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.progress import Progress, ProgressDisplay

SAMPLES = Path(__file__).resolve().parent.parent / "host" / "attention_cloud" / "samples"


def phases(events: list[Progress]) -> dict[str, list[Progress]]:
    out: dict[str, list[Progress]] = {}
    for event in events:
        out.setdefault(event.phase, []).append(event)
    return out


def assert_moves(events: list[Progress], *, batches: int) -> None:
    """From 0 to the total, never backwards, in at least ``batches`` steps past 0."""
    done = [e.done for e in events]
    assert done[0] == 0 and done == sorted(done), done
    assert done[-1] == events[-1].total, events[-1]
    assert len(set(done)) >= batches + 1, done


def test_display_prints_one_line_per_phase_when_not_a_terminal():
    out = io.StringIO()
    with ProgressDisplay(out) as show:
        assert not show.live  # a StringIO is no terminal
        for done in (0, 5, 10):
            show(Progress("curating items", done, 10))
        show(Progress("arcs and rollups", 0, 2, "sessions"))
        show(Progress("arcs and rollups", 2, 2, "sessions"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert re.fullmatch(r"curating items: 10/10 items in \d+\.\d s( \([\d,]+ items/s\))?", lines[0])
    assert lines[1].startswith("arcs and rollups: 2/2 sessions in ")


def test_display_draws_bars_on_a_terminal():
    out = io.StringIO()
    with ProgressDisplay(out, live=True) as show:
        for done in (0, 4, 8):
            show(Progress("family B", done, 8, "trials"))
    text = out.getvalue()
    assert "family B" in text and "8/8" in text and "100%" in text


def _hashed(home: Path) -> Path:
    """The home with the ``hash`` embedder: progress is the subject here, not the vectors."""
    (home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    return home


def test_curate_reports_every_batch_with_growing_counts(home, monkeypatch):
    import attention_cloud.curation as curation

    _hashed(home)
    monkeypatch.setattr(curation, "BATCH", 5)
    events: list[Progress] = []
    with Memory.open(home) as mem:
        ingested: list[Progress] = []
        mem.ingest([SAMPLES], progress=ingested.append)
        items = mem.stats()["live"]
        report = mem.curate(progress=events.append)
    assert_moves(ingested, batches=3)  # one step per file
    assert ingested[-1] == Progress("ingesting", 3, 3, "files")
    by_phase = phases(events)
    assert list(by_phase) == ["curating items", "arcs and rollups", "echoes"]
    curated = by_phase["curating items"]
    assert_moves(curated, batches=items // 5)
    assert curated[-1].total == items == report.items
    # the rate the README shows on CurateReport, and the same figure atc curate prints
    assert report.items_per_s > 0 and report.as_dict()["items_per_s"] == report.items_per_s
    sessions = by_phase["arcs and rollups"]
    assert sessions[-1] == Progress("arcs and rollups", 3, 3, "sessions")
    assert_moves(sessions, batches=3)


def test_bench_runner_reports_every_seed():
    from attention_cloud.benchmark import BenchSettings, run_benchmark

    events: list[Progress] = []
    run_benchmark(BenchSettings(families=("A", "B"), seeds=(1, 2, 3), policies=("random",)),
                  progress=events.append)
    by_phase = phases(events)
    assert list(by_phase) == ["family A", "family B"]
    for family in by_phase.values():
        assert_moves(family, batches=3)
        assert family[-1].unit == "trials"


def test_cli_prints_a_line_per_phase_on_stderr_and_keeps_stdout_json(home):
    _hashed(home)
    runner = CliRunner()
    ingested = runner.invoke(main, ["ingest", str(SAMPLES), "--format-output", "json", "--home", str(home)])
    assert ingested.exit_code == 0, ingested.output
    assert json.loads(ingested.stdout)["files"] == 3
    assert re.fullmatch(r"ingesting: 3/3 files in \d+\.\d s.*\n", ingested.stderr)
    curated = runner.invoke(main, ["curate", "--format", "json", "--home", str(home)])
    assert curated.exit_code == 0, curated.output
    assert json.loads(curated.stdout)["items"] > 0
    lines = curated.stderr.splitlines()
    assert [line.split(":")[0] for line in lines] == ["curating items", "arcs and rollups", "echoes"]
    assert re.match(r"arcs and rollups: 3/3 sessions in ", lines[1])
