"""`atc ... | head -1`: a reader that stops early ends the command quietly, status 0.

Before, click's own handling of the broken pipe exited 1 with nothing said (a script under
``set -o pipefail`` failed), and output still buffered at exit gave Python's "Exception
ignored ... BrokenPipeError" and status 120. Real processes and real pipes: CliRunner has none.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from attention_cloud.memory import Memory

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
