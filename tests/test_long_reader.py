"""A long-running reader beside other writers (README "Python API": ``Memory.refresh()``; "Agents":
the MCP server's MemoryHost): after any run of other processes' writes it answers what a
freshly opened Memory of the home answers, and never what was forgotten."""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Var
from attention_cloud.home import write_config

ROOT = Path(__file__).resolve().parent.parent


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    """The CLI in another process, as a capture hook or a user's shell would run it."""
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=300)


def _nearest(mem: Memory, text: str) -> list:
    return mem.query(f'nearest("{text}", 5, Hs)').rows[0]["Hs"]


def _home(tmp_path: Path, notes: list[str]) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        for note in notes:
            mem.remember(note)
    return home


def test_a_reader_follows_a_move_to_another_embedder_made_elsewhere(tmp_path):
    """`atc curate --reembed --embedder` in another process: the reader's refresh opens the
    new vectors with the new embedder (it went on embedding goals with the old one, and every
    search by meaning failed: "holds 256-d vectors of embedder 'hash-v1-256', not 512-d")."""
    home = _home(tmp_path, ["the invoice export runs nightly at two",
                            "the retry policy stops at five attempts"])
    mem = Memory.open(home, create=False)
    try:
        before = mem.hydrate("when does the invoice export run", budget=300)
        assert before.receipt["path"] in ("semantic", "hybrid")
        moved = _atc(home, "curate", "--reembed", "--embedder", "hash:256")
        assert moved.returncode == 0, moved.stderr
        assert mem.refresh()
        hits = _nearest(mem, "invoice export nightly")
        frame = mem.hydrate("when does the invoice export run", budget=300)
    finally:
        mem.close()
    with Memory.open(home, create=False) as fresh:
        assert hits == _nearest(fresh, "invoice export nightly")
        assert frame.text.split("\n", 2)[2] == fresh.hydrate(
            "when does the invoice export run", budget=300).text.split("\n", 2)[2]
        assert frame.receipt["path"] == before.receipt["path"]
