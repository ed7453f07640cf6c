"""What a grantee reads of memory does not move when the owner writes where they cannot see.

Cells are a partition of every item of the home, hidden ones included (k-means over all the
vectors; a cell's aggregates, ladder and links read all its members). Before: a grantee saw a
cell only while every member was visible to them, so the owner's private notes in a segment
the grantee has no grant on, placed into cells of the shared segment, made those cells vanish
from the grantee's `cell(C)` (8 cells, then 1 after ten private notes) and their summaries
from the grantee's frame, and moved the scores of the shared items the cell walk brought in:
which cells vanished told the grantee what the owner had written about in private. Now a
grantee's vocabulary holds no cells and their frames walk the entity graph, as for a home
without cells.
"""
from __future__ import annotations

import pytest

from granted_home import chat_memory

TOPICS = ["retry budget for the payment processor", "database migration to postgres",
          "flaky login tests in CI", "caching layer for the search api",
          "deploy pipeline rollback", "kafka consumer lag alerts",
          "billing invoice rounding bug", "mobile app crash on startup"]
LINES = [f"{'Priya' if i % 2 == 0 else 'Marco'}: about the {TOPICS[i % len(TOPICS)]}, step {i}: "
         f"we should check {TOPICS[i % len(TOPICS)].split()[-1]} number {i}" for i in range(80)]
GOAL = "what did we decide about the retry budget for the payment processor"
CELL_READS = {
    "cells": "aggregate_all(count, cell(C), N)",
    "members": "aggregate_all(count, cell_member(C, H), N)",
    "item cells": "aggregate_all(count, cell_of(H, C), N)",
    "links": "aggregate_all(count, cell_adjacent(A, B, W), N)",
    "aggregates": "aggregate_all(count, cell_info(C, K, V), N)",
    "contains": "aggregate_all(count, relation(C, contains, H), N)",
    "hot": "aggregate_all(count, cell_hot(C, S), N)",
}


def _view(mem) -> dict:
    from attention_cloud.sharing import reader_hydrate, reader_query

    view = {name: reader_query(mem, "bob", goal).rows[0]["N"]
            for name, goal in CELL_READS.items()}
    frame = reader_hydrate(mem, "bob", GOAL, budget=3000)
    view["facts"] = [(f["handle"], f["level"], f["score"], f["seeded_by"])
                     for f in frame.receipt["facts"]]
    view["text"] = frame.text.split("\n", 2)[2]    # past the line naming the receipt
    return view


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    """Bob's view of a shared segment, before and after alice writes private notes close to
    it in a segment of her own; the cells of the home before and after, as alice sees them."""
    from attention_cloud.sharing import add_grant, add_principal

    root = tmp_path_factory.mktemp("cells_hidden")
    mem = chat_memory(root, {"team.txt": "\n".join(LINES) + "\n"}, segment="team")
    try:
        add_principal(mem, "bob")
        add_grant(mem, "bob", segments=["team"], ceiling="L2")
        owner_before = mem.query("aggregate_all(count, cell(C), N)").rows[0]["N"]
        before = _view(mem)
        notes = root / "notes.txt"
        notes.write_text("\n".join(line.replace("we should check", "privately I think")
                                   for line in LINES[:10]) + "\n", encoding="utf-8")
        mem.ingest([notes], format="text", segment="private")
        mem.curate()
        after = _view(mem)
        owner_after = mem.query("aggregate_all(count, cell(C), N)").rows[0]["N"]
        yield before, after, (owner_before, owner_after)
    finally:
        mem.close()


def test_the_owner_still_has_cells(views):
    _, _, (owner_before, owner_after) = views
    assert owner_before > 1 and owner_after >= owner_before


@pytest.mark.parametrize("read", sorted(CELL_READS))
def test_a_grantees_cell_reads_do_not_move_with_hidden_notes(views, read):
    before, after, _ = views
    assert before[read] == after[read] == 0


def test_a_grantees_frame_does_not_move_with_hidden_notes(views):
    before, after, _ = views
    assert before["facts"] == after["facts"]
    assert before["text"] == after["text"]
    assert not any(seeded == "cell_adjacency" or handle.startswith("cell_")
                   for handle, _, _, seeded in before["facts"])
