"""Where the reader of an error is a CLI user (the watcher's log, the prompt hook's log, the
recall server's answer that the hook logs), the error's CLI words are used (AtcError.told):
they were given the API's (`Memory.open(home, create=True) creates one`), which a CLI user
cannot act on."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from attention_cloud.errors import HomeError
from attention_cloud.watch.watcher import Watcher, WatchOptions


def _told() -> HomeError:
    return HomeError("API words: call Memory.open(home, create=True)").told(
        cli="CLI words: run atc ingest")


class _FailingMemory:
    """A memory whose every ingest fails with an error worded for each reader."""

    home = None

    def acquire(self, wait: float = 0) -> None:
        pass

    def ingest(self, *args: Any, **kwargs: Any) -> Any:
        raise _told()

    def release(self, keep_indexes: bool = True) -> None:
        pass

    def give_back_memory(self) -> None:
        pass


def test_a_watchers_failed_batch_logs_the_cli_words(tmp_path: Path) -> None:
    session = tmp_path / "session.jsonl"
    session.write_text('{"role": "user", "content": "hello"}\n', encoding="utf-8")
    events: list[dict] = []
    watcher = Watcher(_FailingMemory(), [tmp_path], WatchOptions(curate=False), events.append)
    watcher.table.scan(time.monotonic())
    watcher._batch([session])
    (error,) = [e for e in events if e["event"] == "error"]
    assert error["message"] == "CLI words: run atc ingest"


def test_the_prompt_hooks_log_says_the_cli_words() -> None:
    from attention_cloud.agents.hooks import _describe

    assert "CLI words: run atc ingest" in _describe(_told())
