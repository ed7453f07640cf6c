"""Arcs and session rollups: rungs for groups of items.

An **arc** is a run of two or more consecutive items of one session that share a goal. Arcs
of one item are not made: the arc would only repeat the item's own rungs. Items with an empty
goal never join an arc (no shared intention is known). Consecutive means adjacent in session
order (``seq``) among the items given, so pass every item of a session, not a sample.

An arc's id is content-derived: ``"arc_"`` + the first 12 hex digits of the SHA-256 of its
member handles in order, so re-curating the same items gives the same arcs, and an arc that
gains a member becomes a new arc (curation drops the old one: ``drop_arc`` records).

A **session rollup** summarises one session; its id depends on the session id only
(``"ses_"`` + 12 hex digits), so each session has exactly one rollup, replaced when the
session grows. Its provenance lists every item it was computed from.
"""
from __future__ import annotations

import hashlib

from ..errors import InputError
from .cues import cue_categories
from .distill import Distillation, merge, render_within
from .ladder import L2_TOKENS, settle
from .records import EXTRACTIVE, ArcPlan, ItemView, Rungs
from .summary import L1_TOKENS
from .tokens import estimate_tokens, truncate_to_tokens

#: Fewest members an arc has.
MIN_ARC_MEMBERS = 2
#: Most tokens of the goal quoted at the head of an arc's L1.
_GOAL_TOKENS = 14
#: Kinds whose L1 best says how an arc or session ended.
_CLOSING_KINDS = frozenset({"conclusion", "error", "tool_result"})


def content_id(prefix: str, parts: list[str] | tuple[str, ...]) -> str:
    """``prefix`` + 12 hex digits of the SHA-256 of ``parts`` joined by newlines."""
    digest = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}{digest[:12]}"


def session_rollup_id(session: str) -> str:
    """The id of ``session``'s rollup: ``"ses_"`` + 12 hex digits of its SHA-256."""
    return content_id("ses_", [session])


def plan_arcs(items: list[ItemView]) -> list[ArcPlan]:
    """Group consecutive same-goal items of each session into arcs (see module docstring).

    The result is independent of the order of ``items``: sessions are taken in sorted order,
    items within a session by ``(seq, handle)``; a handle given twice counts once.
    """
    by_session: dict[str, dict[str, ItemView]] = {}
    for item in items:
        by_session.setdefault(item.session, {}).setdefault(item.handle, item)
    plans: list[ArcPlan] = []
    for session in sorted(by_session):
        ordered = sorted(by_session[session].values(), key=lambda i: (i.seq, i.handle))
        run: list[ItemView] = []
        for item in ordered:
            if run and _goal_key(item.goal) == _goal_key(run[0].goal):
                run.append(item)
                continue
            _close_run(run, plans)
            run = [item]
        _close_run(run, plans)
    return plans


def _goal_key(goal: str) -> str:
    """Goals compare with whitespace collapsed; "" means no goal."""
    return " ".join(goal.split())


def _close_run(run: list[ItemView], plans: list[ArcPlan]) -> None:
    if len(run) >= MIN_ARC_MEMBERS and _goal_key(run[0].goal):
        members = tuple(i.handle for i in run)
        plans.append(ArcPlan(content_id("arc_", members), run[0].session, _goal_key(run[0].goal), members))


def curate_arc(plan: ArcPlan, members: list[ItemView], member_rungs: list[Rungs]) -> Rungs:
    """The rungs of one arc from its members' items and rungs.

    L1 is the goal followed by the member summary that best tells how the work went (a
    conclusion, an outcome or a decision, later members preferred); L2 merges the members'
    distillations; L3 lists tags, entities and the member range. Provenance: the members.

    Raises:
        InputError: when an item or rungs of a planned member is missing.
    """
    items = _by_handle(members)
    rungs = _by_handle(member_rungs)
    for handle in plan.members:
        if handle not in items or handle not in rungs:
            raise InputError(f"arc {plan.arc_id}: no item or rungs for member {handle}")
    ordered_items = [items[h] for h in plan.members]
    ordered_rungs = [rungs[h] for h in plan.members]
    best = _best_summary(ordered_items, ordered_rungs)
    goal = truncate_to_tokens(plan.goal, _GOAL_TOKENS)
    l1 = _join_within(goal, best, L1_TOKENS)
    distillation = merge([r.distillation for r in ordered_rungs], extra_tags=("arc",))
    return _group_rungs(plan.arc_id, l1, distillation, _member_span(plan.members), plan.members)


def curate_session(session: str, items: list[ItemView], rungs: list[Rungs]) -> Rungs:
    """The rollup of one session from its items and their rungs (others are ignored).

    L1 names the session's goals, in order, and its best closing summary; when no item has a
    goal, the two best item summaries. L2 merges the items' distillations (it equals L1 when
    there is nothing to merge); L3 is the session id, tags and entities.

    Raises:
        InputError: when no item of ``session`` is given, or an item has no rungs.
    """
    own = sorted(
        {i.handle: i for i in items if i.session == session}.values(), key=lambda i: (i.seq, i.handle)
    )
    if not own:
        raise InputError(f"session {session!r}: no items to roll up")
    by_handle = _by_handle(rungs)
    missing = [i.handle for i in own if i.handle not in by_handle]
    if missing:
        raise InputError(f"session {session!r}: no rungs for item {missing[0]}")
    own_rungs = [by_handle[i.handle] for i in own]
    goals = list(dict.fromkeys(g for g in (_goal_key(i.goal) for i in own) if g))
    if goals:
        head = "; ".join(goals[:3]) + (f" (+{len(goals) - 3} more)" if len(goals) > 3 else "")
        l1 = _join_within(truncate_to_tokens(head, 2 * _GOAL_TOKENS), _best_summary(own, own_rungs), L1_TOKENS)
    else:
        l1 = _two_best(own, own_rungs)
    distillation = merge([r.distillation for r in own_rungs], extra_tags=("session",))
    handles = tuple(i.handle for i in own)
    return _group_rungs(session_rollup_id(session), l1, distillation, f"session:{session}", handles)


def _group_rungs(
    handle: str, l1: str, distillation: Distillation, pointer: str, provenance: tuple[str, ...]
) -> Rungs:
    l2 = "" if distillation.is_empty() else render_within(distillation, L2_TOKENS)[1]
    l1, l2, l3 = settle(l1, l2, pointer, distillation.tags, distillation.entities, verbatim=None)
    return Rungs(
        handle=handle, l1=l1, l2=l2, l3=l3, distillation=distillation,
        provenance=provenance, curator=EXTRACTIVE,
    )


def _by_handle(values: list[ItemView] | list[Rungs]) -> dict:
    """The first value per handle."""
    out: dict = {}
    for value in values:
        out.setdefault(value.handle, value)
    return out


def _summary_score(position: int, count: int, item: ItemView, rung: Rungs) -> float:
    """How well one member's L1 tells how a group of items went."""
    if not rung.l1:
        return float("-inf")
    found = cue_categories(rung.l1)
    score = 1.5 * ("outcome" in found) + 1.0 * ("decision" in found) + 0.5 * ("fact" in found)
    score += 1.0 if item.kind in _CLOSING_KINDS else 0.0
    score += position / max(1, count - 1)  # later members know how it ended
    score += 0.2 * min(len(rung.distillation.entities), 5)
    return score


def _best_summary(items: list[ItemView], rungs: list[Rungs]) -> str:
    count = len(items)
    scored = [(_summary_score(i, count, item, rung), -i) for i, (item, rung) in enumerate(zip(items, rungs))]
    _, negative_index = max(scored)
    return rungs[-negative_index].l1


def _two_best(items: list[ItemView], rungs: list[Rungs]) -> str:
    count = len(items)
    order = sorted(
        range(count), key=lambda i: (-_summary_score(i, count, items[i], rungs[i]), i)
    )
    first = rungs[order[0]].l1
    for other in order[1:3]:
        pair = sorted((order[0], other))
        joined = " ".join(rungs[i].l1 for i in pair)
        if rungs[other].l1 and estimate_tokens(joined) <= L1_TOKENS:
            return joined
    return first


def _join_within(head: str, tail: str, budget: int) -> str:
    """``"head: tail"`` within ``budget`` tokens, the tail truncated first."""
    if not tail or head.casefold() == tail.casefold():
        return truncate_to_tokens(head, budget)
    if not head:
        return truncate_to_tokens(tail, budget)
    room = budget - estimate_tokens(head) - 1
    if room < 4:
        return truncate_to_tokens(head, budget)
    return f"{head}: {truncate_to_tokens(tail, room)}"


def _member_span(members: tuple[str, ...]) -> str:
    """Pointer to an arc's members: "first..last (N items)"; arc_member/2 holds them all."""
    if len(members) == 1:
        return members[0]
    return f"{members[0]}..{members[-1]} ({len(members)} items)"

