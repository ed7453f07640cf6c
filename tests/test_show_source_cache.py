"""``show --source`` in a long-lived process (the MCP server, ``atc serve``, an API caller)
parses each version of a transcript once: repeated shows of an unchanged file reuse the parse,
and a file changed in any way since is parsed again, never answered from the cache."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud import show as show_module
from attention_cloud.errors import InputError
from attention_cloud.ingest import api as ingest_api
from attention_cloud.show import show_record

TEXT = ("User: which cursor does the export use?\n"
        "Assistant: a server-side cursor, 500 rows a fetch\n"
        "User: and the compression level?\n"
        "Assistant: gzip level 6, set in export.py\n")
SETTLE_S = 0.3  # the racy window the tests run with (RACY_NS), and a wait just past it


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The paths ``parse_path`` parsed during the test (a fresh cache, a short racy window)."""
    seen: list[str] = []
    real = ingest_api.parse_path

    def counting(path, **options):
        seen.append(str(path))
        return real(path, **options)

    monkeypatch.setattr(ingest_api, "parse_path", counting)
    monkeypatch.setattr(show_module, "RACY_NS", int(SETTLE_S * 1e9))
    show_module._cached_pointers.cache_clear()
    yield seen
    show_module._cached_pointers.cache_clear()


def _ingested(home: Path, tmp_path: Path) -> tuple[Path, str]:
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    path = tmp_path / "chat.txt"
    path.write_text(TEXT, encoding="utf-8")
    with Memory.open(home) as mem:
        mem.ingest([path])
        rows = mem.query('item_text(H, T), sub_string(T, _, _, _, "server-side")').rows
    assert len(rows) == 1, rows
    return path, rows[0]["H"]


def test_repeated_shows_of_an_unchanged_file_parse_it_once(home, tmp_path, parses) -> None:
    path, handle = _ingested(home, tmp_path)
    parses.clear()  # what ingest read
    time.sleep(SETTLE_S + 0.05)
    with Memory.open(home) as mem:
        shown = [show_record(mem, handle, "l0", True) for _ in range(3)]
    assert parses == [str(path)]
    assert all(record["verbatim"] == shown[0]["verbatim"] for record in shown)
    assert "server-side cursor" in shown[0]["verbatim"]


def test_a_file_rewritten_with_its_size_and_mtime_is_parsed_again(home, tmp_path,
                                                                   parses) -> None:
    """The record's line rewritten in place, same length, its modification time put back:
    the cached parse would still hold the handle and show the new words as the item's."""
    path, handle = _ingested(home, tmp_path)
    parses.clear()  # what ingest read
    time.sleep(SETTLE_S + 0.05)
    with Memory.open(home) as mem:
        assert "server-side cursor" in show_record(mem, handle, "l0", True)["verbatim"]
        before = path.stat()
        path.write_text(TEXT.replace("server-side", "client-side"), encoding="utf-8")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert path.stat().st_size == before.st_size
        with pytest.raises(InputError, match="changed since it was ingested"):
            show_record(mem, handle, "l0", True)
    assert parses.count(str(path)) >= 2


def test_a_file_changed_moments_ago_is_not_cached(home, tmp_path, parses) -> None:
    """Within the file system's clock tick a write may leave size and times as they were:
    a file changed that recently is parsed at every show."""
    path, handle = _ingested(home, tmp_path)
    parses.clear()  # what ingest read
    with Memory.open(home) as mem:
        show_record(mem, handle, "l0", True)
        show_record(mem, handle, "l0", True)
    assert parses == [str(path), str(path)]
