"""`atc hydrate --output -` wrote the frame to a file named `-` in the current folder, where a
user (as for `atc rules add -` and `atc remember -`, which read stdin) means stdout. It writes
the frame to stdout now, and makes no such file."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("dash") / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    done = CliRunner().invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                     "--home", str(home)])
    assert done.exit_code == 0, done.output
    return home


@pytest.mark.parametrize("fmt", ["json", "html", "text"])
def test_output_dash_is_stdout(home: Path, tmp_path: Path, fmt: str) -> None:
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        out = CliRunner().invoke(main, ["hydrate", "staging", "--format", fmt, "--output", "-",
                                        "--home", str(home)])
    finally:
        os.chdir(cwd)
    assert out.exit_code == 0, out.output
    assert not (tmp_path / "-").exists()
    if fmt == "json":
        assert json.loads(out.stdout)["receipt"]["facts"]
    elif fmt == "html":
        assert out.stdout.startswith("<!DOCTYPE html>")
    else:
        assert "Fridays" in out.stdout
