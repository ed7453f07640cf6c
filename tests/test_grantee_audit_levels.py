"""A grantee's query is audited with each record it read at the reader's level for it, in one
look-up of the policy.

Before, the audit line of a grantee's query asked the policy about each record the query read
with a call of its own across the bridge (~60 µs each): a goal reading the text of 716 items
(`aggregate_all(count, (item(H), item_goal(H, G)), C)`) took 45–50 ms of CPU for a grantee
against the owner's 2 ms, nearly all of it the audit. Now the levels come back from one call,
worked out within the read (the reader's kept set answers where one is kept); the audit line
is the same.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

TURNS = 40


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A chat of 40 turns in segment `team`, curated (hash embedder), every fifth turn
    labelled private; bob reads the segment at L0, carol at L2. Yields (home, seq -> handle)."""
    from attention_cloud.sharing import add_grant, add_principal, label
    from granted_home import chat_memory

    root = tmp_path_factory.mktemp("audit_levels")
    lines = [("Dana" if i % 2 else "Omar") + f": note {i} about the harbour crane number {i}."
             for i in range(TURNS)]
    with chat_memory(root, {"chat.txt": "\n".join(lines) + "\n"}) as memory:
        home = memory.home
        add_principal(memory, "bob")
        add_principal(memory, "carol")
        add_grant(memory, "bob", segments=["team"], ceiling="L0")
        add_grant(memory, "carol", segments=["team"], ceiling="L2")
        seq = {r["N"]: r["H"] for r in memory.query("item_seq(H, N)", limit=100).rows}
        label(memory, [seq[n] for n in range(0, TURNS, 5)], restrictions=["private"])
    return home, seq


def _last_read(home) -> dict:
    from attention_cloud.audit import read_events
    return list(read_events(home))[-1]


@pytest.mark.parametrize("reader,goal,level", [
    ("bob", "aggregate_all(count, (item(H), item_text(H, T)), C)", "L0"),
    ("carol", "aggregate_all(count, (item(H), rung(H, l2, T)), C)", "L2"),
])
def test_the_audit_names_every_record_read_at_its_level_in_one_call(home, reader, goal, level):
    from attention_cloud import Memory
    from attention_cloud.sharing import reader_query

    path, seq = home
    hidden = {seq[n] for n in range(0, TURNS, 5)}
    with Memory.open(path) as memory:
        calls: list[str] = []
        once = memory.pl.once

        def counted(name, *args):
            calls.append(name)
            return once(name, *args)

        memory.pl.once = counted
        try:
            rows = reader_query(memory, reader, goal, limit=5).rows
        finally:
            memory.pl.once = once
    read = _last_read(path)
    assert read["reader"] == reader and read["goal"] == goal
    handles = {f["handle"] for f in read["facts"]}
    items = handles & set(seq.values())
    assert items == set(seq.values()) - hidden, (rows, read)
    assert all(f["level"] == level for f in read["facts"] if f["handle"] in items)
    # the audit's levels cost the bridge one call, not one a record
    assert sum("visible" in name for name in calls) <= 1, calls
