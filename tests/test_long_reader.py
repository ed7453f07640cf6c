"""A long-running reader beside other writers (README "Python API": ``Memory.refresh()``; "Agents":
the MCP server's MemoryHost): after any run of other processes' writes it answers what a
freshly opened Memory of the home answers, and never what was forgotten."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
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


_SWAP_HOOK = """
:- dynamic qa_swap/2.
qa_arm(From, To) :- retractall(qa_swap(_, _)), assertz(qa_swap(From, To)).
qa_swap_now :- ( retract(qa_swap(From, To)) -> rename_file(From, To) ; true ).
qa_unwrap :- unwrap_predicate(atc_store:stream_epoch_/2, qa_swap).
:- wrap_predicate(atc_store:stream_epoch_(_, _), qa_swap, Wrapped, (Wrapped, user:qa_swap_now)).
"""


@pytest.fixture
def swap_after_epoch_read(tmp_path):
    """A hook that replaces a journal by another file right after the reader read its epoch:
    the moment an erasure elsewhere renames its compacted journal into place."""
    from attention_cloud.bridge import get_prolog

    pl = get_prolog()
    hook = tmp_path / "swap_hook.pl"
    hook.write_text(_SWAP_HOOK, encoding="utf-8")
    pl.consult(hook)
    yield lambda src, dst: pl.once("user:qa_arm", str(src), str(dst))
    pl.once("user:qa_unwrap")


def test_a_journal_compacted_while_a_reader_refreshes_is_never_read_from_the_old_offset(
        tmp_path, swap_after_epoch_read):
    """An erasure elsewhere renames its compacted journal over journal.pl while a reader
    refreshes: the refresh either reads the journal it checked to its end (what was committed
    before it was called is there) or says memory must be opened again. It read the new file
    from the old file's offset instead: the note committed before the refresh was missing, and
    a refresh that landed on a line start would have replayed the new file's facts twice."""
    home = _home(tmp_path, ["the first note is about the invoice export",
                            "the second note is about the retry policy"])
    other = tmp_path / "other"
    shutil.copytree(home, other)
    for i in range(6):
        assert _atc(other, "remember", f"padding note {i} so the compacted journal is long").returncode == 0
    with Memory.open(other, create=False) as mem:
        (victim,) = [r["H"] for r in mem.query(
            'item_text(H, "the first note is about the invoice export")').rows]
    assert _atc(other, "forget", victim, "--yes").returncode == 0
    mem = Memory.open(home, create=False)
    try:
        assert _atc(home, "remember", "a third note, committed before the refresh").returncode == 0
        swap_after_epoch_read(other / "journal.pl", home / "journal.pl")
        caught_up = mem.refresh()
        texts = {r["T"] for r in mem.query("item(H), item_text(H, T)", limit=1000).rows}
        if caught_up:
            assert "a third note, committed before the refresh" in texts
            assert len(texts) == 3
        assert not mem.refresh()  # now the replaced journal is seen: open memory again
    finally:
        mem.close()
    with Memory.open(home, create=False) as fresh:
        texts = {r["T"] for r in fresh.query("item(H), item_text(H, T)", limit=1000).rows}
    assert "the first note is about the invoice export" not in texts
