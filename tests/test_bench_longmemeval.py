"""scripts/bench/longmemeval.py and lme_rankings.py on a tiny LongMemEval-format instance
written for the test.

The real dev set lives outside the repository; this checks that the benchmark runs end to end
from a clean checkout, reads evidence turns back through source pointers, and passes home
config through ``--config``.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "bench" / "longmemeval.py"

FILLER = ["Can you suggest a weekly meal plan with more vegetables?",
          "Here is a plan: Monday lentil soup, Tuesday roasted vegetables, Wednesday stir fry.",
          "What are good stretches after sitting at a desk all day?",
          "Try a standing hamstring stretch, a doorway chest stretch and neck rolls."]


def _instance(qid: str) -> dict:
    sessions, dates, ids = [], [], []
    for number in range(6):
        turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"{text} (#{number})"}
                 for i, text in enumerate(FILLER)]
        sessions.append(turns)
        dates.append(f"2023/05/{10 + number:02d} (Wed) 09:{number:02d}")
        ids.append(f"s{number}")
    sessions[3][2] = {"role": "user", "has_answer": True,
                      "content": "I'm sorting out my garden. By the way, I adopted a grey cat "
                                 "named Pixel from the shelter last weekend."}
    return {"question_id": qid, "question_type": "single-session-user",
            "question": "What is the name of the cat I adopted?", "answer": "Pixel",
            "question_date": "2023/05/20 (Sat) 10:00", "answer_session_ids": ["s3"],
            "haystack_session_ids": ids, "haystack_dates": dates, "haystack_sessions": sessions}


def _run(tmp_path: Path, name: str, *extra: str) -> tuple[dict, str]:
    data = tmp_path / "data"
    if not data.exists():
        data.mkdir()
        (data / "q1.json").write_text(json.dumps(_instance("q1")), encoding="utf-8")
    jsonl = tmp_path / f"{name}.jsonl"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--data", str(data), "--embedder", "hash", "--no-cache",
         "--budgets", "300", "2000", "--jsonl", str(jsonl), *extra],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (row,) = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines()]
    return row, proc.stdout


def test_benchmark_runs_on_a_tiny_instance(tmp_path):
    row, report = _run(tmp_path, "default")
    assert row["evidence_items"] == 1 and row["items"] == 6 * len(FILLER)
    assert row["jump_hits"]["5"] and row["in_frame_l0"]["2000"] == 1.0
    assert "evidence in frame @2000" in report
    # answer in frame: "Pixel" is in the evidence turn, which the 2000-token frame holds
    assert row["answer_checkable"] and row["answer_in"]["2000"] is True
    assert row["bm25_answer"]["2000"] is True and "answer in frame, product (1 checkable)" in report
    lean, report = _run(tmp_path, "lean", "--config", "distillation_vectors=false")
    assert "home config `distillation_vectors: false`" in report
    # the config reaches the home: each item's distillation vector is gone
    assert row["embedded"] - lean["embedded"] == row["items"]


def test_native_ingests_the_instance_file_and_maps_turns_by_turn_id(tmp_path):
    row, report = _run(tmp_path, "native", "--native", "--answer-words")
    assert row["evidence_items"] == 1 and row["items"] == 6 * len(FILLER)
    assert row["answer_words"]["2000"] == 1.0 and "answer words in frame, product (1 answers)" in report
    assert row["timed_items"] == row["items"]               # every turn at its session's date
    assert row["jump_hits"]["5"] and row["in_frame_l0"]["2000"] == 1.0
    assert "--native" in report


def test_answer_words_counts_the_words_a_fragment_holds():
    sys.path.insert(0, str(SCRIPT.parent))
    import longmemeval as lme

    # the common words and the comma in a number do not count; a fragment scores its share
    assert lme.answer_words("The Sunday market, 2,500 steps", ["market at 2500 steps"]) == 0.75
    assert lme.answer_words("the", ["the"]) is None
    assert lme.answer_words("Pixel", []) == 0.0


def test_bad_config_is_a_usage_error(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--data", str(tmp_path), "--config", "oops"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 2 and "--config 'oops'" in proc.stderr


def test_rankings_benchmark_runs_on_a_tiny_instance(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "q1.json").write_text(json.dumps(_instance("q1")), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench" / "lme_rankings.py"), "--data", str(data),
         "--embedder", "hash", "--no-cache", "--shares", "0.4", "--l2-from", "0", "100000"],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line.split(" | ") for line in proc.stdout.splitlines()
            if line.startswith("| ") and "| 0.4 |" in line]
    assert [row[0][2:] for row in rows] == ["text", "max(text, L2)", "max(text, L1)",
                                            "max(text, L1, L2)", "max(text, L2 over 0)",
                                            "max(text, L2 over 100000)"]
    # one evidence turn that shares the question's words: every ranking has it in its top 40
    assert all(row[5] == "1.000" for row in rows)
    # distillations of items over 0 word pieces are all of them; over 100000, none is kept
    assert rows[4][6].rstrip(" |") == "0.000" and float(rows[5][6].rstrip(" |")) > 0


def test_answer_in_frame_is_normalised_and_whole_words():
    sys.path.insert(0, str(ROOT / "scripts" / "bench"))
    import longmemeval as lme

    assert lme.normalise("  The @jessica_poole_Jewellery! ") == "the jessica poole jewellery"
    assert lme.holds_answer("10 minutes", ["leave it on for 10 Minutes, then rinse"])
    assert not lme.holds_answer("10 minutes", ["about 110 minutes"])
    assert not lme.holds_answer("", ["anything"])
    inst = lme.Instance("q1", "single-session-user", "?", set(), [], answer="Serenity Yoga")
    assert inst.checkable_answer == "serenity yoga"
    assert lme.Instance("q1_abs", "t", "?", set(), [], answer="Pixel").checkable_answer == ""
    long = "one two three four five six seven eight nine"
    assert lme.Instance("q2", "t", "?", set(), [], answer=long).checkable_answer == ""


def test_compare_excerpt_reports_both_frames(tmp_path):
    row, report = _run(tmp_path, "compare", "--compare", "excerpt")
    assert "With excerpt against no excerpt" in report and "answer in frame excerpt" in report
    assert set(row["walk_answer"]) == {"300", "2000"} and row["walk_hydrate_cpu"]["2000"] > 0
