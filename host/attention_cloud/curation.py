"""``atc curate``: build the ladder (L1–L3, arcs, rollups), embed it, and mark echoes.

Incremental and idempotent: only items without rungs are curated; arcs and rollups are rebuilt
only for sessions that gained items; only records without vectors are embedded. A second run
with nothing new does no work.

Crash safety: a batch's vectors and BM25 entries are flushed (fsynced) before its ladder facts
are committed, so a record the journal calls curated has both; a kill in between leaves the
records uncurated and the next run redoes them (the same rungs, the same keys). Before a batch
of items is committed their handles and sessions go to ``curation.pending.jsonl`` (fsynced):
the arcs, rollups and echoes of a run come after all its items (a run of more items than it
keeps rungs for builds a session's arcs and rollup once all its items are curated), and a run
killed before them leaves that list, from which the next run finishes them (a session built
already is built again, to the same records); a run that completes removes it. Each
run starts by checking that every curated item and arc has its vector (and distillation
vector, when configured) and its BM25 entry, and repairs any that lack them (homes curated by
earlier versions, or damaged by hand); ``CurateReport.repaired`` counts them. Session rollups
are not embedded or indexed.
"""
from __future__ import annotations

import json
import os
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Sequence

from .bridge import Atom, Term, Var
from .errors import UsageError
from .home import CURATION_PENDING_FILE
from .progress import ProgressCallback, report as report_progress
from .store import sync_journal
from .curate import ItemView, Rungs, curate_items, estimate_tokens
from .curate.tokens import packed_size
from .curate.handles import HandleList
from .ingest_index import finish_pending, item_meta
from .vector_texts import (NO_DISTILLATION_VECTOR, has_distillation_vector, indexed_text,
                           item_vector_text, kinds_without_distillation, text_vector_meta,
                           tool_output_head)

BATCH = 2000
PENDING_FILE = CURATION_PENDING_FILE
#: Item batches between two hand-backs of freed memory (Memory.give_back_memory): without them
#: glibc keeps what a batch freed and a million-item run holds its peaks (~0.1 GB a 100k items).
GIVE_BACK_EVERY = 10
#: New items whose echo candidates are searched in one batched call.
ECHO_CHUNK = 512
#: IVF lists an echo search visits (searches for frames visit 16): an echo is a near-duplicate
#: (cosine >= 0.92), found in the query's nearest lists. At a million items (1.68M vectors)
#: nprobe 1, 2 and 4 find every pair at >= 0.92 that 16 finds, at 1.0-1.6 ms a query instead of
#: 4.6 (scripts/bench/echo_search.py); 2 keeps a margin.
ECHO_NPROBE = 2
#: Threads an echo chunk's search is split over (both cores of a small machine).
ECHO_THREADS = min(2, os.cpu_count() or 1)
#: Chunks whose echoes are written to the journal together.
ECHO_WRITE_CHUNKS = 64
#: Distinct item vectors whose search hits an echo pass keeps for items with an equal vector.
ECHO_SEARCH_CACHE = 20_000
#: Index records (vectors and BM25 entries) up to which the writer's indexes stay open after
#: the items step: closed, the next ingest and curate open them again, replaying every key and
#: BM25 log record (~0.3 s of an agent's per-turn curate at 300 turns, growing with the home);
#: above it, closing frees what the cells step does not need (~1 GB at a million items).
KEEP_INDEXES_OPEN_UP_TO = 50_000
#: Items whose extractive rungs a run keeps for the arcs and rollups of their sessions
#: (reading an item again cost ~0.6 ms, ~5 % of an idle curate of agent transcripts). Bounded
#: (~2 KB an item, ~20 MB): a longer run builds each session once all its items are curated,
#: so only a session of more items than this is read again.
RUNGS_KEPT = 10_000
#: Items of the sessions a Memory built last whose extractive rungs it keeps between curate
#: runs (~2 KB an item, ~10 MB at most): an agent that curates after every turn of a long
#: session rebuilds that session's rollup each time, and read all its items again for it
#: (~4 ms an item: 2.6 s a curate at 600 items, growing with every turn).
SESSION_RUNGS_KEPT = 5_000


class KeptRungs:
    """The extractive rungs a run made for its items, by item, the latest :data:`RUNGS_KEPT`.

    The curator is deterministic on what it reads of an item, so rungs kept for a view equal
    to the one read again are the rungs a second reading would give; a view that differs
    (or was not kept) is read afresh."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = RUNGS_KEPT if limit is None else limit
        self._rungs: OrderedDict[str, tuple[tuple, Rungs]] = OrderedDict()

    @staticmethod
    def _reading(view: ItemView) -> tuple:
        """What the curator reads of an item (the text by its hash: the view is not kept)."""
        return (view.kind, view.goal, view.pointer, view.answers_call, len(view.text),
                hash(view.text))

    def keep(self, views: list[ItemView], rungs: list[Rungs]) -> None:
        """Remember ``rungs`` (one per view, from :func:`curate_items`)."""
        if not self.limit:
            return
        for view, rung in zip(views, rungs):
            self._rungs[view.handle] = (self._reading(view), rung)
            self._rungs.move_to_end(view.handle)
        while len(self._rungs) > self.limit:
            self._rungs.popitem(last=False)

    def forget(self, handles: Any) -> None:
        """Drop the rungs kept for ``handles`` (their sessions are built)."""
        for handle in handles:
            self._rungs.pop(handle, None)

    def _kept(self, view: ItemView) -> Rungs | None:
        kept = self._rungs.get(view.handle)
        return kept[1] if kept is not None and kept[0] == self._reading(view) else None

    def rungs_of(self, views: list[ItemView], behind: "KeptRungs | None" = None) -> list[Rungs]:
        """The extractive rungs of ``views``, same order: kept ones (here, else ``behind``),
        the rest read now; ``behind`` then keeps them all."""
        found = [self._kept(view) or (behind._kept(view) if behind is not None else None)
                 for view in views]
        missing = [view for view, rung in zip(views, found) if rung is None]
        fresh = iter(curate_items(missing) if missing else [])
        rungs = [rung if rung is not None else next(fresh) for rung in found]
        if behind is not None:
            behind.keep(views, rungs)
        return rungs


def session_rungs(mem: Any) -> KeptRungs:
    """The rungs ``mem`` kept of the sessions it built last, for its next curate run (held by
    the Memory, which drops them when an erasure elsewhere makes it read the home afresh)."""
    if mem.session_rungs is None:
        mem.session_rungs = KeptRungs(SESSION_RUNGS_KEPT)
    return mem.session_rungs


def forget_session_rungs(mem: Any) -> None:
    """Drop what :func:`session_rungs` kept (an erasure: no rung of a forgotten item stays in
    the process)."""
    mem.session_rungs = None


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
    #: With a model curator (``curator`` in config.json): the batches it did not answer
    #: usably, whose items kept their extractive rungs, and why the last one failed.
    model_failed: int = 0
    model_error: str | None = None
    repaired: int = 0
    sessions: list[str] = field(default_factory=list)
    #: what keeping the cells up to date did (attention_cloud.cells.CellsReport.as_dict)
    cells: dict[str, Any] = field(default_factory=dict)
    #: Vectors copied from an identical text embedded earlier in the run instead of embedded.
    reused: int = 0
    #: Wall seconds of the run, and of them in the embedder (texts it embedded: ``embedded_texts``).
    seconds: float = 0.0
    embed_seconds: float = 0.0
    embedded_texts: int = 0

    @property
    def items_per_s(self) -> float:
        """Items curated per second of the run (0.0 for a run that took no time)."""
        return round(self.items / self.seconds, 1) if self.seconds else 0.0

    @property
    def texts_per_s(self) -> float:
        """Texts the embedder embedded per second it spent on them."""
        return round(self.embedded_texts / self.embed_seconds, 1) if self.embed_seconds else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"items": self.items, "expired": self.expired, "arcs": self.arcs, "rollups": self.rollups,
                "embedded": self.embedded, "reused": self.reused, "echoes": self.echoes,
                "model_improved": self.model_improved, "model_failed": self.model_failed,
                "model_error": self.model_error, "repaired": self.repaired,
                "sessions": len(self.sessions), "cells": self.cells, "seconds": round(self.seconds, 2),
                "items_per_s": self.items_per_s, "embed_seconds": round(self.embed_seconds, 2),
                "texts_per_s": self.texts_per_s}


def _view(term: Term) -> ItemView:
    h, s, q, k, g, t, p, x, call = term.args
    return ItemView(handle=str(h), session=str(s), seq=int(q), kind=str(k), goal=g, time=t,
                    pointer=p, text=x, answers_call=str(call) == "true")


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


def _sizes_term(r: Rungs, l0: str | None = None) -> Term:
    """The UTF-8 bytes and words of a record's rungs (``l0`` its item's text, None for an arc
    or a rollup), stored after its rungs: hydration prices a fact as written by arithmetic."""
    sizes = [packed_size(t) for t in (l0, r.l1, r.l2, r.l3)]
    return Term("sizes", [Atom(r.handle)] + [Atom("none") if s is None else s for s in sizes])


def curate_memory(mem: Any, *, progress: ProgressCallback | None = None,
                  model: Any = None) -> CurateReport:
    """Curate everything new in ``mem`` (a :class:`~attention_cloud.Memory`).

    ``progress`` hears of each batch: phases ``curating items`` (items), ``arcs and rollups``
    (sessions) and ``echoes`` (items), each from 0 to its total.
    """
    import time

    def counters() -> tuple[int, float, int]:
        jump = mem._jump  # not mem.jump: a run that embeds nothing loads no embedder
        return (0, 0.0, 0) if jump is None else \
            (jump.reused_vectors, jump.embed_seconds, jump.embedded_texts)

    started, before = time.perf_counter(), counters()
    report = _curate(mem, progress, model)
    report.seconds = time.perf_counter() - started
    if model is not None:
        report.model_failed, report.model_error = model.failures, model.last_error
    after = counters()
    report.reused, report.embedded_texts = after[0] - before[0], after[2] - before[2]
    report.embed_seconds = after[1] - before[1]
    return report


def upgrade_ladder(mem: Any, batch: int = 20_000) -> int:
    """Rewrite the curated records a home holds in the first fact forms (rung_/4, distill_/3,
    provenance_/2, curated_/2: homes curated before record_/11) in the packed form, ``batch``
    records per fsynced batch; returns how many. Answers are the same before and after."""
    total = 0
    while True:
        (count,) = mem.pl.once("atc_api:api_ladder_upgrade", batch, Var())
        if not count:
            return total
        sync_journal(mem.home)
        total += count


def fill_rung_sizes(mem: Any, batch: int = 20_000) -> int:
    """Store the UTF-8 bytes and words of the rungs of the records a home holds without them
    (curated before they were stored, and cells), ``batch`` records per fsynced batch; returns
    how many. Until then hydration asks the host to count the facts it places."""
    total = 0
    while True:
        (raw,) = mem.pl.once("atc_ladder:ladder_unsized", batch, Var())
        if not raw:
            return total
        mem.store_ladder([Term("sizes", [t.args[0]] + [packed_size(x) if isinstance(x, str) else Atom("none")
                                                       for x in t.args[1:]])
                          for t in raw])
        total += len(raw)
        if len(raw) < batch:
            return total


def upgrade_vectors(mem: Any) -> None:
    """Bring a home's vector store to the current format now rather than at its next new item:
    its writer's open rewrites a float32 log as float16 and rebuilds an index of an older kind
    (an IVF-Flat), waited for here so that the run's last flush saves it; readers serve from the
    old index until then."""
    if mem.jump.has_vectors():
        mem.jump.vectors.wait_for_index()


def _curate(mem: Any, progress: ProgressCallback | None, model: Any) -> CurateReport:
    report = CurateReport()
    mem.lock.acquire()  # a writer from the start: a second curate is refused before any work
    upgrade_ladder(mem)
    fill_rung_sizes(mem)
    upgrade_vectors(mem)
    touched: set[str] = set()
    echoes = bool(mem.config.get("echoes", True))
    distillations = bool(mem.config.get("distillation_vectors", True)) and not mem.jump.disabled
    if distillations and not mem.jump.distillations_complete():
        # vectors made before distillation vectors existed (or while they were switched off)
        report.embedded += _backfill_distillations(mem)
    finish_pending(mem)  # BM25 entries of a killed ingest's last batch
    report.repaired = _repair_indexes(mem, distillations)
    unfinished_items, unfinished_sessions = _read_pending(mem)  # left by a killed run
    touched.update(unfinished_sessions)
    # handles only (not views: their texts would grow with the whole run); echo detection
    # reads the views back a chunk at a time
    # (both lists compact: ~20 bytes a handle, HandleList)
    new_items = HandleList()
    kept = KeptRungs()
    # The uncurated handles once (one scan), their views a batch at a time; then batches of
    # whatever is still uncurated (nothing, unless the home changed under the run).
    mem.give_back_memory()  # what an ingest in this process left free (a benchmark's build)
    (raw,) = mem.pl.once("atc_ladder:ladder_uncurated_handles", Var())
    todo = HandleList(raw)
    del raw
    report_progress(progress, "curating items", 0, len(todo))
    # A run longer than the rungs it keeps builds each session's arcs and rollup as soon as all
    # its items are curated, while their rungs are still kept (at the end, the first batches'
    # would be read again); a shorter run builds them all after its last batch, as before.
    early = len(todo) > kept.limit
    open_sessions: set[str] = set()
    start = 0
    while True:
        if start < len(todo):
            (raw,) = mem.pl.once("atc_ladder:ladder_uncurated_of",
                                 [Atom(h) for h in todo[start:start + BATCH]], Var())
            start += BATCH
        else:
            (raw,) = mem.pl.once("atc_ladder:ladder_uncurated", BATCH, Var())
            if not raw:
                break
        views = [_view(t) for t in raw]
        _curate_batch(mem, views, model, distillations, report, kept)
        touched.update(v.session for v in views)
        if early:
            open_sessions.update(v.session for v in views)
            built = _curated_sessions(mem, open_sessions)
            if built:  # progress stays on the items; their pending entries go at the end
                _curate_sessions(mem, built, report, None, kept)
                open_sessions -= built
                touched -= built
        if echoes:
            new_items.extend(v.handle for v in views)
        if (report.items // BATCH) % GIVE_BACK_EVERY == 0:
            mem.give_back_memory()
        report_progress(progress, "curating items", report.items, max(len(todo), report.items))
    del todo
    mem.give_back_memory()

    (stale,) = mem.pl.once("atc_ladder:ladder_stale_sessions", Var())
    touched.update(str(s) for s in stale)
    _curate_sessions(mem, touched, report, progress, kept)
    del kept
    _pending_done(mem, "sessions")
    mem.give_back_memory()

    if distillations or report.items:  # items curated without them: a later run backfills
        mem.jump.set_distillations_complete(distillations)
    if echoes:
        if unfinished_items:  # a killed run's items, less those curated again here
            seen = set(new_items)
            new_items.extend([h for h in unfinished_items if h not in seen])
            del seen
        _echoes(mem, new_items, report, progress)
    mem.jump.flush(checkpoint=True)  # readers open the index as saved here, not a tail to redo
    _pending_done(mem, "echoes")
    if mem.jump.records_open() > KEEP_INDEXES_OPEN_UP_TO:
        mem.jump.close()  # the writer's index tables and BM25 (~1 GB at 1M): the cells step only reads
    mem.give_back_memory()
    if mem.config.get("cells", True):
        from .cells import update

        report.cells = update(mem).as_dict()  # new items join their cells (or the first build)
    _clear_pending(mem)
    from .embed.lexical import clear_cut

    clear_cut(mem.home / "lexical")  # what a damaged BM25 log lost is indexed again (repair, above)
    report.expired = apply_retention(mem, mem.config.get("retention") or {})
    return report


def curate_scope(mem: Any, items: list[str], sessions: set[str], echo_items: list[str]) -> CurateReport:
    """Curate only ``items`` (those still uncurated), rebuild the arcs and rollups of
    ``sessions`` and look again for the originals of ``echo_items``: what erasure rebuilds
    without the forgotten items, leaving the rest of the home as it is."""
    report = CurateReport()
    mem.lock.acquire()
    forget_session_rungs(mem)
    unfinished = _pending_path(mem).exists()  # a killed curate's list: its next run needs it
    distillations = bool(mem.config.get("distillation_vectors", True)) and not mem.jump.disabled
    (raw,) = mem.pl.once("atc_ladder:ladder_uncurated_of", [Atom(h) for h in items], Var())
    views = [_view(t) for t in raw]
    kept = KeptRungs()
    for start in range(0, len(views), BATCH):
        _curate_batch(mem, views[start:start + BATCH], mem._model_curator(), distillations, report,
                      kept)
    _curate_sessions(mem, set(sessions), report, None, kept)
    if mem.config.get("echoes", True):
        _echoes(mem, list(echo_items), report, None)
    mem.jump.flush()
    if not unfinished:
        _clear_pending(mem)
    return report


def _curate_batch(mem: Any, views: list[ItemView], model: Any, distillations: bool,
                  report: CurateReport, kept: KeptRungs | None = None) -> None:
    """Curate, index and store one batch of items (their vectors and BM25 entries are
    flushed before their ladder facts are committed); ``kept`` keeps their extractive rungs
    for their sessions' arcs and rollups."""
    rungs = curate_items(views)
    if kept is not None:
        kept.keep(views, rungs)
    if model is not None:
        improved = model.improve(views, rungs)
        report.model_improved += sum(a.curator != b.curator for a, b in zip(improved, rungs))
        rungs = improved
    records = [_rungs_term(r) for r in rungs]
    records += [Term("l0_tokens", [Atom(v.handle), estimate_tokens(v.text)]) for v in views]
    l0_texts = {v.handle: v.text for v in views}
    records += [_sizes_term(r, l0_texts.get(r.handle)) for r in rungs]
    # Index each batch as it is curated (a large backfill never holds every text twice),
    # durably, before its facts are committed: what the journal calls curated is indexed.
    segments = _segments(mem, [v.handle for v in views])
    report.embedded += _index_items(mem, views, segments, rungs if distillations else None)
    mem.jump.flush()
    _add_pending(mem, views)
    mem.store_ladder(records)
    report.items += len(views)


def _curate_sessions(mem: Any, touched: set[str], report: CurateReport,
                     progress: ProgressCallback | None, kept: KeptRungs | None = None) -> None:
    """Build the missing arcs and the rollup of each session in ``touched``, and drop the
    arcs its items no longer form: an arc that gained a member is a new arc (its id is its
    members'), and one whose member a later reading superseded or moved is not formed again;
    left, a session captured while it grew held an arc per growth, each a stale summary.
    The items' rungs are those ``kept`` from this run's batches where it has them."""
    from .curate import curate_arc, curate_session, plan_arcs

    arc_keys: list[str] = []
    arc_texts: list[str] = []
    arc_meta: list[dict[str, Any]] = []
    pending: list[Term] = []  # arc and rollup records whose arcs are not yet indexed
    dropped: list[str] = []   # arcs dropped by ``pending``: their index entries go after it

    def commit_sessions() -> None:
        # the arcs' vectors and BM25 entries first, then the facts that make them visible;
        # a dropped arc's entries after its facts (a kill between leaves entries of no live
        # record, which searches skip)
        report.embedded += mem.jump.index(arc_keys, arc_texts, arc_meta)
        mem.jump.flush()
        mem.store_ladder(pending)
        if dropped:
            mem.jump.remove(dropped)
            mem.jump.flush()
        arc_keys.clear(), arc_texts.clear(), arc_meta.clear(), pending.clear(), dropped.clear()
        mem.give_back_memory()

    for done, session in enumerate(sorted(touched), 1):
        report_progress(progress, "arcs and rollups", done - 1, len(touched), "sessions")
        (raw,) = mem.pl.once("atc_ladder:ladder_session_items", Atom(session), Var())
        views = [_view(t) for t in raw]
        if not views:
            continue
        by_handle = {r.handle: r for r in (kept or KeptRungs(0)).rungs_of(
            views, session_rungs(mem))}
        if kept is not None:  # built now: room for the items of sessions still open
            kept.forget(by_handle)
        segment = _segments(mem, [views[0].handle]).get(views[0].handle, "default")
        records: list[Term] = []
        plans = plan_arcs(views)
        (stored,) = mem.pl.once("atc_ladder:ladder_session_arcs", Atom(session), Var())
        formed = {plan.arc_id for plan in plans}
        for arc_id in (str(a) for a in stored):
            if arc_id not in formed:
                records.append(Term("drop_arc", [Atom(arc_id)]))
                dropped.append(arc_id)
        for plan in plans:
            if mem.pl.once("atc_ladder:arc", Atom(plan.arc_id)) is not None:
                continue
            members = [v for v in views if v.handle in set(plan.members)]
            arc = curate_arc(plan, members, [by_handle[m.handle] for m in members])
            records.append(Term("arc", [Atom(plan.arc_id), Atom(plan.session), plan.goal,
                                        [Atom(m) for m in plan.members]]))
            records.append(_rungs_term(arc))
            records.append(_sizes_term(arc))
            arc_keys.append(plan.arc_id)
            arc_texts.append(_arc_text(arc.l1, arc.l2))
            arc_meta.append(_arc_meta(segment))
            report.arcs += 1
        rollup = curate_session(session, views, [by_handle[v.handle] for v in views])
        records.append(Term("rollup", [Atom(rollup.handle), Atom(session)]))
        records.append(_rungs_term(rollup))
        records.append(_sizes_term(rollup))
        report.rollups += 1
        pending.extend(records)
        if len(arc_keys) >= BATCH or len(pending) >= 4 * BATCH:
            commit_sessions()
    if pending:
        commit_sessions()
    report_progress(progress, "arcs and rollups", len(touched), len(touched), "sessions")
    report.sessions = sorted(set(report.sessions) | touched)


def _curated_sessions(mem: Any, sessions: set[str]) -> set[str]:
    """Those of ``sessions`` none of whose live items is still uncurated."""
    (done,) = mem.pl.once("atc_ladder:ladder_sessions_curated", [Atom(s) for s in sorted(sessions)],
                          Var())
    return {str(s) for s in done}


def _echoes(mem: Any, handles: Sequence[str], report: CurateReport,
            progress: ProgressCallback | None) -> None:
    """Mark which of the items ``handles`` restate memory from an earlier session."""
    if not handles:
        return
    report_progress(progress, "echoes", 0, len(handles))
    report.echoes = _mark_echoes(
        mem, handles, lambda done: report_progress(progress, "echoes", done, len(handles)))
    report_progress(progress, "echoes", len(handles), len(handles))


# -- crash safety -------------------------------------------------------------------------------
def _index_items(mem: Any, views: list[ItemView], segments: dict[str, str],
                 rungs: list[Rungs] | None = None) -> int:
    """Vectors and BM25 entries of items' texts (L0) and, with their ``rungs``, the vectors of
    their distillations (:func:`_distillation_entries_of`); returns vectors added.

    Texts and distillations go to the embedder in one call, so that an item and a
    distillation the model cannot tell apart (its text with the line breaks collapsed) run
    through it once."""
    from .jump import distillation_key

    speakers = _speakers(mem, [v.handle for v in views])
    keys = [v.handle for v in views]
    texts = [indexed_text(v.text, speakers.get(v.handle)) for v in views]
    meta = [item_meta(v.kind, segments.get(v.handle, "default")) for v in views]
    # BM25 reads the whole text (L2 gets no entry); the vector reads what vector_texts says
    mem.jump.index(keys, texts, meta, embed=False)
    head = tool_output_head(mem.config)
    vector_texts = [item_vector_text(v.kind, text, head) for v, text in zip(views, texts)]
    entries = [] if rungs is None else \
        _distillation_entries_of(views, rungs, segments, speakers, head)
    if rungs is not None:  # the text vectors of items with no distillation vector say so
        distilled = {distillation_key(v.handle) for v in views} & {k for k, _, _ in entries}
        meta = [text_vector_meta(m, v.kind, distillation_key(v.handle) in distilled, head)
                for v, m in zip(views, meta)]
    return mem.jump.index(keys + [k for k, _, _ in entries],
                          vector_texts + [t for _, t, _ in entries],
                          meta + [m for _, _, m in entries], lexical=False)


def _arc_text(l1: str, l2: str) -> str:
    """What is embedded and indexed of an arc: its summary and distillation."""
    return l1 + "\n" + l2


def _arc_meta(segment: str) -> dict[str, Any]:
    return {"record": "arc", "level": "l1", "kind": "arc", "segment": segment}


def _pending_path(mem: Any) -> Any:
    return mem.home / PENDING_FILE


def _add_pending(mem: Any, views: list[ItemView]) -> None:
    """Record (fsynced) items about to be committed, and their sessions, as unfinished."""
    line = json.dumps({"items": [v.handle for v in views],
                       "sessions": sorted({v.session for v in views})}) + "\n"
    with open(_pending_path(mem), "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def _pending_done(mem: Any, phase: str) -> None:
    """Record (fsynced) that ``phase`` (``sessions``: arcs and rollups; ``echoes``) is done for
    every item and session listed before it: a run killed after it (in the cells, say, at a
    million items) is resumed without doing that phase for them again."""
    path = _pending_path(mem)
    if path.exists():
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"done": phase}) + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def _read_pending(mem: Any) -> tuple[list[str], set[str]]:
    """Items and sessions a killed run committed without finishing their arcs, rollups and
    echoes (a torn last line is what it was writing when killed: its items were not committed);
    a ``done`` line clears what it covers: the sessions before a ``sessions`` line, the items
    (whose echoes were searched) before an ``echoes`` line."""
    items: list[str] = []
    sessions: set[str] = set()
    try:  # bytes damaged on disk are replaced, so their line is skipped as a torn one is
        lines = _pending_path(mem).read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return items, sessions
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):  # a damaged line that reads as another JSON value
            continue
        if entry.get("done") == "sessions":
            sessions.clear()
        elif entry.get("done") == "echoes":
            items.clear()
        items.extend(str(h) for h in entry.get("items", []))
        sessions.update(str(s) for s in entry.get("sessions", []))
    return items, sessions


def _clear_pending(mem: Any) -> None:
    from .home import fsync_path

    path = _pending_path(mem)
    if path.exists():
        path.unlink()
        fsync_path(mem.home)


def _repair_indexes(mem: Any, distillations: bool) -> int:
    """Give every curated item and arc the vector and BM25 entry curation gives it (and an
    item its distillation vector when ``distillations``); returns the records repaired.

    Records only lack them in a home written before curation committed its indexes first, or
    damaged since; the check is a set lookup per record.
    """
    from .jump import distillation_key

    jump = mem.jump
    items, arcs = _curated_records(mem)
    if not items and not arcs:
        return 0
    lexical = jump.lexical
    vectors = None if jump.disabled else jump.vectors

    def lacking(keys: list[str]) -> list[bool]:
        """Per key: no BM25 entry, or no vector (one batched lookup of the vectors: a lookup
        per key cost ~3 s a curate at 100k items)."""
        has_vector = vectors.ids(keys) >= 0 if vectors is not None and keys else [True] * len(keys)
        return [not ok or not lexical.has(key) for key, ok in zip(keys, has_vector)]

    repaired: set[str] = set()
    broken = [h for h, bad in zip(items, lacking(items)) if bad]
    for start in range(0, len(broken), BATCH):
        views = [v for v in (_lookup_view(mem, h) for h in broken[start:start + BATCH])
                 if v is not None and v.text]  # an expired L0 cannot be indexed again
        _index_items(mem, views, _segments(mem, [v.handle for v in views]))
        repaired.update(v.handle for v in views)
    if distillations and vectors is not None:
        # tool output, and an item whose distillation is its text, have no distillation vector
        # by design (vector_texts): told by their text vector's meta, so that every run does
        # not ask Prolog for each one's distillation
        text_ids = vectors.ids(items)
        kinds = sorted(kinds_without_distillation(tool_output_head(mem.config)))
        by_design = vectors.ids_matching(text_ids, {"kind": kinds}) | \
            vectors.ids_matching(text_ids, NO_DISTILLATION_VECTOR)
        undistilled = [h for h, i, skip in zip(items, vectors.ids([distillation_key(h) for h in items]),
                                               by_design) if i < 0 and not skip]
        for start in range(0, len(undistilled), BATCH):
            if _distill(mem, undistilled[start:start + BATCH]):
                repaired.update(h for h in undistilled[start:start + BATCH]
                                if vectors.has(distillation_key(h)))
    for arc in (a for a, bad in zip(arcs, lacking(arcs)) if bad):
        l1 = mem.pl.once("atc_ladder:rung", Atom(arc), Atom("l1"), Var())
        l2 = mem.pl.once("atc_ladder:rung", Atom(arc), Atom("l2"), Var())
        first = mem.pl.once("atc_ladder:arc_member", Atom(arc), Var())
        if l1 is None or l2 is None or first is None:
            continue
        member = str(first[0])
        segment = _segments(mem, [member]).get(member, "default")
        jump.index([arc], [_arc_text(l1[0], l2[0])], [_arc_meta(segment)])
        repaired.add(arc)
    if repaired:
        jump.flush()
    return len(repaired)


def _curated_records(mem: Any) -> tuple[list[str], list[str]]:
    """Every live curated item's handle and every live arc's id, read from Prolog as one
    text each (a list crosses an atom at a time, ~5 µs each); the lists when an id holds a
    newline (a journal written by hand)."""
    texts, item_count, arc_text, arc_count = mem.pl.once(
        "atc_ladder:ladder_curated_texts", Var(), Var(), Var(), Var())
    items = texts.split("\n") if item_count else []
    arcs = arc_text.split("\n") if arc_count else []
    if len(items) != item_count:
        (handles,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
        items = [str(h) for h in handles]
    if len(arcs) != arc_count:
        arcs = [str(a) for (a,) in mem.pl.solutions("atc_ladder:arc", Var())]
    return items, arcs


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


def _distillation_entries_of(views: list[ItemView], rungs: list[Rungs], segments: dict[str, str],
                             speakers: dict[str, str], head: int | None
                             ) -> list[tuple[str, str, dict[str, Any]]]:
    """``(key, text, meta)`` of the distillation vector of each new item with an L2 other than
    its text, under ``HANDLE#l2``, for the kinds that get one (vector_texts). What the curator
    pulled out of a turn gets a vector of its own, so a fact stated in passing is not drowned
    by the turn's main topic."""
    text_of = {r.handle: r.l2 for r in rungs}
    return _distillation_vectors([
        (v.handle, v.kind, segments.get(v.handle, "default"),
         indexed_text(text_of.get(v.handle, ""), speakers.get(v.handle)))
        for v in views
        if text_of.get(v.handle, "") != v.text and has_distillation_vector(v.kind, head)])


def _speakers(mem: Any, handles: list[str]) -> dict[str, str]:
    """Handle -> speaker name, for the items whose transcript names their speaker."""
    (pairs,) = mem.pl.once("atc_journal:journal_item_speakers", [Atom(h) for h in handles], Var())
    return {str(pair.args[0]): str(pair.args[1]) for pair in pairs}


def _distillation_entries(mem: Any, handles: list[str]) -> list[tuple[str, str, str, str]]:
    """``(handle, kind, segment, text)`` for those of ``handles`` curation gives a distillation
    vector (an L2 other than the item's text, a kind that gets one: vector_texts), the text as
    curation embeds it (indexed_text)."""
    (records,) = mem.pl.once("atc_ladder:ladder_distillations", [Atom(h) for h in handles], Var())
    head = tool_output_head(mem.config)
    entries = [entry for entry in (tuple(str(a) for a in record.args) for record in records)
               if has_distillation_vector(entry[1], head)]
    speakers = _speakers(mem, [handle for handle, _, _, _ in entries])
    return [(handle, kind, segment, indexed_text(text, speakers.get(handle)))
            for handle, kind, segment, text in entries]


def _backfill_distillations(mem: Any) -> int:
    """Embed the distillation of every curated item that has none yet, BATCH items a call."""
    from .jump import distillation_key

    (handles,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
    store = mem.jump.vectors if mem.jump.has_vectors() else None
    todo = [str(h) for h in handles if store is None or not store.has(distillation_key(str(h)))]
    added = 0
    for start in range(0, len(todo), BATCH):
        added += _distill(mem, todo[start:start + BATCH])
        mem.jump.flush()
    return added


def _distill(mem: Any, handles: list[str]) -> int:
    """Embed the distillations of those of the curated items ``handles`` that get one, and
    note on the text vectors of the others (their distillation is their text, or blank) that
    they have none, so that later runs do not ask again; returns the vectors added."""
    from .jump import distillation_key

    entries = _distillation_entries(mem, handles)
    added = _embed_distillations(mem, entries)
    distilled = {handle for handle, _, _, text in entries if text.strip()}
    store = mem.jump.vectors
    kinds = store.ids_matching(store.ids(handles), {
        "kind": sorted(kinds_without_distillation(tool_output_head(mem.config)))})
    plain = [h for h, tool in zip(handles, kinds)
             if not tool and h not in distilled and not store.has(distillation_key(h))]
    mem.jump.add_meta(plain, NO_DISTILLATION_VECTOR)
    return added


def _embed_distillations(mem: Any, entries: list[tuple[str, str, str, str]]) -> int:
    """Vectors (no BM25: it reads the whole text) for ``(handle, kind, segment, l2)`` entries."""
    vectors = _distillation_vectors(entries)
    return mem.jump.index([k for k, _, _ in vectors], [t for _, t, _ in vectors],
                          [m for _, _, m in vectors], lexical=False)


def _distillation_vectors(entries: list[tuple[str, str, str, str]]
                          ) -> list[tuple[str, str, dict[str, Any]]]:
    """``(key, text, meta)`` of the distillation vectors of ``(handle, kind, segment, l2)``
    entries, those with a blank L2 left out."""
    from .jump import distillation_key

    return [(distillation_key(handle), text,
             {"record": "distillation", "level": "l2", "kind": kind, "segment": segment})
            for handle, kind, segment, text in entries if text.strip()]


def _mark_echoes(mem: Any, handles: Sequence[str], on_chunk: Any = None) -> int:
    """Flag the new items ``handles`` that restate memory from another, earlier session, and
    the items already marked (or not) that a new item is an earlier original of;
    ``on_chunk(done)`` after each chunk of new items checked; returns the echoes marked.

    **The marks are a function of the memory alone**, whatever the order items are searched in
    or how curation was split (one run, a resumed one, the watcher's batches): an item's mark
    is its first qualifying original among *all* its neighbours at the echo similarity, ranked
    on similarities recomputed per pair (:func:`~.curate.echoes.pair_similarities`), ties by
    handle. A search that returns only neighbours at the threshold is widened until it returns
    one below (a text restated in hundreds of sessions costs one wide search per distinct
    vector). Similarity is symmetric, so the items a new item can be an original of are among
    its own neighbours: those that are newer, from another session and not new themselves are
    checked again after the new ones (an older transcript read after a newer one).

    A chunk of :data:`ECHO_CHUNK` items is searched in one batched call (each distinct vector
    once: items with an equal vector, searched lately, reuse its hits), split over
    :data:`ECHO_THREADS` threads, in a background thread while the chunk before is checked (the
    search dominates: about 1 ms an item at a million items). Only items with a neighbour at the
    echo similarity are checked, and their views and their neighbours' are read in one Prolog
    call a chunk, so memory does not grow with the number of new items. The echoes found are
    written every :data:`ECHO_WRITE_CHUNKS` chunks (rewriting an echo fact changes nothing, so a
    run killed between writes and redone writes the same facts)."""
    jump = mem.jump
    if jump.disabled or not handles or not jump.has_vectors():
        return 0
    jump.vectors.wait_for_index()  # a large store answers from its approximate index, not a full scan
    checker = _EchoCheck(mem)
    marked = checker.check(handles, on_chunk, collect_later=True)
    later = checker.later
    later.difference_update(handles)  # decided above, against the same memory
    if later:
        marked += checker.check(sorted(later), None, collect_later=False)
    return marked


class _EchoCheck:
    """One echo pass's searches (cached by vector), views and writes (see :func:`_mark_echoes`)."""

    def __init__(self, mem: Any) -> None:
        self.mem = mem
        self.store = mem.jump.vectors
        # Items whose vectors are equal (the same text) have the same neighbours: each distinct
        # vector is searched once, its hits kept for the next ECHO_SEARCH_CACHE distinct vectors
        # (26 % of the synthetic million-item corpus reuses a search; real histories repeat tool
        # output too).
        self.searched: OrderedDict[bytes, list[tuple[str, float]]] = OrderedDict()
        #: items already in memory that a new item may be an earlier original of
        self.later: set[str] = set()

    def neighbours(self, rows: Any) -> list[list[tuple[str, float]]]:
        """Every item at the echo similarity (less the margin) of each of ``rows``, with its
        exact pair similarity: searched, widened while a search may have left one out."""
        import numpy as np

        from .curate.echoes import (ECHO_CANDIDATES, ECHO_MARGIN, ECHO_SIMILARITY,
                                    more_neighbours_may_exist, pair_similarities)

        store = self.store
        fetch = ECHO_CANDIDATES
        hits = store.search_many(rows, fetch, filter_meta={"record": "item"}, nprobe=ECHO_NPROBE,
                                 threads=ECHO_THREADS)
        wider = [i for i, found in enumerate(hits) if more_neighbours_may_exist(found, fetch)]
        while wider:
            fetch *= 4
            more = store.search_many(rows[wider], fetch, filter_meta={"record": "item"},
                                     nprobe=ECHO_NPROBE, threads=ECHO_THREADS)
            for i, found in zip(wider, more):
                hits[i] = found
            wider = [i for i in wider if more_neighbours_may_exist(hits[i], fetch)]
        close = [[h for h, score in found if score >= ECHO_SIMILARITY - ECHO_MARGIN] for found in hits]
        # the close neighbours' vectors in one gather for the chunk, each row's sliced off
        present, vectors = store.vectors([h for handles in close for h in handles])
        at = np.concatenate([[0], np.cumsum(present)])
        out, start = [], 0
        for row, handles in zip(rows, close):
            end = start + len(handles)
            kept = [h for h, there in zip(handles, present[start:end]) if there]
            out.append(list(zip(kept, pair_similarities(row, vectors[at[start]:at[end]]).tolist()))
                       if kept else [])
            start = end
        return out

    def search(self, chunk: list[str]) -> tuple[list[str], Any, list[list[tuple[str, float]]]]:
        import hashlib

        searched = self.searched
        present, matrix = self.store.vectors(chunk)
        found = [h for h, there in zip(chunk, present) if there]
        digests = [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in matrix]
        new = list(dict.fromkeys(d for d in digests if d not in searched))
        if new:
            first = {d: i for i, d in reversed(list(enumerate(digests)))}
            # one batched search per chunk (a BLAS product on a flat index) instead of one per item
            searched.update(zip(new, self.neighbours(matrix[[first[d] for d in new]])))
        neighbours = [searched[d] for d in digests]
        for d in digests:
            searched.move_to_end(d)
        while len(searched) > ECHO_SEARCH_CACHE:
            searched.popitem(last=False)
        return found, matrix, neighbours

    def check(self, handles: Sequence[str], on_chunk: Any, *, collect_later: bool) -> int:
        """Check ``handles`` a chunk at a time; with ``collect_later``, note in :attr:`later`
        their neighbours they are an earlier original of. Returns the echoes marked."""
        from concurrent.futures import ThreadPoolExecutor

        from .curate import find_echoes
        from .curate.echoes import echo_candidates, is_older

        mem = self.mem
        marked = 0
        echoes: list[tuple[str, str, float]] = []

        def write() -> None:
            if echoes:
                mem.store_ladder([Term("echo", [Atom(e), Atom(o), float(s)]) for e, o, s in echoes])
                echoes.clear()

        starts = range(0, len(handles), ECHO_CHUNK)
        with ThreadPoolExecutor(1, thread_name_prefix="atc-echo-search") as pool:
            ahead = pool.submit(self.search, list(handles[:ECHO_CHUNK]))
            for n, start in enumerate(starts, 1):
                found, matrix, neighbours = ahead.result()
                if n < len(starts):
                    ahead = pool.submit(self.search,
                                        list(handles[start + ECHO_CHUNK:start + 2 * ECHO_CHUNK]))
                rows = [(i, echo_candidates(h, hits)) for i, (h, hits) in enumerate(zip(found, neighbours))]
                rows = [(i, candidates) for i, candidates in rows if candidates]
                wanted = dict.fromkeys(h for i, candidates in rows
                                       for h in (found[i], *(c for c, _ in candidates)))
                views = {v.handle: v for v in _item_views(mem, list(wanted))}
                rows = [(i, candidates) for i, candidates in rows if found[i] in views]
                if collect_later:
                    for i, candidates in rows:
                        item = views[found[i]]
                        self.later.update(
                            c for c, _ in candidates
                            if c in views and views[c].session != item.session
                            and is_older(item.time, views[c].time))
                if rows:
                    echoes += find_echoes(
                        [views[found[i]] for i, _ in rows], matrix[[i for i, _ in rows]], None,
                        # a neighbour whose L0 expired (or that is gone) is read as an echo check reads it
                        lambda h: views[h] if h in views else _lookup_view(mem, h),
                        neighbours=[neighbours[i] for i, _ in rows])
                if n % ECHO_WRITE_CHUNKS == 0:
                    marked += len(echoes)
                    write()
                if on_chunk:
                    on_chunk(min(start + ECHO_CHUNK, len(handles)))
        marked += len(echoes)
        write()
        return marked


def _item_views(mem: Any, handles: list[str]) -> list[ItemView]:
    """The views of those of ``handles`` that are live items, in one Prolog call."""
    if not handles:
        return []
    (raw,) = mem.pl.once("atc_ladder:ladder_item_views", [Atom(h) for h in handles], Var())
    return [_view(t) for t in raw]


def _lookup_view(mem: Any, handle: str) -> ItemView | None:
    found = mem.pl.once("atc_api:api_item", Atom(handle), Var())
    if not found:
        return None
    d = found[0]
    kind = str(d["kind"])
    answers_call = kind in ("tool_result", "error") and any(
        str(rel[0]) == "tool" for rel in d.get("relations", []))
    return ItemView(handle=str(d["handle"]), session=str(d["session"]), seq=d["seq"],
                    kind=kind, goal=d["goal"], time=d["time"], pointer=d["source"],
                    text=d["text"], answers_call=answers_call)
