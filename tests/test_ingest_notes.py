"""Dated Markdown notes (qa64): before, meeting notes whose headings carry the dates were
"cannot detect format", and refused even with --format markdown or text, so a team's notes
never reached memory; now each paragraph and list item is a note on its heading's day."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.errors import InputError
from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "2025-03-payments-sync.md"


def test_meeting_notes_keep_each_notes_day_heading_and_who_said_it():
    result = parse_path(FIXTURE)
    assert result.format == "notes" == detect_format(FIXTURE)
    assert [(i.time[:10], i.speaker, i.text.split(":")[0][:20]) for i in result.items] == [
        ("2025-03-04", "", "Attendees"),
        ("2025-03-04", "Omar", "migration 0042 timed"),  # listed among the attendees
        ("2025-03-04", "", "Decided to move the "),
        ("2025-03-04", "", "Action"),                   # a label, never a person
        ("2025-03-11", "", "We decided to drop P"),     # "## Tuesday, March 11, 2025"
        ("2025-03-11", "Dana", "the flaky test_settl"),
        ("2025-03-18", "", "Short meeting; nothi"),     # "## 18/03/2025": day first
    ]
    assert {(i.kind, i.role, i.goal) for i in result.items} == {
        ("note", "user", "Payments team sync")}
    assert result.items[1].pointer.endswith("2025-03-payments-sync.md:7")


def test_titles_lists_fences_and_the_file_names_date():
    text = ("# Work journal\n\nKicked off the ledger rewrite.\n\n"
            "## Standup — 2025-03-04\n\n- Fixed the flaky settlement test\n"
            "  - cause: a shared temp dir\n  - fix: tmp_path per test\n"
            "- Reviewed PR 118\n\n```\n## 2025-01-01\nnot a heading\n```\n\n"
            "### Blockers\n\n1. Staging is down\n")
    result = parse_text(text, name="2025-03-01-journal.md")
    assert result.format == "notes"
    assert [(i.time[:10], i.goal, i.text.split("\n")[0]) for i in result.items] == [
        ("2025-03-01", "Work journal", "Kicked off the ledger rewrite."),   # the file's date
        ("2025-03-04", "Work journal › Standup", "Fixed the flaky settlement test"),
        ("2025-03-04", "Work journal › Standup", "Reviewed PR 118"),
        ("2025-03-04", "Work journal › Standup", "```"),                   # a fence, whole
        ("2025-03-04", "Work journal › Standup › Blockers", "Staging is down")]
    assert result.items[1].text.endswith("  - fix: tmp_path per test")   # its sub-items
    assert result.items[1].pointer == "2025-03-01-journal.md:7-9"


def test_notes_without_a_dated_heading_are_still_no_transcript():
    with pytest.raises(InputError, match="cannot detect format"):
        parse_text("# Memory\n\n- the staging DB is read-only on Fridays\n", name="MEMORY.md")
    with pytest.raises(InputError, match="no dated headings"):
        parse_text("# Memory\n\n- a note\n", name="MEMORY.md", format="notes")


def test_cli_ingest_again_changes_nothing_and_a_new_meeting_adds_only_its_notes(tmp_path):
    notes = tmp_path / "team-sync.md"
    notes.write_text(FIXTURE.read_text())
    home = str(tmp_path / "home")

    def run(*args):
        out = CliRunner().invoke(main, [*args, "--home", home])
        assert out.exit_code == 0, out.output
        return out.stdout

    assert json.loads(run("ingest", str(notes), "--format-output", "json"))["new"] == 7
    assert json.loads(run("ingest", str(notes), "--format-output", "json"))["new"] == 0
    notes.write_text(notes.read_text() + "\n## 2025-03-25\n\n- Omar: deploy moved again\n")
    grown = json.loads(run("ingest", str(notes), "--format-output", "json"))
    assert (grown["new"], grown["unchanged"]) == (1, 7)
    rows = json.loads(run("query", "item_text(H, T), sub_string(T, _, _, _, \"Python 3.9\"), "
                                   "item_time(H, When)", "--format", "json"))
    assert [row["When"] for row in rows] == ["2025-03-11T00:00:00Z"]


def test_a_date_anywhere_in_a_heading_dates_its_notes():
    text = ("# Payments\n\n## Meeting 2025-03-04\n\n- moved the deploy\n\n"
            "## 2025-03-11 (Tue)\n\n- dropped Python 3.9\n\n## Standup 18.03.2025\n\n- all green\n\n"
            "## Week of March 24, 2025\n\n- froze main\n\n## Release 2.3.0 (2025-03-31)\n\n- shipped\n")
    result = parse_text(text, name="sync.md")
    assert result.format == "notes"
    assert [(i.time[:10], i.goal) for i in result.items] == [
        ("2025-03-04", "Payments › Meeting"), ("2025-03-11", "Payments"),
        ("2025-03-18", "Payments › Standup"), ("2025-03-24", "Payments › Week of"),
        ("2025-03-31", "Payments › Release 2.3.0")]


def test_a_sections_clock_time_dates_its_notes():
    """Before, the notes under "## Standup (09:00)" and "## Retro (15:00)" of a day's notes were
    all dated midnight: the time each section names was lost."""
    text = ("# Plan 2023-05-08\n\n## Standup (09:00)\n- ship the release\n- fix the build\n\n"
            "## Retro — 3:00 pm\n- the release went well\n\n## Follow-ups\n- book the venue\n")
    result = parse_text(text, name="plan.md")
    assert result.format == "notes"
    assert [(i.text, i.time, i.goal) for i in result.items] == [
        ("ship the release", "2023-05-08T09:00:00Z", "Plan › Standup"),
        ("fix the build", "2023-05-08T09:00:00Z", "Plan › Standup"),
        ("the release went well", "2023-05-08T15:00:00Z", "Plan › Retro"),
        ("book the venue", "2023-05-08T00:00:00Z", "Plan › Follow-ups")]
