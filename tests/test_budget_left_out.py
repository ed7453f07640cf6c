"""A frame keeps its budget when the refill leaves something out (README, the receipt:
`spent + framing` is at most `total`). On a chat of short turns the refill leaves out an arc
its members already show (`covered`); the line counting what was left out was paid for in the
round that first left something out and forgotten in the next, so 500-token frames came out
at 501-512 tokens by their own receipt."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.curate.tokens import estimate_tokens
from attention_cloud.home import write_config

CHAT = Path(__file__).resolve().parents[1] / "scripts" / "bench" / "heldout" / "groupchat.json"
BUDGETS = range(300, 701, 50)


def _transcripts(folder: Path) -> list[str]:
    """The hand-written group chat as plain text transcripts (`Date:` line, `Name: text`
    lines), one per session; its questions."""
    (sample,) = json.loads(CHAT.read_text(encoding="utf-8"))
    conv = sample["conversation"]
    n = 1
    while f"session_{n}" in conv:
        lines = [f"Date: {conv[f'session_{n}_date_time']}", ""]
        lines += [f"{t['speaker']}: {t['text']}" for t in conv[f"session_{n}"]]
        (folder / f"s{n:02d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        n += 1
    return [qa["question"] for qa in sample["qa"]]


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    root = tmp_path_factory.mktemp("groupchat")
    folder = root / "chat"
    folder.mkdir()
    goals = _transcripts(folder)
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.ingest([folder])
        mem.curate()
        yield mem, goals


def test_frames_of_short_turns_keep_their_budget_when_something_is_left_out(chat):
    mem, goals = chat
    over, left_out = [], 0
    for goal in goals:
        for budget in BUDGETS:
            frame = mem.hydrate(goal, budget=budget, now="2024-06-17T17:50:00Z")
            b = frame.receipt["budget"]
            left_out += bool(frame.receipt["suppressed"])
            if b["spent"] + b["framing"] > budget or estimate_tokens(frame.envelope) > budget:
                over.append((goal, budget, b["spent"] + b["framing"]))
    assert left_out, "no frame left anything out: the check proves nothing"
    assert over == []
