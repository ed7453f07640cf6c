"""The per-session item budget: shares per kind, most recent kept, evictions reported."""

from __future__ import annotations

import json

import pytest
from attention_cloud.errors import UsageError
from attention_cloud.ingest import DEFAULT_KIND_SHARES, parse_text
from attention_cloud.ingest.budget import allocate


def session_jsonl(session: str, kinds: list[str]) -> list[str]:
    """Claude Code records producing exactly the given item kinds, in order."""
    lines = []
    for n, kind in enumerate(kinds):
        uuid = f"{session}-{n}"
        if kind == "user_goal":
            record = {
                "type": "user",
                "message": {"role": "user", "content": f"Goal number {n}: tune the cache."},
            }
        elif kind == "conclusion":
            record = {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": f"Conclusion {n}: the cache hit rate is {n}%."}
                    ],
                },
            }
        elif kind == "file_op":
            record = {
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": f"t{n}",
                            "name": "Edit",
                            "input": {
                                "file_path": f"src/m{n}.py",
                                "old_string": "a",
                                "new_string": "b",
                            },
                        }
                    ],
                },
            }
        elif kind == "error":
            record = {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"x{n}",
                            "content": f"KeyError: {n}",
                            "is_error": True,
                        }
                    ],
                },
            }
        else:
            raise ValueError(kind)
        record.update(uuid=uuid, sessionId=session)
        lines.append(json.dumps(record))
    return lines


def parse(lines, **options):
    return parse_text("\n".join(lines) + "\n", name="budget.jsonl", **options)


def test_default_shares_sum_to_one():
    assert sum(DEFAULT_KIND_SHARES.values()) == pytest.approx(1.0)


def test_no_budget_keeps_everything():
    result = parse(session_jsonl("s", ["user_goal"] + ["conclusion"] * 30))
    assert len(result.items) == 31 and result.evicted == []


def test_session_within_budget_is_untouched():
    result = parse(session_jsonl("s", ["user_goal", "conclusion", "error"]), item_budget=3)
    assert len(result.items) == 3 and result.evicted == []


def test_each_kind_keeps_its_share_and_the_most_recent_items():
    kinds = ["user_goal"] * 10 + ["conclusion"] * 10 + ["file_op"] * 10 + ["error"] * 10
    result = parse(session_jsonl("s", kinds), item_budget=20)
    kept = [i.kind for i in result.items]
    # The shares of absent kinds (tool_result, turn) flow to the four present in proportion:
    # floor(20 * 0.25 / 0.85) = 5 conclusions, floor(20 * 0.2 / 0.85) = 4 of each other kind;
    # the 3 slots left go one each to the largest shares, ties in kind-name order.
    assert len(result.items) == 20
    assert {k: kept.count(k) for k in set(kept)} == {
        "conclusion": 6,
        "error": 5,
        "file_op": 5,
        "user_goal": 4,
    }
    for kind in ("user_goal", "conclusion", "file_op", "error"):
        seqs = [i.seq for i in result.items if i.kind == kind]
        all_seqs = [i.seq for i in result.items + result.evicted if i.kind == kind]
        assert seqs == sorted(all_seqs)[-len(seqs) :]  # the newest of the kind
    assert len(result.evicted) == 20
    assert {i.handle for i in result.items}.isdisjoint(i.handle for i in result.evicted)
    assert [i.seq for i in result.evicted] == sorted(i.seq for i in result.evicted)


def test_unused_share_flows_to_kinds_that_need_it():
    kinds = ["user_goal"] + ["conclusion"] * 30
    result = parse(session_jsonl("s", kinds), item_budget=10)
    assert [i.kind for i in result.items] == ["user_goal"] + ["conclusion"] * 9
    assert [i.seq for i in result.items[1:]] == list(range(22, 31))


def test_budget_applies_per_session():
    lines = session_jsonl("a", ["conclusion"] * 8) + session_jsonl("b", ["conclusion"] * 3)
    result = parse(lines, item_budget=4)
    assert [(i.session, i.seq) for i in result.items] == [
        ("a", 4),
        ("a", 5),
        ("a", 6),
        ("a", 7),
        ("b", 0),
        ("b", 1),
        ("b", 2),
    ]
    assert [(i.session, i.seq) for i in result.evicted] == [("a", 0), ("a", 1), ("a", 2), ("a", 3)]


def test_kind_shares_replace_the_defaults():
    kinds = ["conclusion"] * 10 + ["error"] * 10
    result = parse(
        session_jsonl("s", kinds), item_budget=10, kind_shares={"error": 3, "conclusion": 1}
    )
    kept = [i.kind for i in result.items]
    assert (kept.count("error"), kept.count("conclusion")) == (
        8,
        2,
    )  # floor(7.5)+1 by share order, floor(2.5)


def test_kinds_without_a_share_only_get_leftovers():
    kinds = ["conclusion"] * 3 + ["error"] * 5
    result = parse(session_jsonl("s", kinds), item_budget=5, kind_shares={"conclusion": 1})
    assert [i.kind for i in result.items] == ["conclusion"] * 3 + ["error"] * 2


def test_zero_budget_evicts_everything_and_reports_it():
    result = parse(session_jsonl("s", ["user_goal", "conclusion"]), item_budget=0)
    assert result.items == [] and len(result.evicted) == 2


def test_allocate_is_exact_and_deterministic():
    counts = {
        "conclusion": 50,
        "user_goal": 3,
        "error": 40,
        "file_op": 7,
        "tool_result": 0,
        "turn": 9,
    }
    shares = {k: v for k, v in DEFAULT_KIND_SHARES.items()}
    for budget in (0, 1, 2, 7, 33, 64, 108, 500):
        quota = allocate(counts, budget, shares)
        assert sum(quota.values()) == min(budget, sum(counts.values()))
        assert all(0 <= quota[k] <= counts[k] for k in counts)
        assert quota == allocate(counts, budget, shares)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"item_budget": -1}, "item budget must be a non-negative integer, not -1"),
        ({"item_budget": 2.5}, "item budget must be a non-negative integer, not 2.5"),
        ({"item_budget": True}, "item budget must be a non-negative integer, not True"),
        (
            {"kind_shares": {"error": -1}},
            "kind share for 'error' must be a non-negative number, not -1",
        ),
        (
            {"kind_shares": {"error": float("nan")}},
            "kind share for 'error' must be a non-negative number, not nan",
        ),
        ({"kind_shares": {"error": 0}}, "kind shares must not all be zero"),
        (
            {"kind_shares": [("error", 1)]},
            "kind shares must map kind names to numbers, not [('error', 1)]",
        ),
    ],
)
def test_invalid_budget_arguments_are_usage_errors(options, message):
    with pytest.raises(UsageError) as caught:
        parse(session_jsonl("s", ["user_goal"]), **options)
    assert str(caught.value) == message


def test_a_file_read_again_with_other_options_is_parsed_again(tmp_path):
    # A watermark holds the options a file was read with: the items an --item-budget evicted
    # come back when it is read without one, and a read with the same options is skipped.
    from attention_cloud import Memory
    from attention_cloud.samples import sample_paths

    sample = next(p for p in sample_paths() if p.name.endswith("processor-retries.jsonl"))
    with Memory.open(tmp_path / "home", create=True) as mem:
        first = mem.ingest([sample], item_budget=3)
        assert first.new == 3 and first.evicted > 0
        again = mem.ingest([sample], item_budget=3)
        assert again.files_unchanged == 1 and again.new == 0
        whole = mem.ingest([sample])
        assert whole.new == first.evicted and whole.evicted == 0
        assert mem.ingest([sample]).files_unchanged == 1
        # another segment or a format named: read again, not skipped by the watermark
        assert mem.ingest([sample], segment="ops").files_unchanged == 0
        assert mem.ingest([sample], segment="ops").files_unchanged == 1
        assert mem.ingest([sample], format="claude-code").files_unchanged == 0
