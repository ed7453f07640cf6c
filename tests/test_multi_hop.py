"""Multi-hop frames (issue 14, item 4): once the goal's words find one piece of evidence, the
bridge brings in the piece another session holds that names the same rare thing but none of
the goal's words; --no-bridge leaves it out, and common names (a speaker's) bridge nothing."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config

GOAL = "Which city will Priya live in after accepting the new job offer?"
FIRST = "I accepted the job offer from Nordvik Studio this morning, the pay is much better."
SECOND = "Nordvik Studio wants me at their Lisbon office from September, so I am packing already."

# Filler: two people chatting about other things over many sessions, so that a tight frame
# cannot hold everything and the second piece comes in only by the bridge.
FILLER = [
    "The pottery class was fun, my bowl finally stayed round on the wheel.",
    "I ran ten kilometres in the park before breakfast and my knee held up.",
    "We should try the new ramen place near the station on Friday.",
    "My sister is visiting next weekend, she wants to see the botanical garden.",
    "The heating in the flat broke again, the landlord says he will send someone.",
    "I finished the crime novel you lent me, the ending was a surprise.",
    "Tomorrow I need to renew my passport before it expires in spring.",
    "The cat knocked the plant off the windowsill and the soil went everywhere.",
    "I started learning to bake sourdough, the starter smells very sour.",
    "Our team lost the quiz night by one point on the music round.",
    "My phone screen cracked when it fell off the bike on the way home.",
    "The garden tomatoes are finally turning red after the warm week.",
    # the goal's own words in other senses, so the jump ranks these above the second piece
    "The city council will live stream the vote on the new bridge after the job is done.",
    "Which film will we watch after dinner? The new one about the city sounds good.",
    "The bakery has a new offer: live music in the city square after accepting donations.",
    "I would live in the city centre if the new flats had a better offer on rent.",
    "After the job interview for the new café I walked around the old city walls.",
    "The city marathon will offer new medals after the live broadcast ends.",
]


def _line(name: str, role: str, when: str, text: str) -> str:
    return json.dumps({"role": role, "name": name, "timestamp": when, "content": text}) + "\n"


def _chats(tmp_path, first, second, *, first_in=3, asides=(), second_by=("Priya", "user")):
    """A folder of Priya and Tomás chatting over many sessions (two filler turns each, Tomás's
    asides in the first sessions), ``first`` said by Priya in session ``first_in`` and
    ``second`` in a session of its own, so no story link reaches it from a seed."""
    folder = tmp_path / "chats"
    folder.mkdir()
    for n in range(len(FILLER)):
        day = f"{n + 1} May, 2023"
        lines = [_line("Priya", "user", f"9:00 am on {day}", FILLER[n]),
                 _line("Tomás", "assistant", f"9:05 am on {day}", FILLER[(n + 5) % len(FILLER)])]
        if n < len(asides):
            lines.append(_line("Tomás", "assistant", f"9:07 am on {day}", asides[n]))
        if n == first_in:
            lines.append(_line("Priya", "user", f"9:10 am on {day}", first))
        (folder / f"s{n:02d}.jsonl").write_text("".join(lines))
    (folder / "s99.jsonl").write_text(_line(*second_by, "9:10 am on 30 May, 2023", second))
    return folder


def _curated(home, folder):
    """``atc`` on ``home`` (hash vectors) once ``folder`` is ingested and curated."""
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(folder)).exit_code == 0
    assert run("curate").exit_code == 0
    return run


@pytest.fixture
def hop_home(home, tmp_path):
    return _curated(home, _chats(tmp_path, FIRST, SECOND))


def _frame(run, *extra):
    out = run("hydrate", "--goal", GOAL, "--budget", "600", "--format", "json", *extra)
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


def _handle(run, text):
    out = run("query", f'item_text(H, T), sub_string(T, 0, _, _, "{text[:30]}")', "--format", "json")
    (row,) = json.loads(out.stdout)
    return row["H"]


def _fact(run, frame, text):
    handle = _handle(run, text)
    return next((f for f in frame["receipt"]["facts"] if f["handle"] == handle), None)


def test_the_bridge_brings_the_second_piece_from_another_session(hop_home):
    frame = _frame(hop_home)
    first, second = _fact(hop_home, frame, FIRST), _fact(hop_home, frame, SECOND)
    assert first is not None and first["seeded_by"] in {"relevance", "hybrid", "semantic", "lexical"}
    assert second is not None, frame["text"]
    assert second["seeded_by"] == "entity_expansion"
    assert {"handle": second["handle"], "segment": "default", "from": first["handle"],
            "entity": "Nordvik Studio"} in frame["receipt"]["bridged"]
    assert "Lisbon" in frame["text"]


@pytest.mark.parametrize("walk", [[], ["--no-cells"]], ids=["cell walk", "entity walk"])
def test_no_bridge_leaves_the_second_piece_out(hop_home, walk):
    """Without the bridge the second piece comes in by no entity link: the entity walk leaves
    it out; the cell walk may still reach it as a neighbour of its cell (cells are built from
    the entities items share too), and the receipt says so. Either may show it for its own
    relevance, one of the jump's hits, where the frame has room for it (since the fit prices
    each fact as written, a 600-token frame here does)."""
    frame = _frame(hop_home, *walk, "--no-bridge")
    assert _fact(hop_home, frame, FIRST) is not None
    second = _fact(hop_home, frame, SECOND)
    if walk:
        assert second is None or second["seeded_by"] == "relevance", second
    else:
        assert second is None or second["seeded_by"] in ("cell_adjacency", "relevance"), second
    assert frame["receipt"]["bridged"] == []
    bridged = _frame(hop_home, *walk)
    assert _fact(hop_home, bridged, SECOND)["handle"] in {b["handle"] for b in bridged["receipt"]["bridged"]}


def test_a_name_many_items_share_bridges_nothing(home, tmp_path):
    """A named thing in more than eight items (a friend named in every session) is no bridge:
    only rare ones are, or every session would pull in every other."""
    folder = tmp_path / "chats"
    folder.mkdir()
    for n in range(12):
        text = f"{FILLER[n]} Later I went climbing with Kasia at the Boulder Barn."
        (folder / f"k{n:02d}.jsonl").write_text(_line("Priya", "user", f"9:00 am on {n + 1} May, 2023", text))
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(folder)).exit_code == 0 and run("curate").exit_code == 0
    named = json.loads(run("query", 'aggregate_all(count, (distilled(H, entity, "Kasia"), item(H)), N)',
                           "--format", "json").stdout)
    assert named[0]["N"] == 12
    out = run("hydrate", "--goal", "When did the bowl stay round on the pottery wheel?",
              "--budget", "2000", "--format", "json")
    frame = json.loads(out.output)
    assert len(frame["receipt"]["facts"]) >= 8
    assert frame["receipt"]["bridged"] == []


TOLD = "Nordvik Studio wants you at their Lisbon office from September, Priya, so start packing."


def test_a_participants_name_bridges_nothing(home, tmp_path):
    """A person who speaks in memory is no rare named thing, however few turns write their
    name: "…from September, Priya, so start packing." bridges by Nordvik Studio, not by Priya
    to every other turn that says "thanks, Priya" (the speaker prior already weighs who a goal
    asks about)."""
    thanks = ["That sounds lovely, Priya, enjoy the garden.", "Good luck with the quiz, Priya, you know the music.",
              "Well done, Priya, the bowl looks great."]
    run = _curated(home, _chats(tmp_path, FIRST, TOLD, first_in=5, asides=thanks,
                                second_by=("Tomás", "assistant")))
    named = json.loads(run("query", 'aggregate_all(count, (distilled(H, entity, "Priya"), item(H)), N)',
                           "--format", "json").stdout)
    assert 2 <= named[0]["N"] <= 8              # as rare as a bridge's named thing
    out = run("hydrate", "--goal", "Where does Nordvik Studio want Priya to work?", "--budget", "2000",
              "--format", "json")
    frame = json.loads(out.output)
    told = _handle(run, TOLD)
    assert told in {f["handle"] for f in frame["receipt"]["facts"][:6]}
    bridged = frame["receipt"]["bridged"]
    assert {b["entity"] for b in bridged} <= {"Nordvik Studio", "Lisbon", "September"}, bridged
    assert _handle(run, FIRST) in {f["handle"] for f in frame["receipt"]["facts"]}


def test_a_grantee_is_told_a_bridging_path_by_its_file_name_only(home, tmp_path):
    """A rare named thing can be a path on the owner's machine; the receipt's `bridged` list
    gave it whole to a grantee (`/home/priya/private/...`), whatever their ceiling, though
    frames and relations tell grantees no directory of the owner's."""
    path = "/home/priya/private/nordvik/offer-letter.pdf"
    run = _curated(home, _chats(
        tmp_path, f"I accepted the job offer and saved the signed letter as {path}.",
        f"Lisbon office from September, so the letter {path} says we move then."))
    for command in (("principal", "add", "alice", "--owner"), ("principal", "add", "bob"),
                    ("grant", "add", "bob", "--ceiling", "L2")):
        assert run(*command).exit_code == 0
    owner = _frame(run)["receipt"]["bridged"]
    assert [b["entity"] for b in owner] == [path]
    grantee = json.loads(run("hydrate", "--goal", GOAL, "--budget", "600", "--format", "json",
                             "--as", "bob").output)["receipt"]["bridged"]
    assert [b["entity"] for b in grantee] == ["offer-letter.pdf"]
