"""Markdown logs with timed speaker headings: the heading's time goes to the item, on the
file's date (a date heading or line, else the file name); no date is reported, never
silently dropped (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def test_the_date_comes_from_the_file_name():
    path = FIXTURES / "2026-01-02-standup.md"
    result = parse_path(path)
    assert detect_format(path) == "markdown" and result.format == "markdown"
    assert [(i.kind, i.role, i.time, i.pointer.rsplit(":", 1)[1]) for i in result.items] == [
        ("user_goal", "user", "2026-01-02T03:56:00Z", "3-4"),   # the heading to the last line
        ("conclusion", "assistant", "2026-01-02T03:57:00Z", "6-13"),
        ("user_goal", "user", "2026-01-02T04:05:00Z", "15-16"),  # the fenced heading starts nothing
    ]
    assert "(03:56 UTC)" not in " ".join(i.text for i in result.items)
    assert "inside a code block" in result.items[1].text


def test_date_headings_midnight_people_and_tools():
    result = parse_path(FIXTURES / "timed_log.md")
    assert result.unread_times == []
    assert [(i.role, i.speaker, i.time) for i in result.items] == [
        ("user", "", "2026-03-14T23:58:00Z"),
        ("assistant", "", "2026-03-14T23:59:00Z"),
        ("user", "", "2026-03-15T00:03:00Z"),          # the clock went back: the next day
        ("user", "Priya", "2026-03-20T09:15:00Z"),     # a new date heading
        ("assistant", "Tomás", "2026-03-20T09:17:00Z"),
        ("tool", "", "2026-03-20T09:18:00Z"),
        ("user", "Priya", "2026-03-20T09:20:00Z"),
    ]
    assert result.items[5].kind == "error"


def test_without_a_date_items_are_kept_and_the_times_reported(tmp_path):
    path = FIXTURES / "undated_log.md"
    result = parse_path(path)
    assert [i.time for i in result.items] == ["", ""] and len(result.items) == 2
    assert result.unread_times == [(1, "03:56 UTC"), (4, "03:58 UTC")]
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "h")])
    assert out.exit_code == 0 and "times unread: 2" in out.output
    assert f"time unread {path}:1: '03:56 UTC' (item kept without a time)" in out.output


def test_heading_forms_and_full_times():
    text = ("# Log\n\n## User — 2026-04-01 08:00\nWhere are the kiln logs kept?\n\n"
            "## ChatGPT [08:01]\nIn the studio drive under logs/kiln.\n\n"
            "## GPT-4 · 8:02 pm\nCorrection: the evening firings are in logs/night.\n")
    result = parse_text(text, name="notes.md")
    assert result.format == "markdown"
    assert [(i.role, i.time) for i in result.items] == [
        ("user", "2026-04-01T08:00:00Z"), ("assistant", "2026-04-01T08:01:00Z"),
        ("assistant", "2026-04-01T20:02:00Z")]


def test_detection_does_not_take_plain_speaker_files_or_dated_notes():
    assert detect_format(FIXTURES / "transcript.md") == "text"
    notes = "# Plan\n\n## Standup (09:00)\nShip it.\n\n## Retro (15:00)\nWent well.\n"
    assert parse_text("User: hi, how do I glaze?\n" + notes, name="x.md").format == "text"


def test_ingested_times_are_queryable(home):
    with Memory.open(home) as mem:
        mem.ingest([str(FIXTURES / "timed_log.md")])
        rows = mem.query('item_speaker(H, "Tomás"), item_time(H, T)').rows
    assert [r["T"] for r in rows] == ["2026-03-20T09:17:00Z"]


def test_numeric_dates_are_read_in_one_order_for_the_whole_log(tmp_path):
    """`### Priya (08/05/2023 13:56)` was read month first (5 August) even where a later
    heading's 13/05/2023 says the log writes the day first; an undecidable log is read by its
    clock (24-hour: day first) and the report says so."""
    decided = tmp_path / "club.md"
    decided.write_text("### Priya (08/05/2023 13:56)\nI signed up for the pottery class\n"
                       "### Tomás (08/05/2023 13:57)\nWhich studio?\n"
                       "### Priya (13/05/2023 09:00)\nFirst class went well\n", encoding="utf-8")
    result = parse_path(decided)
    assert [i.time for i in result.items] == ["2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z",
                                              "2023-05-13T09:00:00Z"]
    assert result.notes == []
    # 24-hour: day first; the US's "1:56 PM": month first; "1:56 pm", as en-GB, en-IN and
    # en-AU write a 12-hour clock: day first
    for clock, day in (("13:56", "2023-05-08T13:56:00Z"), ("1:56 PM", "2023-08-05T13:56:00Z"),
                       ("1:56 pm", "2023-05-08T13:56:00Z")):
        undecided = tmp_path / "undecided.md"
        undecided.write_text(f"# 08/05/2023\n### Priya ({clock})\nI signed up for pottery\n"
                             f"### Tomás (08/05/2023 {clock})\nWhich studio?\n"
                             f"### Priya (08/05/2023 {clock})\nThe one on Elm Street\n",
                             encoding="utf-8")
        result = parse_path(undecided)
        assert result.items[0].time == day, (clock, result.items[0].time)
        # three turns in one minute of one day: a chat, no section recurring each day
        assert [i.speaker for i in result.items] == ["Priya", "Tomás", "Priya"]
        assert len(result.notes) == 1 and "08/05/2023 could be day/month or month/day" \
            in result.notes[0]


def test_two_timed_headings_of_two_names_are_a_chat(tmp_path):
    """Before, a log of two people who each spoke once ("### Priya · 9:15 am", "### Tomás ·
    9:17 am") was read as dated notes: both speakers lost, and both clock times too (each
    note at midnight of the heading's date)."""
    path = tmp_path / "pottery.md"
    path.write_text("# Pottery chat — 2023-05-08\n\n### Priya · 9:15 am\n"
                    "I signed up for the pottery class yesterday.\n\n### Tomás · 9:17 am\n"
                    "Nice, which studio?\n", encoding="utf-8")
    result = parse_path(path)
    assert result.format == "markdown" == detect_format(path)
    assert [(i.speaker, i.role, i.time) for i in result.items] == [
        ("Priya", "user", "2023-05-08T09:15:00Z"), ("Tomás", "assistant", "2023-05-08T09:17:00Z")]
    # sections of notes are no people: lists, or a few words each
    notes = ("# Plan 2023-05-08\n\n## Standup (09:00)\n- ship it\n- fix the build\n\n"
             "## Retro (15:00)\n- went well\n")
    assert parse_text(notes, name="plan.md").format == "notes"
    short = "# Plan 2023-05-08\n\n## Standup (09:00)\nShip it.\n\n## Retro (15:00)\nWent well.\n"
    assert parse_text(short, name="plan.md").format == "notes"


FAMILY_CHAT = ("# Family chat — 2025-03-04\n\n"
               "## Maria de la Cruz (09:15)\nWho is picking up grandma from the airport on Friday?\n\n"
               "## Tomás (09:20)\nI can do it after work, around six.\n\n"
               "## Maria de la Cruz (09:22)\nGreat, I will tell her to wait at arrivals.\n\n"
               "## Tomás (09:30)\nSend me her flight number please.\n")


def test_a_heading_of_a_name_of_four_words_keeps_its_speaker_and_clock():
    """Before, "## Maria de la Cruz (09:15)" was no heading (names stopped at three words):
    her first turn was lost, her second glued into Tomás's with its heading, and neither kept
    her name or its clock."""
    result = parse_text(FAMILY_CHAT, name="family.md")
    assert result.format == "markdown"
    assert [(i.speaker, i.time, i.text) for i in result.items] == [
        ("Maria de la Cruz", "2025-03-04T09:15:00Z",
         "Who is picking up grandma from the airport on Friday?"),
        ("Tomás", "2025-03-04T09:20:00Z", "I can do it after work, around six."),
        ("Maria de la Cruz", "2025-03-04T09:22:00Z", "Great, I will tell her to wait at arrivals."),
        ("Tomás", "2025-03-04T09:30:00Z", "Send me her flight number please."),
    ]
    # a long heading that is no name (words in lower case) is still no speaker
    plan = ("# Plan 2025-03-04\n\n## Planning with the design team (10:00)\n"
            "We agreed to ship the beta next week.\n\n"
            "# Plan 2025-03-11\n\n## Planning with the design team (10:00)\n"
            "The beta shipped and the first reports are in.\n")
    assert parse_text(plan, name="plan.md").format == "notes"


def test_a_journal_s_parts_of_the_day_are_no_speakers():
    """Before, a journal's "## Morning (07:30)" and "## Evening (19:45)" were read as two
    people who each spoke once (each section a sentence): "Morning" took the user's role and
    its entry became a goal. A part of the day, or a day's name, heads no one's turn."""
    journal = ("# Journal — 2025-03-04\n\n## Morning (07:30)\n"
               "Went for a run along the river before work, legs still sore.\n\n"
               "## Evening (19:45)\nCooked dinner with Tomás and planned the trip to Porto.\n")
    result = parse_text(journal, name="journal.md")
    assert result.format == "notes"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("", "2025-03-04T07:30:00Z"), ("", "2025-03-04T19:45:00Z")]
    # nor when the same part of the day comes back on the next day
    two_days = journal + ("\n# Journal — 2025-03-05\n\n## Morning (07:10)\n"
                          "Slept badly, skipped the run and walked instead.\n")
    result = parse_text(two_days, name="journal.md")
    assert result.format == "notes"
    assert {i.speaker for i in result.items} == {""}
    assert result.items[-1].time == "2025-03-05T07:10:00Z"


DAILY_NOTES = ("# Payments team log\n\n## 2025-03-04\n\n## Standup (09:00)\n"
               "Priya finished the retry policy and the tests pass on staging.\n\n"
               "## Retro (15:00)\nThe release went out without a rollback this time.\n\n"
               "## 2025-03-05\n\n## Standup (09:00)\n"
               "Tomás will pair with Dana on the flaky webhook test.\n\n"
               "## Retro (15:00)\nWe agreed to freeze merges on Fridays.\n")


def test_a_section_that_recurs_each_day_at_its_hour_is_no_speaker():
    """Before, "## Standup (09:00)" heading a section on two days was taken for a person who
    spoke twice: every note's speaker was "Standup" or "Retro", read as a chat of two people.
    A name heading turns only ever at one hour is a recurring section: the file is notes."""
    result = parse_text(DAILY_NOTES, name="log.md")
    assert result.format == "notes"
    assert [(i.speaker, i.time, i.goal) for i in result.items] == [
        ("", "2025-03-04T09:00:00Z", "Payments team log › Standup"),
        ("", "2025-03-04T15:00:00Z", "Payments team log › Retro"),
        ("", "2025-03-05T09:00:00Z", "Payments team log › Standup"),
        ("", "2025-03-05T15:00:00Z", "Payments team log › Retro")]


@pytest.mark.parametrize("label", ["Session", "Update", "Call with Dana"])
def test_timed_headings_over_a_chats_speaker_lines_are_its_sessions_not_a_speaker(label):
    """"## Session (2023-05-08 13:56)" over each session of a chat made "Session" a person who
    spoke twice: every turn was said by "Session", the speaker lines under it (Priya:,
    Tomás:) glued into its text. Headings over the lines of two people or more are that chat's
    sessions: they date the turns under them, each said by its own speaker."""
    text = (f"## {label} (2023-05-08 13:56)\n\nPriya: I signed up for the pottery class yesterday.\n"
            "Tomás: Which studio did you pick?\n\n"
            f"## {label} (2023-05-28 19:47)\n\nPriya: The one by the river.\nTomás: Lovely.\n")
    result = parse_text(text, name="chat.md")
    assert result.format == "text"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:56:00Z"),
        ("Priya", "2023-05-28T19:47:00Z"), ("Tomás", "2023-05-28T19:47:00Z")]


def test_a_person_who_speaks_at_the_same_hour_twice_is_still_a_speaker():
    """The recurring-section rule asks only of a file where no name heads turns at two
    different hours: a chat keeps everyone, the one who spoke at 09:00 on two days too."""
    text = ("# Club chat\n\n## 2025-03-04\n\n### Priya (09:00)\nWho has the kiln key today?\n\n"
            "### Tomás (09:05)\nI do, I will leave it at the desk.\n\n"
            "## 2025-03-05\n\n### Priya (09:00)\nThanks, the glaze firing went fine.\n\n"
            "### Tomás (10:30)\nGreat, I will pick the pots up after lunch.\n")
    result = parse_text(text, name="club.md")
    assert result.format == "markdown"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2025-03-04T09:00:00Z"), ("Tomás", "2025-03-04T09:05:00Z"),
        ("Priya", "2025-03-05T09:00:00Z"), ("Tomás", "2025-03-05T10:30:00Z")]


@pytest.mark.parametrize("heading", ["# Session log 2026-01-02", "# Standup 02.01.2026",
                                     "## Log 2 January 2026", "# Sync January 2, 2026 (Fri)"])
def test_a_heading_that_ends_with_its_date_dates_the_clock_times_below_it(heading):
    """Before, a title with its date after a word and no separator ("# Session log 2026-01-02",
    this module's own example) dated nothing: every turn's clock time was reported unread and
    kept no time, in markdown logs and text transcripts alike."""
    log = (f"{heading}\n## User (03:56 UTC)\nWhy does the nightly export time out?\n"
           "## Assistant (03:57 UTC)\nIt loads every row at once.\n")
    result = parse_text(log, name="log.md")
    assert result.format == "markdown"
    assert [i.time for i in result.items] == ["2026-01-02T03:56:00Z", "2026-01-02T03:57:00Z"]
    assert result.unread_times == []
    text = (f"{heading}\n\nPriya (09:00): the build is green again\n"
            "Tomás (09:02): great, shipping at ten\nPriya (09:03): ok I will tag it\n")
    result = parse_text(text, name="standup.md")
    assert result.format == "text"
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2026-01-02T09:00:00Z"), ("Tomás", "2026-01-02T09:02:00Z"),
        ("Priya", "2026-01-02T09:03:00Z")]
