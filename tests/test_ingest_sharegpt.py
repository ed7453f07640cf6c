"""ShareGPT conversations ({from, value}): a JSON list, one record, or JSONL (issue 15)."""

from __future__ import annotations

import json
from pathlib import Path

from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def test_a_list_of_records():
    path = FIXTURES / "sharegpt.json"
    result = parse_path(path)
    assert detect_format(path) == "sharegpt" and result.format == "sharegpt"
    first = [(i.kind, i.role, i.time) for i in result.items if i.session == "sg-001"]
    assert first == [
        ("turn", "system", "2023-06-01T09:00:00Z"),           # the record's system prompt
        ("user_goal", "user", "2023-06-01T09:00:00Z"),
        ("conclusion", "assistant", "2023-06-01T09:00:00Z"),
        ("turn", "assistant", "2023-06-01T09:00:00Z"),        # "Let me know ...": narration
    ]                                                         # "ok" is an acknowledgement
    assert result.items[1].pointer == f"{path.resolve()}#/0/conversations/0"


def test_function_calls_and_observations():
    result = parse_path(FIXTURES / "sharegpt.json")
    tools = [(i.kind, i.role, i.text.split("\n")[0]) for i in result.items if i.session == "sg-002"]
    assert tools == [
        ("user_goal", "user", "Read the firing log and tell me the peak temperature."),
        ("file_op", "assistant", "read logs/firing.csv"),      # its output (the file) is noise
        ("error", "tool", "run_python import pandas as pd; pd.read_csv('logs/firing.csv').temp.max()"),
        ("conclusion", "assistant", "The log peaks at 1222 C at 06:00, which is cone 6."),
    ]
    times = [i.time for i in result.items if i.session == "sg-002"]
    assert times == ["2023-06-02T10:15:00Z", "", "", "2023-06-02T10:16:00Z"]


def test_an_unknown_speaker_is_skipped_and_reported():
    result = parse_path(FIXTURES / "sharegpt.json")
    assert result.skipped == [(3, "turn 0: unknown from 'narrator'")]
    assert [i.text for i in result.items if i.session == "sg-003"] == ["Which clay body survives cone 10?"]


def test_jsonl_records_with_names():
    path = FIXTURES / "sharegpt.jsonl"
    result = parse_path(path)
    assert detect_format(path) == "sharegpt"
    assert [(i.session, i.role, i.speaker) for i in result.items] == [
        ("line-a", "user", ""), ("line-a", "assistant", ""),
        ("sharegpt#2", "user", "Priya"), ("sharegpt#2", "assistant", "Tomás"),
    ]
    assert result.items[2].pointer == f"{path.resolve()}:2#/conversations/0"


def test_one_record_and_the_openai_detection_unchanged():
    record = {"conversations": [{"from": "human", "value": "How hot is cone 6?"},
                                {"from": "gpt", "value": "About 1222 C at a 60 C per hour finish."}]}
    result = parse_text(json.dumps(record), name="one.json")
    assert result.format == "sharegpt" and [i.kind for i in result.items] == ["user_goal", "conclusion"]
    openai = parse_text(json.dumps({"messages": [{"role": "user", "content": "How hot is cone 6?"}]}),
                        name="chat.json")
    assert openai.format == "openai"


def test_turns_from_named_people_keep_their_names(tmp_path):
    """A chat between two people written as ShareGPT names each turn's speaker in ``from``
    ("Priya", "Tomás", as data sets converted from group chats and role-play write it): every
    such turn was skipped as an unknown speaker, the conversation lost. A ``from`` that is a
    name (capitalised, up to three words, no label word) is that person: the first named in the
    file takes the user's role, the others the assistant's; a lower-case word ("narrator") is
    still skipped and reported."""
    path = tmp_path / "chats.json"
    path.write_text(json.dumps([
        {"id": "s1", "date": "1:56 pm on 8 May, 2023", "conversations": [
            {"from": "Priya", "value": "I signed up for the pottery class yesterday."},
            {"from": "Tomás", "value": "Which studio did you pick?"},
            {"from": "narrator", "value": "The kiln hums in the background."}]},
        {"id": "s2", "date": "2023/05/28 (Sun) 19:47", "conversations": [
            {"from": "Tomás", "value": "How did the first bowl come out?"},
            {"from": "Priya Shah", "value": "It survived the kiln!"},
            {"from": "Note", "value": "Priya brings the bowl next time."}]}]))
    result = parse_path(path)
    assert [(i.session, i.role, i.speaker, i.time) for i in result.items] == [
        ("s1", "user", "Priya", "2023-05-08T13:56:00Z"),
        ("s1", "assistant", "Tomás", "2023-05-08T13:56:00Z"),
        ("s2", "assistant", "Tomás", "2023-05-28T19:47:00Z"),
        ("s2", "assistant", "Priya Shah", "2023-05-28T19:47:00Z")]
    assert result.skipped == [(1, "turn 2: unknown from 'narrator'"),
                              (2, "turn 2: unknown from 'Note'")]
