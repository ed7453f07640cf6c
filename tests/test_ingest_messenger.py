"""Facebook Messenger and Instagram exports ("Download your information", JSON): every sender
and every message's time, text as it was written (issue 14: who said it and when, for every
format people bring)."""
from __future__ import annotations

import json
from pathlib import Path

from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURE = (Path(__file__).parent / "fixtures" / "ingest" / "messenger_export" /
           "your_facebook_activity" / "messages" / "inbox" / "runningclub_3825" / "message_1.json")


def _meta(text: str) -> str:
    """A string as Meta's export writes it: each UTF-8 byte a character of its own."""
    return text.encode("utf-8").decode("latin-1")


def test_a_messenger_thread_keeps_every_sender_and_time_oldest_first():
    # before: refused, "no openai records could be parsed (8 skipped; line 1: message has no
    # "role")": a Messenger thread lost every message
    result = parse_path(FIXTURE)
    assert result.format == "messenger" == detect_format(FIXTURE)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya Shah", "2023-05-08T13:56:00Z"),
        ("Tomás Ruiz", "2023-05-08T14:00:00Z"),
        ("Tomás Ruiz", "2023-05-09T08:05:00Z"),
        ("Priya Shah", "2023-05-09T09:00:00Z"),
    ]
    assert [i.role for i in result.items] == ["user", "assistant", "assistant", "user"]
    assert {i.session for i in result.items} == {"inbox/runningclub_3825"}
    assert result.items[1].text == "café at 5? 😀 I can bring the map"  # not "cafÃ©"
    assert ("title", "Running Club ☀") in [r[1:] for r in result.items[0].relations]
    assert result.items[2].text == "[attached: river_6612.jpg]"
    assert result.items[3].text == "Priya sent a link.\nhttps://example.org/river-loop"
    assert result.items[0].pointer.endswith("message_1.json#/messages/7")
    assert result.ignored == {"system": 2, "call": 1, "unsent": 1}


def test_text_already_right_is_left_as_it_is():
    thread = {"participants": [{"name": "Zoë"}], "title": "Zoë", "thread_path": "inbox/zoe_1",
              "messages": [{"sender_name": "Zoë", "timestamp_ms": 1683554160000,
                            "content": "naïve café, 東京 ok"}]}
    (item,) = parse_text(json.dumps(thread), name="message_1.json").items
    assert (item.speaker, item.text) == ("Zoë", "naïve café, 東京 ok")


def test_an_instagram_thread_and_an_older_export_in_epoch_seconds():
    thread = {"participants": [{"name": "priya.s"}, {"name": _meta("tomás.r")}],
              "title": "priya.s", "thread_path": "inbox/priyas_17845",
              "is_still_participant": True, "magic_words": [],
              "messages": [
                  {"sender_name": _meta("tomás.r"), "timestamp": 1683554400,
                   "content": "Liked a message"},
                  {"sender_name": "priya.s", "timestamp": 1683554280,
                   "content": "", "share": {"link": "https://www.instagram.com/p/Cr1/",
                                            "share_text": "river loop"}},
                  {"sender_name": _meta("tomás.r"), "timestamp": 1683554220,
                   "content": _meta("Sí, I'm in for Saturday")},
                  {"sender_name": "priya.s", "timestamp": 1683554160,
                   "content": "Running on Saturday morning?"}]}
    result = parse_text(json.dumps(thread, indent=2), name="message_1.json")
    assert result.format == "messenger"
    assert [(i.speaker, i.time, i.text) for i in result.items] == [
        ("priya.s", "2023-05-08T13:56:00Z", "Running on Saturday morning?"),
        ("tomás.r", "2023-05-08T13:57:00Z", "Sí, I'm in for Saturday"),
        ("priya.s", "2023-05-08T13:58:00Z", "https://www.instagram.com/p/Cr1/"),
    ]
    assert result.ignored == {"reaction": 1}


def test_an_end_to_end_encrypted_chat_export():
    thread = {"participants": ["Priya Shah", "Tomás Ruiz"], "threadName": "Tomás Ruiz",
              "messages": [
                  {"isUnsent": False, "media": [], "reactions": [], "senderName": "Priya Shah",
                   "text": "Can you send the route?", "timestamp": 1700000000000,
                   "type": "text"},
                  {"isUnsent": False, "media": [{"uri": "media/route_map.png"}],
                   "reactions": [], "senderName": "Tomás Ruiz", "text": "",
                   "timestamp": 1700000060000, "type": "media"},
                  {"isUnsent": True, "media": [], "reactions": [], "senderName": "Tomás Ruiz",
                   "text": "", "timestamp": 1700000090000, "type": "text"}]}
    result = parse_text(json.dumps(thread), name="tomas_ruiz.json")
    assert result.format == "messenger"
    assert [(i.speaker, i.time, i.text, i.session) for i in result.items] == [
        ("Priya Shah", "2023-11-14T22:13:20Z", "Can you send the route?", "Tomás Ruiz"),
        ("Tomás Ruiz", "2023-11-14T22:14:20Z", "[attached: route_map.png]", "Tomás Ruiz"),
    ]
    assert result.ignored == {"unsent": 1}


def test_a_message_whose_time_cannot_be_read_is_kept_and_reported():
    thread = {"participants": [{"name": "Dana"}], "thread_path": "inbox/dana_1",
              "messages": [{"sender_name": "Dana", "timestamp_ms": 1683554160000,
                            "content": "see you at the river"},
                           {"sender_name": "Dana", "timestamp_ms": "soon",
                            "content": "bring water"}]}
    result = parse_text(json.dumps(thread), name="message_1.json")
    assert [(i.text, bool(i.time)) for i in result.items] == [
        ("see you at the river", True), ("bring water", False)]
    assert result.unread_times == [(2, "soon")]
