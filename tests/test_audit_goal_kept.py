"""What the owner's audit log keeps of a grantee's goal: its first 1,000 characters, with the
whole goal's length and SHA-256 beside them.

Each read wrote its goal whole: a grantee's goal may be 32,768 characters, so goals that long
sent back to back within their share of the server's time grew ``audit.jsonl`` by 32 KB a
call (gigabytes a day). The owner still reads what was asked, and can tell two long goals
apart, or match one they hold, by its digest.
"""
from __future__ import annotations

import hashlib
import json

import pytest

from granted_home import granted_memory, run_atc

LONG_GOAL = ("why do the processor retries fail after the cache was cleared " * 600)[:32_768]


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("goalkept"), "L0")
    yield memory
    memory.close()


def _last_read(mem) -> tuple[dict, int]:
    lines = (mem.home / "audit.jsonl").read_bytes().splitlines()
    return json.loads(lines[-1]), len(lines[-1])


@pytest.mark.parametrize("read", ["hydrate", "query"])
def test_a_long_goal_is_logged_as_its_head_length_and_digest(mem, read):
    from attention_cloud.sharing import reader_hydrate, reader_query

    goal = LONG_GOAL if read == "hydrate" else "true, " + " " * 32_000 + "true"
    if read == "hydrate":
        reader_hydrate(mem, "bob", goal, budget=300)
    else:
        reader_query(mem, "bob", goal, limit=1)
    event, size = _last_read(mem)
    assert event["goal"] == goal[:1000]
    assert event["goal_chars"] == len(goal)
    assert event["goal_sha256"] == hashlib.sha256(goal.encode("utf-8")).hexdigest()
    assert size < 4_000, size          # was the goal's 32 KB and more


def test_a_short_goal_is_logged_whole_and_alone(mem):
    from attention_cloud.sharing import reader_query

    reader_query(mem, "bob", "item(H)", limit=1)
    event, _ = _last_read(mem)
    assert event["goal"] == "item(H)"
    assert "goal_chars" not in event and "goal_sha256" not in event


def test_atc_audit_says_the_goal_was_cut(mem):
    from attention_cloud.sharing import reader_hydrate

    reader_hydrate(mem, "bob", LONG_GOAL, budget=300)
    done = run_atc(mem.home, "audit", "--reader", "bob")
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    digest = hashlib.sha256(LONG_GOAL.encode("utf-8")).hexdigest()
    assert f"(cut: 32,768 characters, sha256 {digest[:16]}…)" in last, last[-300:]
    assert len(last) < 1_500, len(last)


def test_forgetting_an_item_a_long_goal_held_drops_the_goals_digest(tmp_path):
    from attention_cloud.sharing import reader_hydrate

    memory = granted_memory(tmp_path, "L0")
    try:
        rows = memory.query("item_text(H, T), string_length(T, N), N > 40, N < 400",
                            limit=1).rows
        (handle, text) = (rows[0]["H"], rows[0]["T"])
        goal = text + " and " + "what else about it " * 100
        reader_hydrate(memory, "bob", goal, budget=300)
        assert "goal_sha256" in _last_read(memory)[0]
        memory.forget([handle], reason="held a secret")
        (event,) = [e for e in map(json.loads, (memory.home / "audit.jsonl").read_text()
                                   .splitlines()) if e.get("event") == "read"]
        assert event["goal"] == "[forgotten]" and "goal_sha256" not in event, event
        assert event["goal_chars"] == len(goal)
    finally:
        memory.close()
