"""A frame over several segments spends its budget where the evidence is: what small or
unrelated segments leave unspent of their equal shares goes to a segment that left relevant
candidates out (rules/hydrate.pl, spare_flow_/6), and the receipt says so; a budget the user
wrote (`--segment S=N`) is kept as written."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir

GOAL = "why did charges fail when the processor timed out, and what retry policy did we choose"

CHATS = {
    "pottery": ["I started a pottery class on Monday.", "What did you make first?",
                "A small bowl, a bit lopsided.", "Keep practising centring the clay."],
    "recipes": ["A quick dinner with chickpeas and spinach?", "Try a chickpea curry.",
                "Can I use coconut milk?", "Yes, it makes it creamier."],
}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """The bundled payment sessions in segment `work` beside two short unrelated chats, each
    in a segment of its own (``hash`` embedder)."""
    root = tmp_path_factory.mktemp("spare")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([samples_dir()], segment="work")
        for name, turns in CHATS.items():
            chat = root / f"{name}.md"
            chat.write_text("".join(f"**{'user' if i % 2 == 0 else 'assistant'}**: {t}\n"
                                    for i, t in enumerate(turns)))
            mem.ingest([chat], segment=name)
        mem.curate()
    return home


def _receipt(home: Path, *args: str) -> dict:
    result = CliRunner().invoke(main, ["hydrate", GOAL, "--home", str(home), "--format", "json",
                                       *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["receipt"]


@pytest.mark.parametrize("plane", ["default", "execution"])
def test_unspent_shares_flow_to_the_segment_with_more(home, plane):
    budget = 900
    b = _receipt(home, "--budget", str(budget), "--plane", plane)["budget"]
    assert b["spent"] + b["framing"] >= 0.95 * budget, b
    assert b["spent"] + b["framing"] <= budget, b
    work = b["segments"]["work"]
    assert work["share"] == budget // 3 and work["received"] > 0, work
    assert work["budget"] == work["share"] + work["received"], work
    assert "left relevant candidates out" in work["why"], work
    for name, seg in b["segments"].items():
        assert seg["spent"] + seg["framing"] <= seg["budget"], (name, seg)
        if name != "work":
            assert "received" not in seg and seg["budget"] == budget // 3, (name, seg)


def test_a_budget_the_user_wrote_is_kept(home):
    b = _receipt(home, "--budget", "900", "--segment", "work=300")["budget"]
    work = b["segments"]["work"]
    assert work["budget"] == 300 and "received" not in work, work
    assert work["spent"] + work["framing"] <= 300, work


def test_what_flows_stays_within_every_budget(home):
    with Memory.open(home) as mem:
        for budget in (400, 700, 1500, 3000):
            for plane in ("default", "exploration"):
                b = mem.hydrate(GOAL, budget=budget, plane=plane).receipt["budget"]
                assert b["spent"] + b["framing"] <= budget, (budget, plane, b)
                for name, seg in b["segments"].items():
                    assert seg["spent"] + seg["framing"] <= seg["budget"], (budget, name, seg)
                    if "received" in seg:
                        assert seg["budget"] == seg["share"] + seg["received"], seg


def test_a_segment_of_no_budget_is_headed_and_the_rest_flows(home):
    b = _receipt(home, "--budget", "900", "--segment", "pottery=0")["budget"]
    assert b["segments"]["pottery"]["budget"] == 0 and "received" not in b["segments"]["pottery"]
    assert 0.95 * 900 <= b["spent"] + b["framing"] <= 900, b


def test_a_mounts_unspent_share_flows_to_the_mount_with_more(home):
    # each mount has an equal share: a small cell's unspent share went nowhere, and a frame
    # mounting it beside a large one relevant to the goal held little more than half its budget
    from attention_cloud.cells import cells_list

    with Memory.open(home) as mem:
        rows = cells_list(mem)
        big = max(rows, key=lambda r: r["size"])["id"]
        small = min(rows, key=lambda r: r["size"])["id"]
        assert big != small
        budget = 1500
        b = mem.hydrate(GOAL, budget=budget, mount=[small, big], depth=0).receipt["budget"]
    parts = b["segments"]
    assert b["spent"] + b["framing"] <= budget, b
    receiver = parts[f"mount:{big}"]
    assert receiver["share"] == budget // 2 and receiver["received"] > 0, parts
    assert receiver["budget"] == receiver["share"] + receiver["received"], receiver
    assert "left relevant candidates out" in receiver["why"], receiver  # kept: it showed more
    assert "other mounts left" in receiver["why"], receiver
    assert "received" not in parts[f"mount:{small}"], parts
    for name, seg in parts.items():
        assert seg["spent"] + seg["framing"] <= seg["budget"], (name, seg)
