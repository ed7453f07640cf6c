"""A grantee's story reaches the next turn they see however many hidden turns sit between.

The walk brings in the turns before and after a seed, for a grantee the nearest each side that
they see. It looked past at most 100 places: with 120 turns hidden from bob between the seed
and its answer, bob's frame had no turn after the seed, where with 20 hidden it had the answer
(and a home holding only what bob sees would too). Whether the answer came told bob whether more
than 100 hidden turns sat there. Now, past 100 places, the session's remaining turns are searched
for the nearest one bob sees, so his story is the same whatever the length of the hidden run.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

NOUNS = ["kettle", "ferry", "violin", "garden", "pension", "compass", "lantern", "harbour",
         "meadow", "pottery", "saddle", "tunnel", "orchard", "glacier", "carpet", "chimney"]
SEED = "Dana: the zorblax calibration failed on the north rig this morning."
ANSWER = "Dana: I swapped quartz sensor, reran sweep, all green now."
GOAL = "why did the zorblax calibration fail"


def _chat(hidden: int) -> str:
    """Eight lead-in turns, the seed, ``hidden`` turns of private chatter, the answer and two
    more turns."""
    lead = [f"did the {a} fail the inspection or did the {b} pass"
            for a, b in zip(NOUNS[:8], NOUNS[1:9])]
    lines = [("Dana" if i % 2 == 0 else "Omar") + ": " + t + "." for i, t in enumerate(lead)]
    lines.append(SEED)
    lines += [f"Omar: private note {i} about the {NOUNS[i % len(NOUNS)]} budget."
              for i in range(hidden)]
    lines += [ANSWER, "Omar: the bakery on the corner sells rye bread.",
              "Dana: the museum has a new exhibit about whales."]
    return "\n".join(lines) + "\n"


def _story_after_seed(hidden: int, tmp_path: Path) -> tuple[str, str, list[dict]]:
    """bob's frame for GOAL on a chat whose ``hidden`` turns after the seed are private:
    (seed handle, answer handle, bob's facts)."""
    from attention_cloud.sharing import add_grant, add_principal, label, reader_hydrate
    from granted_home import chat_memory

    with chat_memory(tmp_path, {"chat.txt": _chat(hidden)}) as memory:
        add_principal(memory, "bob")
        add_grant(memory, "bob", segments=["team"], ceiling="L0")
        seq = {r["N"]: r["H"] for r in memory.query("item_seq(H, N)", limit=1000).rows}
        seed_seq = 8
        label(memory, [seq[seed_seq + 1 + i] for i in range(hidden)], restrictions=["private"])
        facts = reader_hydrate(memory, "bob", GOAL, budget=2000).receipt["facts"]
    return seq[seed_seq], seq[seed_seq + 1 + hidden], facts


def _story(facts: list[dict], seed: str) -> set[str]:
    """The handles the walk brought in at hop 1 as the seed's story (its score times 0.6)."""
    score = next(f["score"] for f in facts if f["handle"] == seed)
    return {f["handle"] for f in facts
            if f["seeded_by"] == "entity_expansion" and f["hops"] == 1
            and f["score"] == pytest.approx(score * 0.6, abs=1e-3)}


@pytest.mark.parametrize("hidden", [20, 120])
def test_the_answer_past_a_long_hidden_run_is_the_seeds_story(hidden, tmp_path):
    seed, answer, facts = _story_after_seed(hidden, tmp_path)
    assert facts[0]["handle"] == seed
    assert answer in _story(facts, seed), (hidden, facts)
