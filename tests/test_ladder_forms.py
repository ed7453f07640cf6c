"""Curated records in their packed form (one ``record_/11`` fact each) answer the ladder's
vocabulary exactly as the first fact forms did, and homes curated in the first forms open,
answer the same, upgrade, snapshot, compact and forget.

``tests/fixtures/ladder_v1/journal.pl`` was written by the code before the packed form (main at
b2b730c): two small Claude Code transcripts (the first 7 and 6 lines of the samples
``2026-01-12-processor-retries`` and ``2026-01-13-pan-logging-audit``) ingested and curated
with the ``hash`` embedder, then retention applied to l1 before 2026-01-12T09:14:50Z and to L0
before 2026-01-12T09:14:47Z. ``answers.json`` holds every answer of ``rung/3``,
``rung_tokens/3``, ``distilled/3``, ``provenance/2``, ``curated/2``, ``arc_member/2``,
``rollup/2`` and ``echo_of/3`` that code gave on that home.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Term, Var
from attention_cloud.curation import upgrade_ladder
from attention_cloud.erasure import compact_journal

FIXTURE = Path(__file__).parent / "fixtures" / "ladder_v1"
OLD_FORMS = ("rung_", "distill_", "curated_")
GOALS = {
    "rung": "findall([I,L,T], rung(I,L,T), X)",
    "rung_tokens": "findall([I,L,T], rung_tokens(I,L,T), X)",
    "distilled": "findall([I,F,V], distilled(I,F,V), X)",
    "provenance": "findall([I,H], provenance(I,H), X)",
    "curated": "findall([I,C], curated(I,C), X)",
    "arc_member": "findall([A,H], arc_member(A,H), X)",
    "rollup": "findall([R,S], rollup(R,S), X)",
    "echo_of": "findall([E,O], echo_of(E,O,_), X)",
}


def answers(mem: Memory) -> dict[str, list[str]]:
    """Every answer of the vocabulary, as sorted JSON rows (the fixture's answers.json)."""
    out = {}
    for name, goal in GOALS.items():
        rows = mem.query(goal, limit=1).rows
        out[name] = sorted(json.dumps(r, sort_keys=True) for r in rows[0]["X"])
    return out


def fact_count(mem: Memory, name: str, arity: int) -> int:
    (n,) = mem.pl.once("aggregate_all", Atom("count"),
                       Term(":", [Atom("atc_ladder"), Term(name, [Var() for _ in range(arity)])]), Var())
    return n


def old_facts(mem: Memory) -> int:
    return sum(fact_count(mem, n, a) for n, a in (("rung_", 4), ("distill_", 3), ("curated_", 2)))


@pytest.fixture
def old_home(home_from_journal) -> Path:
    return home_from_journal(FIXTURE / "journal.pl")


EXPECTED = json.loads((FIXTURE / "answers.json").read_text(encoding="utf-8"))


def test_a_home_in_the_first_forms_answers_as_before(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        assert old_facts(mem) > 0
        assert fact_count(mem, "record_", 11) == 0
        assert answers(mem) == EXPECTED


def test_upgrade_snapshot_and_compaction_keep_every_answer(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        curated = len(EXPECTED["curated"])
        assert upgrade_ladder(mem, batch=5) == curated      # several batches
        assert upgrade_ladder(mem) == 0
        assert old_facts(mem) == 0
        assert fact_count(mem, "record_", 11) == curated
        assert answers(mem) == EXPECTED
    with Memory.open(old_home, create=False) as mem:          # the upgrade replayed
        assert old_facts(mem) == 0
        assert answers(mem) == EXPECTED
        mem.snapshot()
    with Memory.open(old_home, create=False) as mem:          # from the snapshot
        assert answers(mem) == EXPECTED
        compact_journal(mem)
    journal = (old_home / "journal.pl").read_text(encoding="utf-8")
    assert "record_" in journal
    assert not any(f"atc_ladder,{name}(" in journal for name in OLD_FORMS)
    with Memory.open(old_home, create=False) as mem:
        assert answers(mem) == EXPECTED


def test_compaction_writes_the_packed_form(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        compact_journal(mem)                                  # upgrades first
        assert old_facts(mem) == 0
        assert answers(mem) == EXPECTED


def test_forgetting_in_a_home_of_the_first_forms_leaves_nothing(old_home: Path) -> None:
    with Memory.open(old_home, create=False) as mem:
        rows = mem.query('findall(H, (item(H), distilled(H, entity, _)), Hs)', limit=1).rows
        victim = sorted(set(rows[0]["Hs"]))[0]
        mem.forget([victim])
        after = answers(mem)
        assert old_facts(mem) == 0
    assert victim not in json.dumps(after)                    # no rung, field or provenance
    assert after["curated"] and after["rung"]                 # the rest is still there
    with Memory.open(old_home, create=False) as mem:
        assert answers(mem) == after
        assert old_facts(mem) == 0


def _l2_forms(mem: Memory) -> dict[str, int]:
    """How the records of ``mem`` hold their L2: as text, as ``fields`` (the distillation
    rendered), or another form (a shared rung, none)."""
    record = Term("record_", [Var() for _ in range(11)])
    *_, rows = mem.pl.once("findall", record, Term(":", [Atom("atc_ladder"), record]), Var())
    forms = {"text": 0, "fields": 0, "other": 0}
    for row in rows:
        r2 = row.args[4]
        if isinstance(r2, Atom):
            forms["fields" if r2 == Atom("fields") else "other"] += 1
        elif isinstance(r2, str):
            forms["text"] += 1
        else:
            forms["other"] += 1
    return forms


def test_an_l2_that_renders_the_distillation_is_not_held_twice(curated_samples):
    """Most curated L2s are the distillation rendered ("outcomes: ...; entities: ..."): the
    record holds the values once and every reader gets the same L2 text, before and after a
    snapshot and a reopen."""
    mem = curated_samples
    before = answers(mem)
    forms = _l2_forms(mem)
    assert forms["fields"] > forms["text"], forms
    home = mem.home
    mem.snapshot()
    mem.close()
    with Memory.open(home) as again:
        assert answers(again) == before
        assert _l2_forms(again) == forms
