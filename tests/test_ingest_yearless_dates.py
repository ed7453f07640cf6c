"""Date lines without a year (qa142): ``## May 8th`` and ``Tue 9 May`` were always reported
unread and their turns kept without a time. Where the file's name or its other date lines give
one year only, that year places them, and the ingest report says so; otherwise as before."""
from __future__ import annotations

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import parse_path

YEARLESS = ("## May 8th\n"
            "Priya: Are we still on for the river run tomorrow morning?\n"
            "Tomás: Yes, seven sharp at the bridge.\n\n"
            "## Tue 9 May\n"
            "Priya: I got there early and the path was flooded.\n"
            "Tomás: Sorry, I overslept this morning.\n")


def test_the_file_names_year_places_date_lines_without_one(tmp_path):
    path = tmp_path / "runs-2023-05-07.md"
    path.write_text(YEARLESS)
    result = parse_path(path)
    assert [(i.speaker, i.time[:10]) for i in result.items] == [
        ("Priya", "2023-05-08"), ("Tomás", "2023-05-08"),
        ("Priya", "2023-05-09"), ("Tomás", "2023-05-09")]
    assert result.unread_times == []
    assert any("without a year" in note and "2023" in note for note in result.notes)


def test_another_dated_line_places_them_in_a_bullet_chat_too(tmp_path):
    path = tmp_path / "club.md"
    path.write_text("**Sunday, May 7, 2023**\n- **Priya**: Who is in for a run?\n"
                    "- **Tomás**: Me, if it is early.\n- **Priya**: Seven then.\n\n"
                    "**Tuesday, the 9th of May**\n- **Tomás**: My knee hurts today.\n"
                    "- **Priya**: Rest it, we will go on Friday.\n")
    result = parse_path(path)
    assert [i.time[:10] for i in result.items] == ["2023-05-07"] * 3 + ["2023-05-09"] * 2
    assert result.unread_times == []
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0 and "without a year" in out.output, out.output


def test_no_year_two_years_or_a_wrong_weekday_stay_unread(tmp_path):
    bare = tmp_path / "chat.md"
    bare.write_text(YEARLESS)
    assert parse_path(bare).unread_times == [(1, "May 8th"), (5, "Tue 9 May")]
    two = tmp_path / "two.md"
    two.write_text("## May 1, 2022\nPriya: Hi there, long time.\nTomás: Hello again.\n\n"
                   "## May 1, 2023\nPriya: A year on already.\nTomás: Indeed it is.\n\n"
                   + YEARLESS)
    result = parse_path(two)
    assert result.unread_times == [(9, "May 8th"), (13, "Tue 9 May")]
    assert [i.time for i in result.items][-4:] == [""] * 4
    wrong = tmp_path / "chat-2024-05-01.md"  # 9 May 2024 is a Thursday
    wrong.write_text(YEARLESS)
    result = parse_path(wrong)
    assert result.unread_times == [(5, "Tue 9 May")]
    assert [i.time[:10] for i in result.items] == ["2024-05-08"] * 2 + [""] * 2
    turned = tmp_path / "turned.md"  # after 30 December, 2 January may be the next year's
    turned.write_text("## Dec 30, 2023\nPriya: Any plans for the new year?\nTomás: A run.\n\n"
                      "## Jan 2\nPriya: How was the run?\nTomás: Cold but good.\n")
    assert parse_path(turned).unread_times == [(5, "Jan 2")]


STAMPED = ("[2023-05-07 10:00] Priya: Kicking off the plan for the week ahead.\n"
           "[2023-05-07 10:01] Tomás: Sounds good to me, let's do it.\n"
           "Tue 9 May\n"
           "[13:56] Priya: Are we still on for the long run?\n"
           "[13:57] Tomás: Yes, at the bridge at seven.\n")


def test_speaker_lines_dated_in_full_give_the_year(tmp_path):
    """Speaker lines that write their whole date (``[2023-05-07 10:00] Priya: …``) gave no
    year to a date line without one below them: ``Tue 9 May`` was reported unread, and the
    clock times after it were put on 7 May, the day of the stamps above (a wrong day, not
    none). Their year is the file's as a date line's is."""
    path = tmp_path / "chat.txt"
    path.write_text(STAMPED)
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-07T10:00:00Z"), ("Tomás", "2023-05-07T10:01:00Z"),
        ("Priya", "2023-05-09T13:56:00Z"), ("Tomás", "2023-05-09T13:57:00Z")]
    assert result.unread_times == []
    assert any("without a year" in note and "2023" in note for note in result.notes)


def test_clock_times_below_an_unread_date_line_are_on_no_day(tmp_path):
    """Where the year cannot be told (stamps of two years), ``Tue 9 May`` stays unread, and
    the clock times below it keep no time rather than the day of the stamps above."""
    path = tmp_path / "chat.txt"
    path.write_text("[2022-12-30 10:00] Priya: Any plans for the new year?\n"
                    "[2023-01-02 10:01] Tomás: A run, as always.\n" + STAMPED.split("\n", 2)[2])
    result = parse_path(path)
    assert result.unread_times == [(3, "Tue 9 May")]
    assert [i.time for i in result.items] == ["2022-12-30T10:00:00Z", "2023-01-02T10:01:00Z",
                                             "", ""]
