"""A chat export's message that is no object (a hand-edited or truncated export) is skipped
with a line naming it, and every other message keeps its place and its pointer, in every
people's-chat reader that shares ChatExportParser."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.ingest import parse_path

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
EXPORTS = {
    "discord": FIXTURES / "discord_export.json",
    "google-chat": FIXTURES / "google_chat_takeout" / "Google Chat" / "Groups" / "Space AAAAx7Yq2"
    / "messages.json",
    "messenger": FIXTURES / "messenger_export" / "your_facebook_activity" / "messages" / "inbox"
    / "runningclub_3825" / "message_1.json",
    "telegram": FIXTURES / "telegram_result.json",
}


@pytest.mark.parametrize("fmt", sorted(EXPORTS))
def test_a_message_that_is_no_object_is_skipped_and_named(fmt, tmp_path):
    source = EXPORTS[fmt]
    whole = parse_path(source)
    document = json.loads(source.read_text(encoding="utf-8"))
    document["messages"].append("not a message")
    broken = tmp_path / source.parent.name / source.name
    broken.parent.mkdir()
    broken.write_text(json.dumps(document), encoding="utf-8")
    result = parse_path(broken, format=fmt)
    last = len(document["messages"]) - 1
    assert result.skipped == [(last + 1, f"message {last} is not an object")]
    assert [(i.speaker, i.time, i.text) for i in result.items] == \
        [(i.speaker, i.time, i.text) for i in whole.items]
    assert [i.pointer.rsplit("#", 1)[1] for i in result.items] == \
        [i.pointer.rsplit("#", 1)[1] for i in whole.items]
