"""Speaker-line times counted from an anchor the file gives: Discord's ``Today at 10:03 PM`` and
``Yesterday at 9:03 PM`` in a pasted chat, Otter.ai's recording offsets (``Priya Patel  0:01``).

Before: a Discord paste's day words were reported unread even under a date line naming the
day, and Otter's offsets under a date line were read as clock times after midnight (``0:09``,
nine seconds in, became 00:09 that day). Now a date line above (or the file's name, for the day
words) anchors them; without an anchor they are reported unread with their lines, as before."""
from __future__ import annotations

import pytest

from attention_cloud.errors import InputError
from attention_cloud.ingest import parse_path
from ingest_checks import ingest_twice

PASTE = ("Priya — 05/08/2023 1:56 PM\nAre you coming to the river run on Saturday?\n"
         "Tomás — 05/08/2023 1:58 PM\nYes, I will bring the spare bottles.\n"
         "Priya — Yesterday at 9:03 PM\nDid you pack the map?\n"
         "Tomás — Today at 10:03 PM\nYes, it is in my bag now.\n")
OTTER = ("Priya Patel  0:01\nAre we all here? Let's talk about the Saturday run.\n\n"
         "Tomás Ruiz  0:09\nYes, I will bring the spare bottles for everyone.\n\n"
         "Priya Patel  1:02:20\nGreat, and I will book the parking.\n")


@pytest.mark.parametrize("name, above", [("club.txt", "# 2023-05-10\n\n"),
                                         ("club.txt", "Date: 10 May 2023\n\n"),
                                         ("club-2023-05-10.txt", "")])
def test_discords_day_words_count_from_the_date_the_file_gives(tmp_path, name, above):
    path = tmp_path / name
    path.write_text(above + PASTE, encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:58:00Z"),
        ("Priya", "2023-05-09T21:03:00Z"), ("Tomás", "2023-05-10T22:03:00Z")]
    assert result.unread_times == []


# Discord's app in other languages writes its day words its own way (before: each reported
# unread, and German's "Uhr" after the clock made the author lines no speaker lines at all, the
# paste read as notes with no speaker).
LOCALISED_DAY_WORDS = [
    ("Gestern um 21:03 Uhr", "Heute um 22:03 Uhr"),
    ("Hier à 21:03", "Aujourd’hui à 22:03"),
    ("ayer a las 21:03", "hoy a las 22:03"),
    ("Ontem às 21:03", "Hoje às 22:03"),
    ("Ieri alle 21:03", "Oggi alle 22:03"),
    ("gisteren om 21:03", "vandaag om 22:03"),
    ("Вчера, в 21:03", "Сегодня в 22:03"),
    ("Wczoraj o 21:03", "Dziś o 22:03"),
    ("Igår 21:03", "Idag 22:03"),
    ("i går kl. 21:03", "i dag kl. 22:03"),
    ("Dün saat 21:03", "Bugün saat 22:03"),
    ("eilen klo 21.03", "tänään klo 22.03"),
    ("昨日 21:03", "今日 22:03"),
    ("昨天 21:03", "今天 22:03"),
    ("어제 오후 9:03", "오늘 오후 10:03"),
]


# Each paste's turns, with the times the stamps above give them on 10 May 2023.
PASTE_TIMES = [("Priya", "2023-05-08T13:56:00Z"), ("Tomás", "2023-05-08T13:58:00Z"),
               ("Priya", "2023-05-09T21:03:00Z"), ("Tomás", "2023-05-10T22:03:00Z")]


def _paste(tmp_path, yesterday: str, today: str, *dates: str):
    """PASTE written on 10 May 2023 with the app's words for yesterday and today, and with
    ``dates`` (the first two authors' stamps) in place of the US dates when given."""
    text = PASTE.replace("Yesterday at 9:03 PM", yesterday).replace("Today at 10:03 PM", today)
    for us, written in zip(("05/08/2023 1:56 PM", "05/08/2023 1:58 PM"), dates):
        text = text.replace(us, written)
    path = tmp_path / "club-2023-05-10.txt"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("yesterday, today", LOCALISED_DAY_WORDS)
def test_discords_day_words_in_other_languages_count_from_the_date_too(tmp_path, yesterday,
                                                                      today):
    result = parse_path(_paste(tmp_path, yesterday, today))
    assert [(i.speaker, i.time) for i in result.items] == PASTE_TIMES
    assert result.unread_times == []


def test_a_german_paste_read_again_keeps_its_handles(tmp_path):
    path = _paste(tmp_path, "Gestern um 21:03 Uhr", "Heute um 22:03 Uhr",
                  "08.05.2023 13:56 Uhr", "08.05.2023 13:58")
    (first, again), before, after = ingest_twice(tmp_path / "home", path)
    assert (first, again) == (4, 0) and before == after
    assert [(s, t) for _, s, t in sorted(before, key=lambda row: row[2])] == PASTE_TIMES


def test_a_finnish_paste_with_its_dotted_clocks_keeps_every_time(tmp_path):
    """Finnish writes the clock with a dot: the author lines were no speaker lines at all."""
    path = _paste(tmp_path, "eilen klo 21.03", "tänään klo 22.03", "8.5.2023 13.56",
                  "8.5.2023 13.58")
    assert [(i.speaker, i.time) for i in parse_path(path).items] == PASTE_TIMES


def test_a_dash_before_a_price_makes_no_speaker_line(tmp_path):
    """Only a clock after a date or a day word is an author's time: a list of prices is no chat."""
    path = tmp_path / "costs.txt"
    path.write_text("Coffee — 3.50\nBagel — 12.75\nCoffee — 3.50\nBagel — 12.75\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match="cannot detect format"):
        parse_path(path)


def test_without_a_date_the_day_words_are_reported_with_their_lines(tmp_path):
    path = tmp_path / "club.txt"
    path.write_text(PASTE, encoding="utf-8")
    result = parse_path(path)
    assert [i.time for i in result.items][2:] == ["", ""]  # not the day of the turns above
    assert result.unread_times == [(5, "Yesterday at 9:03 PM"), (7, "Today at 10:03 PM")]


def test_otters_offsets_count_from_the_start_a_date_line_gives(tmp_path):
    path = tmp_path / "sync.txt"
    path.write_text("Weekly sync\nMay 8, 2023, 1:56 PM\n\n" + OTTER, encoding="utf-8")
    result = parse_path(path)
    assert [(i.speaker, i.time) for i in result.items] == [
        ("Priya Patel", "2023-05-08T13:56:01Z"), ("Tomás Ruiz", "2023-05-08T13:56:09Z"),
        ("Priya Patel", "2023-05-08T14:58:20Z")]
    assert result.unread_times == []


def test_otters_offsets_under_a_date_without_a_clock_take_its_day_not_a_clock(tmp_path):
    path = tmp_path / "sync.txt"
    path.write_text("Weekly sync\nDate: 8 May 2023\n\n" + OTTER, encoding="utf-8")
    result = parse_path(path)
    assert [i.time for i in result.items] == ["2023-05-08T00:00:00Z"] * 3  # not 00:01, 00:09
    assert result.unread_times == []


def test_otters_offsets_without_a_date_are_reported_with_their_lines(tmp_path):
    path = tmp_path / "sync.txt"
    path.write_text(OTTER, encoding="utf-8")
    result = parse_path(path)
    assert [i.time for i in result.items] == ["", "", ""]
    assert result.unread_times == [(1, "0:01"), (4, "0:09"), (7, "1:02:20")]


def test_a_slack_copy_keeps_its_clock_times(tmp_path):
    path = tmp_path / "general.txt"
    path.write_text("Date: 8 May 2023\n\n" + OTTER.replace("0:01", "1:56 PM")
                    .replace("0:09", "1:57 PM").replace("1:02:20", "2:05 PM"), encoding="utf-8")
    assert [i.time for i in parse_path(path).items] == [
        "2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-08T14:05:00Z"]


def test_ingesting_it_again_is_an_upsert(tmp_path, home):
    path = tmp_path / "sync.txt"
    path.write_text("Weekly sync\nMay 8, 2023, 1:56 PM\n\n" + OTTER, encoding="utf-8")
    new, before, after = ingest_twice(home, path)
    assert new == (3, 0) and before == after
