"""scripts/bench/rrf_gap.py: the frames behind conversational.py's "RRF holds more" lines."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

import longmemeval as lme  # noqa: E402
import rrf_gap  # noqa: E402


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    sessions = [
        [{"role": "user", "content": "I signed up for the pottery class at the Clay Studio yesterday."},
         {"role": "assistant", "content": "That sounds lovely. Pottery is a calming hobby."}],
        [{"role": "user", "content": "I bought a blue ceramic teapot at the market today.", "has_answer": True},
         {"role": "assistant", "content": "A blue teapot will look great on your shelf."}],
    ]
    raw = {"question_id": "q1", "question_type": "single-session-user",
           "question": "What did I buy at the market?", "answer": "a teapot",
           "question_date": "2023/06/01 (Thu) 10:00", "haystack_session_ids": ["s_a", "s_b"],
           "haystack_dates": ["2023/05/08 (Mon) 13:56", "2023/05/20 (Sat) 19:47"],
           "haystack_sessions": sessions, "answer_session_ids": ["s_b"]}
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "q1.json").write_text(json.dumps(raw), encoding="utf-8")
    return folder


def test_every_instance_budget_lists_evidence_ranks_and_where_tokens_went(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrapped = lme.bm25_frame
    assert rrf_gap.main(["--all", "--data", str(data), "--embedder", "hash", "--no-cache",
                         "--shapes", "dev", "--budgets", "500"]) == 0
    out = capsys.readouterr().out
    assert "=== q1 @500: evidence 1, product L0 1, RRF 1" in out
    line = next(x for x in out.splitlines() if x.startswith("  evidence it_"))
    assert "product #1 " in line and "RRF frame holds it" in line and "product frame: l0" in line
    assert "  CAP @500: product 4 facts" in out and "RRF 4 items" in out and "none skipped" in out
    assert "product frame, in order:" in out
    assert lme.bm25_frame is wrapped      # the benchmark's functions are restored


def test_without_all_an_instance_the_product_wins_prints_no_lines(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rrf_gap.main(["--summary", "--data", str(data), "--embedder", "hash", "--no-cache",
                         "--shapes", "dev", "--budgets", "500"]) == 0
    out = capsys.readouterr().out
    assert "===" not in out and "CAP" not in out
    assert "No instance-budget where the RRF frame holds more evidence" in out
