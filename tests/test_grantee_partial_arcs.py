"""An arc with a member hidden from a grantee: they keep the grouping of what they see.

An arc is a run of turns serving one goal, and its rungs (the summary) are written from every
member. A grantee from whom one member is hidden (a label) could not be shown that summary,
so the whole arc was invisible to them: `item_arc/2` answered nothing for the members they do
see, and their frame lost the arc's story (the owner's frame brings the arc in with a seed;
theirs brought the seed's next turns alone). Now they are shown the arc made of the members
they see: its id is the one curation would give those members alone, it has no rung, goal
or distillation (the owner's were written from the hidden member), and nothing of the hidden
member (its handle, that it exists, its time) is in what they read; a seed of theirs in such
an arc brings its mates nearest it, as the owner's arc would.
"""
from __future__ import annotations

import hashlib

import pytest

from attention_cloud.errors import BadArgument
from granted_home import chat_memory

STEPS = ["checked the harbour crane logs", "restarted the crane controller",
         "the zeppelin sensor reported a fault", "replaced the fuse on the winch",
         "ran the load test again", "the winch held at full load", "wrote the incident note",
         "told the night shift", "closed the ticket for the crane"]
HIDDEN = "replaced the fuse on the winch."


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One arc of ten turns (a user's goal, nine replies) beside 150 unrelated notes; bob is
    granted the segment at L0, and the owner labels one reply of the arc private. Yields
    (memory, the owner's arc, its members in order, the hidden member)."""
    from attention_cloud.sharing import add_grant, add_principal, label

    chat = ("User: please fix the harbour crane that keeps stopping\n"
            + "".join(f"Assistant: {s}.\n" for s in STEPS))
    filler = "".join(f"Dana: note {i} about the lunch menu and parking number {i}.\n"
                     for i in range(150))
    with chat_memory(tmp_path_factory.mktemp("partial_arcs"),
                     {"crane.txt": chat, "filler.txt": filler}) as memory:
        (arc,) = [r["A"] for r in memory.query("arc(A)").rows]
        members = [r["H"] for r in memory.query(f"arc_member('{arc}', H)").rows]
        (hidden,) = [r["H"] for r in memory.query(f'item_text(H, "{HIDDEN}")').rows]
        add_principal(memory, "bob")
        add_grant(memory, "bob", segments=["team"], ceiling="L0")
        label(memory, [hidden], restrictions=["private"])
        yield memory, arc, members, hidden


def _rows(mem, goal: str) -> list[dict]:
    from attention_cloud.sharing import reader_query

    return reader_query(mem, "bob", goal, limit=1000).rows


def _shown_id(handles: list[str]) -> str:
    return "arc_" + hashlib.sha256("\n".join(handles).encode("utf-8")).hexdigest()[:12]


def test_the_members_a_grantee_sees_keep_their_arc(home):
    mem, arc, members, hidden = home
    seen = [h for h in members if h != hidden]
    pairs = _rows(mem, "item_arc(H, A)")
    assert sorted(r["H"] for r in pairs) == sorted(seen)
    assert {r["A"] for r in pairs} == {_shown_id(seen)} != {arc}
    (shown,) = [r["A"] for r in _rows(mem, "arc(A)")]
    assert [r["H"] for r in _rows(mem, f"arc_member('{shown}', H)")] == seen
    assert [r["S"] for r in _rows(mem, f"arc_session('{shown}', S)")] == ["crane"]
    # the owner's arc is untouched
    assert {r["A"] for r in mem.query("item_arc(H, A)", limit=100).rows} == {arc}


def test_nothing_of_the_hidden_member_or_the_owners_summary_is_shown(home):
    from attention_cloud.sharing import reader_show

    mem, arc, members, hidden = home
    (shown,) = [r["A"] for r in _rows(mem, "arc(A)")]
    for goal in (f"rung('{shown}', L, T)", f"arc_goal('{shown}', G)",
                 f"distilled('{shown}', F, V)", f"provenance('{shown}', H)",
                 f"arc_member('{arc}', H)", f"rung('{arc}', L, T)", f"item_arc('{hidden}', A)",
                 f"arc_member(A, '{hidden}')"):
        assert _rows(mem, goal) == [], goal
    for handle in (shown, arc):
        with pytest.raises(BadArgument, match="no such item, arc or rollup visible to bob"):
            reader_show(mem, "bob", handle)


def test_a_seed_in_such_an_arc_brings_its_mates(home):
    from attention_cloud.sharing import reader_hydrate

    mem, arc, members, hidden = home
    texts = {r["H"]: r["T"] for r in mem.query("item_text(H, T)", limit=1000).rows}
    frame = reader_hydrate(mem, "bob", "zeppelin sensor fault", budget=200)
    shown = [texts.get(f["handle"], f["handle"]) for f in frame.receipt["facts"]]
    # the seed, and the members of its arc up to three places either side as bob sees them
    # (the hidden reply is no place): before, only the turns next to it came
    for text in ("please fix the harbour crane that keeps stopping", "checked the harbour "
                 "crane logs.", "restarted the crane controller.", "the zeppelin sensor "
                 "reported a fault.", "ran the load test again.", "the winch held at full load."):
        assert text in shown, (text, shown)
    assert HIDDEN not in shown and arc not in shown
