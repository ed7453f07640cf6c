"""`atc ... | head -1`: a reader that stops early never cuts the work short; quiet, status 0.

Before, click's own handling of the broken pipe exited 1 with nothing said (a script under
``set -o pipefail`` failed), and output still buffered at exit gave Python's "Exception
ignored ... BrokenPipeError" and status 120. Then the command stopped at that write, status
0: `atc curate 2>&1 | head -1` built no arcs, rollups or cells and said it succeeded. Real
processes and real pipes: CliRunner has none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from attention_cloud.home import write_config
from attention_cloud.memory import Memory
from attention_cloud.paths import samples_dir

ATC = [sys.executable, "-m", "attention_cloud.cli"]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    path = tmp_path_factory.mktemp("closed-output") / "home"
    Memory.open(path).close()
    return path


def _run_reading(args, home, lines):
    """Run atc, read ``lines`` lines of its stdout (0: none at all), then close the pipe."""
    proc = subprocess.Popen(ATC + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "ATC_HOME": str(home)})
    for _ in range(lines):
        proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    return proc.wait(timeout=120), err


MANY_ROWS = ["query", "between(1, 20000, X), atom_length(abcdefghijklmnopqrstuvwxyz, Y)",
             "--limit", "20000"]


@pytest.mark.parametrize("args,lines", [
    (["ingest", "--list-formats"], 0),          # small text, reader gone before any write
    (["ingest", "--list-formats"], 1),
    (["--help"], 0),                            # an eager option of the group itself
    (["query", "X = 1", "--format", "json"], 0),  # small JSON
    (MANY_ROWS, 1),                             # a large table, one row read
    (MANY_ROWS + ["--format", "text"], 3),
    (["cells", "list"], 0),
], ids=["formats-none-read", "formats-one-read", "help", "json-small", "table-large",
        "text-large", "cells-list"])
def test_a_reader_stopping_early_ends_the_command_quietly(home, args, lines):
    code, err = _run_reading(args, home, lines)
    assert code == 0, err[-500:]
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


def test_output_nobody_stopped_reading_is_whole(home):
    """The quiet stop is only for a reader that left: a full read still gets every row."""
    done = subprocess.run(ATC + MANY_ROWS + ["--format", "text"], capture_output=True,
                          text=True, env={**os.environ, "ATC_HOME": str(home)}, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.count("\n") == 20001


def _ingested_samples(home):
    """A ``hash`` home holding the bundled samples, ingested and not curated."""
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([samples_dir()])


def _stats(home):
    done = subprocess.run(ATC + ["stats", "--format", "json", "--home", str(home)],
                          capture_output=True, text=True, timeout=120, check=True)
    stats = json.loads(done.stdout)
    return {key: value for key, value in stats.items() if key not in ("home", "disk_bytes")}


def test_a_curate_whose_reader_left_after_one_line_still_curates_everything(tmp_path, built_home):
    """`atc curate 2>&1 | head -1`: curation prints a line per phase; the reader gone after
    the first, the later phases (arcs, rollups, echoes, cells) are still built, as without
    the pipe, and the status says so."""
    cut = built_home("samples-hash-ingested", _ingested_samples, tmp_path / "cut")
    whole = built_home("samples-hash-ingested", _ingested_samples, tmp_path / "whole")
    proc = subprocess.Popen(ATC + ["curate", "--home", str(cut)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr.readline().startswith(b"curating items:")
    proc.stderr.close()
    assert proc.wait(timeout=300) == 0
    subprocess.run(ATC + ["curate", "--home", str(whole)], capture_output=True, timeout=300,
                   check=True)
    assert _stats(cut)["cells"]["cells"] > 0
    assert _stats(cut) == _stats(whole)


def test_a_watch_whose_reader_left_stops_quietly(tmp_path):
    """`atc watch` follows until stopped: a supervisor reading its events gone, it stops
    (status 0) rather than following blind for days."""
    home, folder = tmp_path / "home", tmp_path / "sessions"
    folder.mkdir()
    _ingested_samples(home)
    proc = subprocess.Popen(ATC + ["watch", str(folder), "--home", str(home), "--no-curate",
                                   "--poll", "--interval", "0.2", "--format-output", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert json.loads(proc.stdout.readline())["event"] == "start"
    proc.stdout.close()
    (folder / "note.md").write_text("## 2026-01-02\n\nThe staging DB is read-only on Fridays.\n")
    try:
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
    err = proc.stderr.read().decode("utf-8", "replace")
    assert code == 0, err[-500:]
    assert "Traceback" not in err
