"""Big input: what ingest holds grows with what it keeps, not with the text it passes over
(round 36, qa226; BENCHMARKS.md "Big input").

A user's message that is a pasted log (a single 50 MB line of a Claude Code session) was told
from a nudge ("continue") by listing every word of it at once: 50 MB of text held ~0.5 GB of
word strings and took ~20 s of a 27 s parse (928 MB peak). At most one word past the longest
nudge is looked at now (5.3 s, 376 MB)."""

from __future__ import annotations

import json
import tracemalloc

from attention_cloud.ingest import parse_path


def _peak_parse(path):
    tracemalloc.start()
    try:
        result = parse_path(path)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_pasted_log_as_a_prompt_is_told_from_a_nudge_without_listing_its_words(tmp_path):
    records = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-02T03:00:00Z",
         "message": {"role": "user", "content": "fix the flaky deploy"}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
         "timestamp": "2026-01-02T03:01:00Z",
         "message": {"role": "user",
                     "content": "here is the log: " + "ERROR ledger sync timed out\n" * 80000}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result, peak = _peak_parse(path)
    # the log is a new goal (words of its own), kept cut to max_item_chars
    assert [i.kind for i in result.items] == ["user_goal", "user_goal"]
    assert result.items[1].goal.startswith("here is the log: ERROR ledger sync")
    size = path.stat().st_size
    assert peak < 10 * size, f"peak {peak / size:.1f}x the file's {size} bytes"  # 16.6x before
