"""Times as their writers meant them: an offset written after UTC or GMT, a date of digits alone,
a day-first dotted date, the calendar day a relative date counts from, clock times on the day a
log gives (QA round 11)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.ingest import parse_path
from attention_cloud.ingest.timefmt import read_time


def _ingest_and_ask(home, path, goal: str) -> list[dict]:
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(path)).exit_code == 0
    out = run("query", goal, "--format", "json")
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


# -- an offset written after UTC or GMT -----------------------------------------------------------
@pytest.mark.parametrize("written, iso", [
    ("2023-05-08 13:56 UTC+2", "2023-05-08T11:56:00Z"),
    ("2023-05-08 13:56 UTC+05:30", "2023-05-08T08:26:00Z"),
    ("2023-05-08 13:56 GMT-5", "2023-05-08T18:56:00Z"),
    ("Mon May 08 2023 13:56:00 GMT+0200", "2023-05-08T11:56:00Z"),   # JavaScript's Date
    ("Mon May 08 2023 13:56:00 GMT+0200 (Central European Summer Time)", "2023-05-08T11:56:00Z"),
])
def test_an_offset_after_utc_or_gmt_is_ahead_of_utc_when_plus(written, iso):
    assert read_time(written) == iso


def test_a_gmt_offset_on_a_message_is_stored_as_written(home, tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "name": "Priya", "content": "The kiln is hot.",
                                "timestamp": "Mon May 08 2023 23:30:00 GMT+0200"}) + "\n")
    rows = _ingest_and_ask(home, path, "item_speaker(H, S), item_time(H, T)")
    assert [(r["S"], r["T"]) for r in rows] == [("Priya", "2023-05-08T21:30:00Z")]


# -- digits that write a date -----------------------------------------------------------------------
@pytest.mark.parametrize("written, iso", [
    ("20230508", "2023-05-08T00:00:00Z"),      # ISO 8601's basic form, not 23 August 1970
    (20230508, "2023-05-08T00:00:00Z"),
    ("2023", None),                            # a year alone names no day, nor 00:33:43 in 1970
    (2023, None),
    ("20230230", None),                        # no such day
    ("1683554160", "2023-05-08T13:56:00Z"),    # epoch seconds stay epoch seconds
])
def test_digits_that_write_a_date_are_that_date_not_epoch_seconds(written, iso):
    assert read_time(written) == iso


@pytest.mark.parametrize("written", [0, 0.0, "0", 12.5, "86400", 99_999_999])
def test_a_placeholder_or_a_count_from_a_runs_start_is_not_a_1970_time(written):
    """0 and seconds since a run started are not times a transcript was written at: read as
    1970 they would sort first in every time window; they are reported unread instead."""
    assert read_time(written) is None


def test_a_basic_iso_date_on_a_message_dates_it(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "I potted the fern yesterday.",
                                "timestamp": "20230508"}) + "\n")
    (item,) = parse_path(path).items
    assert item.time == "2023-05-08T00:00:00Z"
    assert ("mentions_date", "2023-05-07") in [(p, o) for _, p, o in item.relations]


# -- a dotted date is day first -----------------------------------------------------------------------
@pytest.mark.parametrize("written, iso", [
    ("05.06.2023 19:47", "2023-06-05T19:47:00Z"),   # 5 June, as Germany writes it, not May 6
    ("5.6.23", "2023-06-05T00:00:00Z"),
    ("28.05.2023 19:47", "2023-05-28T19:47:00Z"),
    ("2023.05.06", "2023-05-06T00:00:00Z"),         # year first: month, then day
    ("05/06/2023", "2023-05-06T00:00:00Z"),         # slashes stay month first, as the US writes
])
def test_a_dotted_date_puts_the_day_first(written, iso):
    assert read_time(written) == iso


# -- a clock written with dots after a date (Finnish, Danish) --------------------------------------
@pytest.mark.parametrize("written, iso", [
    ("8.5.2023 15.56", "2023-05-08T15:56:00Z"),      # before: unread
    ("08.05.2023 15.56.03", "2023-05-08T15:56:03Z"),
    ("08.05.2023 15.56 +02:00", "2023-05-08T13:56:00Z"),
    ("2023-05-08 12.15", "2023-05-08T12:15:00Z"),    # before: read as noon
    ("2023-05-08 12:15:30.5", "2023-05-08T12:15:30Z"),  # a fraction of a second stays one
])
def test_a_clock_written_with_dots_after_a_date_is_that_clock(written, iso):
    assert read_time(written) == iso


def test_a_dotted_date_heading_dates_the_turns_under_it(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("Date: 03.04.2023\nPriya: The kiln cracked yesterday.\n"
                    "Tomás: Which shelf?\nPriya: The top one.\nTomás: I will look.\n")
    items = parse_path(path).items
    assert {i.time for i in items} == {"2023-04-03T00:00:00Z"}
    assert ("mentions_date", "2023-04-02") in [(p, o) for _, p, o in items[0].relations]


# -- the day a relative date counts from is the day the turn was written on ----------------------------
def test_yesterday_counts_back_from_the_day_the_turn_was_written_on(home, tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in [
        # 09:00 in Sydney on 8 May is 23:00 UTC on the 7th: her yesterday is the 7th, not the 6th
        {"role": "user", "name": "Priya", "content": "I went to the pottery class yesterday.",
         "timestamp": "2023-05-08T09:00:00+10:00"},
        # 23:30 in California on 8 May is 06:30 UTC on the 9th: his yesterday is the 7th
        {"role": "user", "name": "Tomás", "content": "Yesterday I ran twelve miles.",
         "timestamp": "2023-05-08 23:30 PDT"},
        {"role": "user", "name": "Ana", "content": "Two days ago I broke my wrist.",
         "timestamp": "2023-05-08T13:56:00Z"},
    ]))
    rows = _ingest_and_ask(home, path, "item_speaker(H, S), item_time(H, T), "
                                       "relation(H, mentions_date, D)")
    assert sorted((r["S"], r["T"], r["D"]) for r in rows) == [
        ("Ana", "2023-05-08T13:56:00Z", "2023-05-06"),
        ("Priya", "2023-05-07T23:00:00Z", "2023-05-07"),
        ("Tomás", "2023-05-09T06:30:00Z", "2023-05-07")]


def test_a_session_date_with_a_zone_dates_yesterday_by_its_own_day(tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text("## Session 1 — 2023-05-08 07:00 +09:00\n"
                    "Priya: I glazed the bowls yesterday.\nTomás: Which ones?\n"
                    "Priya: The blue ones.\nTomás: Nice.\n")
    first = parse_path(path).items[0]
    assert first.time == "2023-05-07T22:00:00Z"
    assert ("mentions_date", "2023-05-07") in [(p, o) for _, p, o in first.relations]


# -- a log's clock times are on the day the log writes -----------------------------------------------
def test_clock_headings_stay_on_the_day_a_zoned_heading_wrote(tmp_path):
    path = tmp_path / "standup.md"
    path.write_text("# Standup log\n\n"
                    "## User — 2026-01-02 23:30 PST\nWhy did the nightly deploy fail?\n\n"
                    "## Assistant (23:45 PST)\nThe billing migration timed out.\n\n"
                    "## User (00:10 PST)\nIt failed the day before yesterday too.\n")
    items = parse_path(path).items
    # 23:45 PST on 2 January is 07:45 UTC on the 3rd, not on the 4th; 00:10 PST is past midnight
    assert [i.time for i in items] == ["2026-01-03T07:30:00Z", "2026-01-03T07:45:00Z",
                                       "2026-01-03T08:10:00Z"]
    assert ("mentions_date", "2026-01-01") in [(p, o) for _, p, o in items[2].relations]


def test_a_speaker_lines_clock_time_is_on_the_day_the_text_gave(home, tmp_path):
    path = tmp_path / "team.txt"
    path.write_text("Team chat\n\nDate: 8 May 2023\n\n"
                    "[10:30] Priya: I finished the pottery class yesterday.\n"
                    "[10:31] Tomás: Nice, how was the last lesson?\n"
                    "[23:50] Priya: Still glazing, the kiln is slow.\n"
                    "[00:05] Tomás: Go to bed, it is past midnight.\n")
    result = parse_path(path)
    assert result.unread_times == []   # they were reported unread, the items dated at midnight
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T10:30:00Z"), ("Tomás", "2023-05-08T10:31:00Z"),
        ("Priya", "2023-05-08T23:50:00Z"), ("Tomás", "2023-05-09T00:05:00Z")]
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(home)])
    assert out.exit_code == 0 and "times unread: 0" in out.output


# -- a time that cannot be read leaves the item without one, as the report says ------------------------
UNREADABLE = "the day after the party"


def _chatgpt_export(path):
    node = lambda i, parent, t, text: {"id": f"n{i}", "parent": parent, "children": [f"n{i + 1}"],
                                       "message": {"author": {"role": "user"}, "create_time": t,
                                                   "content": {"content_type": "text",
                                                               "parts": [text]}}}
    path.write_text(json.dumps([{"id": "c1", "title": "Kiln", "create_time": 1683554160,
                                 "current_node": "n2", "mapping": {
                                     "n1": node(1, None, 1683554160, "Why did the kiln crack?"),
                                     "n2": node(2, "n1", UNREADABLE, "Was it the glaze?")}}]))


@pytest.mark.parametrize("name, write", [
    ("chat.json", lambda p: p.write_text(json.dumps({
        "timestamp": "2023-05-08T13:56:00Z", "messages": [
            {"role": "user", "content": "Why did the kiln crack?"},
            {"role": "user", "content": "Was it the glaze?", "timestamp": UNREADABLE}]}))),
    ("share.json", lambda p: p.write_text(json.dumps([{
        "timestamp": "2023-05-08T13:56:00Z", "conversations": [
            {"from": "human", "value": "Why did the kiln crack?"},
            {"from": "human", "value": "Was it the glaze?", "timestamp": UNREADABLE}]}]))),
    ("conversations.json", _chatgpt_export),
    ("chat.txt", lambda p: p.write_text(
        "Date: 8 May 2023 13:56\nUser: Why did the kiln crack?\n"
        f"[{UNREADABLE}] User: Was it the glaze?\n")),
])
def test_an_unreadable_time_is_not_replaced_by_the_conversations(tmp_path, name, write):
    path = tmp_path / name
    write(path)
    result = parse_path(path)
    assert [u[1] for u in result.unread_times] == [UNREADABLE]
    assert [i.time for i in result.items] == ["2023-05-08T13:56:00Z", ""]


def test_a_bracketed_word_without_a_clock_is_not_put_on_the_day(tmp_path):
    path = tmp_path / "team.txt"
    path.write_text("Date: 8 May 2023\n[Sunday] Priya: The kiln cracked.\n"
                    "[10:31] Tomás: Which shelf?\nPriya: The top one.\nTomás: I will look.\n")
    result = parse_path(path)
    assert [u[1] for u in result.unread_times] == ["Sunday"]
    assert [i.time for i in result.items][:2] == ["", "2023-05-08T10:31:00Z"]
