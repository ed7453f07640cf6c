"""A grantee's search scores are the same whether records hidden from them exist or not.

BM25 weighs a word by how many records hold it and a record by its length against the mean:
computed over the whole home, the score `lexical/4` gave a grantee for a record they see
moved with the records of segments they cannot read (on the README's worked example, 2.92
without the `security` segment and 3.95 with it), so comparing scores told them how many
hidden records held a word. A grantee's searches are now weighed by the segments they read.
"""
from __future__ import annotations

from pathlib import Path

import pytest

SHARED = "".join(f"Ann: the nightly retry job number {i} ran with a budget of {i * 3} minutes "
                 f"and {'failed' if i % 3 else 'passed'}\n" for i in range(10))
HIDDEN = "".join(f"Zed: retry retry the secret migration {i} and its budget\n"
                 for i in range(60))


def _home(root: Path, with_hidden: bool):
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    home = root / "home"
    home.mkdir(parents=True)
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    shared = root / "shared.txt"
    shared.write_text(SHARED, encoding="utf-8")
    memory = Memory.open(home)
    memory.ingest([shared], format="text", segment="payments")
    if with_hidden:
        hidden = root / "hidden.txt"
        hidden.write_text(HIDDEN, encoding="utf-8")
        memory.ingest([hidden], format="text", segment="security")
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "bob")
    add_grant(memory, "bob", segments=["payments"], ceiling="L0")
    return memory


@pytest.fixture(scope="module")
def bob_scores(tmp_path_factory) -> dict[bool, dict]:
    """What bob's searches and frame answer on the same shared records, with and without a
    hidden segment beside them (one home open at a time: one Memory per process)."""
    from attention_cloud.sharing import reader_hydrate, reader_query

    out = {}
    for with_hidden in (False, True):
        memory = _home(tmp_path_factory.mktemp(f"hidden-{with_hidden}"), with_hidden)
        try:
            text_of = {r["H"]: r["T"] for r in memory.query("item_text(H, T)", limit=500).rows}
            seen = {}
            for goal in ('lexical("retry budget", 5, [], H)', 'lexical("nightly", 3, [], H)',
                         'lexical("retry", 4, [segment(payments)], H)'):
                hits = reader_query(memory, "bob", goal).rows[0]["H"]
                seen[goal] = [(text_of[h], round(s, 9)) for h, s in hits]
            frame = reader_hydrate(memory, "bob", "which retry job failed and its budget",
                                   budget=600)
            seen["frame"] = sorted((text_of.get(f["handle"], f["handle"]), f["score"])
                                   for f in frame.receipt["facts"] if f["handle"] in text_of)
            owner = memory.query('lexical("retry budget", 5, [segment(payments)], H)').rows
            seen["owner"] = [(text_of[h], round(s, 9)) for h, s in owner[0]["H"]]
            out[with_hidden] = seen
        finally:
            memory.close()
    return out


@pytest.mark.parametrize("search", ['lexical("retry budget", 5, [], H)',
                                    'lexical("nightly", 3, [], H)',
                                    'lexical("retry", 4, [segment(payments)], H)', "frame"])
def test_a_grantees_scores_do_not_move_with_records_hidden_from_them(bob_scores, search):
    assert bob_scores[False][search], bob_scores[False]
    assert bob_scores[True][search] == bob_scores[False][search]


def test_the_owners_scores_still_weigh_the_whole_home(bob_scores):
    """The owner reads every segment: their scores are the whole index's, as before."""
    assert bob_scores[True]["owner"] != bob_scores[False]["owner"]


def test_a_grantee_cannot_ask_for_the_statistics_of_a_segment_they_do_not_read(tmp_path):
    from attention_cloud.sharing import reader_query

    memory = _home(tmp_path, True)
    try:
        plain = reader_query(memory, "bob", 'lexical("retry budget", 5, [], H)').rows
        asked = reader_query(memory, "bob", 'lexical("retry budget", 5, '
                                            '[stats_segments([payments, security])], H)').rows
    finally:
        memory.close()
    assert asked == plain
