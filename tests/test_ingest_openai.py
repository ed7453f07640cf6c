"""OpenAI-style chats: documents, arrays, JSON Lines of messages and of conversations."""

from __future__ import annotations

import json
import os
from pathlib import Path

from attention_cloud.ingest import parse_path, parse_text, read_pointer

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def links(item, predicate):
    return [obj for _, pred, obj in item.relations if pred == predicate]


def test_chat_document_kinds_sessions_and_pointers():
    path = FIXTURES / "openai_chat.json"
    result = parse_path(path)
    base = os.path.abspath(path)
    assert result.format == "openai"
    assert result.records_read == 12
    assert result.skipped == [
        (11, "message 10 is not a JSON object"),
        (12, 'message has no "role"'),
    ]
    summary = [(i.kind, i.role, i.pointer.removeprefix(base)) for i in result.items]
    assert summary == [
        ("turn", "system", "#/messages/0"),  # instructions are kept but are not a goal
        ("user_goal", "user", "#/messages/1"),
        ("file_op", "assistant", "#/messages/2"),  # write_file call; run_shell is not a file op
        ("error", "tool", "#/messages/4"),  # failing run_shell output (write_file's echo is noise)
        ("conclusion", "assistant", "#/messages/5"),
        ("tool_result", "tool", "#/messages/6"),
        ("user_goal", "user", "#/messages/8"),  # "ok" at 7 is an acknowledgement
        ("conclusion", "assistant", "#/messages/9"),
    ]
    assert {i.session for i in result.items} == {"chat-42"}
    assert result.items[0].goal == ""
    assert result.items[2].goal == "Add a health check endpoint at /healthz to server.py."
    assert result.items[-1].goal == "Now return the build version in the health check."


def test_chat_document_tool_calls_and_results():
    items = parse_path(FIXTURES / "openai_chat.json").items
    write = items[2]
    assert write.text == "write server.py: 2 lines, starting \"def healthz(): return 'ok'\""
    assert (links(write, "touches_file"), links(write, "file_op"), links(write, "tool")) == (
        ["server.py"],
        ["write"],
        ["write_file"],
    )
    error = items[3]
    assert error.text.startswith("$ pytest -q\nF\nFAILED test_server.py::test_healthz")
    assert links(error, "mentions") == ["AssertionError"]
    assert links(error, "tool") == ["run_shell"]
    # A result whose call id is unknown is matched by function name.
    assert items[5].text == "$ pytest -q\n2 passed in 0.03s"


def test_chat_document_times_fall_back_to_the_document_time():
    items = parse_path(FIXTURES / "openai_chat.json").items
    assert items[1].time == "2026-02-10T07:00:05Z"  # "+01:00" converted to UTC
    assert items[0].time == items[2].time == "2026-02-10T08:00:00Z"


def test_pointer_resolves_to_the_message_itself():
    items = parse_path(FIXTURES / "openai_chat.json").items
    assert read_pointer(items[4].pointer) == {
        "role": "assistant",
        "content": [
            {
                "type": "text",
                "text": "The route was not registered; I added app.add_route('/healthz').",
            }
        ],
    }


def test_array_of_messages_uses_the_file_stem_as_session():
    items = parse_path(FIXTURES / "openai_array.json").items
    assert [(i.kind, i.session, i.pointer.rsplit("#", 1)[1]) for i in items] == [
        ("user_goal", "openai_array", "/0"),
        ("conclusion", "openai_array", "/1"),
    ]


def test_jsonl_messages_take_their_session_ids_and_epoch_times():
    items = parse_path(FIXTURES / "openai_messages.jsonl").items
    base = os.path.abspath(FIXTURES / "openai_messages.jsonl")
    assert [(i.session, i.seq, i.pointer) for i in items] == [
        ("openai_messages", 0, f"{base}:1"),
        ("openai_messages", 1, f"{base}:2"),
        ("B", 0, f"{base}:3"),
        ("B", 1, f"{base}:4"),
    ]
    assert items[0].time == "2026-01-01T00:00:00Z"
    assert items[3].goal == "Goal in session B."


def test_jsonl_conversations_are_one_session_per_line():
    path = FIXTURES / "openai_conversations.jsonl"
    result = parse_path(path)
    base = os.path.abspath(path)
    assert result.records_read == 2
    assert [(i.session, i.pointer) for i in result.items] == [
        ("openai_conversations#1", f"{base}:1#/messages/0"),
        ("openai_conversations#1", f"{base}:1#/messages/1"),
        ("conv-2", f"{base}:2#/messages/0"),
        ("conv-2", f"{base}:2#/messages/1"),
    ]
    assert read_pointer(result.items[3].pointer) == {
        "role": "assistant",
        "content": "Second conversation answer.",
    }


def test_text_parts_and_legacy_function_calls():
    chat = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Rename"},
                {"type": "image_url", "image_url": {"url": "x"}},
                {"type": "text", "text": "the config loader."},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "function_call": {
                "name": "edit_file",
                "arguments": json.dumps(
                    {"path": "app/config.py", "old_str": "load", "new_str": "read_config"}
                ),
            },
        },
        {"role": "function", "name": "edit_file", "content": "edited"},
        {
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Renamed load to read_config."}],
        },
    ]
    items = parse_text(json.dumps(chat), name="legacy.json").items
    assert [(i.kind, i.text) for i in items] == [
        ("user_goal", "Rename\nthe config loader."),
        ("file_op", 'edit app/config.py: "load" -> "read_config"'),
        ("conclusion", "Renamed load to read_config."),
    ]


def test_unknown_role_is_skipped_and_reported():
    result = parse_text(
        json.dumps([{"role": "critic", "content": "meh"}, {"role": "user", "content": "Ship it."}]),
        name="roles.json",
    )
    assert result.skipped == [(1, "unknown role 'critic'")]
    assert [i.kind for i in result.items] == ["user_goal"]


def test_bad_jsonl_line_is_skipped_not_fatal():
    text = '{"role": "user", "content": "First goal."}\n{"role": "assistant", "content": \n{"role": "assistant", "content": "Answer."}\n'
    result = parse_text(text, name="chat.jsonl", format="openai")
    assert [i.text for i in result.items] == ["First goal.", "Answer."]
    assert [line for line, _ in result.skipped] == [2]


def test_messages_that_make_no_item_are_counted_by_what_they_are(tmp_path):
    """Nothing read vanishes uncounted: an acknowledgement, an empty or image-only message and
    a file read's output make no item, and the report says which they were."""
    import json as _json

    from attention_cloud.ingest import parse_path

    path = tmp_path / "chat.json"
    path.write_text(_json.dumps({"session_id": "s", "messages": [
        {"role": "user", "content": "Please read the retry policy in src/retry.py and explain it."},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
         "function": {"name": "read_file", "arguments": _json.dumps({"path": "src/retry.py"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "MAX_RETRIES = 5\n"},
        {"role": "assistant", "content": "The policy retries five times with backoff."},
        {"role": "user", "content": "Thanks!"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]},
        {"role": "user", "content": "   "}]}), encoding="utf-8")
    result = parse_path(path)
    assert result.ignored == {"acknowledgement": 1, "empty": 2, "file-op-output": 1,
                              "image_url part": 1}
    assert [i.kind for i in result.items] == ["user_goal", "file_op", "conclusion"]
