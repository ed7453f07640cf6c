"""DiscordChatExporter's HTML export (``--format HtmlDark``/``HtmlLight``, its default): every
author and every message's time kept (issue 14: who said it and when, for every format people
bring)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.ingest import detect_format, parse_path, parse_text
from attention_cloud.ingest.message_words import comparable_words
from attention_cloud.ingest.pointers import read_pointer

HTML = Path(__file__).parent / "fixtures" / "ingest" / "Running Club - general [901].html"


@pytest.fixture(scope="module")
def parsed():
    return parse_path(HTML)


def test_a_channel_keeps_every_author_and_time(parsed):
    # before: "cannot detect format": the exporter's default format lost every message
    assert parsed.format == "discord" == detect_format(HTML)
    assert [(i.speaker, i.time, i.text) for i in parsed.items] == [
        ("Priya Patel", "2023-05-08T15:56:00Z",
         "I signed up for the half marathon in October!\nWho wants to train together?"),
        ("Priya Patel", "2023-05-08T15:57:00Z",
         "Saturdays & Sundays work for me\n[attached: route.gpx]"),
        ("Tomás", "2023-05-09T08:20:00Z", "Count me in, 7am at the bridge\n[attached: bridge.jpg]"),
    ]
    assert {i.session for i in parsed.items} == {"Running Club/#general"}
    assert parsed.ignored == {"system": 1}


def test_replies_and_edits_are_linked(parsed):
    edited, reply = parsed.items[1], parsed.items[2]
    assert ("edited", "2023-05-08T16:05:00Z") in [r[1:] for r in edited.relations]
    assert ("reply_to", "901#2") in [r[1:] for r in reply.relations]
    assert ("message_id", "901#4") in [r[1:] for r in reply.relations]


def test_a_message_points_at_its_lines(parsed):
    assert '<div id="chatlog__message-container-4"' in read_pointer(parsed.items[2].pointer)


def test_an_html_page_of_no_messages_is_one_clear_line():
    page = HTML.read_text().split('<div class="chatlog">')[0] + "</body></html>"
    with pytest.raises(Exception) as caught:
        parse_text(page, name="empty.html", format="discord")
    assert str(caught.value) == "empty.html: no messages in this DiscordChatExporter HTML export"


def test_a_page_exported_on_a_finnish_machine_keeps_every_time(tmp_path):
    """The exporter prints dates in its machine's culture; Finnish writes the clock with a dot
    (``8.5.2023 15.56``), and every message's time was reported unread."""
    page = HTML.read_text(encoding="utf-8")
    for us, finnish in (("5/8/2023 1:55 PM", "8.5.2023 13.55"),
                        ("5/8/2023 3:56 PM", "8.5.2023 15.56"),
                        ("5/8/2023 3:57 PM", "8.5.2023 15.57"),
                        ("5/8/2023 4:05 PM", "8.5.2023 16.05"),
                        ("5/9/2023 8:20 AM", "9.5.2023 8.20")):
        page = page.replace(us, finnish)
    path = tmp_path / HTML.name
    path.write_text(page, encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya Patel", "2023-05-08T15:56:00Z"), ("Priya Patel", "2023-05-08T15:57:00Z"),
        ("Tomás", "2023-05-09T08:20:00Z")]
    assert result.unread_times == []


def _json_export_of_the_page(path: Path, contents: dict[str, str]) -> Path:
    """The channel of the HTML fixture as the exporter's JSON writes it: each message's
    ``content`` with its markdown as typed (``contents``, by message id)."""
    authors = {"2": ("priya.p", "Priya Patel"), "3": ("priya.p", "Priya Patel"),
               "4": ("tomas", "Tomás")}
    files = {"3": "route.gpx", "4": "bridge.jpg"}
    stamps = {"2": "2023-05-08T15:56:03+00:00", "3": "2023-05-08T15:57:10+00:00",
              "4": "2023-05-09T08:20:30+00:00"}
    messages = [{"id": mid, "type": "Default", "timestamp": stamps[mid],
                 "content": contents[mid], "author": {"name": authors[mid][0],
                                                      "nickname": authors[mid][1]},
                 "attachments": [{"fileName": files[mid]}] if mid in files else []}
                for mid in ("2", "3", "4")]
    document = {"guild": {"id": "900", "name": "Running Club"},
                "channel": {"id": "901", "category": "Text Channels", "name": "general"},
                "messages": messages}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_message_with_markdown_is_one_item_from_the_json_and_the_html_export(tmp_path):
    """The JSON export keeps a message's markdown as typed (``the **half marathon**``), the
    HTML page renders it (``the <strong>half marathon</strong>``): the handle came from each
    text, so the same message read from both exports of the channel was two items. The handle
    now comes from the words the message says, which both write alike."""
    exported = _json_export_of_the_page(tmp_path / "Running Club - general [901].json", {
        "2": "I signed up for the **half marathon** in October!\nWho wants to train together?",
        "3": "Saturdays & Sundays work for me",
        "4": "Count me in, 7am at the bridge"})
    from_json, from_html = parse_path(exported), parse_path(HTML)
    assert [i.text for i in from_json.items][0].startswith("I signed up for the **half marathon**")
    assert [(i.handle, i.kind, i.speaker, i.session) for i in from_json.items] == \
        [(i.handle, i.kind, i.speaker, i.session) for i in from_html.items]


@pytest.mark.parametrize("typed, rendered", [
    ("run **7 km** at _easy_ pace, ~~8~~ __no__ more", "run 7 km at easy pace, 8 no more"),
    ("```py\nprint(pace(10, 55))\n```", "print(pace(10, 55))"),
    ("see [the route](https://example.com/r/7) :party_parrot: 🙂", "see the route"),
    ("> quoted\n||spoiler|| at 10:30:45 `code`", "quoted\nspoiler at 10:30:45 code"),
])
def test_the_words_a_message_says_are_the_same_however_its_export_writes_them(typed, rendered):
    assert comparable_words(typed) == comparable_words(rendered)
    assert comparable_words("at 10:30") != comparable_words("at 10")  # a clock is no emoji
