"""iMessage conversations as imessage-exporter writes them in text: every message and reply
with its sender and time (issue 14: no item loses its time or speaker, on any format people
bring)."""
from __future__ import annotations

from pathlib import Path

from attention_cloud.ingest import detect_format, parse_path, parse_text
from attention_cloud.ingest.imessage import is_imessage_export

CHAT = Path(__file__).parent / "fixtures" / "ingest" / "Priya Patel.txt"


def test_every_message_and_reply_keeps_its_sender_and_time():
    # before: "cannot detect format", the conversation refused
    result = parse_path(CHAT)
    assert result.format == "imessage" == detect_format(CHAT)
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == [
        ("Priya Patel", "assistant", "2023-05-08T13:56:03Z",
         "Who is running the river loop on Saturday?\nI can bring the map.\n\n"
         "Bring water too, it will be hot."),                      # paragraphs kept whole
        ("Me", "user", "2023-05-08T13:58:40Z", "Count me in, 7am at the bridge"),  # a reply
        ("Me", "user", "2023-05-08T14:05:10Z", "[attached: river_route.png]"),
        ("+15555550123", "assistant", "2023-05-09T10:00:00Z", "Is this the running club chat?"),
        ("Me", "user", "2023-05-09T10:01:30Z", "ok"),
    ]
    assert {i.session for i in result.items} == {"Priya Patel"}
    assert result.ignored == {"reaction": 1, "reply note": 1}
    reply = result.items[1]
    assert ("reply_to", "Priya Patel#1") in [r[1:] for r in reply.relations]
    assert result.items[0].pointer.endswith("Priya Patel.txt:1-6")
    assert reply.pointer.endswith("Priya Patel.txt:9-11")


def test_a_conversation_of_one_message_and_a_text_that_is_no_export():
    one = "May 08, 2023  1:56:03 PM\nPriya Patel\nRunning on Saturday?\n"
    (item,) = parse_text(one, name="Priya.txt").items
    assert (item.speaker, item.time) == ("Priya Patel", "2023-05-08T13:56:03Z")
    # two date lines in a row are no message: a list of dates is no conversation
    assert not is_imessage_export("May 08, 2023  1:56:03 PM\nMay 09, 2023  9:00:00 AM\n"
                                  "Two dates, no senders.\n")
