"""`atc remember` on a home whose embedder file is gone: refused before anything is written
(it used to store the item, then exit 1 on the curate it could not do)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main


def _journal_state(home: Path) -> dict[str, bytes]:
    return {name: (home / name).read_bytes() for name in ("journal.pl", "remembered.jsonl")
            if (home / name).exists()}


@pytest.mark.parametrize("spec", ["onnx:{tmp}/gone/model.onnx", "static:{tmp}/gone/table.npy"])
def test_remember_with_a_missing_embedder_file_writes_nothing(home: Path, tmp_path: Path,
                                                              spec: str) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["remember", "first, with a hash embedder", "--no-curate",
                                "--home", str(home)]).exit_code == 0
    spec = spec.format(tmp=tmp_path)
    (home / "config.json").write_text(json.dumps({"embedder": spec}), encoding="utf-8")
    before = _journal_state(home)
    result = runner.invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                  "--home", str(home)])
    assert result.exit_code == 1
    missing = spec.partition(":")[2]
    assert result.stderr.startswith("atc: ") and missing in result.stderr
    assert "nothing remembered" in result.stderr and len(result.stderr.splitlines()) == 1
    assert result.stdout == ""
    assert _journal_state(home) == before


def test_no_curate_still_stores_without_the_embedder(home: Path, tmp_path: Path) -> None:
    (home / "config.json").write_text(
        json.dumps({"embedder": f"onnx:{tmp_path}/gone/model.onnx"}), encoding="utf-8")
    result = CliRunner().invoke(main, ["remember", "kept uncurated", "--no-curate",
                                       "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "kept uncurated" in (home / "remembered.jsonl").read_text(encoding="utf-8")
