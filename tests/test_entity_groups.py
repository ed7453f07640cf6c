"""Snapshots and compaction write the entity index (``distilled(X, entity, E)`` with E bound) as one
group per entity, ``entity_ids_(E, ids(Id1, ..., Idn))``, where a writer keeps a fact per
occurrence, ``entity_(E, Id, Live)``. A group is not rewritten when a record changes: its entries
count while their record still names the entity and no fact of one occurrence names the pair.
Every answer, in order, must be the one a home that never took a snapshot gives, through new
curation (records stored again), forgetting, and reopening.

``tests/fixtures/links_v1/journal.pl`` (compacted by b35219d) holds a fact per occurrence.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Term, Var
from attention_cloud.erasure import compact_journal

FIXTURE = Path(__file__).parent / "fixtures" / "links_v1"
SAMPLES = Path(__file__).parents[1] / "host" / "attention_cloud" / "samples"


def answers(mem: Memory) -> dict[str, object]:
    """Every record found by each entity, in the order given, and every distilled/3 answer."""
    rows = mem.query("findall([I,F,V], distilled(I,F,V), X)", limit=1).rows[0]["X"]
    entities = sorted({v for _, f, v in rows if f == "entity"})
    by_entity = {e: mem.query(f"findall(I, distilled(I, entity, {json.dumps(e)}), X)", limit=1).rows[0]["X"]
                 for e in entities}                    # a JSON string is a Prolog string
    return {"by_entity": by_entity, "distilled": rows}


def count(mem: Memory, name: str, arity: int) -> int:
    (n,) = mem.pl.once("aggregate_all", Atom("count"),
                       Term(":", [Atom("atc_ladder"), Term(name, [Var() for _ in range(arity)])]), Var())
    return n


def fact_count(mem: Memory) -> int:
    (n,) = mem.pl.once("atc_store:store_fact_count", Var())
    return n


@pytest.fixture
def homes(home_from_journal, tmp_path: Path) -> tuple[Path, Path]:
    """Two copies of the old home: the first gets a snapshot (grouped), the second never does."""
    grouped = home_from_journal(FIXTURE / "journal.pl")
    plain = tmp_path / "plain"
    shutil.copytree(grouped, plain)
    with Memory.open(grouped, create=False) as mem:
        per_occurrence = count(mem, "entity_", 3)
        facts = fact_count(mem)
        mem.snapshot()
    with Memory.open(grouped, create=False) as mem:
        assert count(mem, "entity_", 3) == 0 and 0 < count(mem, "entity_ids_", 2) < per_occurrence
        assert fact_count(mem) == facts                       # what a snapshot holds, either way
    return grouped, plain


def test_a_snapshot_groups_the_entity_index_and_answers_the_same(homes) -> None:
    grouped, plain = homes
    with Memory.open(plain, create=False) as mem:
        expected = answers(mem)
    assert any(len(ids) > 1 for ids in expected["by_entity"].values())
    with Memory.open(grouped, create=False) as mem:
        assert answers(mem) == expected
        compact_journal(mem)
    (grouped / "snapshot.qlf").unlink(missing_ok=True)
    with Memory.open(grouped, create=False) as mem:           # the compacted journal alone
        assert count(mem, "entity_", 3) == 0
        assert answers(mem) == expected


def test_curating_more_items_answers_as_a_home_without_groups(homes) -> None:
    grouped, plain = homes
    results = []
    for home in (plain, grouped):
        with Memory.open(home, create=False) as mem:
            mem.ingest([SAMPLES / "2026-01-12-processor-retries.jsonl",
                        SAMPLES / "2026-01-13-pan-logging-audit.jsonl"])
            mem.curate()                                      # arcs and rollups stored again
            results.append(answers(mem))
        with Memory.open(home, create=False) as mem:          # replayed
            assert answers(mem) == results[-1]
    assert results[0] == results[1]
    with Memory.open(grouped, create=False) as mem:
        assert count(mem, "entity_", 3) > 0                   # the new records' facts
        mem.snapshot()
    with Memory.open(grouped, create=False) as mem:
        assert count(mem, "entity_", 3) == 0
        assert answers(mem) == results[0]


def test_forgetting_answers_as_a_home_without_groups_and_keeps_no_entity_of_it(homes) -> None:
    grouped, plain = homes
    victim = "it_e917cdded6172153"            # names src/payments/refunds.py, as others do
    only_its = "it_45d3f0d680e6e3e2"          # the only item naming 'five attempts'
    results = []
    for home in (plain, grouped):
        with Memory.open(home, create=False) as mem:
            mem.forget([victim, only_its])
            results.append(answers(mem))
            if home == grouped:
                (left,) = mem.pl.once("aggregate_all", Atom("count"),
                                      Term(":", [Atom("atc_ladder"),
                                                 Term("entity_ids_", [Atom("five attempts"), Var()])]),
                                      Var())
                assert left == 0
    assert results[0] == results[1]
    assert victim not in json.dumps(results[1]) and "five attempts" not in json.dumps(results[1])
    assert results[1]["by_entity"]["src/payments/refunds.py"]
    with Memory.open(grouped, create=False) as mem:
        assert answers(mem) == results[1]
