"""The frame's focus shown whole: when the excerpts would cut the frame's best fact, a turn
someone said, and its whole text fits the budget, the frame shows it whole and weaker facts give
way; a tool's output keeps its excerpt (its lines stand alone)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory

from test_excerpt import ANSWER, GOAL, TARGET, _fact, _item_with

# Short turns that share a word or two with the goal: each weaker than the long answer, and
# each cheaper per token than the rest of it, so the fit cuts the answer to make room for them.
AROUND = [
    {"role": "user", "content": "My piano lessons start again on Monday."},
    {"role": "assistant", "content": "Warm up for ten minutes before you play."},
    {"role": "user", "content": "The school website lists the recital dates."},
    {"role": "assistant", "content": "Practise slowly with a metronome at first."},
]
ASK = {"role": "user", "content": "Can you point me to resources for learning music theory?"}
# The whole answer (273 tokens with its label and heading) fits this frame; at 410 tokens
# and more it fitted beside the short turns anyway, below 300 it does not fit at all.
BUDGET = 380


def _home(make, root: Path, messages: list[dict]) -> Path:
    """A curated home (``curated_hash_memory``) holding one session of ``messages``, closed: one
    Memory is open in a process at a time, so each test opens the home it reads."""
    sessions = root / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "music.json").write_text(json.dumps({"session_id": "m1", "messages": messages}),
                                         encoding="utf-8")
    mem = make(root, sessions)
    mem.close()
    return mem.home


@pytest.fixture(scope="module")
def said(tmp_path_factory, curated_hash_memory):
    """The home of the long answer said by the assistant, among short turns."""
    return _home(curated_hash_memory, tmp_path_factory.mktemp("said"),
                 [ASK, {"role": "assistant", "content": ANSWER}] + AROUND)


@pytest.fixture
def answered(said):
    """That home open."""
    with Memory.open(said) as mem:
        yield mem


@pytest.fixture(scope="module")
def searched(tmp_path_factory, curated_hash_memory):
    """The home of the same text as a search tool's output."""
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "web_search", "arguments": "{\"q\": \"music theory\"}"}}]}
    return _home(curated_hash_memory, tmp_path_factory.mktemp("tool"),
                 [ASK, call, {"role": "tool", "tool_call_id": "c1", "content": ANSWER}] + AROUND)


def _spent(frame) -> int:
    return frame.receipt["budget"]["spent"] + frame.receipt["budget"]["framing"]


def test_the_best_answer_is_shown_whole_when_it_fits(answered):
    handle = _item_with(answered, TARGET)
    frame = answered.hydrate(GOAL, budget=BUDGET)
    fact = _fact(frame, handle)
    assert fact is not None and fact.score == max(f.score for f in frame.facts)
    assert fact.level == "l0" and not fact.excerpt_spans
    assert fact.text == "assistant: " + answered.item(handle).text
    entry = next(f for f in frame.receipt["facts"] if f["handle"] == handle)
    assert entry["level"] == "L0" and "excerpt" not in entry
    assert _spent(frame) <= BUDGET
    assert len(frame.facts) >= 2  # a weaker turn still fits beside it


def test_an_answer_longer_than_the_frame_stays_an_excerpt(answered):
    handle = _item_with(answered, TARGET)
    frame = answered.hydrate(GOAL, budget=300)
    fact = _fact(frame, handle)
    assert fact is not None and fact.excerpt_spans and TARGET in fact.text
    assert _spent(frame) <= 300


def test_without_excerpts_the_frame_is_as_before(answered):
    handle = _item_with(answered, TARGET)
    frame = answered.hydrate(GOAL, budget=BUDGET, excerpt=False)
    fact = _fact(frame, handle)
    assert fact is not None and fact.level != "l0"


def test_a_tool_outputs_excerpt_stays_an_excerpt(searched):
    with Memory.open(searched) as mem:
        handle = _item_with(mem, TARGET)
        assert mem.query(f"item_kind('{handle}', K)").rows == [{"K": "tool_result"}]
        frame = mem.hydrate(GOAL, budget=BUDGET)
    fact = _fact(frame, handle)
    assert fact is not None and fact.score == max(f.score for f in frame.facts)
    assert fact.excerpt_spans and TARGET in fact.text
    assert _spent(frame) <= BUDGET


def test_cli_json_shows_the_whole_answer(said):
    from click.testing import CliRunner

    from attention_cloud.cli import main

    with Memory.open(said) as mem:
        handle = _item_with(mem, TARGET)
    out = CliRunner().invoke(main, ["hydrate", "--goal", GOAL, "--budget", str(BUDGET), "--format",
                                    "json", "--home", str(said)])
    assert out.exit_code == 0, out.output
    facts = json.loads(out.output)["receipt"]["facts"]
    entry = next(f for f in facts if f["handle"] == handle)
    assert entry["level"] == "L0" and "excerpt" not in entry
