"""A grantee's searches answer K visible hits when K exist, however much of the home is hidden.

nearest/3,4 and lexical/4 for a grantee fetched K*4+50 raw hits and then dropped the ones the
reader may not see: in a home where the granted part is a small minority, the best raw hits
were all hidden and the grantee got fewer than K (often none) though visible matches existed.
A grantee's frame fetched a fixed page of hits too: granted one session of a segment whose
other sessions matched better, their frame was empty.
"""
from __future__ import annotations

import pytest

HIDDEN = 400   # hidden turns that match the query better than any visible one
VISIBLE = 12


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    root = tmp_path_factory.mktemp("grantee_search")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    hidden = root / "hidden.txt"
    hidden.write_text("".join(f"Zed: retry budget {i} retry\n" for i in range(HIDDEN)),
                      encoding="utf-8")
    shared = root / "shared.txt"
    shared.write_text("".join(f"Ann: the nightly job number {i} spoke once about a retry "
                              f"among many other words of the week\n" for i in range(VISIBLE)),
                      encoding="utf-8")
    memory = Memory.open(home)
    memory.ingest([hidden], format="text")
    memory.ingest([shared], format="text")
    memory.curate()
    session = memory.query('item_text(H, T), sub_string(T, _, _, _, "nightly"), '
                           'item_session(H, S)', limit=1).rows[0]["S"]
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "bob")
    add_grant(memory, "bob", sessions=[session], ceiling="L0")
    memory.shared_session = session
    yield memory
    memory.close()


def _hits(mem, goal):
    from attention_cloud.sharing import reader_query

    rows = reader_query(mem, "bob", goal).rows
    assert len(rows) == 1, rows
    return rows[0]["Hits"]


@pytest.mark.parametrize("goal", [
    'lexical("retry budget", 5, [], Hits)',
    'nearest("retry budget", 5, Hits)',
    'nearest("retry budget", 5, [], Hits)',
])
def test_a_grantee_gets_k_visible_hits_when_the_visible_part_is_a_small_minority(mem, goal):
    from attention_cloud.sharing import reader_query

    owner_top = mem.query(goal.replace("5", "60", 1)).rows[0]["Hits"]
    owner_handles = [h for h, _ in owner_top]
    sessions = {mem.query(f'item_session({h}, S)').rows[0]["S"] for h in owner_handles}
    assert mem.shared_session not in sessions, "the hidden turns rank first for the owner"
    hits = _hits(mem, goal)
    assert len(hits) == 5, hits
    for handle, _ in hits:
        rows = reader_query(mem, "bob", f"item_session({handle}, S)").rows
        assert rows[0]["S"] == mem.shared_session


def test_a_grantee_gets_every_visible_hit_when_fewer_than_k_exist(mem):
    hits = _hits(mem, 'lexical("retry", 50, [], Hits)')
    assert len(hits) == VISIBLE


def test_a_grantees_frame_finds_what_they_see_beneath_what_they_do_not(mem):
    from attention_cloud.sharing import reader_hydrate

    frame = reader_hydrate(mem, "bob", "retry budget")
    facts = frame.receipt["facts"]
    assert len(facts) >= 5, frame.receipt.get("empty")
    assert all(f["seeded_by"] == "relevance" for f in facts[:5])
    for fact in facts:
        assert mem.query(f'item_session({fact["handle"]}, S)').rows[0]["S"] == mem.shared_session
