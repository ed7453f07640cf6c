"""The long-running servers' Memory (agents/memory_host.py): reopened when another process
changed what it answers from, kept open otherwise."""
from __future__ import annotations

import json
import os
from pathlib import Path

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


def test_a_new_embedder_or_vector_store_reopens_memory_without_a_journal_change(tmp_path):
    """`atc curate --reembed` in another process moves the home to another embedder: it
    changes the configuration and the vector store, not the journal."""
    home = _home(tmp_path)
    host = MemoryHost(home)
    try:
        first = host.memory()
        config = home / "config.json"
        settings = json.loads(config.read_text(encoding="utf-8"))
        config.write_text(json.dumps({**settings, "note": "moved"}), encoding="utf-8")
        second = host.memory()
        assert second is not first
        manifest = home / "vectors" / "manifest.json"
        stat = manifest.stat()
        os.utime(manifest, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        assert host.memory() is not second
    finally:
        host.close()
