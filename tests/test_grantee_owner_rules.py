"""A grantee's goals do not run the owner's saved rules; their frames still walk them.

Before: the owner's saved rules loaded into every grantee goal, so what a rules file writes
as facts reached the grantee: `plane_segment(P, S, W)` as bob answered `security`, a segment
he has no grant on (which `hydrate --as` hides), and any fact of the file (`vault(X)`) was
theirs to read. Now a grantee's goal loads their own `--rules` alone; a saved predicate is
unknown to it, as in a home without it. Their frames still load the saved rules (planes and
walk rules), whose answers pass the policy like every record of the frame.

Also: `cell_path/3` on a cell no one knows was an existence error for the owner and a silent
failure for a grantee; it is the same error for both now.
"""
from __future__ import annotations

import json
import sys

import pytest

from granted_home import granted_memory

RULES = """
plane(sec, _{seeds: 3, walk: rule(around)}).
plane_segment(sec, security, 1).
plane_segment(sec, default, 1).
vault("the vault code is 4711").
around(Seed, H) :- item_session(Seed, S), item_session(H, S), H \\== Seed.
"""


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """Alice's home (one session in `default`, a note in `security`) with a saved rules file;
    bob granted `default` at L0, with a token."""
    from attention_cloud.sharing import add_principal

    root = tmp_path_factory.mktemp("owner_rules")
    mem = granted_memory(root, "L0")
    note = root / "note.txt"
    note.write_text("User: rotate the production vault keys tonight\n", encoding="utf-8")
    mem.ingest([note], format="text", segment="security")
    mem.rules_add(RULES, "sec")
    token = add_principal(mem, "carol")
    from attention_cloud.sharing import add_grant
    add_grant(mem, "carol", segments=["default"], ceiling="L0")
    try:
        yield mem, token
    finally:
        mem.close()


def test_the_owner_reads_her_rules(shared):
    mem, _ = shared
    rows = mem.query("plane_segment(P, S, W)").rows
    assert {r["S"] for r in rows} == {"security", "default"}


@pytest.mark.parametrize("goal", ["plane_segment(P, S, W)", "vault(X)", "plane(P, S)"])
def test_a_grantees_goal_cannot_read_the_owners_rules(shared, goal):
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import reader_query

    mem, _ = shared
    with pytest.raises(AtcError) as err:
        reader_query(mem, "bob", goal)
    message = str(err.value)
    assert "Unknown procedure" in message
    assert "security" not in message and "4711" not in message


def test_a_grantees_own_rules_still_run(shared):
    from attention_cloud.sharing import reader_query

    mem, _ = shared
    rows = reader_query(mem, "bob", "mine(N)",
                        rules_text="mine(N) :- aggregate_all(count, item(_), N).").rows
    assert rows and rows[0]["N"] > 0


def test_a_grantees_frame_still_walks_a_saved_plane(shared):
    from attention_cloud.sharing import reader_hydrate

    mem, _ = shared
    frame = reader_hydrate(mem, "bob", "cache ttl fix", plane="sec", budget=1500)
    assert frame.receipt["facts"]
    assert "security" not in frame.text and "vault" not in frame.text
    assert "security" not in json.dumps(frame.receipt)
    owner = mem.query("item_segment(H, security)").rows
    hidden = {r["H"] for r in owner}
    assert hidden and not hidden & {f["handle"] for f in frame.receipt["facts"]}


def test_a_grantees_own_walk_rule_cannot_read_the_owners_rules(shared):
    """A grantee's rules in a frame (`POST /v1/hydrate` with `rules` and `walk`, `atc hydrate
    --as --rules`) were loaded beside the owner's saved rules, so their walk rule could call a
    saved predicate and carry its text out in the scores it gave records they see:
    `leak(S, H-W) :- ..., vault(T), string_length(T, N), W is N / 100` scored each fact 0.23,
    the length of the owner's vault line (any character of it the same way). A grantee's own
    rules now load alone: a saved predicate is unknown to them, as in their goals."""
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import reader_hydrate

    mem, _ = shared
    rules = ("leak(Seeds, H-W) :- member(S-_, Seeds), item_session(S, X), item_session(H, X),"
             " vault(T), string_length(T, N), W is N / 100.\n")
    with pytest.raises(AtcError) as caught:
        frame = reader_hydrate(mem, "bob", "cache ttl fix", budget=3000, rules_text=rules,
                               walk="leak")
        scores = {f["score"] for f in frame.receipt["facts"] if f.get("seeded_by") == "rule:leak"}
        assert not scores, f"the walk rule read the owner's rules: {scores}"
    assert "vault" in str(caught.value) and "\n" not in str(caught.value), caught.value
    own = "near(Seeds, H-0.9) :- member(S-_, Seeds), item_session(S, X), item_session(H, X).\n"
    frame = reader_hydrate(mem, "bob", "cache ttl fix", budget=3000, rules_text=own, walk="near")
    assert any(f.get("seeded_by") == "rule:near" for f in frame.receipt["facts"])


def test_a_saved_rule_named_as_a_grantees_walk_tells_them_nothing_of_its_text(shared):
    """A grantee may name a saved rule as their frame's walk (`"walk": "pin"`); one that is no
    walk rule answered them with its text in the error: `pin(_, 'the vault pin is 4711')`
    gave `walk rule pin failed: Type error: ... found 'the vault pin is 4711'`. What a saved
    rule raises in a grantee's frame is now not shown to them; the owner still reads it."""
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import reader_hydrate

    mem, _ = shared
    mem.rules_add("pin(_, 'the vault pin is 4711').\n", "pin")
    try:
        with pytest.raises(AtcError) as caught:
            reader_hydrate(mem, "bob", "cache ttl fix", budget=1500, walk="pin")
        message = str(caught.value)
        assert "walk rule pin failed" in message and "\n" not in message, message
        assert "4711" not in message and "vault" not in message, message
        with pytest.raises(AtcError, match="4711"):
            mem.hydrate("cache ttl fix", budget=1500, walk="pin")
    finally:
        mem.rules_remove("pin")


def test_a_broken_saved_plane_tells_a_grantee_nothing_of_its_settings(shared):
    """`plane(leak, [seeds='the vault pin is 4711'])` saved by the owner answered a grantee's
    frame on it with `plane leak: seeds must be a count, not 'the vault pin is 4711'`."""
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import reader_hydrate

    mem, _ = shared
    mem.rules_add("plane(leak, [seeds='the vault pin is 4711']).\n", "leak")
    try:
        with pytest.raises(AtcError) as caught:
            reader_hydrate(mem, "bob", "cache ttl fix", budget=1500, plane="leak")
        message = str(caught.value)
        assert "plane leak" in message and "4711" not in message, message
        with pytest.raises(AtcError, match="4711"):
            mem.hydrate("cache ttl fix", budget=1500, plane="leak")
    finally:
        mem.rules_remove("leak")


def test_a_grantee_through_serve_cannot_read_the_owners_rules(shared):
    from test_serve_share import call
    from test_sharing import Server

    mem, token = shared
    server = Server(mem.home, argv=[sys.executable, "-m", "attention_cloud.cli", "serve",
                                    "--port", "0", "--home", str(mem.home)])
    try:
        status, answer, _ = call(server.url, token, "/v1/query",
                                 {"goal": "plane_segment(P, S, W)"})
        assert status == 400, answer
        assert "security" not in str(answer)
        status, answer, _ = call(server.url, token, "/v1/query", {"goal": "item(H)",
                                                                   "limit": 1})
        assert status == 200 and answer["rows"], answer
    finally:
        server.stop()


def test_cell_path_on_an_unknown_cell_is_the_same_error_for_owner_and_grantee(shared):
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import reader_query

    mem, _ = shared
    goal = "cell_path(cell_nope, cell_nope2, P)"
    with pytest.raises(AtcError) as owner:
        mem.query(goal)
    with pytest.raises(AtcError) as grantee:
        reader_query(mem, "bob", goal)
    assert "cell_nope" in str(owner.value)
    assert str(grantee.value) == str(owner.value)


def test_atc_query_as_a_grantee_says_the_saved_rule_is_unknown_in_one_line(shared):
    from click.testing import CliRunner

    from attention_cloud.cli import main

    mem, _ = shared
    out = CliRunner().invoke(main, ["query", "plane_segment(P, S, W)", "--as", "bob",
                                    "--home", str(mem.home)])
    assert out.exit_code == 2, out.output
    assert out.output.count("\n") == 1 and "Unknown procedure" in out.output
    assert "security" not in out.output
