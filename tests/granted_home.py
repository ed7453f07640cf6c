"""A small home shared with one grantee, for tests of what a grantee may and may not do."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SESSION = Path(__file__).parent / "fixtures" / "ingest" / "claude_code_session.jsonl"


def granted_memory(root: Path, ceiling: str, *, curate: bool = False):
    """A Memory (``hash`` embedder) on a new home under ``root`` holding one Claude Code
    session (curated with ``curate``), owned by alice and granted to bob on segment
    ``default`` at ``ceiling``; the caller closes it."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    memory = Memory.open(home)
    memory.ingest([SESSION])
    if curate:
        memory.curate()
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "bob")
    add_grant(memory, "bob", segments=["default"], ceiling=ceiling)
    return memory


def granted_home(root: Path, ceiling: str = "L3") -> Path:
    """The home of :func:`granted_memory` under ``root``, closed: for tests that run ``atc``."""
    memory = granted_memory(root, ceiling)
    home = memory.home
    memory.close()
    return home


def run_atc(home: Path, *args: str, timeout: int = 60) -> subprocess.CompletedProcess:
    """``atc ARGS`` in a process of its own on ``home``, its output captured as text. The
    timeout only stops a run that hangs (what a test of a time limit guards against)."""
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args],
                          capture_output=True, text=True, timeout=timeout, cwd=home.parent,
                          env={**os.environ, "ATC_HOME": str(home)})


def chat_memory(root: Path, chats: dict[str, str], segment: str = "team"):
    """A Memory (``hash`` embedder) on a new home under ``root`` holding each of ``chats``
    (file name -> text, read as ``text`` chats, in order) in ``segment``, curated, owned by
    alice; the caller adds the grantees and closes it."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_principal

    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    memory = Memory.open(home)
    for name, text in chats.items():
        (root / name).write_text(text, encoding="utf-8")
        memory.ingest([root / name], format="text", segment=segment)
    memory.curate()
    add_principal(memory, "alice", owner=True)
    return memory
