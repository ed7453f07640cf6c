"""Ingest of a large JSON Lines transcript holds the file's bytes and one record at a time,
never the whole file decoded: one emoji in a session (Claude Code writes ✅ and 📋) made
Python store all of its text four bytes a character, and reading a 200 MB session peaked at
over 2.5 GB. The bound here is generous (3× the file); before, the peak was about 13×."""
from __future__ import annotations

import json
import tracemalloc

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
