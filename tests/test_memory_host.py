"""The long-running servers' Memory (agents/memory_host.py): following what other processes
commit without reopening, reopened when an erasure or a configuration change needs it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.agents.memory_host import MemoryHost
from attention_cloud.home import write_config


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.remember("the retry policy stops at five attempts")
    return home


def test_an_unchanged_home_keeps_its_memory_open(tmp_path):
    host = MemoryHost(_home(tmp_path))
    try:
        assert host.memory() is host.memory()
    finally:
        host.close()


def test_a_new_configuration_reopens_memory_and_new_vectors_are_taken_in(tmp_path):
    """`atc curate --reembed` in another process moves the home to another embedder (its
    configuration changes: memory opens afresh); a curate elsewhere writes vectors, which the
    open store takes in."""
    home = _home(tmp_path)
    host = MemoryHost(home)
    try:
        first = host.memory()
        config = home / "config.json"
        settings = json.loads(config.read_text(encoding="utf-8"))
        config.write_text(json.dumps({**settings, "note": "moved"}), encoding="utf-8")
        second = host.memory()
        assert second is not first
        second.hydrate("retry policy", budget=300)
        _atc(home, "remember", "the invoice export runs nightly")  # its vector is written too
        third = host.memory()
        assert third is second
        (new,) = [r["H"] for r in third.query('item_text(H, "the invoice export runs nightly")').rows]
        assert third.jump.vectors.has(new)  # the open store took in the new vector
        hits = [r["H"] for r in third.query('nearest("invoice export nightly", 3, Hs), member(H-_, Hs)').rows]
        assert new in hits
    finally:
        host.close()


@pytest.fixture
def served(tmp_path):
    """A home and the MemoryHost a server keeps for it (closed after the test)."""
    home = _home(tmp_path)
    host = MemoryHost(home)
    yield home, host
    host.close()


def _atc(home: Path, *args: str) -> None:
    """Run the CLI in another process, as a capture hook or `atc curate` would."""
    env = {**os.environ, "ATC_HOME": str(home)}
    subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args], check=True, env=env,
                   capture_output=True, timeout=120)


def _texts(mem: Memory) -> set[str]:
    return {r["T"] for r in mem.query("item(H), item_text(H, T)", limit=1000).rows}


def test_another_processs_commits_are_followed_without_reopening(served):
    home, host = served
    first = host.memory()
    first.hydrate("retry policy", budget=300)
    _atc(home, "remember", "the deploy window moved to Thursday evening")
    _atc(home, "remember", "the webhook secret rotates monthly")
    second = host.memory()
    assert second is first
    assert {"the deploy window moved to Thursday evening",
            "the webhook secret rotates monthly"} <= _texts(second)
    frame = second.hydrate("when is the deploy window?", budget=300)
    assert "Thursday evening" in frame.text  # found through the indexes, which took it in
    _atc(home, "remember", "a third note from elsewhere")
    assert "a third note from elsewhere" in _texts(host.memory())


def test_an_erasure_elsewhere_opens_memory_afresh(served):
    home, host = served
    first = host.memory()
    (victim,) = [r["H"] for r in first.query(
        'item_text(H, "the retry policy stops at five attempts")').rows]
    _atc(home, "forget", victim, "--yes")
    second = host.memory()
    assert second is not first
    assert "the retry policy stops at five attempts" not in _texts(second)


def test_a_write_gives_the_lock_back_and_keeps_memory_loaded(served):
    home, host = served
    mem = host.memory()
    mem.remember("written by the server")
    host.wrote()
    assert not mem.lock.held
    mem.hydrate("what did the server write?", budget=300)
    vectors, lexical = mem.jump._vectors, mem.jump._lexical
    assert vectors.read_only and lexical.read_only  # readers of what was written
    _atc(home, "remember", "written beside it")  # would wait for the lock, then fail
    again = host.memory()
    assert again is mem
    assert {"written by the server", "written beside it"} <= _texts(again)
    assert again.jump._vectors is vectors and again.jump._lexical is lexical  # not reopened
    (beside,) = [r["H"] for r in again.query('item_text(H, "written beside it")').rows]
    assert vectors.has(beside) and lexical.has(beside)
    again.remember("written again by the server")  # takes the lock, catching up first
    host.wrote()
    assert len([t for t in _texts(host.memory()) if t.startswith("written")]) == 3


_PAUSED_INGEST = """
import sys, time
from pathlib import Path
from attention_cloud import Memory, ingest_index
home, transcript, flag = sys.argv[1], sys.argv[2], Path(sys.argv[3])
index_new = ingest_index.index_new
def paused(*args, **kwargs):
    # the journal's batch is committed; its BM25 entries are written once the test says so
    (flag / "committed").touch()
    while not (flag / "go").exists():
        time.sleep(0.01)
    return index_new(*args, **kwargs)
ingest_index.index_new = paused
with Memory.open(home) as mem:
    mem.ingest([transcript])
"""


def test_bm25_entries_written_after_the_journal_batch_are_taken_in(served, tmp_path):
    """An ingest commits its journal batch, then writes the batch's BM25 entries: a server
    that answers in between sees the new items, and must take in their BM25 entries on a
    later call, even though the journal did not change again (they were never findable by
    words from the server before: nothing but a later write made it look again)."""
    home, host = served
    host.memory().hydrate("retry policy", budget=300)
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text(json.dumps({"role": "user", "content": "the quokka dashboard flickers "
                                      "after the zebrafish migration"}) + "\n", encoding="utf-8")
    flag = tmp_path / "flag"
    flag.mkdir()
    writer = subprocess.Popen([sys.executable, "-c", _PAUSED_INGEST, str(home), str(transcript),
                               str(flag)], env={**os.environ, "ATC_HOME": str(home)},
                              stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(1200):
            if (flag / "committed").exists() or writer.poll() is not None:
                break
            time.sleep(0.05)
        assert (flag / "committed").exists(), writer.stderr.read() if writer.poll() is not None else ""
        between = host.memory()  # the journal has the item, BM25 not yet
        assert any("quokka" in t for t in _texts(between))
    finally:
        (flag / "go").touch()
        writer.wait(120)
    assert writer.returncode == 0, writer.stderr.read()
    mem = host.memory()
    (new,) = [r["H"] for r in mem.query('item(H), item_text(H, T), sub_string(T, _, _, _, "quokka")').rows]
    hits = mem.query('lexical("quokka zebrafish", 5, [], Hs)').rows[0]["Hs"]
    assert new in [h[0] for h in hits], hits
