"""scripts/bench/conversational.py: the dev split's conversational shape and its side-by-side run."""
from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from dateutil import parser as dateparser

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

import conversational as conv  # noqa: E402
import longmemeval as lme  # noqa: E402

PRONOUNS = {"i", "me", "my", "mine", "you", "your", "we", "our", "us"}


def _instance(qid: str, question: str, qtype: str) -> dict:
    sessions = [
        [{"role": "user", "content": "I signed up for the pottery class at the Clay Studio yesterday."},
         {"role": "assistant", "content": "That sounds lovely. Pottery is a calming hobby."}],
        [{"role": "user", "content": "Can you suggest a bread recipe for the weekend?"},
         {"role": "assistant", "content": "Try a simple no-knead sourdough with a long rise."},
         {"role": "user", "content": "I bought a blue ceramic teapot at the market today.", "has_answer": True},
         {"role": "assistant", "content": "A blue teapot will look great on your shelf."}],
        [{"role": "user", "content": "What is a good stretch after running?"},
         {"role": "assistant", "content": "A standing quad stretch held for thirty seconds helps."}],
    ]
    return {"question_id": qid, "question_type": qtype, "question": question, "answer": "a teapot",
            "question_date": "2023/06/01 (Thu) 10:00",
            "haystack_session_ids": ["s_a", "s_b", "s_c"],
            "haystack_dates": ["2023/05/08 (Mon) 13:56", "2023/05/20 (Sat) 19:47", "2023/05/28 (Sun) 08:05"],
            "haystack_sessions": sessions, "answer_session_ids": ["s_b"]}


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    for raw in (_instance("q1", "What did I buy at the market?", "single-session-user"),
                _instance("q2", "Can you remind me what you said about my teapot?", "single-session-assistant")):
        (folder / f"{raw['question_id']}.json").write_text(json.dumps(raw), encoding="utf-8")
    return folder


def test_variant_names_dates_question_and_labels(data: Path) -> None:
    instances = lme.load_instances(data, None)
    variants = [conv.make_variant(inst) for inst in instances]
    formats = set()
    for inst, v in zip(instances, variants):
        assert v.user != v.assistant and {v.user, v.assistant} <= set(conv.NAMES)
        for number, (_, date, turns) in enumerate(inst.sessions):
            start = datetime.strptime(date.split(" (")[0] + date[-6:], "%Y/%m/%d %H:%M")
            for i, msg in enumerate(conv.messages(v, number)):
                assert msg["name"] == (v.user if msg["role"] == "user" else v.assistant)
                assert msg["content"] == turns[i]["content"]
                # a human date that still reads as the turn's own time
                stamp = msg["timestamp"]
                assert not stamp.endswith("Z")
                parsed = dateparser.parse(re.sub(r"\(\w+\)", " ", stamp))
                assert parsed.replace(tzinfo=None) == start + timedelta(minutes=i), stamp
        formats |= set(v.formats)
        # evidence labels survive
        assert v.instance.evidence == inst.evidence == {("s_b", 2)}
        assert v.instance.answer_sessions == {"s_b"}
        words = {w.lower() for w in v.instance.question.replace("?", " ").replace("'s", " ").split()}
        assert not words & PRONOUNS and v.user in v.instance.question and v.changed
    assert variants[0].instance.question == f"What did {variants[0].user} buy at the market?"
    assert variants[1].instance.question == (f"Can {variants[1].assistant} remind {variants[1].user} what "
                                             f"{variants[1].assistant} said about {variants[1].user}'s teapot?")
    assert len(formats) >= 2  # mixed within the run
    # deterministic for a seed, another seed another draw
    again = conv.make_variant(instances[0])
    assert (again.user, again.assistant, again.times) == (variants[0].user, variants[0].assistant, variants[0].times)
    others = {(conv.make_variant(instances[0], seed).user, tuple(conv.make_variant(instances[0], seed).formats))
              for seed in range(2, 8)}
    assert len(others) > 1


def test_third_person_common_patterns() -> None:
    cases = {
        "How many bikes do I currently own?": "How many bikes does Priya currently own?",
        "I've been feeling stuck. Do you have any ideas?": "Priya has been feeling stuck. Does Tomás have any ideas?",
        "What is the total number of siblings I have?": "What is the total number of siblings Priya has?",
        "In our previous chat, you suggested three books.": "In Priya and Tomás's previous chat, Tomás suggested three books.",
        "What time do I usually get home?": "What time does Priya usually get home?",
        "How many days passed between Holi and the mass?": "How many days passed between Holi and the mass?",
    }
    for question, expected in cases.items():
        assert conv.third_person(question, "Priya", "Tomás") == expected


def test_harness_prints_both_shapes(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert conv.main(["--data", str(data), "--embedder", "hash", "--no-cache", "--budgets", "500", "2000"]) == 0
    out = capsys.readouterr().out
    assert "| figure | dev shape | conversational shape |" in out
    for row in ("session recall_any@5, RRF (MiniLM + BM25)", "evidence in frame @2000, BM25",
                "evidence in frame @500, RRF", "product frame: tokens spent @2000"):
        assert f"| {row}" in out
    assert "| single-session-user | dev |" in out and "| single-session-user | conversational |" in out
    assert "| single-session-assistant | conversational |" in out
    assert "the rewriter changed 2 of 2 questions" in out
    # the conversational shape went in through the public ingest: every item kept its time and name
    assert re.search(r"of its (\d+) items, \1 have a time and \1 a speaker name", out), out[:1500]


def test_the_conversational_shape_fed_as_locomo(data: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "rows.jsonl"
    assert conv.main(["--data", str(data), "--embedder", "hash", "--no-cache", "--budgets", "2000",
                      "--as-locomo", "--jsonl", str(rows)]) == 0
    out = capsys.readouterr().out
    assert "fed as LoCoMo samples" in out
    # through the locomo format: every turn an item with its session's time and speaker name,
    # and the evidence turn of each instance mapped back through its dia_id
    assert re.search(r"of its 16 items, 16 have a time and 16 a speaker name", out), out[:1500]
    found = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    assert [(r["shape"], r["evidence_items"]) for r in found if r["shape"] == "conversational"] \
        == [("conversational", 1), ("conversational", 1)]


def test_short_turns_split_messages_and_carry_labels(data: Path) -> None:
    """--short-turns: a long turn becomes the short messages a person would send, each a turn of
    its own by the same role; the evidence label goes to the piece that holds the answer."""
    long_reply = ("Great question! Here are a few ideas for the weekend. First, try the farmers "
                  "market downtown. It opens at eight and has fresh bread every Saturday.\n"
                  "- Second, a walk along the river trail is lovely this time of year. "
                  "Bring a jacket, since it gets windy near the bridge in the late afternoon.")
    assert conv.short_messages("Thanks!") == ["Thanks!"]
    pieces = conv.short_messages(long_reply)
    assert len(pieces) >= 2 and all(len(p.split()) <= conv.MESSAGE_WORDS for p in pieces)
    assert " ".join(pieces).split() == long_reply.split()  # nothing lost, nothing added
    inst = lme.load_instances(data, None)[0]
    sid, date, turns = inst.sessions[1]
    turns[2] = {"role": "user", "has_answer": True, "content": (
        "We spent the whole morning walking around the old town with my sister and her two kids, "
        "looking at the little shops and the church by the square. "
        "Then I bought a blue ceramic teapot at the market. My sister says it is too big for the shelf.")}
    short, tally = conv.short_turns(inst)
    _, _, split = short.sessions[1]
    labelled = [t["content"] for t in split if t.get("has_answer")]
    # the long first sentence is a message of its own; the two short ones go out as one
    assert labelled == ["Then I bought a blue ceramic teapot at the market. My sister says it is "
                        "too big for the shelf."], split
    assert [t["role"] for t in split] == ["user", "assistant", "user", "user", "assistant"]
    assert short.evidence == {("s_b", 3)} and (tally.by_answer, tally.whole) == (1, 0)
    # no answer word in any piece: the pieces that share the most words with the question
    inst = replace(inst, answer="three")
    short, tally = conv.short_turns(inst)
    assert [t["content"] for t in short.sessions[1][2] if t.get("has_answer")] == labelled
    assert tally.by_question == 1


def test_short_turn_run_of_one_shape(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "rows.jsonl"
    assert conv.main(["--data", str(data), "--embedder", "hash", "--no-cache", "--budgets", "500",
                      "--short-turns", "--shapes", "conversational", "--jsonl", str(rows)]) == 0
    out = capsys.readouterr().out
    assert "| figure | conversational shape |" in out and "evidence in frame @500, RRF" in out
    assert "Short turns (`--short-turns`)" in out and "2 instances in conversational shape" in out
    # where the product frames' fact tokens went, by what brought each fact in
    assert "| @500 | relevance |" in out and "fact tokens went" in out
    found = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    for row in found:
        by_source = row["sources"]["500"]
        assert by_source and set(by_source) <= set(lme.SOURCES)
        # every evidence item the frame holds is counted under one source
        assert sum(n for _, _, n in by_source.values()) >= round(row["in_frame_l0"]["500"] * row["evidence_items"])
    assert conv.main(["--data", str(data), "--embedder", "hash", "--budgets", "500", "--short-turns",
                      "--shapes", "conversational", "--from-jsonl", str(rows)]) == 0
    assert "| figure | conversational shape |" in capsys.readouterr().out


def test_a_run_resumed_and_read_back_from_several_files(data: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole dev split in the conversational shape takes hours the first time (every named
    turn is embedded anew), so a run must be able to stop and go on: ``--resume`` keeps the
    instance-shapes its ``--jsonl`` already holds (a line cut off by a kill is dropped) and runs
    only the rest; ``--from-jsonl`` reads the rows of several such files as one run."""
    first = tmp_path / "first.jsonl"
    assert conv.main(["--data", str(data), "--embedder", "hash", "--no-cache", "--budgets", "500",
                      "--shapes", "conversational", "--ids", "q1", "--jsonl", str(first)]) == 0
    capsys.readouterr()
    with first.open("a", encoding="utf-8") as out:
        out.write('{"shape": "conversational", "qid": "q2", "qt')  # a kill in the middle of a line
    ran: list[str] = []
    real = lme.run_instance
    monkeypatch.setattr(lme, "run_instance", lambda inst, *a, **k: ran.append(inst.qid) or real(inst, *a, **k))
    assert conv.main(["--data", str(data), "--embedder", "hash", "--no-cache", "--budgets", "500",
                      "--shapes", "conversational", "--jsonl", str(first), "--resume"]) == 0
    assert ran == ["q2"]  # q1 was finished; the cut line is not a finished q2
    assert "2 instances in conversational shape (2 scored" in capsys.readouterr().out
    rows = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert sorted(r["qid"] for r in rows) == ["q1", "q2"]
    # the same rows split over two files read back as one run
    second = tmp_path / "second.jsonl"
    lines = first.read_text(encoding="utf-8").splitlines(keepends=True)
    first.write_text(lines[0], encoding="utf-8")
    second.write_text(lines[1], encoding="utf-8")
    assert conv.main(["--data", str(data), "--embedder", "hash", "--budgets", "500",
                      "--shapes", "conversational", "--from-jsonl", str(first), str(second)]) == 0
    assert "2 instances in conversational shape (2 scored" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        conv.main(["--data", str(data), "--embedder", "hash", "--resume"])  # --resume needs --jsonl
