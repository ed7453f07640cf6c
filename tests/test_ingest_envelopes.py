"""Envelope stripping: recalled memory never comes back as new memory."""

from __future__ import annotations

import json
from pathlib import Path

from attention_cloud.ingest import parse_path, parse_text, strip_envelopes
from attention_cloud.samples import sample_paths
from hypothesis import given, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def everything(result) -> str:
    """All text a parse result hands on: texts, goals and relation objects."""
    parts = []
    for item in result.items + result.evicted:
        parts += [item.text, item.goal, item.session] + [obj for _, _, obj in item.relations]
    return "\n".join(parts)


def test_strip_envelopes_cases():
    assert strip_envelopes(
        'a<memory-frame receipt="r" source="attention-cloud">x\ny</memory-frame>b'
    ) == ("ab", 1)
    assert strip_envelopes("<memory-frame>1</memory-frame>-<memory-frame>2</memory-frame>") == (
        "-",
        2,
    )
    assert strip_envelopes("x<memory-frame>a<memory-frame>b</memory-frame>c</memory-frame>y") == (
        "xy",
        1,
    )
    assert strip_envelopes("keep <memory-frame>cut off at the end") == ("keep ", 1)
    assert strip_envelopes("lost opening</memory-frame> kept") == (" kept", 1)
    assert strip_envelopes("a<memory-frame receipt='r'/>b") == ("ab", 1)
    assert strip_envelopes("a<MEMORY-FRAME>x</Memory-Frame >b") == ("ab", 1)
    assert strip_envelopes('<memory-frame receipt="a>b">x</memory-frame>c') == ("c", 1)
    assert strip_envelopes("<memory-frames>not ours</memory-frames>") == (
        "<memory-frames>not ours</memory-frames>",
        0,
    )
    assert strip_envelopes("a\n<memory-frame>\n\n</memory-frame>b", keep_newlines=True) == (
        "a\n\n\nb",
        1,
    )


def test_envelopes_in_claude_code_records_are_removed_everywhere():
    result = parse_path(FIXTURES / "claude_code_envelopes.jsonl")
    assert "RECALLED" not in everything(result)
    assert "memory-frame" not in everything(result)
    # string content, text block, nested in a tool_result, \u-escaped, unclosed, raw across lines
    assert result.envelopes_stripped == 6
    assert result.skipped == [
        (7, "<memory-frame> envelope outside JSON"),
        (8, "inside a <memory-frame> envelope"),  # a valid record, but recalled
        (9, "inside a <memory-frame> envelope"),
    ]
    assert [i.text for i in result.items] == [
        "Real goal: add jitter to the retry delays.",
        "Before  after: jitter added.",
        "$ python scripts/show_notes.py\nnotes start\n\nnotes end",
        "Escaped:  keep this goal text.",
        "Unclosed envelope follows.",
        "Final goal after the raw envelope: ship it.",
    ]


def test_envelopes_in_text_transcripts_keep_line_numbers():
    result = parse_path(FIXTURES / "envelope_transcript.txt")
    assert "RECALLED" not in everything(result)
    assert result.envelopes_stripped == 3
    assert [(i.text, i.pointer.rsplit(":", 1)[1]) for i in result.items] == [
        ("Please add jitter to the retry delays.", "1"),
        ("Added full jitter to every delay. The tests pass.", "6"),
        ("Also cap the delay at 5 seconds.", "7"),
        ("Capped at 5 s.", "8"),
        ("Last goal: document the policy in README.md.", "11"),
    ]


def test_unclosed_envelope_in_text_drops_the_rest_and_says_so():
    result = parse_text(
        "User: Keep this.\n<memory-frame>\nUser: RECALLED\nAssistant: RECALLED\n", name="t.txt"
    )
    assert [i.text for i in result.items] == ["Keep this."]
    assert result.skipped == [
        (2, "unclosed <memory-frame> envelope: the rest of the file is dropped")
    ]


def test_envelopes_in_openai_documents():
    chat = {
        "messages": [
            {
                "role": "system",
                "content": '<memory-frame receipt="r9">RECALLED system memory</memory-frame>Be brief.',
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "<memory-frame>RECALLED</memory-frame>Add tests."}
                ],
            },
        ]
    }
    result = parse_text(json.dumps(chat), name="chat.json")
    assert "RECALLED" not in everything(result)
    assert result.envelopes_stripped == 2
    assert [i.text for i in result.items] == ["Be brief.", "Add tests."]


def test_bundled_sample_envelope_is_stripped():
    result = parse_path(sample_paths()[1])
    assert result.envelopes_stripped == 1
    assert "rcpt_5c1e9a07" not in everything(result)
    assert "it_recalled_0001" not in everything(result)
    assert result.items[0].text.startswith("Never log card numbers")


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=80
)


@settings(max_examples=150, deadline=None)
@given(before=_TEXT, inside=_TEXT, after=_TEXT)
def test_no_envelope_content_survives_in_any_text(before, inside, after):
    text = f'User: {before}<memory-frame receipt="x">SECRET{inside}SECRET</memory-frame>{after}\n'
    try:
        result = parse_text(text, name="fuzz.txt", format="text")
    except Exception as error:  # only a clean refusal is acceptable
        assert type(error).__name__ == "InputError"
        return
    assert "SECRET" not in everything(result) or "SECRET" in before + after


@settings(max_examples=100, deadline=None)
@given(before=_TEXT, inside=_TEXT)
def test_no_envelope_content_survives_in_json_strings(before, inside):
    record = {
        "type": "user",
        "uuid": "u",
        "sessionId": "s",
        "message": {
            "role": "user",
            "content": f"{before}<memory-frame>SECRET{inside}</memory-frame> go",
        },
    }
    result = parse_text(json.dumps(record) + "\n", name="fuzz.jsonl", format="claude-code")
    assert result.envelopes_stripped == 1
    assert "SECRET" not in everything(result) or "SECRET" in before


# -- a close inside the content, a truncated envelope (issue 13) --------------------------------
_GOAL_WITH_TAGS = "why does </memory-frame> and <memory-frame x> show up in the logs"


def _frame_envelope(goal: str) -> str:
    from attention_cloud.hydration import envelope

    return envelope("r_0123456789abcdef", f"memory frame for: {goal}\n  RECALLED fact text")


def _claude_user(content: str) -> str:
    return json.dumps({"type": "user", "uuid": "u1", "sessionId": "s",
                       "message": {"role": "user", "content": content}}) + "\n"


def test_rendered_envelope_holds_exactly_one_open_and_one_close():
    from attention_cloud.ingest.envelope import _tag_pattern

    env = _frame_envelope(_GOAL_WITH_TAGS.upper())
    tags = [m.group(0) for m in _tag_pattern("memory-frame").finditer(env)]
    assert tags == ["<memory-frame", "</memory-frame>"]
    assert "&lt;/MEMORY-FRAME> AND &lt;MEMORY-FRAME X>" in env  # the goal is still readable


def test_truncated_envelope_whose_goal_holds_a_close_is_not_captured():
    env = _frame_envelope(_GOAL_WITH_TAGS)
    truncated = env[: env.rfind("</memory-frame>")]
    result = parse_text(_claude_user(truncated), name="t.jsonl", format="claude-code")
    assert result.envelopes_stripped == 1
    assert result.items == []  # the frame's text is never a new user_goal
    result = parse_text("User: keep me\n" + truncated + "\n", name="t.txt", format="text")
    assert result.envelopes_stripped == 1
    assert [i.text for i in result.items] == ["keep me"]


def test_lookalike_close_tags_close_nothing():
    # what an earlier renderer wrote for a close inside the content, then truncated
    old = '<memory-frame receipt="r">goal </memory-frame\u200b> RECALLED tail'
    assert strip_envelopes("keep " + old) == ("keep ", 1)
    assert strip_envelopes("keep " + old + "</memory-frame> after") == ("keep  after", 1)
    assert strip_envelopes("a<memory-frame>x</memory-frame y>RECALLED") == ("a", 1)
    assert strip_envelopes("a<memory-frame>x</memory-frame\n>b") == ("ab", 1)


@settings(max_examples=200, deadline=None)
@given(goal=st.lists(st.sampled_from(["</memory-frame>", "<memory-frame", "</MEMORY-FRAME ", "/>",
                                       ">", "<", "/", "\u200b", "x", " ", "\n"]),
                     max_size=12).map("".join),
       cut=st.integers(min_value=0, max_value=400))
def test_any_rendered_envelope_strips_whole_or_truncated(goal, cut):
    env = _frame_envelope(goal)
    assert strip_envelopes("a " + env + " b") == ("a  b", 1)
    cut = len("<memory-frame") + cut % (len(env) - len("<memory-frame") + 1)
    stripped, count = strip_envelopes("a " + env[:cut])
    assert (stripped, count) == ("a ", 1)


# -- a close with no opening in a line-based transcript ------------------------------------------
_CHAT_WITH_A_LONE_CLOSE = (
    "Priya: I booked the flight to Lisbon for March 3rd, seat 14C.\n"
    "Tomas: Great, I'll reserve the hotel near Alfama for four nights.\n"
    "Priya: The conference badge pickup is on Monday at 9.\n"
    "Tomas: The hook printed RECALLED tail</memory-frame> and then my note: bring adapters.\n"
    "Priya: Let's meet at the gate at 7am.\n"
    "Tomas: Sure, see you there.\n"
)


def test_a_lone_close_in_a_text_chat_strips_its_own_turn_only():
    # it dropped every line of the file above it: three turns of two people, lost without a
    # word (one "envelope stripped"); only what precedes it in its own turn is envelope text
    result = parse_text(_CHAT_WITH_A_LONE_CLOSE, name="chat.txt", format="text")
    assert [i.text for i in result.items] == [
        "I booked the flight to Lisbon for March 3rd, seat 14C.",
        "Great, I'll reserve the hotel near Alfama for four nights.",
        "The conference badge pickup is on Monday at 9.",
        "and then my note: bring adapters.",
        "Let's meet at the gate at 7am.",
        "Sure, see you there.",
    ]
    assert result.envelopes_stripped == 1
    assert "RECALLED" not in everything(result) and "memory-frame" not in everything(result)


def test_a_lone_close_in_a_markdown_log_or_whatsapp_export_strips_its_own_message_only():
    markdown = ("## User\n\nPlease add jitter to the retry delays.\n\n"
                "## Assistant\n\nAdded full jitter.\n\n"
                "## User\n\nRECALLED tail</memory-frame>\nAlso cap the delay at 5 seconds.\n\n"
                "## Assistant\n\nCapped at 5 s.\n")
    result = parse_text(markdown, name="log.md", format="markdown")
    assert [i.text for i in result.items] == [
        "Please add jitter to the retry delays.", "Added full jitter.",
        "Also cap the delay at 5 seconds.", "Capped at 5 s."]
    assert result.envelopes_stripped == 1
    whatsapp = ("[08/05/2023, 10:01:00] Priya: Flight booked for the 3rd.\n"
                "[08/05/2023, 10:02:00] Tomas: Hotel near Alfama.\n"
                "[08/05/2023, 10:03:00] Priya: RECALLED tail</memory-frame> bring adapters\n"
                "[08/05/2023, 10:04:00] Tomas: Will do.\n")
    result = parse_text(whatsapp, name="chat.txt", format="whatsapp")
    assert [i.text for i in result.items] == [
        "Flight booked for the 3rd.", "Hotel near Alfama.", "bring adapters", "Will do."]
    assert result.envelopes_stripped == 1
