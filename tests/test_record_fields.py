"""A curated record holds its distillation as one term, ``fields(entity(A, B), tag(T, ...), ...)``,
where homes written before hold a list ``[entity-[A, B], tag-[T, ...], ...]`` (a list cell per
value: half as much memory again). Both are read the same; snapshots and compaction write the
term (``atc_store:current_form/2``), so an old home's memory takes the compact form once its
snapshot is rewritten.

``tests/fixtures/links_v1/journal.pl`` was compacted by the code before (b35219d): every record
there holds its fields as a list.
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
