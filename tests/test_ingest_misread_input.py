"""Bad input that was misread: each is read right, or refused in one line that names the real
problem (exit non-zero, nothing written), never "cannot detect format" for what was detected
as JSON and refused for another reason, never a record lost to a byte a tool adds.

Found by qa205's fuzz cases (scripts/bench/ingest_fuzz.py): a JSON transcript holding an
integer of 5,000 digits (Python converts 4,300 at most) or nesting 100,000 deep was refused
as "cannot detect format"; a DOS end-of-file mark (Ctrl-Z) after the last line made a JSON
document undetectable, a JSON Lines file's last record a "truncated last line" and a text
transcript's last turn end in a control character."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.errors import InputError
from attention_cloud.ingest import detect_format, parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
HUGE_INTEGER = "9" * 5000


def _chat_with(value: str) -> bytes:
    """The OpenAI chat fixture, laid out over lines, with ``value`` as a field of its third line."""
    document = json.loads((FIXTURES / "openai_chat.json").read_text(encoding="utf-8"))
    text = json.dumps({"n": 0, **document}, indent=1)
    return text.replace('"n": 0', f'"n": {value}', 1).encode()


def test_an_integer_too_long_to_convert_is_named_with_its_line_not_undetected():
    with pytest.raises(InputError) as caught:
        detect_format(_chat_with(HUGE_INTEGER))
    assert str(caught.value) == ("<text>:2: invalid JSON: exceeds the limit (4300 digits) for "
                                 "integer string conversion")


def test_the_named_format_names_the_same_line():
    with pytest.raises(InputError) as caught:
        parse_text(_chat_with(HUGE_INTEGER), name="chat.json", format="openai")
    assert str(caught.value) == ("chat.json:2: invalid JSON: exceeds the limit (4300 digits) "
                                 "for integer string conversion")


def test_json_nested_too_deeply_is_named_not_undetected():
    with pytest.raises(InputError) as caught:
        detect_format(("[" * 100_000 + "]" * 100_000).encode())
    assert str(caught.value) == "<text>: JSON nested too deeply"


def test_a_text_transcript_is_still_undetected_as_before():
    with pytest.raises(InputError) as caught:
        detect_format(b"[a note] nothing here names a speaker\n")
    assert str(caught.value) == "<text>: cannot detect format"


def test_atc_ingest_refuses_the_huge_integer_in_one_line_and_makes_no_home(tmp_path):
    transcript = tmp_path / "chat.json"
    transcript.write_bytes(_chat_with(HUGE_INTEGER))
    home = tmp_path / "home"
    result = CliRunner().invoke(main, ["ingest", str(transcript), "--home", str(home)])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "4300 digits" in lines[0] and "chat.json" in lines[0], lines
    assert "cannot detect format" not in result.output
    assert not home.exists()


# -- a DOS end-of-file mark (Ctrl-Z) after the last line --------------------------------------

@pytest.mark.parametrize("fixture", [
    "openai_chat.json",             # a JSON document: was "cannot detect format"
    "claude_code_session.jsonl",    # JSON Lines: its last line was "truncated"
    "2026-01-02-standup.md",        # text: the last turn ended in the mark
    "Priya Patel.txt",
])
@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
@pytest.mark.parametrize("marks", [1, 3])
def test_an_end_of_file_mark_after_the_last_line_is_read_as_the_end(fixture, line_end, marks):
    data = (FIXTURES / fixture).read_bytes().replace(b"\r\n", b"\n").replace(b"\n", line_end)
    plain = parse_text(data, name=fixture)
    marked = parse_text(data + b"\x1a" * marks, name=fixture)
    assert marked.format == plain.format
    assert [item.text for item in marked.items] == [item.text for item in plain.items]
    assert marked.skipped == plain.skipped
    assert not any("\x1a" in item.text for item in marked.items)


def test_a_mark_inside_the_text_is_kept_as_text():
    """Only a mark at the very end is the file's end: one inside a line is the writer's."""
    data = b"[10:02] Priya: the retry budget \x1a is four\n[10:03] Sam: noted, four it is\n"
    result = parse_text(data, name="chat.txt")
    assert any("\x1a" in item.text for item in result.items)


# -- a JSON document saved in Latin-1 ---------------------------------------------------------

def test_a_latin1_json_document_is_named_invalid_utf8_at_its_line():
    """Before: read as JSON Lines, each of its lines invalid JSON: "no openai records could be
    parsed (83 skipped; line 1: invalid JSON: Expecting property name ...)"."""
    data = (FIXTURES / "openai_chat.json").read_bytes().replace(b"health check", b"sant\xe9 check", 1)
    for format in (None, "openai"):
        with pytest.raises(InputError) as caught:
            parse_text(data, name="chat.json", format=format)
        assert str(caught.value) == "chat.json:11: invalid UTF-8 (byte 0xe9 at column 29)"


def test_a_latin1_line_of_json_lines_is_still_that_lines_loss_alone():
    for fixture in ("openai_messages.jsonl", "claude_code_session.jsonl"):
        lines = (FIXTURES / fixture).read_bytes().splitlines(keepends=True)
        plain = parse_text(b"".join(lines), name=fixture)
        for at in (0, 2):              # the first line too: JSON Lines known by its shape
            damaged = list(lines)
            damaged[at] = damaged[at].replace(b'": "', b'": "\xe9', 1)
            result = parse_text(b"".join(damaged), name=fixture)
            assert result.format == plain.format
            assert [n for n, _ in result.skipped] == [at + 1] + [n for n, _ in plain.skipped]
            assert "invalid UTF-8" in result.skipped[0][1]


def test_a_record_appended_after_a_document_is_named_with_its_line():
    """Before: "cannot detect format" for a chat export someone appended a line to."""
    data = (FIXTURES / "openai_chat.json").read_bytes().rstrip() + \
        b'\n{"role": "user", "content": "the retry budget is four"}\n'
    line = data.count(b"\n")
    with pytest.raises(InputError) as caught:
        detect_format(data)
    assert str(caught.value) == f"<text>:{line}: invalid JSON: Extra data (column 1)"
