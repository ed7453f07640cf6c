"""``Jump.similarity_within``: the records of groups (a walk's cells) scored as ``similarity``
scores them, each record once, in the groups' order, those left out of a group skipped there.

What the cell walk relies on: a record in two groups is scored once, where it is first kept; a
record left out of one group is still scored as a member of a later one; a record without a
vector is skipped; the answer is the same when a group's rows come from the kept lookups
(every frame after the first) as when they are looked up; with ``k`` it is ``similarity``'s
``k`` best, best first.
"""
from __future__ import annotations

import pytest

from attention_cloud.jump import Jump

TOPICS = ("kiln glaze pottery", "retry backoff worker", "invoice billing tables", "webhook timeout")


@pytest.fixture
def jump(tmp_path) -> Jump:
    jump = Jump(tmp_path, "hash")
    keys = [f"it_{i:03d}" for i in range(40)]
    texts = [f"{TOPICS[i % len(TOPICS)]} note {i}" for i in range(40)]
    jump.index(keys, texts, [{"segment": "default", "kind": "turn"} for _ in keys])
    # some items also have a distillation vector: a record scores by the better of its two
    distilled = range(0, 40, 3)
    jump.vectors.add([f"it_{i:03d}#l2" for i in distilled],
                     jump.embedder.embed([f"{TOPICS[(i + 1) % 4]} fact {i}" for i in distilled]),
                     [{"segment": "default", "kind": "turn", "record": "distillation"}] * 14)
    return jump


def _expected(groups: list[tuple[list[str], list[str]]]) -> list[str]:
    """The records of ``groups`` as the walk means them: each group's members in order but
    those it leaves out and those an earlier group kept."""
    kept: list[str] = []
    for members, left_out in groups:
        kept_before = set(kept)
        kept.extend(m for m in members if m not in left_out and m not in kept_before)
    return kept


def _texts(groups: list[tuple[list[str], list[str]]]) -> list[tuple[str, str]]:
    return [("\n".join(members), "\n".join(left_out)) for members, left_out in groups]


def _names(first: int, last: int) -> list[str]:
    return [f"it_{i:03d}" for i in range(first, last)]


CASES = {
    "one group, two left out": [(_names(0, 20), ["it_003", "it_007"])],
    "disjoint groups": [(_names(0, 12), ["it_011"]), (_names(12, 30), []),
                        (_names(30, 40), ["it_031"])],
    "overlapping groups": [(_names(0, 20), []), (_names(15, 30), ["it_016"]), (_names(5, 35), [])],
    "left out of one, member of the next": [(_names(0, 10), ["it_004", "it_005"]),
                                            (_names(3, 12), ["it_011"])],
    "records without vectors": [(["it_999", *_names(0, 5), "it_998"], ["it_997"]),
                                (["it_996", *_names(4, 9)], [])],
    "a record named twice in a group": [(["it_001", "it_002", "it_001", "it_003"], ["it_002"]),
                                        (_names(0, 6), [])],
    "an empty group and a group all left out": [([], []), (_names(0, 3), _names(0, 3)),
                                                (_names(2, 8), [])],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_groups_score_as_similarity_over_their_records(jump: Jump, case: str):
    groups = CASES[case]
    query = "pottery glaze retry"
    wanted = jump.similarity(query, _expected(groups))
    assert jump.similarity_within(query, _texts(groups)) == wanted
    assert jump.similarity_within(query, _texts(groups)) == wanted  # the groups' kept rows
    for k in (1, 3, 10, 100):
        assert jump.similarity_within(query, _texts(groups), k) == jump.similarity(
            query, _expected(groups), k)


def test_kept_groups_answer_for_other_left_outs_and_orders(jump: Jump):
    """A group's rows are kept by its members' text: asked again with other records left out,
    or after another group, it answers for what is asked now."""
    query = "billing invoice"
    first = [(_names(0, 20), [])]
    jump.similarity_within(query, _texts(first))
    later = [(_names(10, 25), ["it_012"]), (_names(0, 20), ["it_001", "it_019"])]
    assert jump.similarity_within(query, _texts(later)) == jump.similarity(query, _expected(later))
    assert jump.similarity_within(query, _texts(later[::-1])) == jump.similarity(
        query, _expected(later[::-1]))
