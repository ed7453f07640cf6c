"""Hostile input: huge lines, deep nesting, odd characters. Text is data, never code."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from attention_cloud.errors import InputError
from attention_cloud.ingest import parse_text
from attention_cloud.ingest.collector import DEFAULT_MAX_ITEM_CHARS
from hypothesis import given, settings
from hypothesis import strategies as st


def record(content, uuid="u1", kind="user") -> str:
    role = "assistant" if kind == "assistant" else "user"
    body = content if kind == "user" else [{"type": "text", "text": content}]
    return json.dumps(
        {"type": kind, "uuid": uuid, "sessionId": "s", "message": {"role": role, "content": body}}
    )


def test_a_ten_megabyte_line_is_parsed_and_capped_head_and_tail():
    text = "START " + "x" * (10 * 1024 * 1024) + " END"
    started = time.perf_counter()
    result = parse_text(record(text, kind="assistant") + "\n", name="huge.jsonl")
    assert time.perf_counter() - started < 10
    (item,) = result.items
    assert item.text.startswith("START ") and item.text.endswith(" END")
    # at most max_item_chars of it, plus the line that marks the cut and names the source
    assert DEFAULT_MAX_ITEM_CHARS < len(item.text) < DEFAULT_MAX_ITEM_CHARS + 200
    assert f"{len(text) - DEFAULT_MAX_ITEM_CHARS:,} characters cut here" in item.text


def test_a_ten_megabyte_tool_output_with_an_error_at_the_end():
    output = "line\n" * (2 * 1024 * 1024) + "ValueError: bad amount\n"
    lines = [
        json.dumps(
            {
                "type": "assistant",
                "uuid": "a",
                "sessionId": "s",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t",
                            "name": "Bash",
                            "input": {"command": "python job.py"},
                        }
                    ],
                },
            }
        ),
        json.dumps(
            {
                "type": "user",
                "uuid": "b",
                "sessionId": "s",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": output}],
                },
            }
        ),
    ]
    (item,) = parse_text("\n".join(lines) + "\n", name="big-output.jsonl").items
    assert item.kind == "error"
    assert item.text.endswith("ValueError: bad amount")
    assert ("mentions", "ValueError") in [(p, o) for _, p, o in item.relations]


def test_deeply_nested_jsonl_line_is_skipped():
    deep = "[" * 100_000 + "]" * 100_000
    result = parse_text(
        record("Keep going with the migration plan.") + "\n" + deep + "\n", name="deep.jsonl"
    )
    assert result.skipped == [(2, "JSON nested too deeply")]
    assert [i.kind for i in result.items] == ["user_goal"]


def test_deeply_nested_json_document_fails_cleanly():
    with pytest.raises(InputError) as caught:
        parse_text(
            '{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}", name="deep.json", format="openai"
        )
    assert str(caught.value) == "deep.json: JSON nested too deeply"


def test_nesting_inside_a_valid_record_is_walked_without_recursion():
    nested: object = "\u00e9 <memory-frame>RECALLED</memory-frame>"
    for _ in range(900):
        nested = [nested]
    line = json.dumps(
        {
            "type": "assistant",
            "uuid": "a",
            "sessionId": "s",
            "extra": nested,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "Answer kept."}]},
        }
    )
    result = parse_text(line + "\n", name="nested.jsonl")
    assert result.envelopes_stripped == 1
    assert [i.text for i in result.items] == ["Answer kept."]


@pytest.mark.parametrize(
    "text",
    [
        "foo :- halt.",
        "'); DROP TABLE items; --",
        "quote \" apostrophe ' backslash \\ and \\n literal",
        "format ~w ~a ~p and $(rm -rf /) `id`",
        "unicode: \u00e9\u4e2d\U0001f600 and a line\u2028separator inside",
    ],
)
def test_text_is_data(text):
    goal = "Please keep this exactly: " + text
    jsonl = parse_text(record(goal) + "\n", name="data.jsonl").items
    assert jsonl[0].text == goal
    chat = parse_text(json.dumps([{"role": "user", "content": goal}]), name="data.json").items
    assert chat[0].text == goal
    if "\u2028" not in text:
        plain = parse_text("User: " + goal + "\n", name="data.txt").items
        assert plain[0].text == goal


def test_line_separator_inside_a_json_string_does_not_split_the_record():
    lines = (
        record("Goal with a\u2028separator.", "u1")
        + "\n"
        + record("Second goal here.", "u2")
        + "\n"
    )
    result = parse_text(lines, name="sep.jsonl")
    assert [i.pointer for i in result.items] == ["sep.jsonl:1", "sep.jsonl:2"]


def test_byte_order_mark_and_crlf_are_tolerated():
    data = (
        "\ufeff" + record("Goal after a BOM.") + "\r\n" + record("Second goal.", "u2") + "\r\n"
    ).encode()
    result = parse_text(data, name="bom.jsonl")
    assert result.format == "claude-code"
    assert [i.text for i in result.items] == ["Goal after a BOM.", "Second goal."]


def test_a_json_document_after_a_byte_order_mark_reads_as_without_it():
    """Windows editors and PowerShell's UTF-8 write a BOM before a JSON export; every JSON
    document format read none of it (`no openai records could be parsed ... line 1: invalid
    JSON`, `not a ChatGPT export`), and an OpenAI Responses list kept 1 item of 5."""
    from test_ingest_formats import FIXTURES, ONE_OF_EACH

    for fmt, fixture in ONE_OF_EACH.items():
        data = (FIXTURES / fixture).read_bytes()
        name = Path(fixture).name
        plain = parse_text(data, name=name)
        marked = parse_text(b"\xef\xbb\xbf" + data, name=name)
        assert (marked.format, [i.text for i in marked.items]) == \
            (plain.format, [i.text for i in plain.items]), fmt


_ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=300)


@settings(max_examples=200, deadline=None)
@given(text=_ANY_TEXT, fmt=st.sampled_from([None, "claude-code", "openai", "text"]))
def test_arbitrary_text_parses_or_fails_with_input_error(text, fmt):
    try:
        result = parse_text(text, name="fuzz", format=fmt)
    except InputError as error:
        assert "\n" not in str(error)
        return
    for item in result.items:
        assert item.handle.startswith("it_") and item.kind in (
            "user_goal",
            "conclusion",
            "file_op",
            "error",
            "tool_result",
            "turn",
        )


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _ANY_TEXT,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "message",
                    "content",
                    "role",
                    "text",
                    "uuid",
                    "sessionId",
                    "tool_use_id",
                    "name",
                    "input",
                    "is_error",
                    "timestamp",
                    "cwd",
                    "tool_calls",
                    "function",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(
    records=st.lists(_JSONISH, min_size=1, max_size=5),
    fmt=st.sampled_from(["claude-code", "openai"]),
)
def test_arbitrary_json_records_parse_or_fail_with_input_error(records, fmt):
    text = "\n".join(json.dumps(r) for r in records) + "\n"
    try:
        parse_text(text, name="fuzz.jsonl", format=fmt)
    except InputError as error:
        assert "\n" not in str(error)
