"""Chats with an AI assistant as people save them in text and Markdown: ``User:`` beside the
assistant's name (``Gemini:``, ``**ChatGPT:**``, ``Claude:``), the ChatGPT Exporter's ``####
You:``/``#### ChatGPT:`` headings, and ``## Prompt:``/``## Response:``. Before, a role name
beside a name made the name no speaker: every reply was glued into the user's turn before it
(two items, both the user's, for four turns); the headings were ``cannot detect format``."""
from __future__ import annotations

import pytest

from attention_cloud.ingest import detect_format, parse_path

TURNS = [("How far should I run on Saturday?", "user"), ("About 10 km at an easy pace.", "assistant"),
         ("And on Sunday?", "user"), ("Rest or a short jog.", "assistant")]


def _chat(user: str, assistant: str, form: str) -> str:
    return "# Running plan\n\n" + "".join(
        form.format(who=user if role == "user" else assistant, text=text)
        for text, role in TURNS)


@pytest.mark.parametrize("user, assistant, form, speakers", [
    ("User", "Gemini", "{who}: {text}\n", ("", "Gemini")),
    ("User", "ChatGPT", "**{who}:** {text}\n\n", ("", "ChatGPT")),
    ("Human", "Claude", "**{who}:** {text}\n\n", ("", "Claude")),
    ("You", "ChatGPT", "#### {who}:\n{text}\n\n", ("You", "ChatGPT")),
    ("Prompt", "Response", "## {who}:\n{text}\n\n", ("", "")),
])
def test_each_turn_of_a_saved_assistant_chat_is_its_own(tmp_path, user, assistant, form,
                                                         speakers):
    path = tmp_path / "plan.md"
    path.write_text(_chat(user, assistant, form), encoding="utf-8")
    assert detect_format(path) == "text"
    result = parse_path(path)
    assert [(i.text, i.role) for i in result.items] == TURNS
    assert [i.speaker for i in result.items] == [speakers[0], speakers[1]] * 2


def test_a_name_that_never_answers_the_role_lines_stays_their_text(tmp_path):
    """``Note:`` lines, or a name only inside one turn, are no one's turn."""
    path = tmp_path / "plan.txt"
    path.write_text("User: What do I pack?\nItems: tent, stove\nItems: water\n"
                    "Assistant: That is enough.\n", encoding="utf-8")
    result = parse_path(path)
    assert [(i.role, i.text) for i in result.items] == [
        ("user", "What do I pack?\nItems: tent, stove\nItems: water"),
        ("assistant", "That is enough.")]


def test_notes_whose_sections_end_in_a_colon_stay_notes(tmp_path):
    path = tmp_path / "sync.md"
    path.write_text("## 2025-03-04\n### Next steps:\n- ship the ledger fix\n"
                    "### Open questions:\n- who owns billing?\n\n"
                    "## 2025-03-11\n### Next steps:\n- review the fix\n"
                    "### Open questions:\n- none\n", encoding="utf-8")
    assert detect_format(path) == "notes"
