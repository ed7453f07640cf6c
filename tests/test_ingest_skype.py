"""Skype's data export (``messages.json``: ``{"userId", "exportDate", "conversations": [{"id",
"displayName", "MessageList": [...]}]}``): every sender and every message's time kept, oldest
first (issue 14: who said it and when, for every format people bring)."""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud.ingest import detect_format, parse_path

EXPORT = Path(__file__).parent / "fixtures" / "ingest" / "skype_export" / "messages.json"


@pytest.fixture(scope="module")
def parsed():
    return parse_path(EXPORT)


def test_each_conversation_keeps_every_sender_and_time_oldest_first(parsed):
    # before: "no openai records could be parsed": every Skype conversation was lost
    assert parsed.format == "skype" == detect_format(EXPORT)
    assert [(i.session, i.speaker, i.time, i.text) for i in parsed.items] == [
        ("Running Club", "Priya Patel", "2023-05-08T13:56:03Z",
         "Who is running the river loop on Saturday?"),
        ("Running Club", "Tomás Ruiz", "2023-05-08T14:00:00Z",
         "Count me in & I'll bring water :) https://maps.example.org/loop"),
        ("Running Club", "Dana Whitfield", "2023-05-09T08:13:20Z",
         "[attached: training-plan.pdf]"),
        ("8:live:dana", "priya", "2023-05-10T06:26:40Z", "See you at the bridge at seven"),
    ]
    assert [i.role for i in parsed.items] == ["user", "assistant", "assistant", "user"]


def test_edits_deletions_calls_and_events_are_linked_or_counted(parsed):
    assert ("edited", "2023-05-08T14:01:40Z") in [r[1:] for r in parsed.items[1].relations]
    assert parsed.ignored == {"deleted": 1, "call": 1, "ThreadActivity/AddMember": 1}
    assert parsed.skipped == [(1, "conversation 0: message 3 is not an object")]
    assert parsed.items[0].pointer.endswith("messages.json#/conversations/0/MessageList/5")
