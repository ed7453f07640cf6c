"""An item's link to its own session, ``relation(H, in_session, S)``, is read from its session
field instead of being stored as a fact of its own; homes that stored it answer the same and
shed the facts at their next snapshot or compaction. Its working directory,
``relation(H, cwd, D)``, is read from its session's when they agree.

``tests/fixtures/links_v1/journal.pl`` was written by the code before (main at b35219d,
``make_fixture.py`` beside it): the first 7 and 6 lines of two sample transcripts ingested, one
note remembered, then the journal compacted, so every link, the in_session ones too, is a fact
line. ``answers.json`` holds every answer of ``relation/3`` and ``item_session/2`` that code gave.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Term, Var
from attention_cloud.erasure import compact_journal
from attention_cloud.home import write_config

FIXTURE = Path(__file__).parent / "fixtures" / "links_v1"
EXPECTED = json.loads((FIXTURE / "answers.json").read_text(encoding="utf-8"))
SAMPLES = Path(__file__).parents[1] / "host" / "attention_cloud" / "samples"


def answers(mem: Memory) -> dict[str, list[str]]:
    links = mem.query("findall([S,P,O], relation(S,P,O), X)", limit=1).rows[0]["X"]
    sessions = mem.query("findall([H,S], item_session(H,S), X)", limit=1).rows[0]["X"]
    return {"relation": sorted(json.dumps(r) for r in links),
            "item_session": sorted(json.dumps(r) for r in sessions)}


def stored_session_links(mem: Memory) -> int:
    fact = Term(":", [Atom("atc_journal"), Term("relation_", [Var(), Atom("in_session"), Var()])])
    (n,) = mem.pl.once("aggregate_all", Atom("count"), fact, Var())
    return n


@pytest.fixture
def old_home(home_from_journal) -> Path:
    return home_from_journal(FIXTURE / "journal.pl")


def test_a_home_that_stored_the_links_answers_each_once(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        assert stored_session_links(mem) == 9
        assert answers(mem) == EXPECTED
        rows = mem.query("findall(S, relation(H, in_session, S), X)", limit=1).rows[0]["X"]
        assert len(rows) == 9                                  # one link per item, not two


def test_snapshot_and_compaction_drop_the_stored_links(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        mem.snapshot()
    with Memory.open(old_home, create=False) as mem:          # from the snapshot
        assert stored_session_links(mem) == 0
        assert answers(mem) == EXPECTED
        compact_journal(mem)
    assert "in_session" not in (old_home / "journal.pl").read_text(encoding="utf-8")
    (old_home / "snapshot.qlf").unlink(missing_ok=True)
    with Memory.open(old_home, create=False) as mem:          # the compacted journal alone
        assert stored_session_links(mem) == 0
        assert answers(mem) == EXPECTED


def test_forgetting_an_item_of_an_old_home_drops_its_link(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        victim = json.loads(EXPECTED["item_session"][0])[0]
        mem.forget([victim])
        left = mem.query(f"findall(S, relation({victim}, in_session, S), X)", limit=1).rows[0]["X"]
        assert left == []
        assert stored_session_links(mem) == 8
    with Memory.open(old_home, create=False) as mem:
        assert victim not in json.dumps(answers(mem))


def test_new_items_store_no_session_link_and_still_answer_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([SAMPLES / "2026-01-12-processor-retries.jsonl"])
        items = mem.query("aggregate_all(count, item(_), N)").rows[0]["N"]
        assert stored_session_links(mem) == 0
        links = mem.query("findall(H-S, relation(H, in_session, S), X)", limit=1).rows[0]["X"]
        sessions = mem.query("findall(H-S, item_session(H, S), X)", limit=1).rows[0]["X"]
        assert items > 10 and sorted(map(str, links)) == sorted(map(str, sessions))
        by_session = mem.query("findall(H, relation(H, in_session, '3b8f2c1e-5a47-4d9e-9b61-0c2f7e4a1d58'), X)",
                               limit=1).rows[0]["X"]
        assert len(by_session) == items


def stored_cwd_links(mem: Memory) -> int:
    fact = Term(":", [Atom("atc_journal"), Term("relation_", [Var(), Atom("cwd"), Var()])])
    (n,) = mem.pl.once("aggregate_all", Atom("count"), fact, Var())
    return n


def cwd_answers(mem: Memory) -> list[tuple[str, str]]:
    rows = mem.query("findall([H, D], relation(H, cwd, D), X)", limit=1).rows[0]["X"]
    return sorted((str(h), str(d)) for h, d in rows)


def test_a_sessions_working_directory_is_stored_once_and_answered_per_item(tmp_path: Path) -> None:
    """Every message of a Claude Code session names the same cwd: the items answer it without a
    link each, through a snapshot, a forgotten item and a compaction."""
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    cwd = "/home/dev/payments-service"
    with Memory.open(home) as mem:
        mem.ingest([SAMPLES / "2026-01-12-processor-retries.jsonl"])
        handles = sorted(mem.query("findall(H, item(H), X)", limit=1).rows[0]["X"])
        expected = [(h, cwd) for h in handles]
        assert len(handles) > 10 and stored_cwd_links(mem) == 0
        assert cwd_answers(mem) == expected
        by_dir = mem.query(f"findall(H, relation(H, cwd, '{cwd}'), X)", limit=1).rows[0]["X"]
        assert sorted(by_dir) == handles
        mem.snapshot()
    with Memory.open(home, create=False) as mem:               # from the snapshot
        assert cwd_answers(mem) == expected and stored_cwd_links(mem) == 0
        mem.forget([handles[0]])                               # compacts the journal
        expected = expected[1:]
        assert cwd_answers(mem) == expected
    (home / "snapshot.qlf").unlink(missing_ok=True)
    with Memory.open(home, create=False) as mem:               # the compacted journal alone
        assert cwd_answers(mem) == expected and stored_cwd_links(mem) == 0
