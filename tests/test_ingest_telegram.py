"""Telegram Desktop exports (result.json): every sender of a group and every message's time
(issue 14: who said it and when, for every format)."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "telegram_result.json"


def test_a_group_chat_export_keeps_every_sender_and_time():
    result = parse_path(FIXTURE)
    assert result.format == "telegram" == detect_format(FIXTURE)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya Patel", "2023-05-08T13:56:03Z"),     # date_unixtime: the moment, in UTC
        ("Tomás Ruiz", "2023-05-08T13:57:12Z"),
        ("Dana Whitfield", "2023-05-08T13:58:00Z"),  # a photo alone: before, counted and dropped
        ("Priya Patel", "2023-05-09T08:00:00Z"),
        ("Dana Whitfield", "2023-05-09T08:05:30Z"),
        ("Tomás Ruiz", "2023-05-09T08:07:00Z"),
        ("Dana Whitfield", "2023-05-09T22:30:00Z"),
    ]
    assert {i.session for i in result.items} == {"Running Club"}
    assert result.ignored == {"service": 1}
    assert result.skipped == [] and result.unread_times == []
    texts = [i.text for i in result.items]
    assert texts[1] == "Nice! Here is a plan: https://example.com/plan with three runs a week"
    assert texts[2] == "[attached: photo_1@08-05-2023_15-58-00.jpg]"
    assert texts[5] == "[forwarded from Coach Lee] Consistency beats intensity."
    assert texts[6] == "Yes"                       # a reply says who agreed: kept
    assert result.items[4].pointer.endswith("telegram_result.json#/messages/5")
    assert ("reply_to", "Running Club#5") in [r[1:] for r in result.items[4].relations]


def test_the_day_written_is_the_senders_day():
    # 00:30 on 10 May in the sender's zone is 22:30 on the 9th in UTC: "yesterday" is the 9th
    document = json.loads(FIXTURE.read_text())
    document["messages"][7]["text"] = "I ran the river loop yesterday"
    (item,) = [i for i in parse_text(json.dumps(document), name="result.json").items
               if "yesterday" in i.text]
    assert item.time == "2023-05-09T22:30:00Z"
    assert ("mentions_date", "2023-05-09") in [r[1:] for r in item.relations]


def test_an_account_export_reads_every_chat_as_its_session():
    chat = json.loads(FIXTURE.read_text())
    other = {"name": "Priya Patel", "type": "personal_chat", "id": 111, "messages": [
        {"id": 1, "type": "message", "date": "2023-05-11T09:00:00", "from": "Priya Patel",
         "text": "Can you lend me your foam roller?"}]}
    document = {"about": "Here is the data you requested.",
                "chats": {"about": "...", "list": [chat, other]}}
    result = parse_text(json.dumps(document), name="result.json")
    assert result.format == "telegram"
    assert {i.session for i in result.items} == {"Running Club", "Priya Patel"}
    last = result.items[-1]
    assert (last.speaker, last.time, last.pointer) == (
        "Priya Patel", "2023-05-11T09:00:00Z", "result.json#/chats/list/1/messages/0")


def test_a_telegram_chat_is_not_read_as_an_openai_chat():
    # its "messages" have no role: before, this was "no openai records could be parsed"
    text = json.dumps({"name": "Club", "type": "private_group", "id": 1, "messages": [
        {"id": 1, "type": "message", "date": "2023-05-08T13:56:03", "from": "Priya",
         "text": "Run on Saturday?"}]})
    result = parse_text(text, name="result.json")
    assert [(i.speaker, i.time, i.text) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:03Z", "Run on Saturday?")]


def test_a_question_naming_a_participant_by_first_name_favours_them(home):
    """Exports name people in full ("Dana Whitfield"); people ask by first name."""
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(FIXTURE)).exit_code == 0
    with Memory.open(home) as mem:
        mem.curate()
    out = run("query", 'goal_speaker("What did Dana suggest for Saturday?", A), '
                       'goal_speaker("what did Tomás Ruiz forward", B)', "--format", "json")
    assert json.loads(out.stdout) == [{"A": "Dana Whitfield", "B": "Tomás Ruiz"}]
    # the goal's first word is no name: "Dana" there may be, but "May" would not be
    none = run("query", 'goal_speaker("Tomás said what?", X)', "--format", "json")
    assert json.loads(none.stdout) == []
    frame = json.loads(run("hydrate", "What did Dana suggest for Saturday?", "--budget", "200",
                           "--format", "json").output)
    assert frame["receipt"]["facts"][0].get("speaker") == "Dana Whitfield"
    assert "Dana Whitfield: I suggest the river loop at 7am" in frame["text"]


def test_a_file_is_named_by_its_file_name_or_by_its_media_when_the_export_left_it_out():
    document = json.loads(FIXTURE.read_text())
    document["messages"] = [
        {"id": 1, "type": "message", "date": "2023-05-08T15:00:00", "from": "Dana",
         "file": "files/minutes.pdf", "file_name": "Minutes May.pdf", "text": "notes from today"},
        {"id": 2, "type": "message", "date": "2023-05-08T15:01:00", "from": "Priya",
         "file": "(File not included. Change data exporting settings to download.)",
         "media_type": "voice_message", "text": ""},
        {"id": 3, "type": "message", "date": "2023-05-08T15:02:00", "from": "Dana",
         "sticker_emoji": "👍", "media_type": "sticker", "text": ""}]
    result = parse_text(json.dumps(document), name="result.json")
    assert [i.text for i in result.items] == ["notes from today\n[attached: Minutes May.pdf]",
                                              "[attached: voice_message]"]
    assert result.ignored == {"media": 1}     # a sticker shares no file


def test_a_message_without_its_date_is_noted_not_the_chat_lost(tmp_path):
    """A chat where a message lost its ``date`` was misread as an OpenAI chat and refused
    ("no openai records could be parsed"): now the chat is read, that message kept without a
    time and said in the report, a date that cannot be read listed with its message."""
    chat = json.loads(FIXTURE.read_text())
    messages = [m for m in chat["messages"] if m.get("type") == "message"][:3]
    del messages[1]["date"], messages[1]["date_unixtime"]
    messages[2]["date"], messages[2]["date_unixtime"] = "not a date", ""
    chat["messages"] = messages
    path = tmp_path / "result.json"
    path.write_text(json.dumps(chat))
    result = parse_path(path)
    assert result.format == "telegram" == detect_format(path)
    assert [bool(i.time) for i in result.items] == [True, False, False]
    assert all(i.speaker for i in result.items)
    assert result.unread_times == [(3, "not a date")]
    assert result.notes == ["1 of 3 items have no time: the file writes none for them"]


def test_a_signed_channel_post_is_said_by_its_author():
    """A channel signs its posts with the admin who wrote them (`author`); `from` is the
    channel's own name, the session already. The person is the speaker; an unsigned post
    stays the channel's."""
    document = {"name": "Payments Announcements", "type": "public_channel", "id": 77,
                "messages": [
                    {"id": 1, "type": "message", "date": "2023-05-08T15:56:03",
                     "date_unixtime": "1683554163", "from": "Payments Announcements",
                     "from_id": "channel77", "author": "Dana Whitfield",
                     "text": "The retry budget moves to 5 on Monday."},
                    {"id": 2, "type": "message", "date": "2023-05-09T10:00:00",
                     "date_unixtime": "1683619200", "from": "Payments Announcements",
                     "from_id": "channel77", "text": "Maintenance window tonight."},
                ]}
    result = parse_text(json.dumps(document), name="result.json")
    assert result.format == "telegram"
    assert [(i.speaker, i.session) for i in result.items] == [
        ("Dana Whitfield", "Payments Announcements"),
        ("Payments Announcements", "Payments Announcements"),
    ]


def test_a_link_under_words_keeps_its_address():
    """Before, a ``text_link`` entity ("the route" linking a map) kept only its words: the
    address the message shared was lost. It is written as Slack's links are, words then
    address."""
    chat = {"name": "Club", "type": "private_group", "id": 1, "messages": [
        {"id": 1, "type": "message", "date": "2023-05-08T15:56:00", "date_unixtime": "1683554160",
         "from": "Priya", "from_id": "user1",
         "text": ["Here is ", {"type": "text_link", "text": "the route",
                               "href": "https://example.org/river-loop"},
                  " and ", {"type": "link", "text": "https://example.org/map"}, " for Saturday"]}]}
    (item,) = parse_text(json.dumps(chat), name="result.json").items
    assert item.text == ("Here is the route (https://example.org/river-loop) and "
                         "https://example.org/map for Saturday")


def test_a_message_with_a_link_keeps_the_handle_it_had_before_its_address_was_written():
    """The address is written into the text now: the handle stays the one its words gave, so
    the same chat exported again is not read as new messages."""
    chat = {"name": "Club", "type": "private_group", "id": 1, "messages": [
        {"id": 1, "type": "message", "date": "2023-05-08T15:56:00", "date_unixtime": "1683554160",
         "from": "Priya", "from_id": "user1",
         "text": ["Here is ", {"type": "text_link", "text": "the route", "href": "https://x.org/r"}]}]}
    (linked,) = parse_text(json.dumps(chat), name="result.json").items
    chat["messages"][0]["text"] = "Here is the route"
    (plain,) = parse_text(json.dumps(chat), name="result.json").items
    assert linked.handle == plain.handle and linked.text != plain.text
