"""``atc curate``: build the ladder (L1–L3, arcs, rollups), embed it, and mark echoes.

Incremental and idempotent: only items without rungs are curated; arcs and rollups are rebuilt
only for sessions that gained items; only records without vectors are embedded. A second run
with nothing new does no work.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .bridge import Atom, Term, Var
from .errors import UsageError
from .store import sync_journal
from .curate import ItemView, Rungs, curate_items, estimate_tokens

BATCH = 2000
#: New items whose echo candidates are searched in one batched call.
ECHO_CHUNK = 512


@dataclass
class CurateReport:
    """What one curation pass did."""

    items: int = 0
    expired: int = 0
    arcs: int = 0
    rollups: int = 0
    embedded: int = 0
    echoes: int = 0
    model_improved: int = 0
    sessions: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"items": self.items, "expired": self.expired, "arcs": self.arcs, "rollups": self.rollups,
                "embedded": self.embedded, "echoes": self.echoes,
                "model_improved": self.model_improved, "sessions": len(self.sessions)}


def _view(term: Term) -> ItemView:
    h, s, q, k, g, t, p, x = term.args
    return ItemView(handle=str(h), session=str(s), seq=int(q), kind=str(k), goal=g, time=t,
                    pointer=p, text=x)


def _rungs_term(r: Rungs) -> Term:
    d = r.distillation
    fields = [Term("-", [Atom(name), value])
              for name, values in (("entity", d.entities), ("decision", d.decisions),
                                   ("constraint", d.constraints), ("outcome", d.outcomes),
                                   ("tag", d.tags), ("fact", d.facts))
              for value in values]
    tokens = Term("t", [estimate_tokens(r.l1), estimate_tokens(r.l2), estimate_tokens(r.l3)])
    return Term("rungs", [Atom(r.handle), Atom(r.curator), r.l1, r.l2, r.l3, tokens, fields,
                          [Atom(p) for p in r.provenance]])


def curate_memory(mem: Any, *, progress: Callable[[int], None] | None = None,
                  model: Any = None) -> CurateReport:
    """Curate everything new in ``mem`` (a :class:`~attention_cloud.Memory`)."""
    from .curate import curate_arc, curate_session, plan_arcs

    report = CurateReport()
    touched: set[str] = set()
    echoes = bool(mem.config.get("echoes", True))
    distillations = bool(mem.config.get("distillation_vectors", True)) and not mem.jump.disabled
    if distillations and not mem.jump.distillations_complete():
        # vectors made before distillation vectors existed (or while they were switched off)
        report.embedded += _backfill_distillations(mem)
    new_views: list[ItemView] = []  # kept for echo detection only
    while True:
        (raw,) = mem.pl.once("atc_ladder:ladder_uncurated", BATCH, Var())
        if not raw:
            break
        views = [_view(t) for t in raw]
        rungs = curate_items(views)
        if model is not None:
            improved = model.improve(views, rungs)
            report.model_improved += sum(a.curator != b.curator for a, b in zip(improved, rungs))
            rungs = improved
        records = [_rungs_term(r) for r in rungs]
        records += [Term("l0_tokens", [Atom(v.handle), estimate_tokens(v.text)]) for v in views]
        mem.store_ladder(records)
        # Index each batch as it is curated: a large backfill never holds every text twice,
        # and what is indexed is durable (flushed) batch by batch.
        segments = _segments(mem, [v.handle for v in views])
        report.embedded += mem.jump.index(
            [v.handle for v in views], [v.text for v in views],
            [{"record": "item", "level": "l0", "kind": v.kind, "segment": segments.get(v.handle, "default")}
             for v in views])
        if distillations:
            report.embedded += _index_distillations(mem, views, rungs, segments)
        mem.jump.flush()
        touched.update(v.session for v in views)
        if echoes:
            new_views.extend(views)
        report.items += len(views)
        if progress:
            progress(len(views))

    (stale,) = mem.pl.once("atc_ladder:ladder_stale_sessions", Var())
    touched.update(str(s) for s in stale)
    arc_keys: list[str] = []
    arc_texts: list[str] = []
    arc_meta: list[dict[str, Any]] = []
    for session in sorted(touched):
        (raw,) = mem.pl.once("atc_ladder:ladder_session_items", Atom(session), Var())
        views = [_view(t) for t in raw]
        if not views:
            continue
        by_handle = {r.handle: r for r in curate_items(views)}
        segment = _segments(mem, [views[0].handle]).get(views[0].handle, "default")
        records: list[Term] = []
        for plan in plan_arcs(views):
            if mem.pl.once("atc_ladder:arc", Atom(plan.arc_id)) is not None:
                continue
            members = [v for v in views if v.handle in set(plan.members)]
            arc = curate_arc(plan, members, [by_handle[m.handle] for m in members])
            records.append(Term("arc", [Atom(plan.arc_id), Atom(plan.session), plan.goal,
                                        [Atom(m) for m in plan.members]]))
            records.append(_rungs_term(arc))
            arc_keys.append(plan.arc_id)
            arc_texts.append(arc.l1 + "\n" + arc.l2)
            arc_meta.append({"record": "arc", "level": "l1", "kind": "arc", "segment": segment})
            report.arcs += 1
        rollup = curate_session(session, views, [by_handle[v.handle] for v in views])
        records.append(Term("rollup", [Atom(rollup.handle), Atom(session)]))
        records.append(_rungs_term(rollup))
        report.rollups += 1
        mem.store_ladder(records)
        if len(arc_keys) >= BATCH:
            report.embedded += mem.jump.index(arc_keys, arc_texts, arc_meta)
            mem.jump.flush()
            arc_keys, arc_texts, arc_meta = [], [], []
    report.sessions = sorted(touched)

    if distillations or report.items:  # items curated without them: a later run backfills
        mem.jump.set_distillations_complete(distillations)
    if arc_keys:
        report.embedded += mem.jump.index(arc_keys, arc_texts, arc_meta)
    if new_views:
        report.echoes = _mark_echoes(mem, new_views)
    mem.jump.flush()
    report.expired = apply_retention(mem, mem.config.get("retention") or {})
    return report


def apply_retention(mem: Any, retention: dict[str, Any], *, now: float | None = None) -> int:
    """Drop rungs older than the configured days per level (``{"l0": 365, "l1": 730}``).

    L3 never expires and L0 goes only from curated items, so every item stays renderable.
    Returns the number of rungs dropped.
    """
    import time

    dropped = 0
    for level, days in sorted(retention.items()):
        level = level.lower()
        if days is None:
            continue
        if level not in ("l0", "l1", "l2") or not isinstance(days, (int, float)) or days < 0:
            raise UsageError(f"retention: {level!r} must be l0, l1 or l2 with a number of days")
        cutoff = time.strftime("%Y-%m-%dT%H:%M:%SZ",
                               time.gmtime((now if now is not None else time.time()) - days * 86400))
        mem.lock.acquire()
        (count,) = mem.pl.once("atc_api:api_batch_expire", Atom(level), cutoff, Var())
        dropped += count
    if dropped:
        sync_journal(mem.home)
    return dropped


def _segments(mem: Any, handles: list[str]) -> dict[str, str]:
    """Handle -> segment for live items, in one Prolog call."""
    (pairs,) = mem.pl.once("atc_ladder:ladder_item_segments", [Atom(h) for h in handles], Var())
    return {str(pair.args[0]): str(pair.args[1]) for pair in pairs}


def _index_distillations(mem: Any, views: list[ItemView], rungs: list[Rungs],
                         segments: dict[str, str]) -> int:
    """Embed each new item's distillation (L2) under ``HANDLE#l2``. What the curator pulled out
    of a turn gets a vector of its own, so a fact stated in passing is not drowned by the
    turn's main topic."""
    text_of = {r.handle: r.l2 for r in rungs}
    return _embed_distillations(mem, [
        (v.handle, v.kind, segments.get(v.handle, "default"), text_of.get(v.handle, ""))
        for v in views if text_of.get(v.handle, "") != v.text])


def _backfill_distillations(mem: Any) -> int:
    """Embed the distillation of every curated item that has none yet, BATCH items a call."""
    from .jump import distillation_key

    (handles,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
    store = mem.jump.vectors if mem.jump.has_vectors() else None
    todo = [str(h) for h in handles if store is None or not store.has(distillation_key(str(h)))]
    added = 0
    for start in range(0, len(todo), BATCH):
        chunk = [Atom(h) for h in todo[start:start + BATCH]]
        (records,) = mem.pl.once("atc_ladder:ladder_distillations", chunk, Var())
        added += _embed_distillations(mem, [tuple(str(a) for a in r.args) for r in records])
        mem.jump.flush()
    return added


def _embed_distillations(mem: Any, entries: list[tuple[str, str, str, str]]) -> int:
    """Vectors (no BM25: it reads the whole text) for ``(handle, kind, segment, l2)`` entries."""
    from .jump import distillation_key

    entries = [e for e in entries if e[3].strip()]
    return mem.jump.index(
        [distillation_key(h) for h, _, _, _ in entries], [text for _, _, _, text in entries],
        [{"record": "distillation", "level": "l2", "kind": kind, "segment": segment}
         for _, kind, segment, _ in entries],
        lexical=False)


def _mark_echoes(mem: Any, views: list[ItemView]) -> int:
    """Flag new items that restate memory from another, earlier session."""
    from .curate import find_echoes
    from .curate.echoes import ECHO_CANDIDATES

    jump = mem.jump
    if jump.disabled or not views or not jump.has_vectors():
        return 0
    import numpy as np

    store = jump.vectors
    store.wait_for_index()  # a large store answers from its approximate index, not a full scan
    echoes: list[tuple[str, str, float]] = []
    for start in range(0, len(views), ECHO_CHUNK):
        chunk = [v for v in views[start:start + ECHO_CHUNK] if store.has(v.handle)]
        if not chunk:
            continue
        matrix = np.stack([store.vector(v.handle) for v in chunk])
        # one batched search per chunk (a BLAS product on a flat index) instead of one per item
        neighbours = store.search_many(matrix, ECHO_CANDIDATES, filter_meta={"record": "item"})
        echoes += find_echoes(chunk, matrix, None, lambda h: _lookup_view(mem, h),
                              neighbours=neighbours)
    if echoes:
        mem.store_ladder([Term("echo", [Atom(e), Atom(o), float(s)]) for e, o, s in echoes])
    return len(echoes)


def _lookup_view(mem: Any, handle: str) -> ItemView | None:
    found = mem.pl.once("atc_api:api_item", Atom(handle), Var())
    if not found:
        return None
    d = found[0]
    return ItemView(handle=str(d["handle"]), session=str(d["session"]), seq=d["seq"],
                    kind=str(d["kind"]), goal=d["goal"], time=d["time"], pointer=d["source"],
                    text=d["text"])
