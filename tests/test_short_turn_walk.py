"""Short turns (issue 14): when every exchange is a user message and several short replies, a
seed's arc stands in for them at 0.85 of the seed's score, above the goal's own weaker hits.
Before the walk discount, the arcs of the seeds filled the candidates a 500-token frame offers
and the second evidence piece of a two-session question fell past them: the frame held one
piece of two. A walk neighbour the goal does not find itself now yields to the goal's hits."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config

GOAL = "How many weeks after the pottery course started did Priya sell her first bowl?"
FIRST = "The pottery course started tonight at the community hall, eight of us at the wheels."
SECOND = "I sold my first bowl at the Saturday market, a woman paid twelve euros for it!"
# More sessions that match the goal than a plane has seeds (6), each a user message and three
# short replies: an arc of four, which the walk offers in place of its members.
SEEDS = [
    "The pottery course teacher showed us how to trim a foot ring on a bowl.",
    "At the pottery course my bowl collapsed on the wheel again.",
    "Pottery course homework: throw five cylinders before next week.",
    "The pottery course kiln was full so our bowls wait another week.",
    "I missed the pottery course because the bus was late, so no bowl this week.",
    "Glazing day at the pottery course, my bowl came out blue and green.",
    "The pottery course is half over and my bowls still wobble.",
    "A new student joined the pottery course and made a better bowl than mine.",
    "We talked about selling bowls at the pottery course but nobody is ready.",
    "The pottery course clay smells like rain, my bowl dried too fast.",
]
REPLIES = ["That sounds like a lovely evening.", "Did the clay crack in the kiln?",
           "Send me a photo of it later."]


def _line(name: str, role: str, when: str, text: str) -> str:
    return json.dumps({"role": role, "name": name, "timestamp": when, "content": text}) + "\n"


@pytest.fixture(scope="module")
def short_turns(tmp_path_factory):
    """``atc`` on a home (hash vectors) of short-turn chats: the seeds' sessions, then the
    first piece and the second, each in a session of its own."""
    tmp = tmp_path_factory.mktemp("short_turns")
    folder, home = tmp / "chats", tmp / "home"
    folder.mkdir()
    home.mkdir()
    for n, text in enumerate(SEEDS):
        day = f"{n + 1} May, 2023"
        lines = [_line("Priya", "user", f"9:00 am on {day}", text)]
        lines += [_line("Tomás", "assistant", f"9:0{k + 1} am on {day}", reply)
                  for k, reply in enumerate(REPLIES)]
        (folder / f"s{n:02d}.jsonl").write_text("".join(lines))
    (folder / "first.jsonl").write_text(
        _line("Priya", "user", "9:00 am on 20 April, 2023", FIRST)
        + _line("Tomás", "assistant", "9:01 am on 20 April, 2023", "Have fun there!"))
    (folder / "second.jsonl").write_text(
        _line("Priya", "user", "9:00 am on 30 May, 2023", SECOND)
        + _line("Tomás", "assistant", "9:01 am on 30 May, 2023", "Congratulations, well done!"))
    write_config(home, {"embedder": "hash"})
    run = lambda *a: CliRunner().invoke(main, [*a, "--home", str(home)], catch_exceptions=False)
    assert run("ingest", str(folder)).exit_code == 0
    assert run("curate").exit_code == 0
    return run


def test_a_small_frame_holds_both_pieces_of_a_two_session_question(short_turns):
    out = short_turns("hydrate", "--goal", GOAL, "--budget", "500", "--format", "json")
    assert out.exit_code == 0, out.output
    frame = json.loads(out.output)
    assert "community hall" in frame["text"], frame["text"]
    assert "twelve euros" in frame["text"], frame["text"]
    # the walk still speaks: a seed's arc yields to the goal's hits, it is not dropped
    assert any(f["seeded_by"] == "entity_expansion" for f in frame["receipt"]["facts"])
