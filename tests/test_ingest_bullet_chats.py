"""Chats as people write them in Markdown (qa142): bullets of named speakers under a date line
(``**2023-05-08**`` or ``## 2023-05-08``, then ``- **Priya**: …``). Before, the bold date line
gave "cannot detect format" and the heading read each turn as a ``note``; now each bullet is
a dated turn of its speaker, while meeting notes with ``- Name:`` items stay notes."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import detect_format, parse_path

CHAT = ("# Book club chat\n\n{day1}\n"
        "- **Priya**: Has everyone finished chapter three?\n"
        "- **Tomás**: Almost, I have ten pages left.\n"
        "- **Priya**: No rush, we meet on Friday.\n\n{day2}\n"
        "- **Tomás**: Finished it last night. The ending surprised me.\n"
        "- **Priya**: Same here, I did not see it coming.\n")


@pytest.mark.parametrize("day1, day2", [("**2023-05-08**", "**2023-05-09**"),
                                        ("## 2023-05-08", "## 2023-05-09"),
                                        ("**Monday, May 8, 2023**", "**Tuesday, May 9, 2023**")])
def test_bullets_of_named_speakers_under_a_date_are_dated_turns(tmp_path, day1, day2):
    path = tmp_path / "club.md"
    path.write_text(CHAT.format(day1=day1, day2=day2))
    result = parse_path(path)
    assert detect_format(path) == "text" == result.format
    assert [(i.speaker, i.role, i.time[:10]) for i in result.items] == [
        ("Priya", "user", "2023-05-08"), ("Tomás", "assistant", "2023-05-08"),
        ("Priya", "user", "2023-05-08"), ("Tomás", "assistant", "2023-05-09"),
        ("Priya", "user", "2023-05-09")]
    assert result.items[0].text == "Has everyone finished chapter three?"
    assert result.items[1].pointer.endswith("club.md:5")
    assert {i.kind for i in result.items} != {"note"}


def test_a_bullets_sub_items_stay_in_its_turn(tmp_path):
    path = tmp_path / "trip.md"
    path.write_text("**2023-05-08**\n- **Priya**: What do we pack?\n"
                    "- **Tomás**: Three things:\n  - a tent\n  - two stoves\n"
                    "- **Priya**: I have the tent already.\n")
    result = parse_path(path)
    assert [(i.speaker, i.time[:10]) for i in result.items] == [
        ("Priya", "2023-05-08"), ("Tomás", "2023-05-08"), ("Priya", "2023-05-08")]
    assert "two stoves" in result.items[1].text


def test_the_cli_ingests_a_bullet_chat(tmp_path):
    path = tmp_path / "club.md"
    path.write_text(CHAT.format(day1="**2023-05-08**", day2="**2023-05-09**"))
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0, out.output
    assert "cannot detect" not in out.output


@pytest.mark.parametrize("text", [
    # minutes: a speaker item among the meeting's own items
    "## 2025-03-04\n- Omar: migration 0042 timed out again.\n- Decided to move the deploy.\n"
    "- Priya: I will pair with Omar.\n- Omar: thanks, Thursday then.\n",
    # bold names, but a decision among them: minutes
    "## 2025-03-04\n- **Omar**: migration 0042 timed out again.\n- **Priya**: I will pair.\n"
    "- Decided to move the deploy.\n- **Omar**: thanks, Thursday then.\n",
    # names in plain text, taking turns: minutes as notes.py reads them
    "## 2025-03-04\n- Omar: migration 0042 timed out again.\n- Priya: I will pair with him.\n"
    "- Omar: thanks, Thursday then.\n",
    # one speaker's items only: nobody takes turns
    "## 2025-03-04\n- Omar: migration 0042 timed out again.\n- Omar: rolled it back.\n",
    # no date line above the bullets
    "# Ideas\n- **Omar**: a cache for the ledger.\n- **Priya**: retries on settlement.\n"
    "- **Omar**: both, then.\n\n## 2025-03-04\nWe met.\n",
])
def test_notes_with_name_items_stay_notes(tmp_path, text):
    path = tmp_path / "notes.md"
    path.write_text(text)
    assert detect_format(path) == "notes"
    assert {i.kind for i in parse_path(path).items} == {"note"}


PLAIN = ("# Running club\n{day}\n"
         "{b} {t1}Priya: Are we still on for the long run on Saturday?\n"
         "{b} {t2}Tomás: Yes, meeting at the bridge at seven sharp.\n"
         "{b} {t3}Priya: Great, I will bring the water bottles.\n")


@pytest.mark.parametrize("day, b, stamps, times", [
    # names in plain text under a date line that is no heading: no notes reader takes them
    ("**2023-05-08**", "-", ("", "", ""), ["2023-05-08T00:00:00Z"] * 3),
    ("2023-05-08", "*", ("", "", ""), ["2023-05-08T00:00:00Z"] * 3),
    # each bullet with its clock time: a log of messages, under a heading too
    ("2023-05-08", "*", ("13:56 ", "13:57 ", "13:58 "),
     ["2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-08T13:58:00Z"]),
    ("## 2023-05-08", "-", ("[13:56] ", "[13:57] ", "[13:58] "),
     ["2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-08T13:58:00Z"]),
    # each bullet with its whole date: no date line needed
    ("", "-", ("2023-05-08 13:56 ", "2023-05-08 13:57 ", "2023-05-08 13:58 "),
     ["2023-05-08T13:56:00Z", "2023-05-08T13:57:00Z", "2023-05-08T13:58:00Z"]),
])
def test_plain_or_timed_bullet_chats_are_turns(tmp_path, day, b, stamps, times):
    """Bullets of people's names in plain text under a bold or bare date line (``- Priya:
    …``), or bullets that each carry their time (``* 13:56 Priya: …``), were no chat (the
    names were not bold) and no notes (no dated heading): ``cannot detect format``, the whole
    file left out. They are turns of each speaker, each with its time."""
    path = tmp_path / "club.md"
    path.write_text(PLAIN.format(day=day, b=b, t1=stamps[0], t2=stamps[1], t3=stamps[2]))
    assert detect_format(path) == "text"
    result = parse_path(path)
    assert [(i.speaker, i.role, i.time) for i in result.items] == [
        ("Priya", "user", times[0]), ("Tomás", "assistant", times[1]),
        ("Priya", "user", times[2])]
    assert result.items[1].text == "Yes, meeting at the bridge at seven sharp."
    out = CliRunner().invoke(main, ["ingest", str(path), "--home", str(tmp_path / "home")])
    assert out.exit_code == 0 and "new: 3" in out.output, out.output
