"""MCP ``receipts://recent`` lists receipts in the order they were saved: newest first, by
their own record (``created``, then their place on their reader's list), never by file time,
which the kernel keeps to a tick (two receipts saved in one came back in either order) and
which a copy, a backup restore or ``touch`` changes."""
from __future__ import annotations

import os
from pathlib import Path

from attention_cloud.agents.mcp_server import recent

SAMPLES = Path(__file__).resolve().parents[1] / "host" / "attention_cloud" / "samples"


def _frame(memory, goal: str) -> str:
    return memory.hydrate(goal, budget=300).receipt["id"]


def test_recent_is_the_save_order_whatever_the_files_times_say(memory) -> None:
    memory.ingest([SAMPLES], strict=False)
    first = _frame(memory, "why do processor retries fail")
    second = _frame(memory, "webhook idempotency keys")
    third = _frame(memory, "card numbers in the logs")
    folder = memory.home / "receipts"
    # the file times say the opposite of the save order (one tick, or a restored backup)
    for age, rid in enumerate((third, second, first)):
        os.utime(folder / f"{rid}.json", (1_000_000_000 + age, 1_000_000_000 + age))

    listed = recent(memory.home)

    assert [r["id"] for r in listed] == [third, second, first]
    assert listed[0]["uri"] == f"receipt://{third}"
    assert [r["id"] for r in recent(memory.home, limit=2)] == [third, second]


def test_recent_of_a_home_with_no_receipts_is_empty(memory) -> None:
    assert recent(memory.home) == []
