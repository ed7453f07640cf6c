"""Detail against presence: a frame raises a fact to more detail without dropping a distinct one
it could have kept (rules/hydrate.pl promote_/4)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.home import write_config

GOAL = "How many model kits have I worked on or bought?"
TANK = "I bought a Revell Tiger tank model kit today and started gluing the tracks on the model kit."
# Its one-sentence summary is a token dearer in the frame than the turn itself (it pays the
# handle's line) and its distillation a few tokens cheaper: walked to, it starts at L2.
SPITFIRE = ("I'm looking for some advice on painting metal surfaces for a model kit, since I recently "
            "picked up a 1/48 scale Spitfire kit at the hobby store downtown last week with my "
            "brother.")
SHERMAN = "I also finished building the 1/35 Sherman model kit I ordered online."
OTHER = ["What's the weather like for a picnic on Saturday?",
         "Can you recommend a good book about the history of Rome?",
         "I need a recipe for banana bread without eggs.", "How do I change the oil in a Honda Civic?",
         "What are some stretches for lower back pain?", "Help me plan a three day trip to Lisbon."]
# The walk reaches the other user turns of a seed's session, the Spitfire turn among them.
RULES = """
same_session(Seeds, Id-0.45) :-
    member(S-_, Seeds), item_session(S, Session), item_session(Id, Session),
    item_role(Id, user), Id \\== S.
plane(kits, _{walk: rule(same_session), seeds: 1}).
"""


def _session(folder: Path, name: str, day: int, turns: list[str]) -> None:
    messages = []
    for i, text in enumerate(turns):
        messages += [{"role": "user", "content": text, "timestamp": f"2023-05-{day:02d}T09:{i:02d}:00Z"},
                     {"role": "assistant", "content": "Sounds good, happy to help with that.",
                      "timestamp": f"2023-05-{day:02d}T09:{i:02d}:05Z"}]
    (folder / f"{name}.json").write_text(json.dumps({"session_id": name, "messages": messages}))


@pytest.mark.parametrize("budget", [219, 247])
def test_a_fact_raised_past_a_dearer_rung_does_not_cost_another_fact(home, tmp_path, budget):
    """At these budgets what is left beside the tank, the Sherman and the Spitfire's distillation
    holds the Spitfire turn verbatim but not its summary, a token dearer. Raising a rung at a time
    dropped the Sherman to pay for the summary on the way to the verbatim turn (LongMemEval
    gpt4_59c863d7 lost an evidence turn so); now the turn is raised straight to L0, and the
    Sherman, one of the kits the goal counts, stays."""
    chats = tmp_path / "chats"
    chats.mkdir()
    _session(chats, "s1", 10, [TANK, SPITFIRE])
    _session(chats, "s2", 12, [OTHER[0], SHERMAN, OTHER[1]])
    _session(chats, "s3", 14, OTHER[2:])
    rules = tmp_path / "kits.pl"
    rules.write_text(RULES)
    write_config(home, {"embedder": "hash"})
    mem = Memory.open(home)
    try:
        mem.ingest([chats])
        mem.curate()
        frame = mem.hydrate(GOAL, budget=budget, plane="kits", rules=rules)
        verbatim = {f.text.split(": ", 1)[-1]: f for f in frame.facts if f.level == "l0"}
        spitfire = [f for t, f in verbatim.items() if t.startswith(SPITFIRE[:60])]
        assert spitfire and spitfire[0].seeded_by == "rule:same_session"   # raised from its walk rung
        assert any(t.startswith(TANK) for t in verbatim)
        assert any(t.startswith(SHERMAN) for t in verbatim)
        assert frame.receipt["budget"]["spent"] + frame.receipt["budget"]["framing"] <= budget
    finally:
        mem.close()
