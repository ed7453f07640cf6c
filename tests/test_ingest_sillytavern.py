"""SillyTavern chat files (JSONL): every message with its speaker and its time, in each date
form SillyTavern wrote over its versions (issue 14: no item loses its time or speaker)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.ingest import detect_format, parse_path, parse_text

CHAT = (Path(__file__).parent / "fixtures" / "ingest" / "sillytavern" /
        "Seraphina - 2023-05-08@13h56m03s.jsonl")


def test_a_chat_keeps_every_speaker_and_time():
    # before: "cannot detect format", the chat refused
    result = parse_path(CHAT)
    assert result.format == "sillytavern" == detect_format(CHAT)
    assert [(i.speaker, i.role, i.time) for i in result.items] == [
        ("Seraphina", "assistant", "2023-05-08T13:56:00Z"),
        ("Priya", "user", "2023-05-08T13:57:00Z"),
        ("Seraphina", "assistant", "2023-05-08T13:57:00Z"),
        ("System", "system", "2023-05-08T14:10:00Z"),   # the narrator
    ]
    assert {i.session for i in result.items} == {"Seraphina - 2023-05-08@13h56m03s"}
    chosen = result.items[2]
    assert chosen.text == "Then rest here tonight; the festival starts at dawn."
    links = [r[1:] for r in chosen.relations]
    assert ("character", "Seraphina") in links and ("model", "gpt-4") in links
    assert result.ignored == {"chat header": 1, "other-swipe": 1, "acknowledgement": 1}
    assert chosen.pointer.endswith("13h56m03s.jsonl:4")


@pytest.mark.parametrize("sent, iso", [
    ("May 8, 2023 1:56pm", "2023-05-08T13:56:00Z"),
    ("2023-05-08T13:56:03.120Z", "2023-05-08T13:56:03Z"),
    (1683554163120, "2023-05-08T13:56:03Z"),
    ("2023-05-08@13h56m03s", "2023-05-08T13:56:03Z"),
    ("2023-5-8 @13h 56m 03s 120ms", "2023-05-08T13:56:03Z"),
])
def test_each_send_date_form(sent, iso):
    lines = [{"user_name": "Priya", "character_name": "Seraphina", "create_date": "x"},
             {"name": "Priya", "is_user": True, "is_system": False, "send_date": sent,
              "mes": "Is the festival still on tomorrow?"}]
    (item,) = parse_text("\n".join(map(json.dumps, lines)) + "\n", name="chat.jsonl").items
    assert (item.speaker, item.time) == ("Priya", iso)


def test_a_message_deleted_above_keeps_the_handles_below():
    lines = CHAT.read_text().splitlines()
    before = parse_text("\n".join(lines) + "\n", name="chat.jsonl").items
    after = parse_text("\n".join(lines[:1] + lines[2:]) + "\n", name="chat.jsonl").items
    assert [i.handle for i in after] == [i.handle for i in before[1:]]


def test_a_file_with_no_sillytavern_line_is_refused_as_other_formats_refuse_it():
    # before: --format sillytavern on a file of other JSON lines said "new: 0", exit 0, and
    # marked the file read; every other format says nothing could be parsed, naming the file
    from attention_cloud.errors import InputError

    alien = '{"role": "user", "content": "hi"}\n{"foo": 1}\n'
    with pytest.raises(InputError) as caught:
        parse_text(alien, name="chat.jsonl", format="sillytavern")
    assert str(caught.value) == (
        'chat.jsonl: no sillytavern records could be parsed (2 skipped; line 1: not a '
        'SillyTavern message ("mes" and "is_user"))')
    header_only = json.dumps({"user_name": "Priya", "character_name": "Seraphina"}) + "\n"
    assert parse_text(header_only, name="new chat.jsonl", format="sillytavern").items == []
