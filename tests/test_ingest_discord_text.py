"""DiscordChatExporter's plain-text export (``--format PlainText``): a preamble between rules of
62 ``=``, then ``[DATE] author`` over each message. Before, it was ``cannot detect format``: a
channel exported as text lost every message, its authors and its times."""
from __future__ import annotations

import pytest

from attention_cloud.ingest import detect_format, parse_path, parse_text
from attention_cloud.ingest.pointers import read_pointer
from ingest_checks import ingest_twice, refusal

RULE = "=" * 62
PREAMBLE = (f"{RULE}\nGuild: Running Club\nChannel: Text Channels / general\n"
            f"Topic: Weekend long runs\n{RULE}\n\n")
POSTAMBLE = f"{RULE}\nExported 7 message(s)\n{RULE}\n"
EXPORT = PREAMBLE + (
    "[{d1}] priya.p\nI signed up for the half marathon in October!\n\n"
    "Who wants to train together?\n\n\n"
    "[{d2}] tomas#4821 (pinned)\nCount me in. Saturday long runs from the bridge?\n\n"
    "{{Reactions}}\n👍 (2) 🏃\n\n"
    "[{d3}] dana.w\nJoined the server.\n\n\n"
    "[{d4}] priya.p\nHere is the route:\n\n"
    "{{Attachments}}\nhttps://cdn.discordapp.com/attachments/901/1102/route.gpx\n\n"
    "{{Embed}}\nRiver loop\nhttps://example.org/river\nA flat loop along the river\n\n\n"
    "[{d5}] dana.w\n\n\n{{Stickers}}\nhttps://media.discordapp.net/stickers/1.png\n\n\n"
    "[{d6}] dana.w\n\n\n{{Attachments}}\n"
    "https://cdn.discordapp.com/attachments/901/1/plan.pdf\n\n\n"
    "[{d7}] dana.w\nGreat first long run today, see you all next Saturday\n\n\n"
) + POSTAMBLE
MONTH_FIRST = ("5/8/2023 3:56 PM", "5/8/2023 3:58 PM", "5/8/2023 4:00 PM", "5/8/2023 4:02 PM",
               "5/9/2023 8:10 AM", "5/9/2023 8:15 AM", "5/13/2023 9:00 AM")
DAY_FIRST = ("08/05/2023 15:56", "08/05/2023 15:58", "08/05/2023 16:00", "08/05/2023 16:02",
             "09/05/2023 08:10", "09/05/2023 08:15", "13/05/2023 09:00")
OLDER = ("08-May-23 03:56 PM", "08-May-23 03:58 PM", "08-May-23 04:00 PM", "08-May-23 04:02 PM",
         "09-May-23 08:10 AM", "09-May-23 08:15 AM", "13-May-23 09:00 AM")


@pytest.mark.parametrize("dates", [MONTH_FIRST, DAY_FIRST, OLDER],
                         ids=["month-first", "day-first", "older-default"])
def test_a_text_export_keeps_every_author_and_time(tmp_path, dates):
    path = tmp_path / "Running Club - general [901].txt"
    path.write_text(EXPORT.format(**{f"d{n}": d for n, d in enumerate(dates, 1)}),
                    encoding="utf-8")
    assert detect_format(path) == "discord"
    result = parse_path(path)
    assert result.format == "discord"
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == [
        ("priya.p", "user", "2023-05-08T15:56:00Z",
         "I signed up for the half marathon in October!\n\nWho wants to train together?"),
        ("tomas", "assistant",  # tomas#4821 (pinned): the discriminator and mark are no name
         "2023-05-08T15:58:00Z", "Count me in. Saturday long runs from the bridge?"),
        ("priya.p", "user", "2023-05-08T16:02:00Z", "Here is the route:\n[attached: route.gpx]"),
        ("dana.w", "assistant", "2023-05-09T08:15:00Z", "[attached: plan.pdf]"),
        ("dana.w", "assistant", "2023-05-13T09:00:00Z",
         "Great first long run today, see you all next Saturday"),
    ]
    assert {i.session for i in result.items} == {"Running Club/#general"}
    assert result.ignored == {"GuildMemberJoin": 1, "attachment": 1}
    assert result.unread_times == [] and result.skipped == []


def test_a_message_points_at_its_header_and_all_its_lines(tmp_path):
    path = tmp_path / "general.txt"
    path.write_text(EXPORT.format(**{f"d{n}": d for n, d in enumerate(MONTH_FIRST, 1)}),
                    encoding="utf-8")
    first = parse_path(path).items[0]
    assert first.pointer.endswith("general.txt:7-10")
    assert read_pointer(first.pointer).splitlines()[0] == "[5/8/2023 3:56 PM] priya.p"


def test_a_date_not_read_is_reported_and_the_message_kept():
    result = parse_text(PREAMBLE + "[someday 1] ana\nsee you there\n\n" + POSTAMBLE,
                        name="club.txt")
    assert [(i.speaker, i.time, i.text) for i in result.items] == [("ana", "", "see you there")]
    assert result.unread_times == [(7, "someday 1")]


def test_a_preamble_without_messages_is_one_clear_line_and_writes_nothing(tmp_path, home):
    path = tmp_path / "empty.txt"
    path.write_text(PREAMBLE + POSTAMBLE, encoding="utf-8")
    assert refusal(home, path).endswith(
        "empty.txt: no messages in this DiscordChatExporter text export")


def test_ingesting_it_again_is_an_upsert(tmp_path, home):
    path = tmp_path / "general.txt"
    path.write_text(EXPORT.format(**{f"d{n}": d for n, d in enumerate(MONTH_FIRST, 1)}),
                    encoding="utf-8")
    new, before, after = ingest_twice(home, path)
    assert new == (5, 0) and before == after
