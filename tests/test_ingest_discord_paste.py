"""Discord messages copied from the app and pasted into a file: each message under its
author's line, ``Priya — 05/08/2023 1:56 PM`` (the day as the app's locale writes it, ``Today
at 1:56 PM`` for today's). It was ``cannot detect format``; now each message is a turn of its
author at that time, a day the paste does not name reported unread."""
from __future__ import annotations

import pytest

from attention_cloud.ingest import detect_format, parse_path

PASTE = ("priya — {d1}\nAre we on for the run on Saturday?\n"
         "Tomás — {d2}\nYes, at seven.\nBring water.\n"
         "priya — {d3}\nGreat, see you there.\n")


@pytest.mark.parametrize("d1, d2, d3, times", [
    ("05/08/2023 1:56 PM", "05/08/2023 1:57 PM", "05/09/2023 8:02 AM",
     ["2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-09T08:02:00Z"]),
    ("08/05/2023 13:56", "08/05/2023 13:57", "14/05/2023 08:02",
     ["2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-14T08:02:00Z"]),
])
def test_a_pasted_discord_chat_is_each_message_with_its_author_and_time(tmp_path, d1, d2, d3,
                                                                         times):
    path = tmp_path / "club.txt"
    path.write_text(PASTE.format(d1=d1, d2=d2, d3=d3), encoding="utf-8")
    assert detect_format(path) == "text"
    result = parse_path(path)
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == [
        ("priya", "user", times[0], "Are we on for the run on Saturday?"),
        ("Tomás", "assistant", times[1], "Yes, at seven.\nBring water."),
        ("priya", "user", times[2], "Great, see you there.")]


def test_today_at_is_reported_unread_not_guessed(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text(PASTE.format(d1="Today at 1:56 PM", d2="Today at 1:57 PM",
                                 d3="Today at 2:02 PM"), encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [("priya", ""), ("Tomás", ""),
                                                           ("priya", "")]
    assert [n for n, _ in result.unread_times] == [1, 3, 6]
