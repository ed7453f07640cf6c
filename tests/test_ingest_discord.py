"""Discord channel exports (DiscordChatExporter JSON): every author and every message's time
(issue 14: who said it and when, for every format)."""
from __future__ import annotations

import json
from pathlib import Path

from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "discord_export.json"


def test_a_channel_export_keeps_every_author_and_time():
    result = parse_path(FIXTURE)
    assert result.format == "discord" == detect_format(FIXTURE)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya Patel", "2023-05-08T13:56:03Z"),     # 15:56:03+02:00
        ("Tomás Ruiz", "2023-05-08T13:57:12Z"),
        ("Dana Whitfield", "2023-05-08T13:58:00Z"),  # a file alone: before, counted and dropped
        ("Priya Patel", "2023-05-09T08:00:00Z"),
        ("Dana Whitfield", "2023-05-09T08:05:30Z"),
    ]
    assert {i.session for i in result.items} == {"Running Club/#general"}
    assert result.ignored == {"GuildMemberJoin": 1, "ChannelPinnedMessage": 1}
    assert result.items[2].text == "[attached: route.gpx]"
    dana = result.items[-1]
    assert dana.text == "I suggest the river loop at 7am, then pancakes"
    assert ("reply_to", "901#5") in [r[1:] for r in dana.relations]
    assert dana.pointer.endswith("discord_export.json#/messages/5")


def test_a_discord_export_is_not_read_as_an_openai_chat():
    # before: its "messages" were taken for a chat API's and refused ("no openai records")
    text = json.dumps({"guild": {"id": "1", "name": "Club"}, "channel": {"id": "2", "name": "dm"},
                       "messages": [{"id": "3", "type": "Default", "content": "Run Saturday?",
                                     "timestamp": "2023-05-08T13:56:03+00:00",
                                     "author": {"id": "4", "name": "dana.w", "nickname": None}}]})
    (item,) = parse_text(text, name="export.json").items
    assert (item.speaker, item.time, item.session) == ("dana.w", "2023-05-08T13:56:03Z", "Club/#dm")


def test_a_message_with_words_keeps_its_handle_when_its_files_are_named():
    """Files came to be named in their messages ([attached: route.gpx]): a message with words
    and a file keeps the handle its words gave, so a channel exported again and read over the
    old export does not hold each such message twice."""
    document = json.loads(FIXTURE.read_text())
    shared = next(m for m in document["messages"] if m["attachments"])
    shared["content"] = "here is the route"
    with_file = parse_text(json.dumps(document), name="export.json").items
    shared["attachments"] = []
    without = parse_text(json.dumps(document), name="export.json").items
    assert [i.handle for i in with_file] == [i.handle for i in without]
    (item,) = [i for i in with_file if "route" in i.text]
    assert item.text == "here is the route\n[attached: route.gpx]"


def test_a_message_without_its_timestamp_or_author_is_kept_not_the_channel_lost(tmp_path):
    """A channel where one message lost its ``timestamp`` or its ``author`` was misread as an
    OpenAI chat and refused: now every message is kept, the one without a time said in the
    report, the one without an author by the name ``unknown``."""
    export = json.loads(FIXTURE.read_text())
    first, second, third = [dict(m) for m in export["messages"][1:4]]
    del second["timestamp"]
    del third["author"]
    export["messages"] = [first, second, third]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export))
    result = parse_path(path)
    assert result.format == "discord" == detect_format(path)
    assert [bool(i.time) for i in result.items] == [True, False, True]
    assert result.items[2].speaker == "unknown"
    assert result.notes == ["1 of 3 items have no time: the file writes none for them"]
