"""Meeting notes: a timed label over the roll call is no speaker (and its text is kept), and
Markdown headings with a day but no clock are turns when people take turns under one date,
never when they are a notes file's daily sections (qa130)."""

from __future__ import annotations

import pytest

from attention_cloud.ingest import parse_text

CALL = """\
[09:01] Priya: I finished the retry patch; it needs review.
[09:02] Omar: I'll review it after lunch.
[09:03] Lee: The staging deploy is blocked on the cert renewal.
[09:04] Priya: I can renew the cert today.
[09:05] Omar: Then we ship Thursday.
[09:06] Lee: Agreed, Thursday it is.
"""


@pytest.mark.parametrize("label", ["Standup", "Q3 Planning"])
def test_a_roll_call_label_is_kept_as_a_note_and_the_first_person_is_the_user(label):
    text = f"[09:00] {label}: Priya, Omar and Lee joined the call.\n" + CALL
    result = parse_text(text, name="standup-2025-03-04.txt")
    assert result.format == "text"
    items = [(i.kind, i.role, i.speaker, i.time, i.text) for i in result.items]
    assert items[0] == ("note", "user", "", "2025-03-04T09:00:00Z",
                        f"{label}: Priya, Omar and Lee joined the call.")
    assert items[1] == ("user_goal", "user", "Priya", "2025-03-04T09:01:00Z",
                        "I finished the retry patch; it needs review.")
    assert {i.speaker for i in result.items} == {"", "Priya", "Omar", "Lee"}
    assert {i.role for i in result.items if i.speaker == "Priya"} == {"user"}


def test_a_third_person_who_speaks_once_later_is_still_a_speaker():
    text = CALL + "[09:07] Dana: Sorry I'm late, I'll read the notes.\n"
    result = parse_text(text, name="standup-2025-03-04.txt")
    assert [i.speaker for i in result.items][-1] == "Dana"


CHAT = """\
# Chat with Tomás

## Priya — May 8, 2023
Did you book the venue for the club meetup?

## Tomás — May 8, 2023
Yes, the back room at Café Lume, from 7 pm.

## Priya — May 8, 2023
Great, I'll tell the others it starts at seven.

## Tomás — May 8, 2023
Ask them to bring their own mugs, the café is short.
"""


def test_dated_headings_of_people_taking_turns_are_turns():
    result = parse_text(CHAT, name="chat.md")
    assert result.format == "markdown"
    assert [(i.speaker, i.role, i.time[:10]) for i in result.items] == [
        ("Priya", "user", "2023-05-08"), ("Tomás", "assistant", "2023-05-08"),
        ("Priya", "user", "2023-05-08"), ("Tomás", "assistant", "2023-05-08")]
    assert result.items[1].text == "Yes, the back room at Café Lume, from 7 pm."


@pytest.mark.parametrize("notes", [
    "# Team notes\n\n## Standup — 2025-03-04\n- retry patch ready for review\n\n"
    "## Standup — 2025-03-05\n- cert renewed\n\n## Standup — 2025-03-06\n- patch merged\n",
    "# Team notes\n\n## Standup — 2025-03-04\n- retry patch ready\n\n"
    "## Retro — 2025-03-04\n- ship smaller patches\n",
])
def test_daily_sections_stay_notes(notes):
    result = parse_text(notes, name="team.md")
    assert result.format == "notes"
    assert {i.kind for i in result.items} == {"note"}
