"""A grantee's searches answer K visible hits when K exist, however much of the home is hidden.

nearest/3,4 and lexical/4 for a grantee fetched K*4+50 raw hits and then dropped the ones the
reader may not see: in a home where the granted part is a small minority, the best raw hits
were all hidden and the grantee got fewer than K (often none) though visible matches existed.
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
    memory.ingest([hidden], format="text", segment="private")
    memory.ingest([shared], format="text", segment="team")
    memory.curate()
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "bob")
    add_grant(memory, "bob", segments=["team"], ceiling="L0")
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
    segments = {mem.query(f'item_segment({h}, S)').rows[0]["S"] for h in owner_handles}
    assert segments == {"private"}, "the hidden turns rank first for the owner"
    hits = _hits(mem, goal)
    assert len(hits) == 5, hits
    for handle, _ in hits:
        assert reader_query(mem, "bob", f"item_segment({handle}, S)").rows[0]["S"] == "team"


def test_a_grantee_gets_every_visible_hit_when_fewer_than_k_exist(mem):
    hits = _hits(mem, 'lexical("retry", 50, [], Hits)')
    assert len(hits) == VISIBLE
