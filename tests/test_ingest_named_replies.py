"""A chat between named people keeps every message, a one-word reply included, whatever reader
reads it: "Go on." and "Done." from Priya answer what was asked, as the chat exports and the
LoCoMo reader keep them. A transcript whose parties have only roles (an agent's session) still
drops a bare acknowledgement ("ok", "thanks"): it carries no goal there."""
from __future__ import annotations

import json

from attention_cloud.ingest import parse_path

TURNS = [("Priya", "Can you look up the ferry times to Hydra for Saturday?"),
         ("Tomás", "The first one leaves Piraeus at 7:30, then 9:00 and 13:00."),
         ("Priya", "Go on."),
         ("Tomás", "The 9:00 one is the fast boat, two hours. Shall I book it?"),
         ("Priya", "Done."),
         ("Tomás", "Perfect.")]


def test_a_named_text_chat_keeps_every_reply(tmp_path):
    path = tmp_path / "ferry.txt"
    path.write_text("Date: 3 June 2023 10:00\n\n"
                    + "\n".join(f"{name}: {text}" for name, text in TURNS) + "\n", encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.text) for i in result.items] == TURNS


def test_a_named_jsonl_chat_keeps_every_reply(tmp_path):
    path = tmp_path / "ferry.jsonl"
    path.write_text("\n".join(json.dumps({"role": "user" if name == "Priya" else "assistant",
                                          "name": name, "content": text,
                                          "timestamp": f"2023-06-03T10:0{i}:00Z"})
                              for i, (name, text) in enumerate(TURNS)) + "\n", encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.text) for i in result.items] == TURNS


def test_a_chat_of_roles_still_drops_a_bare_acknowledgement(tmp_path):
    text = tmp_path / "session.txt"
    text.write_text("User: Why does the retry loop time out?\nAssistant: The backoff is capped "
                    "at 2 s.\nUser: ok thanks\n", encoding="utf-8")
    chat = tmp_path / "session.jsonl"
    chat.write_text("\n".join(json.dumps({"role": r, "content": c}) for r, c in [
        ("user", "Why does the retry loop time out?"), ("assistant", "The backoff is capped."),
        ("user", "ok thanks")]) + "\n", encoding="utf-8")
    for path in (text, chat):
        result = parse_path(path)
        assert [i.text for i in result.items if i.role == "user"] == [
            "Why does the retry loop time out?"], path
