"""A grantee learns nothing of the people who speak only in records they cannot see: not from
goal_speaker/2, not from how their frame is ranked. The names a goal is read for (the speaker
prior, the name cut out of what the embedder reads) were every speaker of the home: a grantee
asking "what did you tell Zebediah" got no answer where an unknown name got `assistant`, and
their frame was ranked otherwise for a name of the owner's private segment than for a name
nobody has."""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate
from attention_cloud.sharing.reads import reader_query

PUBLIC = ("Dana: lunch at noon on Friday at the noodle place?\n"
          "Omar: yes, the usual place near the station.\n"
          "Dana: great, I will book a table for four.\n"
          "Omar: bring the receipts from last week too.\n")
PRIVATE = ("Zebediah: the launch code for nightjar is 7731.\n"
           "Priya: noted, I will keep it safe.\n"
           "Zebediah: keep it out of the shared notes.\n"
           "Priya: of course.\n")


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    root = tmp_path_factory.mktemp("speakers")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    (root / "public.txt").write_text(PUBLIC, encoding="utf-8")
    (root / "private.txt").write_text(PRIVATE, encoding="utf-8")
    memory = Memory.open(home)
    memory.ingest([root / "public.txt"], format="text", segment="public")
    memory.ingest([root / "private.txt"], format="text", segment="private")
    # not curated: frames are BM25's alone (path lexical), so two goals that differ by a word
    # no visible record holds rank alike unless the goal is read otherwise
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "bob")
    add_grant(memory, "bob", segments=["public"], ceiling="L0")
    yield memory
    memory.close()


def speaker(mem: Memory, reader: str | None, goal: str) -> list:
    query = f'goal_speaker("{goal}", S)'
    rows = (mem.query(query) if reader is None else reader_query(mem, reader, query)).rows
    return [row["S"] for row in rows]


@pytest.mark.parametrize("goal, owner, grantee", [
    ("what did you tell Zebediah", ["Zebediah"], ["assistant"]),
    ("what did Zebediah say about my trip", ["Zebediah"], ["user"]),
    ("what did Zebediah and Dana say", ["Zebediah"], ["Dana"]),
    ("what did Dana and Zebediah say", ["Dana"], ["Dana"]),
])
def test_goal_speaker_names_only_people_the_reader_sees_speak(mem, goal, owner, grantee):
    assert speaker(mem, None, goal) == owner
    assert speaker(mem, "bob", goal) == grantee
    # the same as for a name memory does not know at all
    assert speaker(mem, "bob", goal.replace("Zebediah", "Nobodyxyz")) == grantee


def test_a_grantees_frame_is_ranked_alike_for_a_hidden_speaker_and_an_unknown_name(mem):
    """"my lunch" asks about the user's own turns (Dana's, the chat's first speaker): read for
    the owner's hidden Zebediah instead, bob's frame weighed Dana's turns otherwise."""
    def ranked(goal: str) -> list:
        frame = reader_hydrate(mem, "bob", goal, budget=600)
        assert frame.receipt["path"] == "lexical"
        return [(f["handle"], f["score"]) for f in frame.receipt["facts"]]

    hidden = ranked("what did Zebediah say about my lunch")
    assert hidden, "bob's frame holds the public turns"
    assert hidden == ranked("what did Nobodyxyz say about my lunch")
