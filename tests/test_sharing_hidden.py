"""A grantee learns nothing of the records they cannot see, by any route that reads the whole
home: the names a goal is read for, an echo's discount, the errors of `hydrate --as`.

- goal_speaker/2 and a frame's speaker prior matched every speaker of the home: a grantee
  asking "what did you tell Zebediah" got no answer where an unknown name got `assistant`.
- An echo counted half for an original the grantee cannot see: their only copy of a restated
  fact ranked below "good to know", and the halving told them the original exists.
- `hydrate --as` named every segment of the home in an error, accepted a segment without
  grant silently, and told an unseen cell from a missing one.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.errors import UsageError
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate
from attention_cloud.sharing.reads import reader_query, reader_show

PUBLIC = ("Dana: lunch at noon on Friday at the noodle place?\n"
          "Omar: yes, the usual place near the station.\n"
          "Dana: great, I will book a table for four.\n"
          "Omar: bring the receipts from last week too.\n")
PRIVATE = ("Zebediah: the launch code for nightjar is 7731.\n"
           "Priya: noted, I will keep it safe.\n"
           "Zebediah: keep it out of the shared notes.\n"
           "Priya: of course.\n")
STAGING = ("Priya: The staging database is read-only on Fridays after the nightly migration "
           "window closes.\n")
EARLIER = (f"[2024-03-01 09:00] {STAGING}[2024-03-01 09:01] Omar: noted, thanks.\n"
           "[2024-03-01 09:02] Priya: keep it in mind.\n[2024-03-01 09:03] Omar: sure.\n")
LATER = (f"[2024-03-08 10:00] {STAGING}[2024-03-08 10:01] Omar: good to know.\n"
         "[2024-03-08 10:02] Priya: lunch at noon?\n[2024-03-08 10:03] Omar: yes.\n")


def open_home(root: Path, chats: dict[str, str], *, curate: bool, grants: dict) -> Memory:
    """A home (hash embedder) holding each chat in the segment of its name, alice its owner
    and each grantee of ``grants`` given ``(segments, ceiling)``."""
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    memory = Memory.open(home)
    for segment, text in chats.items():
        (root / f"{segment}.txt").write_text(text, encoding="utf-8")
        memory.ingest([root / f"{segment}.txt"], format="text", segment=segment)
    if curate:
        memory.curate()
    add_principal(memory, "alice", owner=True)
    for grantee, (segments, ceiling) in grants.items():
        add_principal(memory, grantee)
        add_grant(memory, grantee, segments=segments, ceiling=ceiling)
    return memory


# -- the people a goal names ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def talk(tmp_path_factory):
    # not curated: frames are BM25's alone (path lexical), so two goals that differ by a word
    # no visible record holds rank alike unless the goal is read otherwise
    memory = open_home(tmp_path_factory.mktemp("talk"), {"public": PUBLIC, "private": PRIVATE},
                       curate=False, grants={"bob": (["public"], "L0")})
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
def test_goal_speaker_names_only_people_the_reader_sees_speak(talk, goal, owner, grantee):
    assert speaker(talk, None, goal) == owner
    assert speaker(talk, "bob", goal) == grantee
    # the same as for a name memory does not know at all
    assert speaker(talk, "bob", goal.replace("Zebediah", "Nobodyxyz")) == grantee


def test_a_grantees_frame_is_ranked_alike_for_a_hidden_speaker_and_an_unknown_name(talk):
    """"my lunch" asks about the user's own turns (Dana's, the chat's first speaker): read for
    the owner's hidden Zebediah instead, bob's frame weighed Dana's turns otherwise."""
    def ranked(goal: str) -> list:
        frame = reader_hydrate(talk, "bob", goal, budget=600)
        assert frame.receipt["path"] == "lexical"
        return [(f["handle"], f["score"]) for f in frame.receipt["facts"]]

    hidden = ranked("what did Zebediah say about my lunch")
    assert hidden, "bob's frame holds the public turns"
    assert hidden == ranked("what did Nobodyxyz say about my lunch")


# -- an echo of what the grantee cannot see ------------------------------------------------------
def test_an_echo_whose_original_the_reader_cannot_see_is_not_discounted(tmp_path):
    goal = "is the staging database read-only"
    mem = open_home(tmp_path, {"private": EARLIER, "shared": LATER}, curate=True,
                    grants={"bob": (["shared"], "L0"), "carol": ((), "L0")})
    try:
        (row,) = mem.query("echo_of(E, O, _)").rows
        echo, original = row["E"], row["O"]

        def scores(frame) -> dict[str, float]:
            return {f["handle"]: f["score"] for f in frame.receipt["facts"]}

        bobs = reader_hydrate(mem, "bob", goal, budget=600)
        assert original not in scores(bobs)
        assert bobs.receipt["facts"][0]["handle"] == echo, bobs.receipt["facts"]
        # carol sees both: the echo counts half beside its original, as in the owner's frame
        carols = scores(reader_hydrate(mem, "carol", goal, budget=600))
        owners = scores(mem.hydrate(goal, budget=600))
        assert carols[echo] == owners[echo] < scores(bobs)[echo]
    finally:
        mem.close()


# -- what `hydrate --as` and `show --as` say -----------------------------------------------------
def atc(*args: str, home: Path):
    return CliRunner().invoke(main, [*args, "--home", str(home)])


@pytest.fixture(scope="module")
def curated(tmp_path_factory) -> Path:
    memory = open_home(tmp_path_factory.mktemp("curated"),
                       {"hushed-public": PUBLIC, "hushed-private": PRIVATE}, curate=True,
                       grants={"bob": (["hushed-public"], "L2")})
    memory.close()
    return memory.home


def refusal(home: Path, *args: str) -> str:
    out = atc("hydrate", "--goal", "lunch", *args, home=home)
    assert out.exit_code == 2, out.output
    (line,) = [line for line in out.output.splitlines() if line.startswith("atc:")]
    return line


def test_a_segment_the_grantee_cannot_read_is_no_such_segment(curated):
    hidden = refusal(curated, "--segment", "hushed-private=300", "--as", "bob")
    missing = refusal(curated, "--segment", "nosuch=300", "--as", "bob")
    assert "hushed-private" not in missing and "hushed-public" in missing
    assert hidden.replace("hushed-private", "X") == missing.replace("nosuch", "X")
    # the owner is told every segment
    assert "hushed-private" in refusal(curated, "--segment", "nosuch=300")


def test_a_cell_the_grantee_cannot_see_is_no_such_cell(curated):
    cells = json.loads(atc("query", "cell(C), cell_info(C, segments, S)", "--format", "json",
                           home=curated).output)
    hidden = [c["C"] for c in cells if "hushed-private" in c["S"]]  # not every member seen
    assert hidden, cells
    seen = refusal(curated, "--mount", hidden[0], "--as", "bob")
    missing = refusal(curated, "--mount", "cell_000000000000", "--as", "bob")
    assert seen.replace(hidden[0], "X") == missing.replace("cell_000000000000", "X")


@pytest.mark.parametrize("level", ["L9", "", "top"])
def test_a_level_that_is_no_rung_is_said_to_be_none(curated, level):
    """`GET /v1/show/HANDLE?level=L9` (reader_show) answered `L9 is above bob's ceiling for it
    (L2)`, and an empty level ` is above ...`: as if L9 were a rung he might be granted."""
    rows = json.loads(atc("query", "item(H)", "--as", "bob", "--format", "json",
                          home=curated).output)
    with Memory.open(curated, create=False) as mem:
        with pytest.raises(UsageError) as caught:
            reader_show(mem, "bob", rows[0]["H"], level)
    assert str(caught.value) == f"level must be one of L0, L1, L2, L3, not {level!r}"
