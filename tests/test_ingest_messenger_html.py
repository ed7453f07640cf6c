"""Facebook Messenger and Instagram exports in HTML, the default format of "Download your
information" (``messages/inbox/<thread>/message_1.html``). Before, such a page was ``cannot
detect format``: only the JSON export was read, and a thread exported as HTML lost every
message, its senders and its times."""
from __future__ import annotations

from pathlib import Path

import pytest


from attention_cloud.errors import InputError
from attention_cloud.ingest import detect_format, parse_path, parse_text
from ingest_checks import ingest_twice, refusal

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
THREAD = (FIXTURES / "messenger_export" / "your_facebook_activity" / "messages" / "inbox" /
          "runningclub_3825")
INSTAGRAM = (FIXTURES / "instagram_export" / "your_instagram_activity" / "messages" / "inbox" /
             "dana_1742" / "message_1.html")


def test_a_messenger_page_keeps_every_sender_and_time_oldest_first():
    page = THREAD / "message_1.html"
    assert detect_format(page) == "messenger"
    result = parse_path(page)
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == [
        ("Priya Shah", "user", "2023-05-08T13:56:00Z",
         "Who's in for the river loop on Saturday?\nhttps://example.org/river-loop"),
        ("Tomás Ruiz", "assistant", "2023-05-08T14:00:00Z",
         "café at 5? 😀\nI can bring the map"),  # the reaction below it is no one's words
        ("Tomás Ruiz", "assistant", "2023-05-09T08:05:00Z", "[attached: river_6612.jpg]"),
        ("Priya Shah", "user", "2023-05-09T09:00:00Z",
         "Sounds good, see you at the bridge & bring water"),
    ]
    assert result.ignored == {"unsent": 1}
    assert ("title", "Running Club ☀") in [r[1:] for r in result.items[0].relations]
    assert result.items[0].pointer.endswith("message_1.html:9")


def test_the_html_and_json_pages_of_a_thread_are_one_session():
    html = parse_path(THREAD / "message_1.html")
    json = parse_path(THREAD / "message_1.json")
    assert {i.session for i in html.items} == {i.session for i in json.items} == {
        "inbox/runningclub_3825"}


def test_an_instagram_page_of_the_newer_layout():
    assert detect_format(INSTAGRAM) == "messenger"
    result = parse_path(INSTAGRAM)
    assert [(i.speaker, i.time, i.text) for i in result.items] == [
        ("priya.shah", "2022-06-18T21:30:02Z", "Are you running the half in October?"),
        ("dana.w", "2022-06-18T21:35:16Z", "Yes! Saturday at seven works for me"),
    ]
    assert result.ignored == {"reaction": 1}
    assert {i.session for i in result.items} == {"inbox/dana_1742"}


def test_a_date_not_read_is_reported_and_the_message_kept():
    page = ('<html><head><title>Dana</title></head><body><section class="_a6-g">'
            '<h2 class="_a6-h">Dana</h2><div class="_a6-p"><div>see you there</div></div>'
            '<footer class="_a6-o"><div class="_a72d">someday</div></footer></section>'
            "</body></html>")
    result = parse_text(page, name="message_1.html")
    assert [(i.speaker, i.time, i.text) for i in result.items] == [("Dana", "", "see you there")]
    assert result.unread_times == [(1, "someday")]


def test_a_page_without_messages_is_one_clear_line_and_writes_nothing(tmp_path, home):
    page = tmp_path / "message_1.html"
    page.write_text('<html><body><div class="_a6-g"></div><div class="_a6-h"></div>'
                    '<div class="_a6-o"></div></body></html>', encoding="utf-8")
    assert refusal(home, page).endswith(
        "message_1.html: no messages in this Messenger or Instagram HTML export")


def test_ingesting_it_again_is_an_upsert(tmp_path, home):
    page = tmp_path / "inbox" / "runningclub_3825" / "message_1.html"
    page.parent.mkdir(parents=True)
    page.write_bytes((THREAD / "message_1.html").read_bytes())
    new, before, after = ingest_twice(home, page)
    assert new == (4, 0) and before == after


def test_a_page_of_posts_sharing_the_marks_is_no_chat(tmp_path):
    """Meta's pages of posts and comments are built of the same blocks: only a thread's page
    (``message_1.html``, or one in an ``inbox`` thread folder) is read as messages."""
    page = tmp_path / "your_posts_1.html"
    page.write_text('<html><body><div class="_a6-g"><h2 class="_a6-h">Dana shared a link.</h2>'
                    '<div class="_a6-p">https://example.org</div><div class="_a6-o">Jun 18, '
                    '2022 9:35:16 pm</div></div></body></html>', encoding="utf-8")
    with pytest.raises(InputError, match="cannot detect format"):
        detect_format(page)
