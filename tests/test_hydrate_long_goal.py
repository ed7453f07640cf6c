"""A frame's goal is read as far as its searches read it (its first 32,768 characters: the
prompt hook's goal is the prompt, which may be a pasted log), and kept whole in the receipt
(round 36, qa226). Its readers in Prolog (times, speakers, failure words) listed every word
of the whole goal, several times a frame: a 1 MB goal took 21 s on a 47-item home, and a
10 MB one ran out of stack ("ran past its stack limit of 256 MB ... in goal_words/2")."""

from __future__ import annotations

from attention_cloud.bridge import Atom, Var

from attention_cloud.jump import MAX_QUERY_CHARS


def _inferences(mem, goal: str) -> tuple[int, object]:
    """The Prolog inferences of one frame for ``goal``, and the frame."""
    (before,) = mem.pl.once("statistics", Atom("inferences"), Var())
    frame = mem.hydrate(goal, budget=500)
    (after,) = mem.pl.once("statistics", Atom("inferences"), Var())
    return int(after) - int(before), frame


def test_a_goal_past_what_the_searches_read_costs_no_more_than_that_much(curated_samples):
    mem = curated_samples
    head = ("why do processor retries fail after the webhook timeout " * 700)[:MAX_QUERY_CHARS]
    mem.hydrate(head, budget=500)                     # the indexes' first use, paid once
    read, frame_read = _inferences(mem, head)
    longer, frame_longer = _inferences(mem, head + " and the ledger drifts" * 40_000)
    assert longer < 1.5 * read, f"{longer:,} inferences against {read:,}"   # ~25x before
    assert [f.handle for f in frame_longer.facts] == [f.handle for f in frame_read.facts]
    assert len(frame_longer.receipt["goal"]) > 900_000  # the receipt keeps the goal whole


def test_the_goal_readers_in_prolog_read_as_far_as_the_searches(curated_samples):
    """The limit is written twice, once a side (jump.MAX_QUERY_CHARS, when.pl's
    goal_read_chars/1): were they to differ, a frame's times and speakers would be read from
    another part of a long goal than its searches."""
    (prolog_reads,) = curated_samples.pl.once("atc_when:goal_read_chars", Var())
    assert int(prolog_reads) == MAX_QUERY_CHARS
