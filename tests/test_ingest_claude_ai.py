"""Claude.ai data exports (``conversations.json``): every message with its role and its time,
each conversation a session with its title (issue 14: no item loses its time or speaker)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import detect_format, parse_path, parse_text

EXPORT = Path(__file__).parent / "fixtures" / "ingest" / "claude_ai_conversations.json"
GLAZE = "0b9e7c1e-5d41-4f7a-9a3e-6f1c2d3e4a50"
PLAN = "6c2d1b7a-8e9f-4a0b-b1c2-d3e4f5a6b7c8"


@pytest.fixture(scope="module")
def parsed():
    return parse_path(EXPORT)


def test_the_export_is_detected_and_every_message_keeps_its_role_and_time(parsed):
    """Before, Claude.ai's own export was "cannot detect format": nothing of it was kept."""
    assert parsed.format == "claude-ai" == detect_format(EXPORT)
    assert [(i.session, i.role, i.speaker, i.time, i.kind) for i in parsed.items] == [
        (GLAZE, "user", "", "2024-05-08T13:56:01Z", "user_goal"),
        (GLAZE, "tool", "", "2024-05-08T13:56:12Z", "tool_result"),      # the web search
        (GLAZE, "assistant", "", "2024-05-08T13:56:12Z", "conclusion"),
        (GLAZE, "user", "", "2024-05-08T14:01:30Z", "user_goal"),        # a file alone
        (PLAN, "user", "", "2024-03-02T09:00:10Z", "user_goal"),          # text, no blocks
        (PLAN, "assistant", "", "2024-03-02T09:00:31Z", "conclusion"),
    ]
    assert parsed.unread_times == [] and parsed.skipped == []
    assert parsed.ignored == {"thinking": 1}


def test_attached_files_are_named_and_the_title_kept(parsed):
    first, search, _, shared, _, _ = parsed.items
    assert first.text.endswith("\n[attached: glaze-recipe.txt, bowl.jpg]")
    assert shared.text == "[attached: kiln-shelf.png]"
    assert "Why glazes run" in search.text
    assert all((i.handle, "title", "Glazing a first bowl") in i.relations
               for i in parsed.items if i.session == GLAZE)
    assert first.pointer.endswith("claude_ai_conversations.json#/0/chat_messages/0")
    assert parsed.items[2].pointer.endswith("#/0/chat_messages/1/content/3")
    # "yesterday" is read against the message's own time
    assert [o for _, p, o in first.relations if p == "mentions_date"] == ["2024-05-07"]
    assert [o for _, p, o in parsed.items[4].relations if p == "mentions_date"] == ["2024-02-24"]


@pytest.mark.parametrize("written, iso", [
    ("2024-05-08T13:56:01.517228Z", "2024-05-08T13:56:01Z"),
    ("2024-05-08T15:56:01.517228+02:00", "2024-05-08T13:56:01Z"),
    (None, "2024-05-08T13:55:58Z"),                      # none: the conversation's
])
def test_each_created_at_form(written, iso):
    conversation = json.loads(EXPORT.read_text())[0]
    conversation["chat_messages"] = conversation["chat_messages"][:1]
    conversation["chat_messages"][0]["created_at"] = written
    (item,) = parse_text(json.dumps([conversation]), name="conversations.json").items
    assert item.time == iso


def test_an_unreadable_created_at_is_reported_and_the_message_kept():
    conversation = json.loads(EXPORT.read_text())[1]
    conversation["chat_messages"][1]["created_at"] = "sometime in March"
    result = parse_text(json.dumps([conversation]), name="conversations.json")
    assert [i.time for i in result.items] == ["2024-03-02T09:00:10Z", ""]
    assert result.unread_times == [(2, "sometime in March")]


def test_ingesting_the_export_again_adds_nothing(tmp_path):
    with Memory.open(tmp_path / "home") as mem:
        first = mem.ingest([str(EXPORT)])
        again = mem.ingest([str(EXPORT)], )
        rows = mem.query(f"item_session(H, '{PLAN}'), item_speaker(H, S), item_time(H, T)").rows
    assert first.new == 6 and again.new == 0
    assert sorted((r["S"], r["T"]) for r in rows) == [
        ("assistant", "2024-03-02T09:00:31Z"), ("user", "2024-03-02T09:00:10Z")]


def test_a_message_whose_blocks_are_empty_is_read_from_its_text():
    conversation = json.loads(EXPORT.read_text())[1]
    conversation["chat_messages"][0]["content"] = [{"type": "text", "text": ""}]
    result = parse_text(json.dumps([conversation]), name="conversations.json")
    assert result.items[0].text.startswith("I signed up for the October half marathon")
