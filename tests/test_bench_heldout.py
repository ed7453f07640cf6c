"""scripts/bench/heldout.py: the held-out conversations, their three feeds and the harness."""
from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

import heldout as ho  # noqa: E402
import longmemeval as lme  # noqa: E402


@pytest.fixture(scope="module")
def samples() -> list[dict]:
    return json.loads(ho.DATA.read_text(encoding="utf-8"))


def test_the_set_is_locomo_shaped_and_its_labels_point_at_turns(samples: list[dict]) -> None:
    assert [s["sample_id"] for s in samples] == ["heldout-1", "heldout-2", "heldout-3"]
    for sample in samples:
        c = sample["conversation"]
        turns = {t["dia_id"]: t for n in ho.session_numbers(c) for t in c[f"session_{n}"]}
        assert len(ho.session_numbers(c)) >= 12 and len(turns) >= 140
        assert {qa["category"] for qa in sample["qa"]} == {1, 2, 3, 4, 5}
        for qa in sample["qa"]:
            assert all(d in turns for d in qa["evidence"]), qa
            if qa["category"] == 5:   # adversarial: never said, so no evidence
                assert qa["evidence"] == [] and "adversarial_answer" in qa
            else:
                assert qa["evidence"] and qa["answer"]
            if qa["category"] == 2:   # a temporal answer is a day
                datetime.strptime(qa["answer"], "%d %B %Y")


# heldout-2 holds a user's one-word replies ("Go on.", "Done."): the jsonl and text feeds
# dropped them as acknowledgements where the locomo feed kept them, so the three readers were
# scored on different turns
@pytest.mark.parametrize("number", [1, 2], ids=["heldout-2", "heldout-3"])
@pytest.mark.parametrize("reader", ho.READERS)
def test_each_feed_maps_every_turn_back_to_its_dia_id(samples: list[dict], reader: str,
                                                       number: int, tmp_path: Path) -> None:
    from attention_cloud import Memory

    sample = samples[number]
    questions = ho.questions(sample)
    stems = ho.WRITERS[reader](questions[0], tmp_path / "sessions")
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([tmp_path / "sessions"])
        where, texts = lme.item_map(mem, stems)
        names = lme.speaker_names(mem, sorted(texts))
        timed = lme.timed_count(mem)
    c = sample["conversation"]
    said = {(f"D{n}", int(t["dia_id"].split(":")[1])): t
            for n in ho.session_numbers(c) for t in c[f"session_{n}"]}
    assert set(where.values()) == set(said)            # every turn an item, each at its own turn
    for handle, loc in where.items():
        assert texts[handle] == said[loc]["text"]
        assert names[handle] == said[loc]["speaker"]   # the speaker's name kept
    assert timed == len(said)                          # and every turn's time


def test_the_harness_prints_every_category_and_the_misses(capsys: pytest.CaptureFixture[str]) -> None:
    assert ho.main(["--embedder", "hash", "--samples", "heldout-3", "--readers", "locomo", "text",
                    "--budgets", "500", "--misses", "--no-cache"]) == 0
    out = capsys.readouterr().out
    for reader in ("locomo", "text"):
        for category in ho.ORDER:
            assert f"| {reader} | {category} |" in out
    assert "17 questions (5 single-hop, 3 multi-hop, 5 temporal, 2 open-domain, 2 adversarial" in out
    assert "Misses of the product at the largest budget" in out


def test_a_temporal_answer_is_looked_for_as_its_day(samples: list[dict]) -> None:
    asked = {q.question: q for q in ho.questions(samples[0])}
    q = asked["When did Priya buy her running shoes?"]
    assert q.checkable_answer == "2023 01 08"          # normalised "2023-01-08"
    assert q.evidence == {("D1", 5)}
    # an answer the evidence does not say in its words is not checked
    assert asked["In which country did Priya visit her grandmother for her ninetieth "
                 "birthday?"].checkable_answer == ""
