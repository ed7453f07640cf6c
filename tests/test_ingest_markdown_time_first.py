"""Markdown logs whose timed headings write the time first and the speaker after it
(``## 9 May 14:03 — Priya``), and heading times of a day without a year. Before, such a log was
read as dated notes: no speaker, every note on the first date the file named (the 9 May turns
on 8 May). Now each heading is its speaker's turn; a day without a year takes the one year the
file's name or its other dates give, as the text chats' date lines do (qa142), else it is
reported unread and the turn kept without a time."""
from __future__ import annotations

import pytest

from attention_cloud.ingest import detect_format, parse_path
from ingest_checks import ingest_twice

TURNS = ("Are you coming to the river run on Saturday morning?",
         "Yes, I will bring the spare bottles for everyone.",
         "Great, then I will book the parking for both of us.",
         "Thanks, see you at the bridge at seven.")


def _log(*headings: str, title: str = "# Running club log\n\n") -> str:
    return title + "".join(f"## {h}\n{t}\n\n" for h, t in zip(headings, TURNS))


@pytest.mark.parametrize("headings, title", [
    (("8 May 2023 13:56 — Priya", "8 May 2023 13:58 — Tomás", "9 May 2023 14:03 — Priya",
      "9 May 2023 14:05 — Tomás"), "# Running club log\n\n"),
    (("2023-05-08 13:56 | Priya", "2023-05-08 13:58 | Tomás", "2023-05-09 14:03 | Priya",
      "2023-05-09 14:05 | Tomás"), ""),
    (("1:56 pm · Priya", "1:58 pm · Tomás", "Tue 9 May 2023, 2:03 pm · Priya",
      "2:05 pm · Tomás"), "# Club chat 2023-05-08\n\n"),
], ids=["day-month-year", "iso-with-bar", "clock-under-dated-title"])
def test_the_time_first_and_the_speaker_after_is_a_turn(tmp_path, headings, title):
    path = tmp_path / "club.md"
    path.write_text(_log(*headings, title=title), encoding="utf-8")
    assert detect_format(path) == "markdown"
    result = parse_path(path)
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == [
        ("Priya", "user", "2023-05-08T13:56:00Z", TURNS[0]),
        ("Tomás", "assistant", "2023-05-08T13:58:00Z", TURNS[1]),
        ("Priya", "user", "2023-05-09T14:03:00Z", TURNS[2]),
        ("Tomás", "assistant", "2023-05-09T14:05:00Z", TURNS[3])]
    assert result.unread_times == []


def test_a_heading_day_without_a_year_takes_the_year_of_an_earlier_heading(tmp_path):
    path = tmp_path / "club.md"
    path.write_text(_log("8 May 2023 13:56 — Priya", "8 May 2023 13:58 — Tomás",
                         "9 May 14:03 — Priya", "9 May 14:05 — Tomás"), encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:58:00Z"),
        ("Priya", "2023-05-09T14:03:00Z"), ("Tomás", "2023-05-09T14:05:00Z")]
    assert result.unread_times == []
    assert result.notes == ["2 heading time(s) without a year read in 2023, the only year the "
                            "file's name and dates give (line 9: '9 May 14:03')"]


@pytest.mark.parametrize("name", ["club-2023-05-07.md", "export-2023-05-20.md"])
def test_the_file_names_year_places_them_and_a_wrong_weekday_stays_unread(tmp_path, name):
    path = tmp_path / name  # the name's day, before or after theirs, gives only the year
    path.write_text(_log("Tue 9 May 14:03 — Priya", "Tue 9 May 14:05 — Tomás",
                         "Wed 9 May 14:07 — Priya", title=""), encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-09T14:03:00Z"), ("Tomás", "2023-05-09T14:05:00Z"), ("Priya", "")]
    assert result.unread_times == [(7, "Wed 9 May 14:07")]
    # the untimed turn is the one reported unread, not "the file writes none for it"
    assert not any("have no time" in note for note in result.notes)


def test_without_any_year_the_turns_keep_their_speakers_and_the_times_are_reported(tmp_path):
    path = tmp_path / "club.md"
    path.write_text(_log("9 May 14:03 — Priya", "9 May 14:05 — Tomás", "9 May 14:07 — Priya",
                         title=""), encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [("Priya", ""), ("Tomás", ""),
                                                           ("Priya", "")]
    assert result.unread_times == [(1, "9 May 14:03"), (4, "9 May 14:05"),
                                   (7, "9 May 14:07")]


def test_a_notes_files_timed_sections_stay_notes(tmp_path):
    path = tmp_path / "standup.md"
    path.write_text("# 2025-03-04\n## 09:00 — Standup\n- Omar: fixed the export bug\n\n"
                    "# 2025-03-05\n## 09:00 — Standup\n- Omar: shipping today\n",
                    encoding="utf-8")
    assert detect_format(path) == "notes"


def test_ingesting_it_again_is_an_upsert(tmp_path, home):
    path = tmp_path / "club.md"
    path.write_text(_log("8 May 2023 13:56 — Priya", "8 May 2023 13:58 — Tomás",
                         "9 May 14:03 — Priya", "9 May 14:05 — Tomás"), encoding="utf-8")
    new, before, after = ingest_twice(home, path)
    assert new == (4, 0) and before == after
