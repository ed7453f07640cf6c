"""A top fact's excerpt grown to its core: when the room a frame left a long answer held only
its summary (or other sentences), the frame shows the answer's sentence holding most of the
goal, verbatim, and weaker short turns give way for it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from attention_cloud import Memory

from test_excerpt import _fact, _item_with

# The answer's third sentence holds the goal; its first (with a quoted title holding a "?")
# is what a summary shows.
ANSWER = (
    'The "Experimental Results" section of the "To Adapt or Not to Adapt? Real-Time Adaptation '
    'for Semantic Segmentation" submission presents the results of experiments conducted on the '
    'OnDA benchmarks and the SHIFT dataset to evaluate the proposed HAMLET framework. '
    'The experiments showed that the proposed framework was able to significantly improve the '
    'trade-off between accuracy and efficiency in online domain adaptation, with an average '
    'improvement in framerate of approximately 20% when using the Hardware-Aware Modular Training '
    '(HAMT) agent and a further improvement of approximately 4x with the Active Training '
    'Modulation system. The framework was also able to reduce the gap between models trained on '
    'synthetic data and those trained on real data, by up to 4 points on the 200mm domain in the '
    'Increasing Storm scenario. Overall, the results demonstrated the effectiveness of the '
    'proposed framework for real-time domain adaptation, and the authors discuss its limits in '
    'the following section of the paper.')
CORE = "with an average improvement in framerate of approximately 20% when using the Hardware-Aware"
GOAL = "What was the average improvement in framerate with the HAMT agent in the submission?"
# Short turns sharing a word of the goal: each weaker than the answer, and each cheaper per
# token than more of it.
TURNS = [
    ("user", "Summarise the Experimental Results section of the paper."),
    ("assistant", ANSWER),
    ("user", "Is the agent the main contribution of the paper?"),
    ("assistant", "Yes, the agent is central to the paper and its design."),
    ("user", "What framerate do real-time systems need?"),
    ("assistant", "Real-time systems usually need a framerate of 30 frames per second."),
    ("user", "Write a short review of the submission."),
    ("assistant", "The submission is clear and well motivated, and the gains are real."),
    ("user", "Does the method improve accuracy as well?"),
    ("assistant", "The method mainly trades accuracy for speed; its accuracy stays close."),
    ("user", "Which datasets does the paper use for the experiments?"),
    ("assistant", "The paper uses the OnDA benchmarks and the SHIFT dataset for its experiments."),
    ("user", "Is the improvement the same on every benchmark?"),
    ("assistant", "The improvement varies a little from one benchmark to the next."),
]
# The answer's whole text (256 tokens) does not fit this frame; before its core could grow, the
# frame showed its first sentence (70 tokens) beside three short turns.
BUDGET = 225


@pytest.fixture(scope="module")
def home(tmp_path_factory, curated_hash_memory) -> Path:
    root = tmp_path_factory.mktemp("core")
    sessions = root / "sessions"
    sessions.mkdir()
    messages = [{"role": role, "content": text} for role, text in TURNS]
    (sessions / "paper.json").write_text(json.dumps({"session_id": "p1", "messages": messages}),
                                         encoding="utf-8")
    mem = curated_hash_memory(root, sessions)
    mem.close()
    return mem.home


def _spent(frame) -> int:
    return frame.receipt["budget"]["spent"] + frame.receipt["budget"]["framing"]


def test_the_answers_core_sentence_is_in_the_frame(home):
    with Memory.open(home) as mem:
        handle = _item_with(mem, CORE)
        whole = mem.item(handle).text
        frame = mem.hydrate(GOAL, budget=BUDGET)
    fact = _fact(frame, handle)
    assert fact is not None and fact.excerpt_spans
    assert CORE in fact.text
    for start, end in fact.excerpt_spans:  # verbatim pieces, each a whole sentence
        assert whole[start:end] in fact.text
    assert fact.score == max(f.score for f in frame.facts)
    assert _spent(frame) <= BUDGET
    assert len(frame.facts) >= 2  # a weaker turn still fits beside it


def test_without_excerpts_the_frame_shows_the_summary(home):
    with Memory.open(home) as mem:
        handle = _item_with(mem, CORE)
        frame = mem.hydrate(GOAL, budget=BUDGET, excerpt=False)
    fact = _fact(frame, handle)
    assert fact is None or (fact.level != "l0" and CORE not in fact.text)


def test_cli_json_lists_the_core_excerpt(home):
    from click.testing import CliRunner

    from attention_cloud.cli import main

    with Memory.open(home) as mem:
        handle = _item_with(mem, CORE)
    out = CliRunner().invoke(main, ["hydrate", "--goal", GOAL, "--budget", str(BUDGET), "--format",
                                    "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    entry = next(f for f in data["receipt"]["facts"] if f["handle"] == handle)
    assert entry["level"] == "L0" and "excerpt" in entry, entry
    assert CORE in data["text"]
