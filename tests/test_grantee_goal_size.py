"""A grantee's goal is at most 32,768 characters, the most of a text any search reads.

Every frame a grantee asks for is kept as a receipt in the owner's home and every read is a
line of the owner's audit log, each holding the goal whole: `POST /v1/hydrate` with a goal of
3 MB (a body may be 8 MB) wrote 3 MB to each in 3 s, so one grantee within their share of
the server's time grew the owner's disk by about a megabyte a second. A longer goal is now
refused in one line, and nothing is written.
"""
from __future__ import annotations

import pytest

from attention_cloud.errors import UsageError
from granted_home import granted_memory


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("goalsize"), "L0")
    yield memory
    memory.close()


def _written(mem) -> tuple[int, int]:
    audit = mem.home / "audit.jsonl"
    receipts = mem.home / "receipts"
    return (audit.stat().st_size if audit.exists() else 0,
            len(list(receipts.iterdir())) if receipts.exists() else 0)


@pytest.mark.parametrize("read", ["hydrate", "query"])
def test_a_grantees_goal_past_the_limit_is_refused_and_nothing_is_written(mem, read):
    from attention_cloud.sharing import reader_hydrate, reader_query

    before = _written(mem)
    goal = "retry " * 6000 if read == "hydrate" else "true, " * 6000 + "true"
    with pytest.raises(UsageError) as refused:
        if read == "hydrate":
            reader_hydrate(mem, "bob", goal)
        else:
            reader_query(mem, "bob", goal)
    message = str(refused.value)
    assert "\n" not in message and "32,768 characters" in message, message
    assert _written(mem) == before


def test_a_grantees_goal_at_the_limit_is_read(mem):
    from attention_cloud.sharing import reader_hydrate, reader_query

    goal = ("what did we fix in the cache " * 2000)[:32_768]
    assert reader_hydrate(mem, "bob", goal).receipt["goal"] == goal
    assert reader_query(mem, "bob", "item(H), " + " " * 32_000 + "true", limit=1).rows


def test_the_owners_goal_has_no_such_limit(mem):
    assert mem.hydrate("retry " * 6000, budget=200).receipt["goal"].startswith("retry retry")
