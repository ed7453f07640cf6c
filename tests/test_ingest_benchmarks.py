"""The two public benchmarks of long conversations, read natively: LoCoMo and LongMemEval.

Every turn is an item with its speaker and its time, sessions are the benchmark's, its own turn
ids are queryable as ``relation(H, turn_id, Id)``, re-ingesting is an upsert, and the answers
(LoCoMo's qa and summaries, LongMemEval's question, answer and has_answer) never become memory.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.errors import InputError
from attention_cloud.ingest import detect_format, parse_path, read_pointer

DEV = Path("/work/shared/data/longmemeval-dev")
SECRETS = ("SECRET-ANSWER", "SECRET-QUESTION", "SECRET-EVENT", "SECRET-OBSERVATION",
           "SECRET-SUMMARY")


def locomo_sample(sample_id: str = "conv-26") -> dict:
    """A two-session LoCoMo sample with an image turn, an acknowledgement and annotations."""
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Caroline", "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1",
                 "text": "Hey Mel! I went to a LGBTQ support group yesterday."},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "How did it feel, Caroline?"},
                {"speaker": "Caroline", "dia_id": "D1:3", "text": "Powerful. Look what they gave me.",
                 "img_url": ["https://example.com/pin.jpg"], "query": "rainbow pin",
                 "blip_caption": "a photo of a rainbow pin on a denim jacket"},
                {"speaker": "Melanie", "dia_id": "D1:4", "text": "Thanks!"},
            ],
            "session_2_date_time": "7:55 pm on 9 June, 2023",
            "session_2": [
                {"speaker": "Melanie", "dia_id": "D2:1",
                 "text": "I signed up for a pottery class last week."},
                {"speaker": "Caroline", "dia_id": "D2:2", "text": "",
                 "img_url": ["https://example.com/bowl.jpg"], "blip_caption": "a photo of a blue bowl"},
            ],
        },
        "qa": [{"question": "SECRET-QUESTION When did Caroline go?", "answer": "SECRET-ANSWER",
                "evidence": ["D1:1"], "category": 2}],
        "event_summary": {"events_session_1": {"Caroline": ["SECRET-EVENT"]}},
        "observation": {"session_1_observation": {"Caroline": [["SECRET-OBSERVATION", "D1:1"]]}},
        "session_summary": {"session_1_summary": "SECRET-SUMMARY"},
    }


def lme_instance(qid: str, sessions: dict[str, tuple[str, list[tuple[str, str]]]]) -> dict:
    """A LongMemEval instance over ``{session id: (date, [(role, content), ...])}``; the first
    turn of the first session is labelled as evidence."""
    haystack = [[{"role": r, "content": c} for r, c in turns] for _, turns in sessions.values()]
    haystack[0][0]["has_answer"] = True
    return {
        "question_id": qid, "question_type": "single-session-user",
        "question": "SECRET-QUESTION how long was the wait?", "question_date": "2023/05/30 (Tue) 10:18",
        "answer": "SECRET-ANSWER", "answer_session_ids": [next(iter(sessions))],
        "haystack_session_ids": list(sessions), "haystack_dates": [d for d, _ in sessions.values()],
        "haystack_sessions": haystack,
    }


SHARED = ("2023/05/20 (Sat) 07:47", [("user", "My asylum decision took over a year to arrive."),
                                     ("assistant", "That is a long wait; how are you now?"),
                                     ("user", "ok thanks")])
ONLY_A = ("2023/05/22 (Mon) 21:44", [("user", "Any tips to style a vintage band t-shirt?"),
                                     ("assistant", "Pair it with a blazer and dark jeans.")])
ONLY_B = ("2023/05/25 (Thu) 12:40", [("user", "What is a good first houseplant?"),
                                     ("assistant", "A pothos: it forgives missed waterings.")])


def write(path: Path, value) -> Path:
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def no_secret_in(items) -> None:
    for item in items:
        said = " ".join([item.text, item.goal, *(o for _, _, o in item.relations)])
        assert not any(secret in said for secret in SECRETS), item
        assert all(p != "has_answer" for _, p, _ in item.relations)


# -- LoCoMo -------------------------------------------------------------------------------------
def test_locomo_every_turn_keeps_speaker_time_session_and_dia_id(tmp_path):
    path = write(tmp_path / "locomo10.json", [locomo_sample()])
    result = parse_path(path)
    assert detect_format(path) == "locomo" and result.format == "locomo"
    rows = [(i.session, i.speaker, i.role, i.time, dict((p, o) for _, p, o in i.relations)["turn_id"])
            for i in result.items]
    s1, s2 = "2023-05-08T13:56:00Z", "2023-06-09T19:55:00Z"
    assert rows == [
        ("conv-26/session_1", "Caroline", "user", s1, "D1:1"),
        ("conv-26/session_1", "Melanie", "assistant", s1, "D1:2"),
        ("conv-26/session_1", "Caroline", "user", s1, "D1:3"),
        ("conv-26/session_1", "Melanie", "assistant", s1, "D1:4"),   # "Thanks!" is a turn too
        ("conv-26/session_2", "Melanie", "assistant", s2, "D2:1"),
        ("conv-26/session_2", "Caroline", "user", s2, "D2:2"),
    ]
    assert [i.seq for i in result.items] == [0, 1, 2, 3, 0, 1]
    assert result.items[3].text == "Thanks!" and result.records_read == 6
    assert not result.skipped and not result.unread_times


def test_locomo_image_turns_carry_their_caption(tmp_path):
    items = parse_path(write(tmp_path / "conv.json", [locomo_sample()])).items
    assert items[2].text == ("Powerful. Look what they gave me. "
                             "[shares a photo: a photo of a rainbow pin on a denim jacket]")
    assert items[5].text == "[shares a photo: a photo of a blue bowl]"   # a photo and no words
    assert not any("example.com" in i.text or "rainbow pin\"" in i.text for i in items)


def test_locomo_annotations_never_become_items(tmp_path):
    items = parse_path(write(tmp_path / "conv.json", [locomo_sample()])).items
    no_secret_in(items)


def test_locomo_pointer_leads_to_the_verbatim_turn_and_relative_dates_resolve(tmp_path):
    path = write(tmp_path / "one.json", locomo_sample())            # one sample, not a list
    first = parse_path(path).items[0]
    assert first.pointer == f"{path.resolve()}#/conversation/session_1/0"
    assert read_pointer(first.pointer)["dia_id"] == "D1:1"
    assert ("mentions_date", "2023-05-07") in [(p, o) for _, p, o in first.relations]


def test_locomo_without_sample_id_or_speaker_a_and_a_missing_date(tmp_path):
    sample = locomo_sample()
    del sample["sample_id"], sample["conversation"]["speaker_a"]
    del sample["conversation"]["session_2_date_time"]
    result = parse_path(write(tmp_path / "talk.json", [sample]))
    assert {i.session for i in result.items} == {"talk#1/session_1", "talk#1/session_2"}
    assert result.items[0].role == "user"                   # the first to speak is the user
    assert [i.time for i in result.items if i.session.endswith("2")] == ["", ""]
    assert result.unread_times == [(2, "no session_2_date_time")]   # reported, never silent


def test_locomo_an_empty_session_is_not_a_missing_date(tmp_path):
    sample = locomo_sample()
    sample["conversation"]["session_3"] = []                # no turns, no date: nothing lost
    result = parse_path(write(tmp_path / "conv.json", [sample]))
    assert len(result.items) == 6 and not result.unread_times and not result.skipped


def test_locomo_jsonl_of_samples(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(json.dumps(locomo_sample(s)) for s in ("conv-1", "conv-2")) + "\n")
    result = parse_path(path)
    assert result.format == "locomo" and len(result.items) == 12
    assert result.items[6].pointer == f"{path.resolve()}:2#/conversation/session_1/0"


# -- LongMemEval --------------------------------------------------------------------------------
def test_longmemeval_instance_keeps_roles_dates_sessions_and_turn_ids(tmp_path):
    path = write(tmp_path / "q1.json", lme_instance("q1", {"answer_1": SHARED, "s_a": ONLY_A}))
    result = parse_path(path)
    assert detect_format(path) == "longmemeval" and result.format == "longmemeval"
    rows = [(i.session, i.role, i.speaker, i.time, i.kind,
             dict((p, o) for _, p, o in i.relations)["turn_id"]) for i in result.items]
    assert rows == [
        ("answer_1", "user", "", "2023-05-20T07:47:00Z", "user_goal", "answer_1:0"),
        ("answer_1", "assistant", "", "2023-05-20T07:47:00Z", "conclusion", "answer_1:1"),
        ("answer_1", "user", "", "2023-05-20T07:47:00Z", "turn", "answer_1:2"),  # "ok thanks"
        ("s_a", "user", "", "2023-05-22T21:44:00Z", "user_goal", "s_a:0"),
        ("s_a", "assistant", "", "2023-05-22T21:44:00Z", "conclusion", "s_a:1"),
    ]
    no_secret_in(result.items)
    assert result.items[1].pointer == f"{path.resolve()}#/haystack_sessions/0/1"


def test_longmemeval_list_sharing_a_session_reads_it_once(tmp_path):
    path = write(tmp_path / "longmemeval_s.json",
                 [lme_instance("q1", {"answer_1": SHARED, "s_a": ONLY_A}),
                  lme_instance("q2", {"s_b": ONLY_B, "answer_1": SHARED})])
    result = parse_path(path)
    assert [i.session for i in result.items] == ["answer_1"] * 3 + ["s_a"] * 2 + ["s_b"] * 2
    assert result.ignored == {"repeated-session": 1} and not result.skipped
    assert result.items[-1].pointer == f"{path.resolve()}#/1/haystack_sessions/0/1"
    no_secret_in(result.items)


def test_longmemeval_jsonl_of_instances(tmp_path):
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps(lme_instance("q1", {"answer_1": SHARED})) + "\n"
                    + json.dumps(lme_instance("q2", {"s_b": ONLY_B})) + "\n")
    result = parse_path(path)
    assert result.format == "longmemeval" and len(result.items) == 5


def laid_out(value, turns: list) -> str:
    """``value`` as JSON with ``turns`` (where ``value`` holds "TURNS") one per line."""
    lines = ",\n".join(json.dumps(t) for t in turns)
    return json.dumps(value, indent=1).replace('"TURNS"', "[\n" + lines + "\n]")


def test_a_document_laid_out_one_turn_per_line_is_still_a_benchmark(tmp_path):
    # each turn alone on its line parses as an OpenAI message; the whole document decides
    instance = lme_instance("q1", {"s_a": ONLY_A})
    turns = instance["haystack_sessions"][0]
    path = tmp_path / "q1.json"
    path.write_text(laid_out(instance | {"haystack_sessions": ["TURNS"]}, turns))
    assert json.loads(path.read_text()) == instance
    assert detect_format(path) == "longmemeval" and len(parse_path(path).items) == 2
    sample = locomo_sample()
    turns = sample["conversation"]["session_1"]
    sample["conversation"]["session_1"] = "TURNS"
    path = tmp_path / "conv.json"
    path.write_text(laid_out([sample], turns))
    assert detect_format(path) == "locomo" and len(parse_path(path).items) == 6


def test_detection_and_format_override(tmp_path):
    locomo = write(tmp_path / "a.json", [locomo_sample()])
    lme = write(tmp_path / "b.json", lme_instance("q1", {"s_a": ONLY_A}))
    assert parse_path(locomo, format="locomo").format == "locomo"
    assert parse_path(lme, format="longmemeval").format == "longmemeval"
    with pytest.raises(InputError, match=r"b\.json: not a LoCoMo sample$"):
        parse_path(lme, format="locomo")
    with pytest.raises(InputError, match=r"no longmemeval records could be parsed \(1 skipped; "
                                         r"line 1: record 0 is not a LongMemEval instance\)"):
        parse_path(locomo, format="longmemeval")


# -- memory: upsert, the README query, bad input -------------------------------------------------
def test_reingest_and_shared_sessions_are_upserts(tmp_path):
    one = write(tmp_path / "q1.json", lme_instance("q1", {"answer_1": SHARED, "s_a": ONLY_A}))
    both = write(tmp_path / "list.json", [lme_instance("q1", {"answer_1": SHARED, "s_a": ONLY_A}),
                                          lme_instance("q2", {"s_b": ONLY_B, "answer_1": SHARED})])
    conv = write(tmp_path / "locomo10.json", [locomo_sample()])
    with Memory.open(tmp_path / "home") as mem:
        assert mem.ingest([one]).new == 5
        assert mem.ingest([both]).new == 2                  # only s_b's two turns are new
        assert mem.ingest([conv]).new == 6
        (tmp_path / "copy").mkdir()
        copy = write(tmp_path / "copy" / "locomo10.json", [locomo_sample()])
        assert mem.ingest([copy]).new == 0                  # the same turns from another file
        count = mem.query("findall(H, item(H), Hs), length(Hs, N)").rows[0]["N"]
        assert count == 13


def test_the_readme_query_finds_the_handle_of_a_dia_id(tmp_path):
    conv = write(tmp_path / "locomo10.json", [locomo_sample()])
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([conv])
        rows = mem.query("relation(H, turn_id, 'D1:3'), item_session(H, 'conv-26/session_1'), "
                         "item_speaker(H, Who), item_time(H, T)").rows
        assert [(r["Who"], r["T"]) for r in rows] == [("Caroline", "2023-05-08T13:56:00Z")]
        assert mem.item(rows[0]["H"]).text.endswith("[shares a photo: a photo of a rainbow pin "
                                                    "on a denim jacket]")
        lme = write(tmp_path / "q1.json", lme_instance("q1", {"answer_1": SHARED}))
        mem.ingest([lme])
        (row,) = mem.query("relation(H, turn_id, 'answer_1:1'), item_speaker(H, Who)").rows
        assert row["Who"] == "assistant"                    # roles only: the role is the speaker


def _items_in(home: Path) -> int:
    with Memory.open(home) as mem:
        return mem.query("findall(H, item(H), Hs), length(Hs, N)").rows[0]["N"]


@pytest.mark.parametrize(("value", "fmt", "reason"), [
    (lme_instance("q9", {"s_a": ONLY_A}) | {"haystack_dates": []}, None,
     "no longmemeval records could be parsed (1 skipped; line 1: instance q9: haystack_dates "
     "has 0 entries for 1 haystack sessions)"),
    (lme_instance("q9", {"s_a": ONLY_A}) | {"haystack_session_ids": None}, None,
     "no longmemeval records could be parsed (1 skipped; line 1: instance q9: "
     "haystack_session_ids is not a list of session ids)"),
    ({"sample_id": "c", "conversation": {"speaker_a": "A", "speaker_b": "B"}}, None,
     "no locomo records could be parsed (1 skipped; line 1: sample c has no session_N turns)"),
    ({"messages": [{"role": "user", "content": "hi there"}]}, "locomo", "not a LoCoMo sample"),
    ([1, 2], "longmemeval", "no longmemeval records could be parsed (2 skipped; line 1: record 0 "
                            "is not a LongMemEval instance)"),
])
def test_bad_benchmark_files_fail_in_one_line_and_leave_memory_unchanged(tmp_path, value, fmt,
                                                                          reason):
    home = tmp_path / "home"
    good = write(tmp_path / "good.json", [locomo_sample()])
    CliRunner().invoke(main, ["ingest", str(good), "--home", str(home)], catch_exceptions=False)
    before = _items_in(home)
    bad = write(tmp_path / "bad.json", value)
    args = ["ingest", str(bad), "--home", str(home)] + (["--format", fmt] if fmt else [])
    out = CliRunner().invoke(main, args)
    assert out.exit_code != 0
    assert f"{bad}: {reason}" in out.output
    assert [line for line in out.output.splitlines() if line.startswith("atc:")] \
        == [f"atc: {bad}: {reason}"]
    assert _items_in(home) == before == 6


# -- a real LongMemEval instance ----------------------------------------------------------------
@pytest.mark.skipif(not DEV.is_dir(), reason="the LongMemEval dev split is not on this machine")
def test_a_real_dev_instance_every_turn_is_an_item_with_its_time():
    from attention_cloud.ingest.timefmt import read_time

    path = sorted(DEV.glob("*.json"))[0]
    data = json.loads(path.read_text())
    result = parse_path(path)
    assert result.format == "longmemeval"
    by_id = {dict((p, o) for _, p, o in i.relations)["turn_id"]: i for i in result.items}
    expected = 0
    read: set[str] = set()
    for sid, date, turns in zip(data["haystack_session_ids"], data["haystack_dates"],
                                data["haystack_sessions"]):
        if sid in read:                                     # a session the haystack repeats
            continue
        read.add(sid)
        for index, turn in enumerate(turns):
            if not turn["content"].strip():
                continue
            item = by_id[f"{sid}:{index}"]
            assert (item.session, item.role, item.time) == (sid, turn["role"], read_time(date))
            expected += 1
    assert len(result.items) == expected and all(i.time for i in result.items)
    no_secret_in(result.items)
    assert not any(data["answer"] == i.text for i in result.items)
