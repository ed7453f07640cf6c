"""Files of one format that look like another: each is read as what it is, or refused in one
line naming the problem."""
from __future__ import annotations

import json

from attention_cloud.ingest import detect_format, parse_text

SUMMARY = {"type": "summary", "summary": "Fixing the export retries", "leafUuid": "u-1"}
CHAT = [{"role": "user", "content": "why do retries fail on the export?",
         "timestamp": "2023-05-08T13:56:00Z"},
        {"role": "assistant", "content": "The backoff is shorter than the lock timeout.",
         "timestamp": "2023-05-08T13:57:00Z"}]


def test_a_chat_log_after_a_claude_code_summary_line_is_read_as_the_chat():
    # before: the summary line alone made the file claude-code, and every chat line was
    # skipped as "not a Claude Code record (no "type")": both messages lost
    text = "\n".join(json.dumps(r) for r in [SUMMARY, *CHAT]) + "\n"
    result = parse_text(text, name="chat.jsonl")
    assert result.format == "openai"
    assert [(i.role, i.time) for i in result.items] == [
        ("user", "2023-05-08T13:56:00Z"), ("assistant", "2023-05-08T13:57:00Z")]
    assert [line for line, _ in result.skipped] == [1]


def test_claude_code_summary_lines_before_its_records_stay_claude_code():
    record = {"type": "user", "sessionId": "s1", "uuid": "u2", "timestamp": "2026-01-02T03:04:05Z",
              "message": {"role": "user", "content": "Why do retries fail?"}}
    text = "\n".join(json.dumps(r) for r in [SUMMARY, SUMMARY, record]) + "\n"
    assert detect_format(text) == "claude-code"
    assert detect_format(json.dumps(SUMMARY) + "\n") == "claude-code"


def test_bom_and_crlf_change_nothing():
    log = ("# Session log 2026-01-02\n## User (03:56 UTC)\nWhy does the export time out?\n"
           "## Assistant (03:57 UTC)\nIt loads every row at once.\n")
    plain = parse_text(log, name="log.md")
    odd = parse_text("\ufeff" + log.replace("\n", "\r\n"), name="log.md")
    assert [(i.role, i.time, i.text) for i in odd.items] == \
        [(i.role, i.time, i.text) for i in plain.items]
    assert [i.time for i in odd.items] == ["2026-01-02T03:56:00Z", "2026-01-02T03:57:00Z"]


def test_an_export_that_holds_no_messages_says_so_in_its_line():
    """Before, an empty conversation (a Takeout ``messages.json`` of ``{"messages": []}``, a
    Discord channel exported with no messages) read "no openai records could be parsed", as if
    its messages were broken; now the line says the file holds none."""
    import pytest

    from attention_cloud.errors import InputError
    empty_discord = {"guild": {"name": "Club"}, "channel": {"id": "1", "name": "general"},
                     "messages": []}
    for text, fmt in (('{"messages": []}', "openai"), (json.dumps(empty_discord), "discord")):
        with pytest.raises(InputError) as caught:
            parse_text(text, name="messages.json")
        assert str(caught.value) == (f"messages.json: no {fmt} records could be parsed "
                                     "(it holds none)")


def test_an_empty_librechat_or_skype_export_is_named_by_its_own_format():
    """A LibreChat conversation with no messages (``conversationId`` and ``messages: []``) was
    detected as openai and skipped as "no openai records could be parsed"; Skype's
    ``messages.json`` with no conversations (``userId``, ``exportDate``) as "cannot detect
    format". Each keeps the keys that name its exporter: the skip line names it, holding none."""
    import pytest

    from attention_cloud.errors import InputError
    librechat = {"conversationId": "c1", "endpoint": "openAI", "title": "New Chat",
                 "messages": []}
    tree = {"conversationId": "c1", "endpoint": "openAI", "messagesTree": []}
    skype = {"userId": "8:live:priya", "exportDate": "2023-05-08T13:56", "conversations": []}
    for document, fmt in ((librechat, "librechat"), (tree, "librechat"), (skype, "skype")):
        text = json.dumps(document)
        assert detect_format(text) == fmt
        with pytest.raises(InputError) as caught:
            parse_text(text, name="export.json")
        assert str(caught.value) == (f"export.json: no {fmt} records could be parsed "
                                     "(it holds none)")


def test_a_chat_record_with_no_messages_and_none_of_those_keys_stays_openai():
    assert detect_format('{"messages": [], "model": "gpt-4o"}') == "openai"
