"""A grantee who sees part of a session cannot count or place the items hidden in it.

Before, a grantee reading a session whose middle item a label hid saw ``item_seq/2`` answer
``0, 1, 3, 4, 5`` (one item lies between 1 and 3) and pointers ``chat.txt:1, chat.txt:2,
chat.txt:4 …`` (line 3 is hidden), through ``atc query --as``, ``atc show --as``, the
receipt's ``source`` and ``atc serve``'s /v1/*. Now ``item_seq/2`` numbers the items they see
of a session among themselves, in the owner's order (``0, 1, 2, 3, 4``), and a grantee's pointer
is the file's name alone (``chat.txt``): the owner's line or JSON pointer placed the record
among the owner's. The owner's view is unchanged.

A hidden user's turn is also the goal of the turns after it that answer it: the grantee's
``item_goal/2`` (and ``atc show --as``'s ``goal``) of the reply they see answered the hidden
turn's words (``the door code for the lab is 4417``). Now a goal is shown only to a reader who
sees at L0 the turn that set it (the first of the run of items carrying it).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

sys.path.insert(0, str(Path(__file__).parent))

CHAT = ("Dana: lunch at noon on Friday at the noodle place?\n"
        "Omar: yes, the usual place near the station.\n"
        "Dana: the door code for the lab is 4417, keep it quiet.\n"
        "Omar: great, I will book a table for four.\n"
        "Dana: bring the receipts from last week too.\n"
        "Omar: will do, see you Friday at noon.\n")
GOAL = "lunch at the noodle place on Friday"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A curated home of one six-turn chat, its third turn labelled private; bob reads the
    segment at L0. Yields (home path, bob's token, the hidden handle)."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal, label

    root = tmp_path_factory.mktemp("hidden_places")
    (root / "chat.txt").write_text(CHAT, encoding="utf-8")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with Memory.open(home) as memory:
        memory.ingest([root / "chat.txt"], format="text", segment="team")
        memory.curate()
        add_principal(memory, "alice", owner=True)
        token = add_principal(memory, "bob")
        add_grant(memory, "bob", segments=["team"], ceiling="L0")
        rows = memory.query("item_seq(H, 2)", limit=5).rows
        hidden = rows[0]["H"]
        label(memory, [hidden], restrictions=["private"])
    return home, token, hidden


def _memory(home):
    from attention_cloud import Memory

    return Memory.open(home)


def test_the_owner_still_reads_every_seq_and_line(home):
    path, _, _ = home
    with _memory(path) as memory:
        rows = memory.query("item_seq(H, N), item_source(H, P)", limit=100).rows
    assert sorted(r["N"] for r in rows) == [0, 1, 2, 3, 4, 5]
    assert all(":" in Path(r["P"]).name for r in rows)


def test_a_grantees_seq_numbers_what_they_see_in_the_owners_order(home):
    from attention_cloud.sharing import reader_query

    path, _, hidden = home
    with _memory(path) as memory:
        owner = {r["H"]: r["N"] for r in memory.query("item_seq(H, N)", limit=100).rows}
        bob = {r["H"]: r["N"] for r in reader_query(memory, "bob", "item_seq(H, N)",
                                                        limit=100).rows}
        bound = reader_query(memory, "bob", "item_seq(H, 2)", limit=5).rows
        after = reader_query(memory, "bob", "item_seq(H, N), N > 1", limit=100).rows
    assert hidden not in bob
    assert sorted(bob.values()) == [0, 1, 2, 3, 4]
    # the same order as the owner's
    assert sorted(bob, key=bob.get) == sorted(bob, key=owner.get)
    assert [r["H"] for r in bound] == [h for h, n in bob.items() if n == 2]
    assert len(after) == 3


def test_a_grantees_pointer_names_the_file_alone(home):
    from attention_cloud.sharing import reader_hydrate, reader_query

    path, _, _ = home
    with _memory(path) as memory:
        rows = reader_query(memory, "bob", "item_source(H, P)", limit=100).rows
        again = reader_query(memory, "bob", 'item_source(H, "chat.txt")', limit=100).rows
        receipt = reader_hydrate(memory, "bob", GOAL, budget=4000).receipt
    assert len(rows) == 5 and {r["P"] for r in rows} == {"chat.txt"}
    assert len(again) == 5
    sources = {f["source"] for f in receipt["facts"] + receipt["beyond"]
               if not f["handle"].startswith("cell_")}
    assert sources <= {"chat.txt", ""} and "chat.txt" in sources, sources


def test_show_as_and_serve_place_nothing(home):
    from attention_cloud.sharing.mounts import call_mount
    from test_sharing import Server

    path, token, _ = home
    with _memory(path) as memory:
        third = memory.query("item_seq(H, 3)", limit=1).rows[0]["H"]
    out = CliRunner().invoke(main, ["show", third, "--as", "bob", "--format", "json",
                                    "--home", str(path)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    shown = json.loads(out.output)
    assert shown["seq"] == 2 and shown["source"] == "chat.txt", shown
    server = Server(path)
    try:
        seqs = call_mount(server.url, token, "/v1/query", {"goal": "item_seq(H, N)",
                                                           "limit": 100})
        frame = call_mount(server.url, token, "/v1/hydrate", {"goal": GOAL})
    finally:
        server.stop()
    text = json.dumps(seqs)
    assert sorted(r["N"] for r in seqs["rows"]) == [0, 1, 2, 3, 4], text
    assert "chat.txt:" not in json.dumps(frame)


def test_a_hidden_turn_is_not_told_as_the_goal_of_the_turns_after_it(home):
    from attention_cloud.sharing import reader_query

    path, token, hidden = home
    with _memory(path) as memory:
        owner = memory.query("item_goal(H, G)", limit=100).rows
        bob = reader_query(memory, "bob", "item(H), item_goal(H, G)", limit=100).rows
        bound = reader_query(memory, "bob", 'item_goal(H, "the door code for the lab is 4417, '
                                            'keep it quiet.")', limit=100).rows
        arcs = reader_query(memory, "bob", "arc_goal(A, G)", limit=100).rows
        reply = memory.query("item_seq(H, 3)", limit=1).rows[0]["H"]
    assert sum("4417" in r["G"] for r in owner) == 2          # the owner's view is unchanged
    assert bob and not any("4417" in r["G"] for r in bob), bob
    assert {r["H"] for r in bob} == {r["H"] for r in owner} - {hidden, reply}
    assert bound == [] and not any("4417" in r["G"] for r in arcs)
    out = CliRunner().invoke(main, ["show", reply, "--as", "bob", "--format", "json",
                                    "--home", str(path)], catch_exceptions=False)
    assert out.exit_code == 0 and "4417" not in out.output, out.output


TELEGRAM = Path(__file__).parent / "fixtures" / "ingest" / "telegram_result.json"


@pytest.fixture(scope="module")
def chat_home(tmp_path_factory):
    """The Telegram fixture (message ids 1..8, 6 replying to 5, 3 to 2), message 5 labelled
    private; bob reads the whole segment at L0. Yields (home path, the owner's id of each
    item: handle -> 'CHAT#N')."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal, label

    home = tmp_path_factory.mktemp("telegram_ids") / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with Memory.open(home) as memory:
        memory.ingest([TELEGRAM], segment="runs")
        memory.curate()
        add_principal(memory, "alice", owner=True)
        add_principal(memory, "bob")
        add_grant(memory, "bob", segments=["runs"], ceiling="L0")
        ids = {r["H"]: r["O"] for r in memory.query("relation(H, message_id, O)",
                                                     limit=100).rows}
        hidden = next(h for h, o in ids.items() if o.endswith("#5"))
        label(memory, [hidden], restrictions=["private"])
    return home, ids


def test_a_grantee_reads_no_message_number_and_no_reply_to_a_hidden_message(chat_home):
    """Before, bob read ``message_id`` ``…#2, #3, #4, #6`` (the owner's numbering: #5 is
    hidden) and ``reply_to`` ``…#5`` on message 6: that a hidden message sits there, and which.
    Now a grantee reads ``reply_to`` as the handle of the message answered, where they see it,
    and no ``message_id`` (the handle is a message's id for them)."""
    from attention_cloud.sharing import reader_query

    path, ids = chat_home
    by_number = {o.rsplit("#", 1)[1]: h for h, o in ids.items()}
    with _memory(path) as memory:
        owner = memory.query("relation(H, reply_to, O)", limit=100).rows
        rows = reader_query(memory, "bob", "relation(H, P, O)", limit=1000).rows
        replies = reader_query(memory, "bob", "relation(H, reply_to, O)", limit=100).rows
        bound = reader_query(memory, "bob", f"relation(H, reply_to, '{by_number['2']}')",
                             limit=100).rows
    assert {r["O"].rsplit("#", 1)[1] for r in owner} >= {"2", "5"}    # the owner's unchanged
    told = json.dumps(rows)
    assert not any(r["P"] == "message_id" for r in rows), told
    assert not any("#" in str(r["O"]) and r["P"] in ("reply_to", "message_id") for r in rows)
    assert [(r["H"], r["O"]) for r in replies] == [(by_number["3"], by_number["2"])]
    assert [r["H"] for r in bound] == [by_number["3"]]
