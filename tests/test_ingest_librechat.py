"""LibreChat's conversation export (Export → JSON): every message with its sender and time, the
branch the user saw (issue 14: who said it and when, for every format people bring)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud.ingest import detect_format, parse_path, parse_text

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
FLAT = FIXTURES / "librechat_export.json"
TREE = FIXTURES / "librechat_export_tree.json"
EXPECTED = [
    ("User", "user", "2024-03-12T09:15:00Z",
     "Why does the nightly export time out on the orders table?\n[attached: export.log]"),
    ("GPT-4o", "assistant", "2024-03-12T09:15:08Z",
     "It loads every row at once; stream them in batches."),
    ("User", "user", "2024-03-12T09:16:00Z", "How big should a batch be?"),
    ("GPT-4o", "assistant", "2024-03-12T09:16:05Z", "Start with 10,000 rows and measure."),
]


@pytest.mark.parametrize("path", [FLAT, TREE], ids=["messages", "messagesTree"])
def test_an_export_keeps_every_sender_and_time(path):
    # before: the flat export was "no openai records could be parsed (4 skipped ... no
    # "role")", the tree "cannot detect format": every message lost
    result = parse_path(path)
    assert result.format == "librechat" == detect_format(path)
    assert [(i.speaker, i.role, i.time, i.text) for i in result.items] == EXPECTED
    assert {i.session for i in result.items} == {"c0ffee00-1234-4abc-9def-0123456789ab"}
    assert ("title", "Nightly export timeouts") in [r[1:] for r in result.items[0].relations]
    assert ("model", "gpt-4o") in [r[1:] for r in result.items[1].relations]


def test_a_tree_reads_the_branch_last_written_and_counts_the_other():
    result = parse_path(TREE)
    assert result.ignored.get("other-branch") == 1
    assert result.items[1].pointer.endswith("#/messagesTree/0/children/1")


def test_a_message_that_is_no_object_is_skipped_with_its_place():
    document = json.loads(FLAT.read_text())
    document["messages"].insert(1, "not a message")
    result = parse_text(json.dumps(document), name="export.json")
    assert len(result.items) == 4
    assert result.skipped == [(2, "message 1 is not an object")]
