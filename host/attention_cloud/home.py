"""The memory home: where a memory lives on disk, its write lock, and durability helpers.

Layout of a home::

    journal.pl        append-only journal of fact changes (fsynced per acknowledged batch)
    snapshot.qlf      compiled snapshot of every durable fact; snapshot.meta says what it covers
    vectors/          embeddings and the faiss index
    receipts/         hydration receipts, one JSON file each
    config.json       settings (embedder, retention, planes overrides)
    .lock             held (flock) by the one process that writes
"""
from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from .errors import HomeError

DEFAULT_HOME = "~/.attention-cloud"


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The home directory: the argument, else ``$ATC_HOME``, else ``~/.attention-cloud``."""
    raw = home if home is not None else os.environ.get("ATC_HOME") or DEFAULT_HOME
    return Path(raw).expanduser().resolve()


def fsync_path(path: Path) -> None:
    """Flush a file's (or directory's) data to stable storage."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class WriteLock:
    """An exclusive advisory lock on ``home/.lock``, taken before the first write."""

    def __init__(self, home: Path) -> None:
        self.path = home / ".lock"
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock or raise HomeError naming the problem (another writer is active)."""
        if self._fd is not None:
            return
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise HomeError(f"{self.path.parent}: another process is writing to this memory home")
        self._fd = fd

    def try_acquire(self) -> bool:
        """Take the lock if free; False when another process holds it."""
        try:
            self.acquire()
            return True
        except HomeError:
            return False

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def read_config(home: Path) -> dict[str, Any]:
    """The home's ``config.json`` (empty when absent)."""
    path = home / "config.json"
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HomeError(f"{path}: unreadable configuration ({exc})") from exc


def write_config(home: Path, config: dict[str, Any]) -> None:
    """Replace ``config.json`` atomically."""
    path = home / "config.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
