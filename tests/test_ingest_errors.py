"""Bad input: every refusal is one InputError line naming the file (and line)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from attention_cloud.errors import AtcError, InputError, UsageError
from attention_cloud.ingest import FORMATS, detect_format, parse_path, parse_text
from privileges import without_file_capabilities

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
BAD = FIXTURES / "bad"


def refusal(path, **options) -> str:
    with pytest.raises(InputError) as caught:
        parse_path(path, **options)
    message = str(caught.value)
    assert "\n" not in message
    assert isinstance(caught.value, AtcError)
    return message


@pytest.mark.parametrize(
    ("name", "options", "expected"),
    [
        ("binary.bin", {}, "{p}:1: binary data (NUL byte at column 12), not a text transcript"),
        (
            "binary.bin",
            {"format": "claude-code"},
            "{p}:1: binary data (NUL byte at column 12), not a text transcript",
        ),
        ("invalid_utf8.txt", {}, "{p}:2: invalid UTF-8 (byte 0xff at column 21)"),
        ("invalid_utf8_document.json", {}, "{p}:1: invalid UTF-8 (byte 0xfe at column 40)"),
        ("empty.txt", {}, "{p}: empty file, nothing to parse"),
        ("blank.txt", {"format": "text"}, "{p}: empty file, nothing to parse"),
        ("no_speakers.txt", {}, "{p}: cannot detect format"),
        (
            "no_speakers.txt",
            {"format": "text"},
            "{p}: no speaker lines (User:, Assistant:, ## User ...) found",
        ),
        ("unknown.json", {}, "{p}: cannot detect format"),
        ("unknown.json", {"format": "openai"}, '{p}: JSON document has no "messages" list'),
        (
            "unknown.json",
            {"format": "claude-code"},
            '{p}: no claude-code records could be parsed (1 skipped; line 1: not a Claude Code record (no "type"))',
        ),
        (
            "messages_not_list.json",
            {"format": "openai"},
            '{p}: JSON document has no "messages" list',
        ),
        ("all_malformed.jsonl", {}, "{p}: cannot detect format"),
        (
            "all_malformed.jsonl",
            {"format": "claude-code"},
            "{p}: no claude-code records could be parsed "
            "(3 skipped; line 1: invalid JSON: Unterminated string starting at (column 57))",
        ),
        (
            "truncated_array.json",
            {},
            "{p}:3: invalid JSON: Unterminated string starting at (column 36)",
        ),
        (
            "truncated_trajectory.traj",
            {},
            "{p}:14: invalid JSON: Unterminated string starting at (column 19)",
        ),
        (
            "truncated_openhands.json",
            {},
            "{p}:69: invalid JSON: Unterminated string starting at (column 18)",
        ),
        ("unknown.json", {"format": "openhands"},
         '{p}: not an OpenHands run (no list of events, no "history")'),
    ],
)
def test_bad_files_fail_with_one_exact_line(name, options, expected):
    path = BAD / name
    assert refusal(path, **options) == expected.format(p=path)


def test_missing_file():
    path = FIXTURES / "no-such-transcript.jsonl"
    assert refusal(path) == f"{path}: no such file"


def test_directory_instead_of_a_file():
    assert refusal(BAD) == f"{BAD}: is a directory, expected a transcript file"


def test_unreadable_file(tmp_path):
    # In a process that obeys file modes: root reads any file, so under root the test was
    # skipped and never ran; setpriv makes root obey them too.
    path = tmp_path / "locked.jsonl"
    path.write_text('{"type": "user"}\n')
    path.chmod(0)
    said = ("from attention_cloud.ingest import parse_path\n"
            "try:\n    parse_path(__import__('sys').argv[1])\n"
            "except Exception as exc:\n    print(type(exc).__name__, exc)\n")
    done = subprocess.run([*without_file_capabilities(), sys.executable, "-c", said, str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == f"InputError {path}: permission denied\n", done.stderr


def test_unknown_format_name():
    with pytest.raises(InputError) as caught:
        parse_path(FIXTURES / "transcript.txt", format="yaml")
    assert str(caught.value) == "unknown format 'yaml' (expected one of: claude-code, openai, anthropic, openai-responses, codex, langchain, chatgpt, claude-ai, sharegpt, trajectory, openhands, locomo, longmemeval, markdown, text, whatsapp, telegram, slack, discord, messenger, skype, google-chat, open-webui, librechat, continue, sillytavern, imessage, gemini, aider, notes)"


def test_file_names_with_control_characters_stay_on_one_line(tmp_path):
    path = tmp_path / "bad\nname.txt"
    path.write_bytes(b"")
    assert refusal(path) == f"{tmp_path}/bad\\nname.txt: empty file, nothing to parse"


def test_invalid_utf8_line_in_jsonl_is_skipped_not_fatal():
    result = parse_path(FIXTURES / "claude_code_invalid_utf8.jsonl")
    assert result.skipped == [(2, "invalid UTF-8 (byte 0xff at column 67)")]
    assert [i.text for i in result.items] == ["Goal on a clean line.", "Answer on a clean line."]


def test_malformed_lines_are_reported_with_their_numbers():
    result = parse_path(FIXTURES / "claude_code_bad_lines.jsonl")
    assert result.records_read == 7  # blank lines are not records
    assert result.skipped == [
        (2, "invalid JSON: Expecting value (column 68)"),
        (4, "not a JSON object"),
        (5, 'not a Claude Code record (no "type")'),
        (9, "truncated last line: invalid JSON: Unterminated string starting at (column 58)"),
    ]
    assert [i.text for i in result.items] == [
        "Goal before the damage: keep card numbers out of logs.",
        "Masked card numbers to the last 4 digits.",
        "Goal after the damage: rotate the webhook secret.",
    ]


def test_parse_text_needs_a_name_and_checks_its_input():
    with pytest.raises(UsageError):
        parse_text("User: hi there\n", name="")
    with pytest.raises(InputError) as caught:
        parse_text("User: a\x00b\n", name="pasted")
    assert (
        str(caught.value) == "pasted:1: binary data (NUL byte at column 8), not a text transcript"
    )
    with pytest.raises(UsageError) as caught:
        parse_text("User: hi there\n", name="x.txt", session="  ")
    assert str(caught.value) == "session must be a non-empty string, not '  '"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("claude_code_session.jsonl", "claude-code"),
        ("claude_code_bad_lines.jsonl", "claude-code"),
        ("claude_code_envelopes.jsonl", "claude-code"),
        ("openai_chat.json", "openai"),
        ("openai_array.json", "openai"),
        ("openai_messages.jsonl", "openai"),
        ("openai_conversations.jsonl", "openai"),
        ("transcript.txt", "text"),
        ("transcript.md", "text"),
        ("bad/truncated_array.json", "openai"),
        ("openhands_trajectory.json", "openhands"),
        ("openhands_output.jsonl", "openhands"),
        ("bad/truncated_openhands.json", "openhands"),
    ],
)
def test_detect_format_from_paths(name, expected):
    assert detect_format(FIXTURES / name) == expected
    assert detect_format(str(FIXTURES / name)) == expected
    assert detect_format((FIXTURES / name).read_bytes()) == expected


def test_detect_format_from_text_and_failures():
    assert detect_format("User: hello\nAssistant: hi\n") == "text"
    assert detect_format('[{"role": "user", "content": "hi"}]') == "openai"
    assert detect_format('{"type": "summary", "summary": "x", "leafUuid": "u1"}\n') == "claude-code"
    with pytest.raises(InputError) as caught:
        detect_format("just words, no speakers")
    assert str(caught.value) == "<text>: cannot detect format"
    missing = FIXTURES / "missing.jsonl"
    with pytest.raises(InputError) as caught:
        detect_format(str(missing))
    assert str(caught.value) == f"{missing}: no such file"


def test_formats_constant():
    assert FORMATS == ("claude-code", "openai", "anthropic", "openai-responses", "codex",
                       "langchain", "chatgpt", "claude-ai", "sharegpt", "trajectory", "openhands", "locomo",
                       "longmemeval", "markdown", "text", "whatsapp", "telegram", "slack", "discord",
                       "messenger", "skype", "google-chat", "open-webui", "librechat", "continue",
                       "sillytavern", "imessage", "gemini", "aider", "notes")
