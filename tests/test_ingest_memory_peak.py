"""Ingest of a large JSON Lines transcript holds the file's bytes and one record at a time,
never the whole file decoded: one emoji in a session (Claude Code writes ✅ and 📋) made
Python store all of its text four bytes a character, and reading a 200 MB session peaked at
over 2.5 GB. The bound here is generous (3× the file); before, the peak was about 13×."""
from __future__ import annotations

import json
import tracemalloc

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.ingest import parse_path


def _session(path, records):
    with path.open("w", encoding="utf-8") as out:
        for n in range(records):
            user = {"type": "user", "uuid": f"u{n}", "sessionId": "s1",
                    "timestamp": f"2026-01-02T03:{n // 60 % 60:02d}:{n % 60:02d}Z",
                    "message": {"role": "user",
                                "content": f"step {n}: run the checks " + "x" * 300}}
            done = {"type": "assistant", "uuid": f"a{n}", "sessionId": "s1",
                    "timestamp": f"2026-01-02T03:{n // 60 % 60:02d}:{n % 60:02d}Z",
                    "message": {"role": "assistant", "content": [
                        {"type": "text", "text": f"step {n} passed " + "y" * 300
                         + (" 📋" if n == 7 else "")}]}}
            # most of a real session is records that make no item (progress, file reads)
            progress = {"type": "progress", "uuid": f"p{n}", "sessionId": "s1",
                        "data": {"type": "bash_progress", "output": "z" * 2000}}
            for record in (user, progress, done):
                out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _parsed_with_peak(path):
    """The parse of ``path`` and the most memory Python held at once while parsing it."""
    tracemalloc.start()
    try:
        result = parse_path(path, max_file_bytes=None)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_large_json_lines_session_is_read_without_decoding_it_whole(tmp_path):
    path = tmp_path / "session.jsonl"
    _session(path, 1000)
    size = path.stat().st_size
    result, peak = _parsed_with_peak(path)
    assert result.format == "claude-code"
    assert len(result.items) == 2000
    assert "📋" in result.items[15].text
    assert peak < 3 * size, f"peak {peak / size:.1f}x the file's {size} bytes"


def test_a_large_openai_json_lines_chat_is_read_without_decoding_it_whole(tmp_path):
    """OpenAI-style JSON Lines (a chat logged a message a line) are read the same way; the
    order of day and month its times are written in is still decided from all of them."""
    path = tmp_path / "chat.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for n in range(2000):
            day = 8 + n // 1000 * 6  # 08/05 then 14/05: only the second says the day is first
            message = {"role": "user" if n % 2 == 0 else "assistant",
                       "timestamp": f"{day:02d}/05/2023 13:{n % 60:02d}",
                       "content": f"message {n} about the long run plan " + "w" * 200
                       + (" 📋" if n == 7 else ""),
                       "metadata": {"trace": "t" * 1500}}
            out.write(json.dumps(message, ensure_ascii=False) + "\n")
    size = path.stat().st_size
    result, peak = _parsed_with_peak(path)
    assert result.format == "openai"
    assert len(result.items) == 2000
    assert result.items[0].time == "2023-05-08T13:00:00Z"
    assert peak < 3 * size, f"peak {peak / size:.1f}x the file's {size} bytes"


def _chatgpt_export(path, conversations, emoji):
    """A ChatGPT ``conversations.json`` of ``conversations`` 20-message chats, one emoji in it
    when ``emoji``."""
    export = []
    for c in range(conversations):
        mapping, parent = {}, None
        for m in range(20):
            node = f"c{c}n{m}"
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
                "id": node, "author": {"role": "user" if m % 2 == 0 else "assistant"},
                "create_time": 1683554160 + c * 100 + m,
                "content": {"content_type": "text", "parts": [
                    f"message {m} of {c} about the run " + "w" * 400
                    + (" 📋" if emoji and c == 3 and m == 2 else "")]},
                "metadata": {"trace": "t" * 300}}}
            if parent:
                mapping[parent]["children"].append(node)
            parent = node
        export.append({"id": f"conv{c}", "title": f"chat {c}", "create_time": 1683554160,
                       "mapping": mapping, "current_node": parent})
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")


def test_a_json_document_with_one_emoji_is_not_decoded_four_bytes_a_character(tmp_path):
    """A JSON document (a ChatGPT export) was decoded whole before it was parsed, and held:
    one emoji made that text four bytes a character, so the parse peaked at 8.8x the file
    against 5.5x for the same file without it. Its characters beyond U+FFFF now reach the
    decoder as escapes: the emoji costs no more than any other character."""
    plain, emoji = tmp_path / "plain" / "conversations.json", tmp_path / "conversations.json"
    plain.parent.mkdir()
    _chatgpt_export(plain, 40, emoji=False)
    _chatgpt_export(emoji, 40, emoji=True)
    plain_result, plain_peak = _parsed_with_peak(plain)
    result, peak = _parsed_with_peak(emoji)
    assert result.format == "chatgpt" and len(result.items) == len(plain_result.items) == 800
    assert result.items[62].text.endswith(" 📋")
    # 1.2x held when this test ran first in its process; after the JSON Lines emoji test
    # the emoji chat's first parses peak 1.21-1.31x (~1.5 MB more, gone by the third parse:
    # not yet explained, left in the round-36 note); the whole-text decoding this guards
    # against was 1.67x (13x the file against 7.8x)
    assert peak < 1.4 * plain_peak, f"{peak / plain_peak:.2f}x the peak without the emoji"


def test_invalid_json_after_an_emoji_names_the_column_the_file_writes(tmp_path):
    path = tmp_path / "conversations.json"
    path.write_text('[{"title": "x 📋📋", "mapping": {}, oops}]', encoding="utf-8")
    out = CliRunner().invoke(main, ["ingest", "--format", "chatgpt", str(path),
                                    "--home", str(tmp_path / "home")])
    assert out.exit_code == 1 and "(column 35)" in out.output, out.output
    home = tmp_path / "home"
    assert not home.exists() or not any(home.iterdir())  # nothing written


def _text_chat(path, lines, emoji):
    with path.open("w", encoding="utf-8") as out:
        for n in range(lines):
            who = "Priya" if n % 2 == 0 else "Tomás"
            out.write(f"[2023-05-08 {n // 60 % 24:02d}:{n % 60:02d}] {who}: line {n} about the "
                      "long run plan " + "w" * 200 + (" 📋" if emoji and n == 7 else "") + "\n")


def test_a_text_chat_with_one_emoji_is_read_a_line_at_a_time(tmp_path):
    """A chat of speaker lines (and a WhatsApp export, Markdown, notes) was decoded whole, and
    detection kept that text while the parse ran: one emoji made it four bytes a character, a
    peak of 13x the file against 7.8x without it. It is read a line at a time now (a file that
    holds an envelope's tag excepted), a line with an emoji alone in being wide."""
    plain, emoji = tmp_path / "plain" / "chat.txt", tmp_path / "chat.txt"
    plain.parent.mkdir()
    _text_chat(plain, 3000, emoji=False)
    _text_chat(emoji, 3000, emoji=True)
    plain_result, plain_peak = _parsed_with_peak(plain)
    result, peak = _parsed_with_peak(emoji)
    assert result.format == "text" and len(result.items) == len(plain_result.items) == 3000
    assert result.items[7].text.endswith(" 📋") and result.items[7].speaker == "Tomás"
    # 1.2x held when this test ran first in its process; after the JSON Lines emoji test
    # the emoji chat's first parses peak 1.21-1.31x (~1.5 MB more, gone by the third parse:
    # not yet explained, left in the round-36 note); the whole-text decoding this guards
    # against was 1.67x (13x the file against 7.8x)
    assert peak < 1.4 * plain_peak, f"{peak / plain_peak:.2f}x the peak without the emoji"
