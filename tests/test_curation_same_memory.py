"""A home's memory does not depend on how its curation was split.

The same journal curated in one run, in batches (the watcher's way, in either order of
arrival), or in a run stopped part-way and resumed gives the same echo marks and the same
cells; a second curate with nothing new changes nothing. The corpus is small but full of
near-duplicates (one answer restated in many sessions), the case where a neighbour search that
keeps only a few of many tied hits, or an echo decided only for the newest items, made the
marks depend on the order items were searched in.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.home import write_config

ANSWERS = [
    "The deploy failed because the database migration timed out after 30 seconds on eu-west.",
    "We moved the nightly backup to object storage because the local disk kept filling up.",
    "The flaky login test was caused by a shared cache between workers; we isolated it per worker.",
]
SESSIONS = 14


def _write_sessions(folder: Path, first: int, last: int) -> Path:
    """Sessions ``first``..``last - 1``: each restates every answer (day n, so later sessions
    are newer), with a few words of its own so that the restatements are near, not equal."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(first, last):
        day = f"2024-03-{n + 1:02d}"
        messages = []
        for a, answer in enumerate(ANSWERS):
            messages.append({"role": "user", "content": "what happened last time?",
                             "timestamp": f"{day}T10:0{a}:00Z"})
            text = answer if n % 3 == 0 else f"{answer} As noted before."
            messages.append({"role": "assistant", "content": text, "timestamp": f"{day}T10:0{a}:05Z"})
        (folder / f"s{n:02d}.json").write_text(json.dumps({"session_id": f"s{n:02d}", "messages": messages}))
    return folder


def _home(path: Path) -> Path:
    path.mkdir()
    write_config(path, {"embedder": "hash"})
    return path


def _echoes(mem: Memory) -> list[tuple[str, str, float]]:
    rows = mem.query("echo_of(E, O, S)").rows
    return sorted((r["E"], r["O"], r["S"]) for r in rows)


def _cells(mem: Memory) -> list[tuple[str, ...]]:
    rows = mem.query("cell_member(C, H)").rows
    members: dict[str, list[str]] = {}
    for r in rows:
        members.setdefault(r["C"], []).append(r["H"])
    return sorted(tuple(sorted(m)) for m in members.values())


def _state(home: Path) -> tuple[list, list]:
    with Memory.open(home) as mem:
        return _echoes(mem), _cells(mem)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("same-memory")
    half = SESSIONS // 2
    return {"all": _write_sessions(root / "all", 0, SESSIONS),
            "older": _write_sessions(root / "older", 0, half),
            "newer": _write_sessions(root / "newer", half, SESSIONS)}


@pytest.fixture(scope="module")
def one_run(corpus, tmp_path_factory) -> tuple[list, list]:
    home = _home(tmp_path_factory.mktemp("one") / "home")
    with Memory.open(home) as mem:
        mem.ingest([corpus["all"]])
        mem.curate()
    return _state(home)


def test_the_one_run_marks_echoes(one_run):
    echoes, cells = one_run
    assert len(echoes) >= SESSIONS  # each later session restates the answers
    assert cells


@pytest.mark.parametrize("order", [("older", "newer"), ("newer", "older")])
def test_curating_in_batches_gives_the_same_echoes(corpus, one_run, tmp_path, order):
    """The watcher's way: part of the journal curated, then the rest, in either order of
    arrival (an older transcript read after a newer one makes the newer items its echoes)."""
    home = _home(tmp_path / "home")
    for part in order:
        with Memory.open(home) as mem:
            mem.ingest([corpus[part]])
            mem.curate()
    assert _state(home)[0] == one_run[0]


def test_small_echo_chunks_give_the_same_echoes(corpus, one_run, tmp_path, monkeypatch):
    """Items searched in other company (chunks of 5, each a different batch of queries) get
    the same neighbours and the same marks."""
    from attention_cloud import curation

    monkeypatch.setattr(curation, "ECHO_CHUNK", 5)
    home = _home(tmp_path / "home")
    with Memory.open(home) as mem:
        mem.ingest([corpus["all"]])
        mem.curate()
    assert _state(home)[0] == one_run[0]


class _Stop(Exception):
    """Stands for a kill: the run ends where it is, its durable writes kept."""


@pytest.mark.parametrize("where", ["items", "echoes", "cells"])
def test_a_stopped_and_resumed_curate_gives_the_same_memory(corpus, one_run, tmp_path, monkeypatch,
                                                            where):
    """A curate stopped in its third item batch, after its second echo write, or right after
    the cells build's first durable batch, then run again, ends with the one run's echoes and
    cells."""
    from attention_cloud import curation

    monkeypatch.setattr(curation, "BATCH", 20)
    monkeypatch.setattr(curation, "ECHO_CHUNK", 5)
    monkeypatch.setattr(curation, "ECHO_WRITE_CHUNKS", 1)
    home = _home(tmp_path / "home")
    with Memory.open(home) as mem:
        mem.ingest([corpus["all"]])
    calls = {"n": 0}
    if where == "items":
        real = curation._curate_batch

        def stop_at_third(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == 3:
                raise _Stop
            return real(*args, **kwargs)

        monkeypatch.setattr(curation, "_curate_batch", stop_at_third)
    if where == "cells":
        import attention_cloud.cells.api as cells_api

        real_sync = cells_api.sync_journal

        def stop_after_first_batch(home):
            real_sync(home)
            raise _Stop

        monkeypatch.setattr(cells_api, "sync_journal", stop_after_first_batch)
    with Memory.open(home) as mem:
        if where == "echoes":
            store_ladder = mem.store_ladder

            def stop_after_two_echo_writes(records):
                if any(r.name == "echo" for r in records):
                    calls["n"] += 1
                    if calls["n"] == 3:
                        raise _Stop
                return store_ladder(records)

            monkeypatch.setattr(mem, "store_ladder", stop_after_two_echo_writes)
        with pytest.raises(_Stop):
            mem.curate()
    monkeypatch.undo()
    with Memory.open(home) as mem:
        mem.curate()
    assert _state(home) == one_run
