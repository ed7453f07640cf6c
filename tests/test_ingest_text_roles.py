"""Plain text transcripts of named people: a person keeps the user's role from one session file
to the next, whoever speaks first in each (issue 14: a conversation fed as one text file per
session gave the user's role to whoever opened each session, so the same person's turns were
goals in one session and replies in the next, and frames ranked them differently from the same
conversation fed as LoCoMo or JSONL)."""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud import memory as memory_module
from attention_cloud.ingest import parse_path

SESSIONS = {
    "s01.txt": [("Priya", "Shall we start the pottery class in May?"),
                ("Daniel", "Yes, I will book two places."),
                ("Priya", "Great, Tuesday evenings suit me.")],
    "s02.txt": [("Daniel", "The kiln is fixed, the class is on again."),   # Daniel opens this one
                ("Priya", "Can we glaze the bowls next week?"),
                ("Daniel", "Sure, bring the blue glaze.")],
    "s03.txt": [("Daniel", "Pierogi night at mine on Friday?"),
                ("Priya", "I will bring the dough."),
                ("Daniel", "Perfect, see you then.")],
}
OTHERS = [("Sam", "Is the bike fixed yet?"), ("Kim", "Tomorrow, the part is late."),
          ("Sam", "Thanks, let me know.")]


def write(folder: Path, name: str, turns: list[tuple[str, str]]) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text("Date: 8 May 2023 13:56\n\n" + "".join(f"{who}: {text}\n" for who, text in turns),
                    encoding="utf-8")
    return path


def roles(mem: Memory) -> set[tuple[str, str]]:
    """(speaker, role) of every item in memory."""
    return {(r["S"], r["R"]) for r in mem.query("item_role(H, R), item_speaker(H, S)").rows}


def test_a_person_named_as_a_user_before_takes_the_users_role_when_they_speak(tmp_path):
    path = write(tmp_path, "s02.txt", SESSIONS["s02.txt"])
    alone = parse_path(path)
    assert alone.named_roles == {"Daniel": "user", "Priya": "assistant"}   # who speaks first
    told = parse_path(path, user_names={"Priya"})
    assert told.named_roles == {"Daniel": "assistant", "Priya": "user"}
    assert [(i.speaker, i.role, i.kind) for i in told.items][:2] == [
        ("Daniel", "assistant", "conclusion"), ("Priya", "user", "user_goal")]
    # a user named before who does not speak here changes nothing
    assert parse_path(path, user_names={"Sam"}).named_roles == alone.named_roles


def test_a_folder_of_sessions_keeps_each_person_in_one_role(tmp_path):
    folder = tmp_path / "chats"
    for name, turns in SESSIONS.items():
        write(folder, name, turns)
    write(folder, "s04.txt", OTHERS)          # other people: the first to speak is the user
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([str(folder)])
        assert roles(mem) == {("Priya", "user"), ("Daniel", "assistant"), ("Sam", "user"),
                              ("Kim", "assistant")}
        kinds = {r["K"] for r in mem.query('item_speaker(H, "Priya"), item_kind(H, K)').rows}
        assert kinds == {"user_goal"}


def test_a_later_ingest_keeps_the_roles_memory_holds(tmp_path):
    folder = tmp_path / "chats"
    first = write(folder, "s01.txt", SESSIONS["s01.txt"])
    with Memory.open(tmp_path / "home") as mem:
        mem.ingest([str(first)])
        mem.ingest([str(write(folder, "s02.txt", SESSIONS["s02.txt"]))])
        assert roles(mem) == {("Priya", "user"), ("Daniel", "assistant")}


def test_files_parsed_by_worker_processes_keep_the_roles_too(tmp_path, monkeypatch):
    monkeypatch.setattr(memory_module, "PARALLEL_PARSE_BYTES", 0)   # the pool, for 3 files
    folder = tmp_path / "chats"
    for name, turns in SESSIONS.items():
        write(folder, name, turns)
    with Memory.open(tmp_path / "home") as mem:
        report = mem.ingest([str(folder)])
        assert report.new == 9
        assert roles(mem) == {("Priya", "user"), ("Daniel", "assistant")}
