"""A rung's sizes (UTF-8 bytes and words, ``rung_size/4``) are held in its record's
``record_/11``, not in a ``rung_sizes_/5`` fact of their own (a clause and an index entry per
record, ~90 bytes more at a million records), and homes written before open, answer the same,
and take the new form at their next snapshot or compaction, a kill during it included.

``tests/fixtures/ladder_v2/journal.pl`` was written by the code before (main at 407bcf6): the
first 9 lines of the sample ``2026-01-15-webhook-idempotency`` and the first 7 of
``2026-01-13-pan-logging-audit`` ingested and curated with the ``hash`` embedder.
``sizes.json`` holds every ``[Id, Level, Bytes, Words]`` that code's ``rung_size/4`` gave for
each rung ``rung/3`` gave on that home.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import attention_cloud.store as store
from attention_cloud import Memory
from attention_cloud.bridge import Atom, Term, Var
from attention_cloud.erasure import compact_journal

FIXTURE = Path(__file__).parent / "fixtures" / "ladder_v2"
EXPECTED = json.loads((FIXTURE / "sizes.json").read_text(encoding="utf-8"))
GOALS = ["why did the webhook retry twice", "PAN logging audit findings", "idempotency key"]


def sizes(mem: Memory) -> list[list]:
    """Every rung's stored sizes, as the fixture's sizes.json holds them."""
    rows = mem.query("findall([I,L], rung(I,L,_), X)", limit=1).rows[0]["X"]
    out = []
    for i, level in rows:
        got = mem.pl.once("atc_ladder:rung_size", Atom(i), Atom(level), Var(), Var())
        out.append([i, level] + (list(got) if got else [None]))
    return sorted(out)


def count(mem: Memory, name: str, arity: int, *last) -> int:
    """How many facts of atc_ladder:name/arity (the last arguments given) memory holds."""
    head = Term(name, [Var() for _ in range(arity - len(last))] + list(last))
    (n,) = mem.pl.once("aggregate_all", Atom("count"), Term(":", [Atom("atc_ladder"), head]), Var())
    return n


def sized_records(mem: Memory) -> int:
    return count(mem, "record_", 11, Term("sized", [Var() for _ in range(5)]))


def frames(mem: Memory) -> list[str]:
    """The frames of GOALS, their receipt ids aside (each frame's own)."""
    return [re.sub(r"receipt r_[0-9a-f]+", "receipt", mem.hydrate(g, budget=900).text)
            for g in GOALS]


@pytest.fixture
def old_home(home_from_journal) -> Path:
    return home_from_journal(FIXTURE / "journal.pl")


def test_a_home_written_before_answers_its_sizes_as_before(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        assert count(mem, "rung_sizes_", 5) == len(count_ids(EXPECTED)) > 0
        assert sizes(mem) == EXPECTED
        (unsized,) = mem.pl.once("atc_ladder:ladder_unsized", 100, Var())
        assert unsized == []                               # nothing for curation to fill


def count_ids(rows: list[list]) -> set[str]:
    return {row[0] for row in rows}


def test_its_snapshot_and_compaction_hold_the_sizes_in_the_record(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        before = frames(mem)
        records = count(mem, "record_", 11)
        mem.snapshot()
    with Memory.open(old_home, create=False) as mem:       # from the snapshot
        assert count(mem, "rung_sizes_", 5) == 0
        assert sized_records(mem) == len(count_ids(EXPECTED))
        assert count(mem, "record_", 11) == records
        assert sizes(mem) == EXPECTED
        assert frames(mem) == before
        compact_journal(mem)
    journal = (old_home / "journal.pl").read_text(encoding="utf-8")
    assert "rung_sizes_" not in journal and "sized(" in journal
    with Memory.open(old_home, create=False) as mem:       # from the compacted journal
        assert count(mem, "rung_sizes_", 5) == 0
        assert sizes(mem) == EXPECTED
        assert frames(mem) == before


class Crash(Exception):
    pass


@pytest.mark.parametrize("step", [1, 3, 5])
def test_a_kill_while_its_snapshot_is_written_leaves_it_whole(old_home: Path, monkeypatch,
                                                               step: int) -> None:
    journal = (old_home / "journal.pl").read_bytes()
    calls = {"n": 0}
    real_replace, real_fsync = store.os.replace, store.fsync_path

    def killed_at_step(fn):
        def wrapper(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == step:
                raise Crash(step)
            return fn(*args, **kwargs)
        return wrapper

    mem = Memory.open(old_home, create=False)
    monkeypatch.setattr(store.os, "replace", killed_at_step(real_replace))
    monkeypatch.setattr(store, "fsync_path", killed_at_step(real_fsync))
    try:
        mem.snapshot()
    except Crash:
        pass
    finally:
        monkeypatch.undo()
        mem.close()
    assert (old_home / "journal.pl").read_bytes() == journal
    with Memory.open(old_home, create=False) as mem:       # the old form, or the new one
        assert sizes(mem) == EXPECTED
        assert count(mem, "rung_sizes_", 5) in (0, len(count_ids(EXPECTED)))


def test_a_home_curated_now_writes_no_sizes_fact(curated_hash_memory, tmp_path: Path) -> None:
    from attention_cloud.paths import samples_dir

    mem = curated_hash_memory(tmp_path, samples_dir() / "2026-01-13-pan-logging-audit.jsonl")
    try:
        assert count(mem, "rung_sizes_", 5) == 0
        assert sized_records(mem) == count(mem, "record_", 11) > 0
        assert all(len(row) == 4 for row in sizes(mem))    # every rung sized
        journal = (mem.home / "journal.pl").read_text(encoding="utf-8")
    finally:
        mem.close()
    assert "rung_sizes_" not in journal
