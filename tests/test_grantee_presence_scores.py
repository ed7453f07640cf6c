"""A grantee at a presence ceiling (L3) scores their searches by what they see.

A record too small for a skeleton (a short note, whose pointer takes more tokens than its
text) is not visible at an L3 ceiling, since
its L3 rung would say what it says. A grant of a whole segment kept no set of what its
grantee sees where no record had a label, so BM25 weighed their searches by the segment's
statistics, short notes the grantee cannot see included: a score then told how many hidden
short notes held a word.
"""
from __future__ import annotations

from pathlib import Path

import pytest

LONG = "".join(
    f"Ann: the nightly retry job number {i} ran against the payments ledger with a budget of "
    f"{i * 3} minutes; it {'failed on a timeout from the processor' if i % 3 else 'passed'}, "
    f"and the on-call engineer filed ticket PAY-{100 + i} about the retry budget. "
    f"We will look at the queue depth, the worker pool and the lock table tomorrow.\n"
    for i in range(8))
SHORT = [f"retry budget {i}" for i in range(40)]


@pytest.fixture(scope="module")
def presence_scores(tmp_path_factory) -> dict[bool, dict]:
    """What bob (a whole-segment grant at L3) is answered, with and without short notes of
    the same segment holding the searched words beside the long ones he sees."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal, reader_query

    out = {}
    for with_short in (False, True):
        root = tmp_path_factory.mktemp(f"presence-{with_short}")
        home = root / "home"
        home.mkdir()
        (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
        (root / "long.txt").write_text(LONG, encoding="utf-8")
        memory = Memory.open(home)
        try:
            memory.ingest([root / "long.txt"], format="text", segment="payments")
            if with_short:
                for note in SHORT:
                    memory.remember(note, segment="payments", curate=False)
            memory.curate()
            add_principal(memory, "alice", owner=True)
            add_principal(memory, "bob")
            add_grant(memory, "bob", segments=["payments"], ceiling="L3")
            text_of = {r["H"]: r["T"] for r in memory.query("item_text(H, T)", limit=500).rows}
            seen = {}
            for goal in ('lexical("retry budget", 4, [], H)', 'lexical("retry", 3, [], H)'):
                hits = reader_query(memory, "bob", goal).rows[0]["H"]
                seen[goal] = [(text_of[h], round(s, 9)) for h, s in hits]
            items = reader_query(memory, "bob", "item(H)", limit=500).rows
            seen["items"] = sorted(text_of[r["H"]] for r in items)
            out[with_short] = seen
        finally:
            memory.close()
    return out


def test_short_notes_hidden_at_presence_are_not_seen(presence_scores):
    for with_short in (False, True):
        texts = presence_scores[with_short]["items"]
        assert len(texts) == 8 and all("nightly" in t for t in texts), texts


@pytest.mark.parametrize("goal", ['lexical("retry budget", 4, [], H)',
                                  'lexical("retry", 3, [], H)'])
def test_short_notes_hidden_at_presence_do_not_move_a_grantees_scores(presence_scores, goal):
    assert presence_scores[False][goal], presence_scores[False]
    assert all("nightly" in t for t, _ in presence_scores[True][goal])
    assert presence_scores[True][goal] == presence_scores[False][goal]
