"""Arcs (consecutive same-goal items) and session rollups."""
from __future__ import annotations

import hashlib

import pytest

from attention_cloud.curate import (
    L1_TOKENS,
    L2_TOKENS,
    L3_TOKENS,
    ArcPlan,
    ItemView,
    curate_arc,
    curate_items,
    curate_session,
    estimate_tokens,
    plan_arcs,
    session_rollup_id,
)
from attention_cloud.errors import InputError


def it(handle: str, session: str, seq: int, goal: str, text: str = "", kind: str = "turn") -> ItemView:
    return ItemView(handle, session, seq, kind, goal, f"2026-01-0{1 + seq % 9}T00:00:00Z",
                    f"{session}.jsonl#L{seq}", text or f"Step {seq} towards {goal or 'nothing'}.")


def groups(plans: list[ArcPlan]) -> list[tuple[str, ...]]:
    return [p.members for p in plans]


def test_consecutive_same_goal_items_form_one_arc():
    items = [it("a1", "s1", 1, "fix import"), it("a2", "s1", 2, "fix import"), it("a3", "s1", 3, "fix import")]
    (plan,) = plan_arcs(items)
    assert plan.members == ("a1", "a2", "a3")
    assert plan.session == "s1" and plan.goal == "fix import"


def test_a_goal_change_breaks_the_arc_and_a_lone_item_makes_none():
    items = [it("a1", "s1", 1, "fix import"), it("a2", "s1", 2, "fix import"),
             it("b1", "s1", 3, "write docs"),
             it("a3", "s1", 4, "fix import"), it("a4", "s1", 5, "fix import")]
    assert groups(plan_arcs(items)) == [("a1", "a2"), ("a3", "a4")]


def test_a_session_change_breaks_the_arc():
    items = [it("a1", "s1", 1, "fix import"), it("a2", "s1", 2, "fix import"),
             it("c1", "s2", 1, "fix import"), it("c2", "s2", 2, "fix import")]
    plans = plan_arcs(items)
    assert groups(plans) == [("a1", "a2"), ("c1", "c2")]
    assert [p.session for p in plans] == ["s1", "s2"]


def test_items_without_a_goal_never_form_an_arc():
    items = [it("a1", "s1", 1, ""), it("a2", "s1", 2, "  "), it("a3", "s1", 3, "")]
    assert plan_arcs(items) == []


def test_arcs_follow_sequence_not_input_order_and_ignore_repeats():
    items = [it("a3", "s1", 3, "g"), it("a1", "s1", 1, "g"), it("b2", "s1", 2, "other"),
             it("a4", "s1", 4, "g"), it("a4", "s1", 4, "g")]
    assert groups(plan_arcs(items)) == [("a3", "a4")]
    assert plan_arcs(items) == plan_arcs(list(reversed(items)))


def test_goal_whitespace_does_not_split_an_arc():
    items = [it("a1", "s1", 1, "fix  the import"), it("a2", "s1", 2, "fix the import\n")]
    assert groups(plan_arcs(items)) == [("a1", "a2")]


def test_arc_id_is_derived_from_the_member_handles():
    items = [it("a1", "s1", 1, "g"), it("a2", "s1", 2, "g")]
    (plan,) = plan_arcs(items)
    expected = "arc_" + hashlib.sha256(b"a1\na2").hexdigest()[:12]
    assert plan.arc_id == expected
    grown = plan_arcs(items + [it("a3", "s1", 3, "g")])[0]
    assert grown.arc_id != plan.arc_id


def _session_items() -> list[ItemView]:
    return [
        it("i1", "s1", 1, "speed up the importer", "The importer takes 40 minutes on the 2 GB "
           "March export; profile host/ingest/reader.py.", "user_goal"),
        it("i2", "s1", 2, "speed up the importer", "Profiling shows 80% of the time in "
           "json.loads; the reader must keep memory under 512 MB.", "tool_result"),
        it("i3", "s1", 3, "speed up the importer", "We decided to switch to orjson and stream "
           "records; the import now takes 6 minutes and all 31 tests pass.", "conclusion"),
        it("i4", "s1", 4, "update the changelog", "Added a line about the faster importer to "
           "CHANGELOG.md.", "file_op"),
    ]


def test_arc_rungs_summarise_members_and_keep_provenance():
    items = _session_items()
    rungs = curate_items(items)
    (plan,) = plan_arcs(items)
    members = [i for i in items if i.handle in plan.members]
    arc = curate_arc(plan, members, [r for r in rungs if r.handle in plan.members])
    assert arc.handle == plan.arc_id
    assert arc.provenance == ("i1", "i2", "i3")
    assert arc.l1.startswith("speed up the importer: ")
    assert "orjson" in arc.l1  # the conclusion says how it went
    d = arc.distillation
    assert any("orjson" in s for s in d.decisions)
    assert any("512 MB" in s for s in d.constraints)
    assert "host/ingest/reader.py" in d.entities and "512 MB" in d.entities
    assert "arc" in d.tags
    assert arc.l3.startswith("i1..i3 (3 items)")
    assert estimate_tokens(arc.l1) <= L1_TOKENS and estimate_tokens(arc.l2) <= L2_TOKENS
    assert estimate_tokens(arc.l3) <= min(L3_TOKENS, estimate_tokens(arc.l1), estimate_tokens(arc.l2))


def test_arc_merge_deduplicates_member_facts():
    text = "We decided to use SQLite for the cache in store/cache.db."
    items = [it("d1", "s1", 1, "cache", text), it("d2", "s1", 2, "cache", text)]
    rungs = curate_items(items)
    (plan,) = plan_arcs(items)
    arc = curate_arc(plan, items, rungs)
    assert arc.distillation.decisions == (text,)
    assert arc.distillation.entities.count("store/cache.db") == 1


def test_arc_with_a_missing_member_is_refused():
    items = _session_items()[:3]
    (plan,) = plan_arcs(items)
    with pytest.raises(InputError, match="i3"):
        curate_arc(plan, items[:2], curate_items(items[:2]))


def test_session_rollup_names_goals_and_keeps_every_item_as_provenance():
    items = _session_items()
    other = it("x1", "s2", 1, "unrelated", "Something else entirely.")
    rungs = curate_items(items + [other])
    rollup = curate_session("s1", list(reversed(items)) + [other], rungs)
    assert rollup.handle == session_rollup_id("s1") == "ses_" + hashlib.sha256(b"s1").hexdigest()[:12]
    assert rollup.provenance == ("i1", "i2", "i3", "i4")
    assert rollup.l1.startswith("speed up the importer; update the changelog: ")
    assert rollup.l3.startswith("session:s1 ")
    assert "session" in rollup.distillation.tags
    assert estimate_tokens(rollup.l1) <= L1_TOKENS and estimate_tokens(rollup.l3) <= L3_TOKENS


def test_session_rollup_of_a_chat_without_goals_uses_its_best_turns():
    items = [it("c1", "s9", 1, "", "Hi there!"),
             it("c2", "s9", 2, "", "I just adopted a beagle named Biscuit on March 3."),
             it("c3", "s9", 3, "", "Sounds good, thanks.")]
    rollup = curate_session("s9", items, curate_items(items))
    assert "Biscuit" in rollup.l1


def test_session_rollup_refuses_an_unknown_session():
    items = _session_items()
    with pytest.raises(InputError, match="no items"):
        curate_session("nope", items, curate_items(items))
