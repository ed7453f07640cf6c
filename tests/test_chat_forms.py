"""Chats in forms the readers were not tuned on (``scripts/bench/chat_forms.py``): every message
keeps its speaker and its time, system lines name no one, and memory answers who said what.

Before, a one-day WhatsApp export written by a Spanish, British, Indian or Australian phone with
a 12-hour clock (``8/5/23, 1:56 p. m.``, ``08/05/2023, 1:56 pm``) was read month first, as the
US writes it, so every message of it took a day three months off; an OpenAI chat whose
timestamps wrote ``8/5/2023 1:56 p. m.`` the same.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import parse_text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts" / "bench"))
import chat_forms  # noqa: E402

FORMS = chat_forms.all_forms(seed=7)


@pytest.mark.parametrize("form", FORMS, ids=[form.name for form in FORMS])
def test_every_message_keeps_its_speaker_and_time(form):
    verdict = chat_forms.check(form)
    assert verdict.error == ""
    assert verdict.lost == []
    assert verdict.kept == len(form.messages)
    assert verdict.intruders == []  # no system line read as a person


def _one_day_whatsapp(clock: str) -> str:
    return "".join(f"8/5/23, {hour}:{minute:02d} {clock} - {name}: {text}\n"
                   for hour, minute, name, text in (
                       (1, 56, "Priya", "¿Vamos al río el sábado?"),
                       (1, 58, "Tomás Ruiz", "Sí, a las siete en el puente."),
                       (2, 5, "Priya", "Perfecto, llevo agua para todos.")))


@pytest.mark.parametrize("clock, day, read_as", [
    ("p.\u00a0m.", "2023-05-08", "day/month"),   # Spanish Android: 8 May
    ("pm", "2023-05-08", "day/month"),           # en-GB, en-IN, en-AU
    ("PM", "2023-08-05", "month/day"),           # the US: 5 August
])
def test_a_one_day_export_takes_its_order_from_how_it_writes_the_clock(clock, day, read_as):
    result = parse_text(_one_day_whatsapp(clock), name="WhatsApp Chat with Priya.txt")
    assert result.format == "whatsapp"
    assert [i.time for i in result.items] == [f"{day}T13:56:00Z", f"{day}T13:58:00Z",
                                              f"{day}T14:05:00Z"]
    assert len(result.notes) == 1 and f"read as {read_as}" in result.notes[0]


def test_an_openai_chat_of_one_day_written_p_m_reads_the_day_first():
    lines = [{"role": role, "name": name, "content": text, "timestamp": f"8/5/2023 {clock}"}
             for role, name, text, clock in (
                 ("user", "Priya", "I signed up for the pottery class", "1:56 p. m."),
                 ("assistant", "Tomás", "Which studio did you pick?", "2:03 p. m."))]
    result = parse_text("\n".join(json.dumps(line) for line in lines), name="chat.jsonl")
    assert [i.time for i in result.items] == ["2023-05-08T13:56:00Z", "2023-05-08T14:03:00Z"]
    assert len(result.notes) == 1 and "read as day/month" in result.notes[0]


def test_a_group_export_in_memory_names_its_people_and_answers_a_question_by_name(home,
                                                                                  tmp_path):
    form = next(f for f in FORMS if f.name.startswith("whatsapp android en-GB 24h"))
    path = tmp_path / form.filename
    path.write_text(form.text, encoding="utf-8")
    wanted = sorted(zip(form.speakers, form.times))
    target = form.speakers[0]
    with Memory.open(home) as mem:
        mem.ingest([str(path)])
        rows = mem.query("item_speaker(H, S), item_time(H, T)").rows
        named = mem.query(f'goal_speaker("What did {target} say about the river?", A)').rows
        frame = mem.hydrate(f"What did {target} say?", budget=200)
    # one item a message, each with its sender and time: the encryption notice, the group's
    # creation, a join and a media line name no one
    assert sorted((r["S"], r["T"]) for r in rows) == wanted
    assert named == [{"A": target}]
    assert frame.facts and all(f.text.startswith(f"{target}: ") for f in frame.facts[:2])
