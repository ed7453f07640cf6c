"""DiscordChatExporter's CSV export (``--format Csv``: ``AuthorID,Author,Date,Content,
Attachments,Reactions``): every author and every message's time kept (issue 14: who said it and
when, for every format people bring)."""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.ingest import detect_format, parse_path, parse_text
from attention_cloud.ingest.pointers import read_pointer

CSV = Path(__file__).parent / "fixtures" / "ingest" / "Running Club - general [901].csv"
HEADER = "AuthorID,Author,Date,Content,Attachments,Reactions\n"


@pytest.fixture(scope="module")
def parsed():
    return parse_path(CSV)


def test_a_channel_keeps_every_author_and_time(parsed):
    # before: "cannot detect format": a CSV export lost every message (and a folder of them
    # was not even walked)
    assert parsed.format == "discord" == detect_format(CSV)
    assert [(i.speaker, i.time, i.text) for i in parsed.items] == [
        ("priya.p", "2023-05-08T15:56:00Z",
         "I signed up for the half marathon in October! Who wants to train together?"),
        ("tomas",  # tomas#4821: the discriminator is no part of the name
         "2023-05-08T15:58:00Z",
         'Count me in. Saturday long runs, "slow and steady", from the bridge?'),
        ("priya.p", "2023-05-08T16:02:00Z",
         "Here is the route:\nriver loop, then the hill twice\n"
         "[attached: route.gpx, elevation.png]"),
        ("dana.w", "2023-05-09T08:15:00Z", "[attached: training-plan.pdf]"),
        ("dana.w", "2023-05-13T09:00:00Z", "Great first long run today, see you all next Saturday"),
    ]
    assert [i.role for i in parsed.items] == ["user", "assistant", "user", "assistant",
                                              "assistant"]
    assert {i.session for i in parsed.items} == {"Running Club - general [901]"}
    assert parsed.ignored == {"GuildMemberJoin": 1}
    assert parsed.skipped == [(8, "row has 4 fields, not 6 (AuthorID,Author,Date,Content,"
                                  "Attachments,Reactions)")]


def test_a_message_over_several_lines_points_at_all_of_them(parsed):
    route = parsed.items[2]
    assert route.pointer.endswith(".csv:5-6")
    assert read_pointer(route.pointer).startswith('"101","priya.p","5/8/2023 4:02 PM","Here is')


def test_dates_written_day_first_are_read_day_first():
    text = HEADER + ('"1","ana","08/05/2023 13:56","first light run","",""\n'
                     '"2","ben","13/05/2023 09:00","long run done","",""\n')
    result = parse_text(text, name="club.csv")
    assert [i.time for i in result.items] == ["2023-05-08T13:56:00Z", "2023-05-13T09:00:00Z"]


# The exporter prints a date in its machine's culture (.NET's general short date and time).
# Before, the cultures that write the clock with dots, Finnish and Danish, had every message's
# time reported unread; the others were read and stay so.
@pytest.mark.parametrize("first, second", [
    ("5/8/2023 3:56 PM", "5/9/2023 8:20 AM"),          # en-US
    ("08/05/2023 15:56", "09/05/2023 08:20"),          # en-GB, fr-FR, es-ES, it-IT, pt-BR
    ("08.05.2023 15:56", "09.05.2023 08:20"),          # de-DE, ru-RU, pl-PL
    ("2023/05/08 15:56", "2023/05/09 8:20"),           # ja-JP
    ("2023. 5. 8. 오후 3:56", "2023. 5. 9. 오전 8:20"),  # ko-KR
    ("2023/5/8 下午 03:56", "2023/5/9 上午 08:20"),      # zh-TW
    ("8.5.2023 15.56", "9.5.2023 8.20"),               # fi-FI
    ("08.05.2023 15.56", "09.05.2023 08.20"),          # da-DK
])
def test_dates_in_the_exporters_cultures_keep_every_messages_time(first, second):
    text = HEADER + (f'"1","ana","{first}","first light run","",""\n'
                     f'"2","ben","{second}","long run done","",""\n')
    result = parse_text(text, name="club.csv")
    assert [(i.speaker, i.time) for i in result.items] == [
        ("ana", "2023-05-08T15:56:00Z"), ("ben", "2023-05-09T08:20:00Z")]
    assert result.unread_times == []


def test_a_time_not_read_is_reported_and_the_message_kept():
    text = HEADER + '"1","ana","someday soon","see you there","",""\n'
    result = parse_text(text, name="club.csv")
    assert [(i.speaker, i.time) for i in result.items] == [("ana", "")]
    assert result.unread_times == [(2, "someday soon")]


def test_a_header_alone_is_one_clear_line():
    with pytest.raises(Exception) as caught:
        parse_text(HEADER, name="empty.csv")
    assert str(caught.value) == "empty.csv: no messages in this DiscordChatExporter CSV export"


def test_a_folder_of_csv_exports_is_ingested_whole(home, tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / CSV.name).write_bytes(CSV.read_bytes())
    (folder / "prices.csv").write_text("sku,price\nA1,3.50\n")
    with Memory.open(home) as mem:
        report = mem.ingest([str(folder)], strict=False)
        rows = mem.query("item_speaker(H, S), item_time(H, T)").rows
    assert report.new == 5
    assert any("prices.csv" in name for name, _ in report.files_skipped)
    assert {r["S"] for r in rows} == {"priya.p", "tomas", "dana.w"} and all(r["T"] for r in rows)


def test_a_csv_of_something_else_forced_as_discord_names_every_shape_read():
    """Before, ``--format discord`` on another CSV named only the JSON export's fields."""
    with pytest.raises(Exception) as caught:
        parse_text("sku,price\nA1,3.50\n", name="prices.csv", format="discord")
    message = str(caught.value)
    assert message.startswith("prices.csv: not a DiscordChatExporter export")
    assert "AuthorID,Author,Date,Content,Attachments,Reactions" in message and "\n" not in message


def test_a_row_too_long_for_csv_is_skipped_with_its_line_and_the_rest_read():
    """Before, a field over the csv module's limit (131,072 characters; Discord allows 4,000)
    ended the whole ingest with a traceback-born ``Error``; now that row is skipped, named."""
    text = HEADER + (f'"1","ana","5/8/2023 1:00 PM","{"x" * 200_000}","",""\n'
                     '"2","ben","5/8/2023 1:05 PM","see you at seven","",""\n')
    result = parse_text(text, name="club.csv")
    assert [(i.speaker, i.text) for i in result.items] == [("ben", "see you at seven")]
    assert [line for line, _ in result.skipped] == [2]
    assert "field larger than field limit" in result.skipped[0][1]


@pytest.mark.parametrize("again", [
    "june/Running Club - general [901].csv",                          # another folder
    "Running Club - general [901] (after 2023-05-01).csv",            # a date range asked for
    "Running Club - general [901] (2023-05-01 to 2023-06-01) [part 2].csv",
], ids=["another-folder", "date-range", "range-and-part"])
def test_the_channel_exported_again_gives_its_messages_once(home, tmp_path, again):
    """The CSV has no message ids: a message's handle is its channel's session, author and
    time. Before, the session was the file's name, told apart by its folder, so the channel
    exported again into another folder, or for a date range (which the exporter writes into
    the name), gave every message it shared with the first export a second time (5 messages
    held as 10)."""
    first = tmp_path / "may" / CSV.name
    second = tmp_path / again
    for path in (first, second):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(CSV.read_bytes())
    with Memory.open(home) as mem:
        mem.ingest([str(first)])
        report = mem.ingest([str(second)])
        rows = mem.query("item_session(H, S)").rows
    assert report.new == 0 and report.unchanged == 5
    assert {r["S"] for r in rows} == {"Running Club - general [901]"} and len(rows) == 5


def test_a_session_the_caller_names_is_kept():
    result = parse_path(CSV, session="club-archive")
    assert {i.session for i in result.items} == {"club-archive"}
