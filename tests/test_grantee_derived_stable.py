"""A grantee's arcs and session rollups do not vanish when the owner writes on in a session.

An arc or a session rollup is derived from every item of its run or session. Under a grant by
a time window (or a tag, or an entity) a grantee saw it while each of its members was
visible, so when the owner wrote on in that session after the window, curation folded the new
items in and the rollup vanished from the grantee's view: that told them something had been
written there (the leak qa122 closed for cells). A derived record is now visible only through
grants of whole sessions or segments (or the whole home), where what the owner writes later in
the session is theirs too; under narrower grants their frames fall back to the items.
"""
from __future__ import annotations

import pytest

from granted_home import chat_memory

FIRST = "".join(f"[2024-03-0{1 + i % 5} 09:0{i % 10}] {'Priya' if i % 2 == 0 else 'Marco'}: "
                f"the retry budget for the payment processor, step {i}\n" for i in range(10))
LATER = "".join(f"[2024-06-1{i % 9} 10:00] Priya: privately, the payroll migration {i}\n"
                for i in range(4))
DERIVED = {"arcs": "aggregate_all(count, arc(A), N)",
           "rollups": "aggregate_all(count, rollup(R, S), N)",
           "arc members": "aggregate_all(count, arc_member(A, H), N)",
           "items": "aggregate_all(count, item(H), N)"}
GRANTS = {"window": {"since": "2024-03-01", "until": "2024-04-01"},
          "segment": {"segments": ["team"]}}


def _view(mem, reader):
    from attention_cloud.sharing import reader_hydrate, reader_query

    view = {name: reader_query(mem, reader, goal).rows[0]["N"] for name, goal in DERIVED.items()}
    frame = reader_hydrate(mem, reader, "retry budget for the payment processor", budget=2000)
    view["derived in frame"] = sorted(f["handle"] for f in frame.receipt["facts"]
                                      if not f["handle"].startswith("it_"))
    return view


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    """Each grantee's view before and after alice writes on in the same session (the chat
    file grown by lines dated after the window), curated each time."""
    from attention_cloud.sharing import add_grant, add_principal

    root = tmp_path_factory.mktemp("derived_stable")
    mem = chat_memory(root, {"team.txt": FIRST}, segment="team")
    try:
        for reader, grant in GRANTS.items():
            add_principal(mem, reader)
            add_grant(mem, reader, ceiling="L2", **grant)
        owner_before = mem.query("aggregate_all(count, item(H), N)").rows[0]["N"]
        before = {reader: _view(mem, reader) for reader in GRANTS}
        (root / "team.txt").write_text(FIRST + LATER, encoding="utf-8")
        mem.ingest([root / "team.txt"], format="text", segment="team")
        mem.curate()
        owner_after = mem.query("aggregate_all(count, item(H), N)").rows[0]["N"]
        sessions = mem.query("aggregate_all(count, S, item_session(H, S), N)").rows[0]["N"]
        after = {reader: _view(mem, reader) for reader in GRANTS}
        yield before, after, (owner_before, owner_after, sessions)
    finally:
        mem.close()


def test_the_owner_wrote_on_in_the_same_session(views):
    _, _, (owner_before, owner_after, sessions) = views
    assert owner_after > owner_before and sessions == 1


def test_a_window_grantees_view_does_not_move_when_the_owner_writes_after_it(views):
    before, after, _ = views
    assert before["window"] == after["window"]
    # no summary through a window: no rollup, no arc in a frame; an arc's grouping of the
    # turns they see is theirs (test_grantee_partial_arcs.py), computed from those turns alone
    assert before["window"]["rollups"] == 0 and before["window"]["derived in frame"] == []
    assert before["window"]["items"] > 0


def test_a_grantee_of_the_whole_segment_still_reads_arcs_and_rollups(views):
    before, after, _ = views
    assert before["segment"]["rollups"] > 0 and after["segment"]["rollups"] > 0
    assert after["segment"]["items"] > before["segment"]["items"]
