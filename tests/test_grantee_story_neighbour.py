"""A grantee's frame walks a seed's story to the turns they see beside it.

A frame brings in the turns before and after a seed (its story: ``entity_expansion`` at hop
1). Before, the turn after was the owner's next one (seq + 1), then filtered by the policy: a
grantee from whom that turn was hidden got no turn after the seed at all, so their frame lacked
the reply that answered it (the next turn they see, which an owner whose memory held only
those turns would have had) and told by that lack that something sat there. Now the story is
the nearest turn each side that the reader sees: bob, from whom turn 9 is hidden, gets turn 10
as the seed's next turn, as carol (who sees turn 9) gets turn 9's place filled by it; the
owner's frame is unchanged.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

FILLER = ["the weather in Oslo was grey and rainy all week",
          "my cat knocked the plant off the shelf again",
          "we should repaint the kitchen a pale green colour",
          "the train to Bergen leaves from platform nine",
          "remember to water the tomatoes on the balcony",
          "the library closes early on public holidays",
          "my cousin is visiting from Lisbon in March",
          "the bakery on the corner sells good rye bread"]
NOUNS = ["kettle", "ferry", "violin", "garden", "pension", "compass", "lantern", "harbour",
         "meadow", "pottery", "saddle", "tunnel", "orchard", "glacier", "carpet", "chimney",
         "bicycle", "festival", "puzzle", "lighthouse"]
# turns that share the goal's common words, so that the answer (which shares none) is no seed
FILLER += [f"did the {a} fail the inspection or did the {b} pass"
           for a, b in zip(NOUNS, NOUNS[1:] + NOUNS[:1])]
TAIL = ["the garden hose has a leak near the tap",
        "the museum has a new exhibit about whales",
        "my bike needs a new chain before spring",
        "the pharmacy moved two streets down"]
SEED = "Dana: the zorblax calibration failed on the north rig this morning."
HIDDEN = "Omar: the private salary figure for Q3 is 91000, do not share."
ANSWER = "Dana: I swapped quartz sensor, reran sweep, all green now."
GOAL = "why did the zorblax calibration fail"
SEED_SEQ = len(FILLER)
HIDDEN_SEQ = SEED_SEQ + 1
ANSWER_SEQ = SEED_SEQ + 2


def _chat() -> str:
    lines = [("Dana" if i % 2 == 0 else "Omar") + ": " + f + "." for i, f in enumerate(FILLER)]
    lines += [SEED, HIDDEN, ANSWER]
    lines += [("Omar" if i % 2 == 0 else "Dana") + ": " + f + "." for i, f in enumerate(TAIL)]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One 35-turn chat in segment `team`, curated (hash embedder); bob and carol read it at
    L0, turn 29 (between the seed, 28, and its answer, 30) labelled for carol alone. Yields
    (home, bob's token, seq -> handle)."""
    from attention_cloud.sharing import add_grant, add_principal, label
    from granted_home import chat_memory

    root = tmp_path_factory.mktemp("story_neighbour")
    with chat_memory(root, {"chat.txt": _chat()}) as memory:
        home = memory.home
        token = add_principal(memory, "bob")
        add_principal(memory, "carol")
        add_grant(memory, "bob", segments=["team"], ceiling="L0")
        add_grant(memory, "carol", segments=["team"], ceiling="L0")
        seq = {r["N"]: r["H"] for r in memory.query("item_seq(H, N)", limit=100).rows}
        label(memory, [seq[HIDDEN_SEQ]], readers=["carol"])
    return home, token, seq


def _story(receipt: dict, seed: str) -> dict[str, float]:
    """The facts the walk brought in at hop 1 as the seed's story, handle -> score: the seed's
    score times the story's weight (0.6)."""
    score = next(f["score"] for f in receipt["facts"] if f["handle"] == seed)
    return {f["handle"]: f["score"] for f in receipt["facts"]
            if f["seeded_by"] == "entity_expansion" and f["hops"] == 1
            and f["score"] == pytest.approx(score * 0.6, abs=1e-3)}


@pytest.mark.parametrize("cells", [False, True])
def test_the_turn_after_a_hidden_one_is_the_seeds_story(home, cells):
    from attention_cloud import Memory
    from attention_cloud.sharing import reader_hydrate

    path, _, seq = home
    seed, hidden, answer = seq[SEED_SEQ], seq[HIDDEN_SEQ], seq[ANSWER_SEQ]
    with Memory.open(path) as memory:
        owner = memory.hydrate(GOAL, budget=2000, cells=cells).receipt
        carol = reader_hydrate(memory, "carol", GOAL, budget=2000, cells=cells).receipt
        bob = reader_hydrate(memory, "bob", GOAL, budget=2000, cells=cells).receipt
    assert owner["facts"][0]["handle"] == seed == bob["facts"][0]["handle"]
    # carol sees the turn between: a seed itself, whose story is the answer
    assert hidden in {f["handle"] for f in carol["facts"]}
    assert answer in _story(carol, hidden), carol["facts"]
    # bob does not: the answer is the seed's next turn for him
    assert hidden not in {f["handle"] for f in bob["facts"] + bob["beyond"]}
    assert answer in _story(bob, seed), bob["facts"]
    # and it scores where the story puts it, above the goal's weak hits
    weak = max(f["score"] for f in bob["facts"]
               if f["seeded_by"] == "relevance" and f["handle"] != seed)
    assert _story(bob, seed)[answer] > weak


def test_through_serve_the_story_skips_what_the_token_cannot_see(home):
    from attention_cloud.sharing.mounts import call_mount
    from test_sharing import Server

    path, token, seq = home
    server = Server(path)
    try:
        frame = call_mount(server.url, token, "/v1/hydrate", {"goal": GOAL})
    finally:
        server.stop()
    receipt = frame["receipt"] if "receipt" in frame else frame
    assert seq[HIDDEN_SEQ] not in {f["handle"] for f in receipt["facts"]}
    assert seq[ANSWER_SEQ] in _story(receipt, seq[SEED_SEQ]), receipt["facts"]
