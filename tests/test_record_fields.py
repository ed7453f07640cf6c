"""How curated records and their entity index are held, and that every answer stays the same.

A curated record holds its distillation as one term, ``fields(entity(A, B), tag(T, ...), ...)``,
where homes written before hold a list ``[entity-[A, B], tag-[T, ...], ...]`` (a list cell per
value: half as much memory again). Both are read the same; snapshots and compaction write the
term (``atc_store:current_form/2``), so an old home's memory takes the compact form once its
snapshot is rewritten.

Snapshots and compaction write the entity index (``distilled(X, entity, E)`` with E bound) as one
group per entity, ``entity_ids_(E, ids(Id1, ..., Idn))``, where a writer keeps a fact per
occurrence, ``entity_(E, Id, Live)``. A group is not rewritten when a record changes: its entries
count while their record still names the entity and no fact of one occurrence names the pair.
Every answer, in order, must be the one a home that never took a snapshot gives, through new
curation (records stored again), forgetting, and reopening.

``tests/fixtures/links_v1/journal.pl`` was compacted by the code before (b35219d): every record
there holds its fields as a list, and its entity index is a fact per occurrence.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Term, Var
from attention_cloud.erasure import compact_journal
from attention_cloud.home import write_config

FIXTURE = Path(__file__).parent / "fixtures" / "links_v1"
SAMPLES = Path(__file__).parents[1] / "host" / "attention_cloud" / "samples"


def answers(mem: Memory) -> dict[str, object]:
    """Every distilled/3 answer in the order given, and the records found by each entity."""
    rows = mem.query("findall([I,F,V], distilled(I,F,V), X)", limit=1).rows[0]["X"]
    entities = sorted({v for _, f, v in rows if f == "entity"})
    by_entity = {e: mem.query(f"findall(I, distilled(I, entity, {json.dumps(e)}), X)", limit=1).rows[0]["X"]
                 for e in entities}                    # a JSON string is a Prolog string
    tags = mem.query('findall(I, distilled(I, tag, "payments"), X)', limit=1).rows[0]["X"]
    return {"distilled": rows, "by_entity": by_entity, "tag payments": tags}


def records_by_form(mem: Memory) -> tuple[int, int]:
    """(records holding a list of fields, records holding the fields term)."""
    fields = Var()
    record = Term(":", [Atom("atc_ladder"),
                        Term("record_", [Var() for _ in range(8)] + [fields, Var(), Var()])])
    counts = []
    for test in (Term("=", [fields, Term("[|]", [Var(), Var()])]),
                 Term("compound_name_arity", [fields, Atom("fields"), Var()])):
        (n,) = mem.pl.once("aggregate_all", Atom("count"), Term(",", [record, test]), Var())
        counts.append(n)
    return counts[0], counts[1]


@pytest.fixture
def old_home(home_from_journal) -> Path:
    return home_from_journal(FIXTURE / "journal.pl")


def test_an_old_home_answers_the_same_after_a_snapshot_and_a_compaction(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        lists, terms = records_by_form(mem)
        assert lists > 10 and terms == 0
        before = answers(mem)
        assert len(before["distilled"]) > 50 and before["tag payments"]
        assert all(before["by_entity"].values())
        mem.snapshot()
    with Memory.open(old_home, create=False) as mem:          # from the snapshot: the term form
        assert records_by_form(mem) == (0, lists)
        assert answers(mem) == before
        compact_journal(mem)
    journal = (old_home / "journal.pl").read_text(encoding="utf-8")
    assert "fields(entity(" in journal and "-(entity," not in journal
    (old_home / "snapshot.qlf").unlink(missing_ok=True)
    with Memory.open(old_home, create=False) as mem:          # the compacted journal alone
        assert records_by_form(mem) == (0, lists)
        assert answers(mem) == before


def test_forgetting_an_item_of_an_old_home_drops_its_fields_and_entities(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        before = answers(mem)
        victim = "it_e32a87dc2eda2c6c"                        # its one entity is named by others too
        assert any(i == victim for i, _, _ in before["distilled"])
        mem.forget([victim])
        after = answers(mem)
        assert victim not in json.dumps(after)
        assert after["distilled"] and after["by_entity"]["src/payments/refunds.py"]
        mem.snapshot()
    with Memory.open(old_home, create=False) as mem:
        assert answers(mem) == after


def test_records_curated_now_hold_the_fields_term(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([SAMPLES / "2026-01-12-processor-retries.jsonl"])
        mem.curate()
        lists, terms = records_by_form(mem)
        assert lists == 0 and terms > 5
        got = answers(mem)
        assert got["by_entity"] and all(got["by_entity"].values())
    with Memory.open(home, create=False) as mem:              # replayed from the journal
        assert answers(mem) == got


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
