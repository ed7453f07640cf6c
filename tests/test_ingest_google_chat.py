"""Google Chat from Google Takeout (``Google Chat/Groups/<conversation>/messages.json``):
every creator and every message's time, threads and edits linked (issue 14: who said it and
when, for every format people bring)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import InputError, Memory
from attention_cloud.ingest import detect_format, parse_path, parse_text

SPACE = (Path(__file__).parent / "fixtures" / "ingest" / "google_chat_takeout" / "Google Chat" /
         "Groups" / "Space AAAAx7Yq2")
MESSAGES = SPACE / "messages.json"


def test_a_space_keeps_every_creator_and_time():
    # before: refused, "no openai records could be parsed ... message has no "role"": a
    # Takeout conversation lost every message
    result = parse_path(MESSAGES)
    assert result.format == "google-chat" == detect_format(MESSAGES)
    assert [(i.speaker, i.time, i.text) for i in result.items] == [
        ("Priya Patel", "2023-05-08T13:56:03Z", "Who is running the river loop on Saturday?"),
        ("Tomás Ruiz", "2023-05-08T14:05:40Z", "I'm in, 7am at the bridge"),  # PM after U+202F
        ("Tomás Ruiz", "2023-05-08T14:06:10Z", "[attached: route.gpx]"),
        ("dana@example.org", "2023-05-09T08:02:00Z", "Count me in for next week"),  # no name
    ]
    assert {i.session for i in result.items} == {"Google Chat/Space AAAAx7Yq2"}
    assert result.ignored == {"deleted": 1}
    first, reply = result.items[:2]
    links = [r[1:] for r in reply.relations]
    assert ("reply_to", "Google Chat/Space AAAAx7Yq2#AAAAx7Yq2/t1Qx/t1Qx") in links
    assert ("edited", "2023-05-08T14:07:00Z") in links
    assert not any(r[1] == "reply_to" for r in first.relations)
    assert reply.pointer.endswith("messages.json#/messages/1")


@pytest.mark.parametrize("written, iso", [
    ("Monday, May 8, 2023 at 1:56:03 PM UTC", "2023-05-08T13:56:03Z"),
    ("Monday, May 8, 2023 at 1:56:03\u202fPM UTC", "2023-05-08T13:56:03Z"),
    ("Monday, 8 May 2023 at 13:56:03 UTC", "2023-05-08T13:56:03Z"),
    ("Monday, May 8, 2023 at 3:56:03 PM GMT+02:00", "2023-05-08T13:56:03Z"),
])
def test_each_date_form_takeout_writes(written, iso):
    document = {"messages": [{"creator": {"name": "Priya Patel", "user_type": "Human"},
                              "created_date": written, "text": "see you at the bridge",
                              "message_id": "a/b/c", "topic_id": "b"}]}
    (item,) = parse_text(json.dumps(document), name="messages.json").items
    assert item.time == iso


@pytest.mark.parametrize("written", [
    "Montag, 8. Mai 2023 um 13:56:03 UTC",                     # German
    "lundi 8 mai 2023 à 13:56:03 UTC",                         # French
    "lunes, 8 de mayo de 2023, 13:56:03 UTC",                  # Spanish
    "lunes, 8 de mayo de 2023, 1:56:03 p.m. UTC",              # Spanish, 12-hour clock
    "segunda-feira, 8 de maio de 2023 às 13:56:03 UTC",        # Portuguese
    "lunedì 8 maggio 2023 alle ore 13:56:03 UTC",              # Italian
    "maandag 8 mei 2023 om 13:56:03 UTC",                      # Dutch
    "måndag 8 maj 2023 kl. 13:56:03 UTC",                      # Swedish
    "mandag 8. mai 2023 kl. 13:56:03 UTC",                     # Norwegian
    "poniedziałek, 8 maja 2023 o 13:56:03 UTC",                # Polish
    "понедельник, 8 мая 2023 г. в 13:56:03 UTC",               # Russian
    "2023年5月8日月曜日 13:56:03 UTC",                          # Japanese
])
def test_a_date_in_the_accounts_language_keeps_its_time(written):
    # before: every one but the Japanese was reported unread, the message kept with no time
    document = {"messages": [{"creator": {"name": "Lena"}, "text": "Bis Samstag!",
                              "created_date": written}]}
    result = parse_text(json.dumps(document), name="messages.json")
    assert [(i.speaker, i.time) for i in result.items] == [("Lena", "2023-05-08T13:56:03Z")]
    assert result.unread_times == []


def test_a_date_no_reader_knows_is_reported_not_dropped():
    written = "maanantai 8. toukokuuta 2023 klo 13.56.03 UTC"  # Finnish: not read
    document = {"messages": [{"creator": {"name": "Lena"}, "text": "Nähdään lauantaina!",
                              "created_date": written}]}
    result = parse_text(json.dumps(document), name="messages.json")
    assert [(i.speaker, i.time) for i in result.items] == [("Lena", "")]
    assert result.unread_times == [(1, written)]


def test_the_takeout_folder_ingests_whole(home):
    """``group_info.json`` beside the messages is counted, not refused as undetectable."""
    assert detect_format(SPACE / "group_info.json") == "google-chat"
    with Memory.open(home) as mem:
        report = mem.ingest([str(SPACE.parent.parent.parent)], strict=True)
        assert report.files == 2 and report.new == 4
        rows = mem.query("item_speaker(H, S), item_time(H, T)").rows
    assert {r["S"] for r in rows} == {"Priya Patel", "Tomás Ruiz", "dana@example.org"}
    assert all(r["T"] for r in rows)


@pytest.mark.parametrize("folder", ["DM 5lH2sAAAAE", "Space AAAAx7Yq2"])
def test_an_empty_conversation_is_google_chat_holding_nothing(tmp_path, folder):
    # before: a Takeout conversation with no messages left ({"messages": []}) was detected as
    # openai and skipped as "no openai records could be parsed": a Google Chat export
    # misnamed as a chat API's, in the skip line and in --format's guess
    conversation = tmp_path / "Google Chat" / "Groups" / folder
    conversation.mkdir(parents=True)
    (conversation / "messages.json").write_text('{\n  "messages": []\n}\n')
    assert detect_format(conversation / "messages.json") == "google-chat"
    with pytest.raises(InputError, match=r"no google-chat records could be parsed \(it holds none\)"):
        parse_path(conversation / "messages.json")


def test_an_empty_conversation_beside_its_group_info_is_google_chat(tmp_path):
    (tmp_path / "group_info.json").write_text('{"name": "Run club", "members": []}')
    (tmp_path / "messages.json").write_text('{"messages": []}')
    assert detect_format(tmp_path / "messages.json") == "google-chat"


def test_an_empty_chat_elsewhere_stays_openai(tmp_path):
    """Only where Takeout puts it: ``{"messages": []}`` alone is any chat API's empty record."""
    (tmp_path / "messages.json").write_text('{"messages": []}')
    assert detect_format(tmp_path / "messages.json") == "openai"
    with pytest.raises(InputError, match=r"no google-chat records could be parsed \(it holds none\)"):
        parse_path(tmp_path / "messages.json", format="google-chat")
