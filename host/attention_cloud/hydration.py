"""Frames and receipts: run ``hydrate/3`` and render its result (text, JSON, envelope; the HTML
picture is in :mod:`attention_cloud.frame_html`).

Planning happens in Prolog (rules/hydrate.pl); this module converts the resulting term, stores
the receipt under ``home/receipts/<id>.json`` and renders. Rendering functions are pure.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from .api_lock import serialised
from .bridge import Atom, Term, Var, to_plain
from .errors import BadArgument, HomeError, PrologError, UsageError
from .ingest.envelope import escape_envelope_content

ESTIMATOR = "max(ceil(utf8_bytes/4), ceil(words*1.3))"
LEVELS = ("l0", "l1", "l2", "l3")
#: The walks hydrate.pl runs itself (facts/planes.pl names them): ``walk`` takes these by
#: name, as planes do; any other name is a walk rule of the user's rules.
BUILTIN_WALKS = frozenset({"entity_walk"})


@dataclass(frozen=True)
class FrameFact:
    """One fact of a frame, with the receipt's fields and its rendered text."""

    handle: str
    segment: str
    level: str
    seeded_by: str
    score: float
    tokens: int
    hops: int
    source: str
    text: str
    dirty_beliefs: tuple[str, ...] = ()
    time: str = ""  # when the record was written (ISO 8601 UTC), "" when unknown
    #: an excerpt of L0 (level "l0", ``text`` verbatim pieces of it): the (start, end)
    #: character offsets it kept, and how many sentences or lines the L0 has; () otherwise
    excerpt_spans: tuple[tuple[int, int], ...] = ()
    excerpt_units: int = 0

    @property
    def excerpt(self) -> dict[str, Any] | None:
        """The receipt's ``excerpt`` field: ``{"kept", "of", "spans"}``, or None when the fact
        shows its whole rung."""
        if not self.excerpt_spans:
            return None
        return {"kept": len(self.excerpt_spans), "of": self.excerpt_units,
                "spans": [list(span) for span in self.excerpt_spans]}


@dataclass(frozen=True)
class Frame:
    """A rendered frame: ``text`` to inject, ``receipt`` saying why each fact is there."""

    receipt_id: str
    facts: tuple[FrameFact, ...]
    receipt: dict[str, Any]
    text: str

    @property
    def envelope(self) -> str:
        """The frame wrapped so that ingestion strips it (never captured as new memory)."""
        return envelope(self.receipt_id, self.text)

    @property
    def html(self) -> str:
        """The frame as a picture: one self-contained HTML page of the fovea, its budgets and
        its receipt (see :mod:`attention_cloud.frame_html`)."""
        from .frame_html import render_html

        return render_html(self.receipt, self.facts)

    def as_json(self) -> dict[str, Any]:
        """The frame and its receipt as one JSON-ready object."""
        return {"receipt_id": self.receipt_id, "text": self.text, "receipt": self.receipt}


@serialised  # a long-open Memory first takes in other processes' writes
def hydrate(mem: Any, goal: str, *, budget: int = 2000, plane: str = "default",
            segments: dict[str, int] | None = None, ceiling: str = "l0",
            rules: str | None = None, walk_rule: str | None = None,
            now: str | float | None = None, store_receipt: bool = True,
            reader: str | None = None, mount: list[str] | None = None, depth: int = 1,
            cells: bool | None = None, bridge: bool = True, excerpt: bool = True) -> Frame:
    """Plan a frame for ``goal`` in Prolog and render it (see :meth:`Memory.hydrate`).

    With ``reader`` (a principal) the frame is planned through the sharing policy: only what
    visible/3 lets them see, each fact at most at their ceiling for it (the receipt names the
    reader and marks each fact the ceiling capped)."""
    _check_arguments(goal, budget, plane, segments, ceiling, cells, bridge, excerpt)
    if not goal.strip():
        raise UsageError("the goal must not be empty")
    if mount and segments:
        raise UsageError("mounts and segment budgets cannot be combined: a mount is its own part "
                         "of the frame")
    if depth < 0:
        raise UsageError("depth must be a non-negative number of links")
    for cell in mount or []:
        if reader is not None:
            # a cell a reader does not wholly see does not exist for them (nor does its
            # region): the same words as for no cell at all, which would tell them it exists
            if not (mem.pl.succeeds("atc_cells:cell", Atom(cell))
                    and mem.pl.succeeds("atc_grants:visible", Atom(reader), Atom(cell), Var())):
                raise BadArgument(f"mount {cell}: no such cell visible to {reader}")
        elif not mem.pl.succeeds("atc_cells:cell", Atom(cell)):
            raise BadArgument(f"mount {cell}: no such cell (attention_cloud.cells.cells_list"
                             "(mem) names them)").told(
                cli=f"mount {cell}: no such cell (atc cells list names them)")
    if budget < 0:
        raise UsageError("budget must be a non-negative number of tokens")
    if ceiling.lower() not in LEVELS:
        raise UsageError(f"ceiling must be one of L0, L1, L2, L3, not {ceiling!r}")  # as given
    ceiling = ceiling.lower()
    if segments:
        check_segments(mem, segments, reader)
        fixed = sum(int(n) for n in segments.values())
        if fixed > budget:
            raise UsageError(f"segment budgets add up to {fixed} tokens, more than the frame's "
                             f"budget of {budget}: raise the budget or lower them")
    mem.jump  # register the host's search before the proof calls nearest/4
    options: dict[str, Any] = {"budget": budget, "plane": Atom(plane), "ceiling": Atom(ceiling),
                               "segments": [Term("-", [Atom(s), int(n)])
                                            for s, n in (segments or {}).items()]}
    if rules is not None:
        options["rules"] = Atom(rules)
    if walk_rule:
        # a built-in walk by its name (as planes name it); any other name is a user rule
        options["walk"] = (Atom(walk_rule) if walk_rule in BUILTIN_WALKS
                           else Term("rule", [Atom(walk_rule)]))
    if now is not None:
        options["now"] = _now_value(now)
    if mount:
        options["mount"] = [Atom(c) for c in mount]
        options["depth"] = int(depth)
    if cells is not None:
        options["cells"] = Atom("true" if cells else "false")
    if not bridge:
        options["bridge"] = Atom("false")
    if not excerpt:
        options["excerpt"] = Atom("false")
    try:
        if reader is None:
            (out,) = mem.pl.once("atc_api:api_hydrate_json", goal, options, Var())
        else:
            (out,) = mem.pl.once("atc_api:api_reader_hydrate_json", Atom(reader), goal,
                                 options, Var())
    except PrologError as exc:
        raise _told_where_walk_rules_come_from(exc) from None
    frame = frame_parts(out)
    # A grantee's receipt says nothing of the owner's memory beyond the frame (how many items
    # are uncurated, which embedder made the vectors).
    status = memory_status(mem, frame) if reader is None else _reader_status(mem, frame, reader)
    return build_frame(frame, home=mem.home if store_receipt else None, status=status,
                       reader=reader, stands_for=stands_for(mem, frame) if reader is None else None)


def _told_where_walk_rules_come_from(exc: PrologError) -> PrologError:
    """``exc``, or, for a walk rule named where no rules are loaded
    (``existence_error(walk_rule, Name, no_rules_file)``), the same error saying to each
    reader how they define one: an API caller, a CLI user, an HTTP client of ``atc serve``
    (who can do neither of the others)."""
    formal = getattr(exc.term, "args", None)
    formal = formal[0] if formal else None
    if not (getattr(formal, "name", None) == "existence_error" and len(formal.args) == 3
            and str(formal.args[0]) == "walk_rule" and str(formal.args[2]) == "no_rules_file"):
        return exc
    name = str(formal.args[1])
    head = f"walk_rule `{name}' does not exist: a walk rule is a predicate {name}/2 "
    tail = ("; none is here, so only the plane's walk (or entity_walk, the built-in one) "
            "can run")
    return PrologError(head + "defined in a rules file (Memory.hydrate(rules=FILE)) or saved "
                       "with Memory.rules_add" + tail, exc.term).told(
        cli=head + "defined in a rules file (atc hydrate --rules FILE) or saved with atc rules "
                   "add" + tail,
        http=head + "defined in the request's `rules` field (Prolog text) or saved in the home "
                    "by its owner" + tail)


@dataclass(frozen=True)
class FrameParts:
    """``hydrate/3``'s ``frame(Meta, Facts, Beyond)`` in Python: ``meta`` as
    :func:`~attention_cloud.bridge.terms.to_plain` gives it, each fact (``fact/11``) and
    breadcrumb (``crumb/6``) as the list of its arguments."""

    meta: dict[str, Any]
    facts: list[list[Any]]
    beyond: list[list[Any]]


def frame_parts(out: Any) -> FrameParts:
    """The frame that ``api_hydrate_json/3`` returns: its JSON text, parsed in C (read term by
    term, a 100k-item frame's thousand nodes cost ~1.7 ms through the bridge), or the frame
    term itself when JSON could not carry it exactly (rules/frame_json.pl)."""
    if isinstance(out, Term):
        meta, facts, beyond = out.args
        return FrameParts(to_plain(meta), [list(f.args) for f in facts],
                          [list(c.args) for c in beyond])
    meta, facts, beyond = json.loads(out)
    return FrameParts(meta, facts, beyond)


def _reader_status(mem: Any, frame: FrameParts, reader: str) -> dict[str, Any] | None:
    """Why a grantee's frame holds nothing, in their own terms: no live grant reaches them, or
    nothing shared with them answers the goal ("memory holds nothing" misled a grantee whose
    grants had all been revoked)."""
    if frame.facts or frame.beyond:
        return None
    from .sharing.policy import grants_for

    live = [g for g in grants_for(mem, reader) if g.live]
    if not live:
        return {"empty": f"nothing of this memory is shared with {reader}: no live grant "
                         "reaches them"}
    if all(g.ceiling.lower() != "l0" for g in live):
        # their own items alone: the home's count told them the owner had hidden ones
        if mem.pl.succeeds("atc_api:api_reader_uncurated", Atom(reader)):
            # below L0 a grantee reads summaries, which curation writes: "nothing answers"
            # told them the goal was wrong when the owner had only not curated yet
            ceiling = min((g.ceiling.upper() for g in live), key=lambda c: c[1])
            return {"empty": f"nothing shared with {reader} answers this goal yet: the grant's "
                             f"ceiling ({ceiling}) shows summaries, and items not curated yet "
                             "have none (`atc curate` on this home writes them)"}
    return {"empty": f"nothing shared with {reader} answers this goal"}


#: Members a cell summary's receipt entry lists by handle (the count says how many in all).
STANDS_FOR_LISTED = 100


def stands_for(mem: Any, frame: FrameParts) -> dict[str, tuple[int, list[str]]]:
    """For each cell summary in a frame, the members it stands for: the cell's members that
    the frame does not hold itself, as (how many, the first STANDS_FOR_LISTED sorted)."""
    handles = sorted({str(f[0]) for f in frame.facts})
    held = [Atom(h) for h in handles]
    out: dict[str, tuple[int, list[str]]] = {}
    for h in handles:
        if h.startswith("cell_") and mem.pl.succeeds("atc_cells:cell", Atom(h)):
            (count, listed) = mem.pl.once("atc_cells:cells_stands_for", Atom(h), held,
                                          STANDS_FOR_LISTED, Var(), Var())
            out[h] = (int(count), [str(m) for m in listed])
    return out


def check_segments(mem: Any, segments: dict[str, int], reader: str | None = None) -> None:
    """UsageError naming the segments that exist when ``segments`` names one that does not;
    for a ``reader``, the segments they can read are those that exist (one of the owner's they
    have no grant for is no segment to them, and is not named)."""
    known = sorted(str(s) for (s,) in mem.pl.solutions("atc_journal:journal_segment", Var()))
    if reader is not None:
        known = [s for s in known
                 if mem.pl.succeeds("atc_hydrate:segment_readable", Atom(reader), Atom(s))]
    unknown = sorted(set(segments) - set(known))
    if unknown:
        have = (f"segments {reader} can read: {', '.join(known)}" if reader is not None and known
                else f"{reader} can read no segment" if reader is not None
                else f"segments in this memory: {', '.join(known)}" if known
                else "this memory holds no segments yet")
        # said of the segment, not of an option: the CLI, Memory.hydrate and the servers
        # (each with its own name for the argument) all come here
        # a blank name is shown quoted: "segment : no such segment" named nothing
        name = unknown[0] if unknown[0].strip() else repr(unknown[0])
        raise UsageError(f"segment {name}: no such segment ({have})")


def memory_status(mem: Any, frame: FrameParts) -> dict[str, Any]:
    """What a frame's receipt says about the memory behind it: ``uncurated`` (items without
    rungs), ``notes`` (one line each: what is missing and the command that builds it), and
    ``empty`` (why a frame holds nothing, when it does not)."""
    (uncurated,) = mem.pl.once("atc_ladder:ladder_uncurated_count", Var())
    notes: list[str] = []
    if uncurated:
        # with "index_at_ingest": false ingest left their BM25 entries to curation too
        found_by = ("exact words and recency" if mem.config.get("index_at_ingest", True)
                    else "recency alone")
        notes.append(f"{uncurated} item{'s are' if uncurated != 1 else ' is'} not curated yet "
                     f"(no summaries, skeletons or vectors: frames find them by {found_by}, "
                     "not by meaning): `atc curate` builds them")
    meta = frame.meta
    mismatch = ""
    if meta.get("path") not in ("semantic", "hybrid"):
        mismatch = embedder_mismatch(mem)
        if mismatch:
            notes.append(mismatch)
    moving = reembed_note(mem)
    if moving:
        notes.append(moving)
    status: dict[str, Any] = {"uncurated": int(uncurated)}
    if not mem.jump.disabled:
        status["unembedded"] = unembedded_count(mem, int(uncurated), mismatch)
    unheld = unheld_segments_note(mem, meta)
    if unheld:
        notes.append(unheld)
    empty = ""
    if not frame.facts and not frame.beyond:
        budget = int(meta.get("budget", 0))
        smallest = mem.pl.once("atc_ladder:ladder_smallest_skeleton", Var())
        if budget == 0:
            empty = "budget 0 tokens: no room for any fact; give the frame a budget above 0"
        elif smallest is not None and budget < int(smallest[0]) + _least_lines(meta):
            empty = (f"no fact fits in {budget} token{'' if budget == 1 else 's'}: the "
                     f"smallest skeleton (L3) in memory "
                     f"takes {int(smallest[0])} and the frame's own lines "
                     f"{_least_lines(meta)}; raise the budget")
        elif _found_candidates(meta):
            # the frame's parts found records and showed none: the budget, as they share it,
            # is too small for any of them with its lines (the words above would add up to
            # less than the budget; "memory holds nothing for this goal" would be untrue)
            parts = [p for p in meta.get("segments") or [] if isinstance(p, dict)]
            shares = ", ".join(f"{p.get('segment')} {int(p.get('budget', 0))}" for p in parts)
            empty = (f"no fact fits in {budget} tokens as the frame's parts share them "
                     f"({shares}): each part's share is too small for its lines and a fact; "
                     "raise the budget or give one segment a larger share")
        if empty:
            notes.append(empty)
    return {**status, "notes": notes, "empty": empty}


def unheld_segments_note(mem: Any, meta: dict[str, Any]) -> str:
    """A note naming the segments a frame's plane gave budget to that memory does not hold (a
    rules file's ``plane_segment(p, wrok, 1)``: the frame was empty, or that share unspent,
    without a word); "" when it holds them all."""
    framed = [str(part.get("segment")) for part in meta.get("segments") or []
              if isinstance(part, dict) and part.get("segment") is not None]
    if not framed:
        return ""
    known = {str(s) for (s,) in mem.pl.solutions("atc_journal:journal_segment", Var())}
    unheld = [s for s in framed if s not in known and not s.startswith("mount:")]
    if not unheld or not known:
        return ""
    return (f"plane {meta.get('plane')} gives budget to segment{'s' if len(unheld) > 1 else ''} "
            f"{', '.join(unheld)}, which memory does not hold (segments in this memory: "
            f"{', '.join(sorted(known))})")


def _found_candidates(meta: dict[str, Any]) -> bool:
    """Whether a part of the frame found records for the goal (``hydrate/3``'s ``found``),
    shown or not."""
    return any(isinstance(p, dict) and p.get("found") in (True, "true")
               for p in meta.get("segments") or [])


def _least_lines(meta: dict[str, Any]) -> int:
    """The frame's own lines the planner pays before the smallest record can be shown: its
    heading lines (the empty frame's ``framing``), and a breadcrumb's line with the
    breadcrumbs' heading (a skeleton enters a frame that small as a breadcrumb)."""
    anchor = meta.get("anchor")
    phrase = str(anchor.get("phrase", "")) if isinstance(anchor, dict) else ""
    estimates = framing_estimates(str(meta.get("goal", "")), str(meta.get("plane", "")), phrase)
    return int(meta.get("framing", 0)) + estimates[4] + estimates[5]


def reembed_note(mem: Any) -> str:
    """A note while the home is being moved to another embedder (``atc curate --reembed``
    running, or stopped before its switch); "" otherwise."""
    from .reembed import STATE_FILE, switched_target

    if switched_target(mem.home):
        return ""  # the new vectors serve already: only config.json is left to the next curate
    try:
        state = json.loads((mem.home / STATE_FILE).read_text(encoding="utf-8"))
        target = state["to"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return (f"the home is moving to embedder {target!r}: frames use the current vectors until "
            "the new ones are complete (`atc curate --reembed` builds or resumes them)")


def unembedded_count(mem: Any, uncurated: int, mismatch: str) -> int:
    """Live items a frame cannot reach by meaning: the uncurated ones (curation embeds an item
    before committing its rungs, so a curated item has its vector), or every live item when the
    home has no vectors of the configured embedder (none made yet, or ``mismatch``)."""
    if not mismatch and (mem.home / "vectors" / "manifest.json").exists():
        return uncurated
    if mem.pl.once("atc_ladder:curated", Var(), Var()) is None:
        return uncurated  # nothing curated yet: every live item is uncurated (no count needed)
    (stats,) = mem.pl.once("atc_journal:journal_stats", Var())
    return int(to_plain(stats).get("live", uncurated))


def embedder_mismatch(mem: Any) -> str:
    """A note when the home's vectors were made by another embedder than the configured one
    (searches then fall back to lexical and curate cannot add vectors); "" otherwise."""
    from .errors import AtcError

    manifest = mem.home / "vectors" / "manifest.json"
    if mem.jump.disabled or not manifest.exists():
        return ""
    try:
        made = json.loads(manifest.read_text(encoding="utf-8"))
        embedder = mem.jump.embedder
    except (OSError, ValueError, AtcError):
        return ""
    if made.get("embedder_id") == embedder.id and made.get("dim") == embedder.dim:
        return ""
    return (f"the vectors in this home were made by embedder {made.get('embedder_id')!r} "
            f"({made.get('dim')}-d), not the configured {embedder.id!r} ({embedder.dim}-d): "
            "frames use lexical search only and curate cannot add vectors; "
            "`atc curate --reembed` rebuilds them with the configured embedder")


#: The POSIX stamps of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: a numeric ``now`` outside
#: them (NaN, an infinity) is no time; NaN was read as no ``now`` at all.
_STAMP_MIN, _STAMP_MAX = -62135596800.0, 253402300799.0


def _check_arguments(goal: Any, budget: Any, plane: Any, segments: Any, ceiling: Any,
                     cells: Any = None, bridge: Any = True, excerpt: Any = True) -> None:
    """UsageError naming the argument of a Python caller's hydrate that is of the wrong kind
    (the CLI's parser checks its own; a grantee's read comes here without Memory.hydrate): a
    budget or a segment's budget that is not a whole number of tokens (a negative one took the
    frame's budget away from the other segments and gave nothing, 1.5 or True reached Prolog as
    a type error); ``cells``, ``bridge`` or ``excerpt`` that is not True or False
    (``bridge="false"`` was true)."""
    from . import api_args as args

    args.text("goal", goal)
    args.whole("budget", budget, maximum=args.MAX_BUDGET)
    args.flag("cells", cells, optional=True)
    args.flag("bridge", bridge)
    args.flag("excerpt", excerpt)
    args.text("plane", plane)
    args.text("ceiling", ceiling)
    if segments is not None and not isinstance(segments, dict):
        raise UsageError(f"segments must map segment names to token budgets, not {segments!r}")
    for name, tokens in (segments or {}).items():
        args.text("each segment name", name)
        args.whole(f"segment {name}'s budget", tokens, maximum=args.MAX_BUDGET)


def _now_value(now: str | float) -> str | float:
    """The ``now`` option as Prolog takes it: a POSIX stamp, or text read as every option
    that takes a time reads it (:func:`..audit.normalise_time`: ISO 8601, RFC 2822, "8 May
    2023 1:56 pm", a count of epoch seconds, ...) as ISO 8601 UTC."""
    if isinstance(now, (int, float)) and not isinstance(now, bool):
        if not _STAMP_MIN <= now <= _STAMP_MAX:          # NaN fails both
            raise UsageError(f"now must be a time (a POSIX stamp of the years 1 to 9999, or "
                             f"ISO 8601 such as 2026-05-01T12:00:00Z), not {now!r}")
        return float(now)
    from .audit import normalise_time

    return normalise_time(str(now))   # one reader of times for every option that takes one


def build_frame(frame: FrameParts | Term, *, home: Path | None, status: dict[str, Any] | None = None,
                reader: str | None = None,
                stands_for: dict[str, tuple[int, list[str]]] | None = None) -> Frame:
    """Turn the ``frame(Meta, Facts, Beyond)`` term (or its :class:`FrameParts`) into a Frame (and store its receipt);
    ``status`` (see :func:`memory_status`) adds ``uncurated`` and ``notes`` to the receipt;
    ``reader`` names the principal a grantee's frame was planned for (their receipt leaves
    out the owner's belief names); ``stands_for`` (see :func:`stands_for`) lists, on a cell
    summary's fact, the members it stands for (``stands_for``, at most STANDS_FOR_LISTED, and
    ``stands_for_count``)."""
    parts = frame_parts(frame) if isinstance(frame, Term) else frame
    meta, facts_t, beyond_t = parts.meta, parts.facts, parts.beyond
    excerpted = {(str(s["segment"]), str(x["handle"])): x
                 for s in meta["segments"] for x in s.get("excerpted", [])}
    facts = tuple(_fact(f, excerpted) for f in facts_t)
    if reader is not None:
        facts = tuple(FrameFact(**{**f.__dict__, "dirty_beliefs": ()}) for f in facts)
    receipt = _receipt(meta, facts, beyond_t)
    if reader is not None:
        receipt["reader"] = reader
    for fact in receipt["facts"]:
        members = (stands_for or {}).get(fact["handle"])
        if members is not None:
            count, listed = members
            fact["stands_for"] = listed
            fact["stands_for_count"] = count
    if status is not None:
        if "uncurated" in status:    # the owner's frame: a grantee's says nothing of memory
            receipt["uncurated"] = status["uncurated"]
        if "unembedded" in status:
            receipt["unembedded"] = status["unembedded"]
        if status.get("notes"):
            receipt["notes"] = list(status["notes"])
        if status.get("empty"):
            receipt["empty"] = status["empty"]  # why the frame holds no fact (a budget too small)
    return seal_frame(receipt, facts, home=home, empty=(status or {}).get("empty", ""))


#: Why a receipt could not be stored, by errno, where the frame is still given to its owner.
_UNSTORED = {errno.EROFS: "is on a read-only file system",
             errno.EACCES: "is not writable by this user",
             errno.EPERM: "is not writable by this user"}


def seal_frame(receipt: dict[str, Any], facts: tuple[FrameFact, ...], *, home: Path | None,
               empty: str = "") -> Frame:
    """A Frame from a receipt (without ``id``) and its facts: the id is a digest of the
    receipt, the text is rendered, and the receipt is stored in ``home`` (unless None).

    Callers that narrow a frame (keep some of its facts, add fields to its receipt, as the
    ambient prompt hook does) seal the result again, so a receipt always matches its frame.
    """
    receipt = {k: v for k, v in receipt.items() if k != "id"}
    # the lines are built once, with a stand-in id of the real one's length: counted for the
    # receipt's framing, then written with the real id in the heading (the only line naming it)
    lines = _frame_lines({**receipt, "id": _LONGEST["receipt"]}, facts, empty)
    receipt = _honest_framing(receipt, lines)
    rid, receipt = _with_id(receipt)
    if home is not None:
        try:
            save_receipt(home, receipt)
        except OSError as exc:
            # a home on a read-only volume (a memory mounted into a container to be read), or
            # one this user may read but not write (another user's), still answers its owner,
            # the receipt saying it was not stored; a grantee's frame is refused, its receipt
            # being the owner's access log
            why = _UNSTORED.get(exc.errno or 0)
            if why is None or "reader" in receipt:
                raise
            notes = [*receipt.get("notes", ()), f"receipt not stored: {home} {why}"]
            rid, receipt = _with_id({**{k: v for k, v in receipt.items() if k != "id"},
                                     "stored": False, "notes": notes})
    return Frame(receipt_id=rid, facts=facts, receipt=receipt, text=_written(receipt, lines))


def _with_id(receipt: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A receipt's id (a digest of the rest) and the receipt headed by it."""
    rid = "r_" + hashlib.sha256(json.dumps(receipt, sort_keys=True).encode()).hexdigest()[:16]
    return rid, {"id": rid, **receipt}


def _honest_framing(receipt: dict[str, Any], lines: list[_Line]) -> dict[str, Any]:
    # the planner paid each of the frame's own lines at its longest (any count, the longest
    # path and handle, a DIRTY mark); the receipt reports what the lines written cost. The id
    # is a digest of the receipt, so the lines are counted with a stand-in of the same length.
    budget = receipt["budget"]
    total, segments = _framing_of(budget["segments"], lines)
    return {**receipt, "budget": {**budget, "framing": total, "segments": {
        k: {**s, "framing": segments.get(k, s.get("framing", 0))}
        for k, s in budget["segments"].items()}}}


def _fact(t: list[Any], excerpted: dict[tuple[str, str], dict[str, Any]]) -> FrameFact:
    h, seg, lvl, by, score, tokens, hops, src, when, text, dirty = t
    return FrameFact(handle=str(h), segment=str(seg), level=str(lvl), seeded_by=str(by),
                     score=round(float(score), 4), tokens=int(tokens), hops=int(hops),
                     source=str(src), text=str(text), dirty_beliefs=tuple(str(d) for d in dirty),
                     time=str(when), **excerpt_fields(excerpted.get((str(seg), str(h)))))


def excerpt_fields(excerpt: dict[str, Any] | None) -> dict[str, Any]:
    """FrameFact's excerpt fields from a receipt's (or a segment's) ``excerpt`` record."""
    if not excerpt:
        return {}
    return {"excerpt_spans": tuple((int(s), int(e)) for s, e in excerpt["spans"]),
            "excerpt_units": int(excerpt["of"])}


def _received(segment: dict[str, Any]) -> dict[str, Any]:
    # a segment that received what others left unspent: its planned share, what it received
    # beyond it (its budget is the sum), and why (rules/hydrate.pl, spare_flow_/6)
    if "received" not in segment:
        return {}
    return {"share": int(segment["share"]), "received": int(segment["received"]),
            "why": str(segment["why"])}


def _receipt(meta: dict[str, Any], facts: tuple[FrameFact, ...], beyond: list[list[Any]]) -> dict:
    capped = {str(h) for s in meta["segments"] for h in s.get("capped", [])}
    speakers = meta.get("speakers") if isinstance(meta.get("speakers"), dict) else {}
    in_window = meta.get("in_window") if isinstance(meta.get("in_window"), dict) else {}
    return {
        "goal": meta["goal"],
        "plane": meta["plane"],
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "budget": {"total": meta["budget"], "spent": meta["spent"], "framing": meta["framing"],
                   "segments": {s["segment"]: {"budget": s["budget"], "spent": s["spent"],
                                               "framing": s["framing"], "path": s["path"],
                                               **_received(s)}
                                for s in meta["segments"]}},
        "ceiling": meta["ceiling"].upper(),
        "path": meta["path"],
        "anchor": meta["anchor"] if isinstance(meta.get("anchor"), dict) else None,
        **({"recency": str(meta["recency"])} if meta.get("recency") else {}),
        "now": _stamp_or_none(meta.get("now")),
        "tokens": {"estimated": True, "estimator": ESTIMATOR},
        "facts": [{"handle": f.handle, "segment": f.segment, "level": f.level.upper(),
                   "seeded_by": f.seeded_by, "score": f.score, "tokens": f.tokens,
                   "hops": f.hops, "source": f.source, "time": f.time,
                   **({"speaker": str(speakers[f.handle])} if f.handle in speakers else {}),
                   **({"in_window": str(in_window[f.handle])} if f.handle in in_window else {}),
                   **({"capped_by": "ceiling"} if f.handle in capped else {}),
                   **({"excerpt": f.excerpt} if f.excerpt_spans else {}),
                   **({"dirty_beliefs": list(f.dirty_beliefs)} if f.dirty_beliefs else {})}
                  for f in facts],
        "beyond": [{"handle": str(c[0]), "segment": str(c[1]), "level": str(c[2]).upper(),
                    "tokens": int(c[3]), "source": str(c[4]), "text": str(c[5])} for c in beyond],
        "suppressed": [{"handle": str(r["handle"]), "segment": str(r["segment"]),
                        "suppressed": str(r["suppressed"]), "like": str(r["like"]),
                        "similarity": float(r["similarity"])}
                       for s in meta["segments"] for r in s.get("suppressed", [])],
        "bridged": [{"handle": str(r["handle"]), "segment": s["segment"], "from": str(r["from"]),
                     "entity": str(r["entity"])}
                    for s in meta["segments"] for r in s.get("bridged", [])],
    }


def _stamp_or_none(now: Any) -> str | None:
    # hydrate/3 says `null` (an atom, which reaches Python as the text "null") for an empty
    # memory: the receipt's JSON null, and no "as of" in the frame's heading
    return now if isinstance(now, str) and now not in ("", "null") else None


# -- rendering (pure) ---------------------------------------------------------------------------
def render_text(receipt: dict[str, Any], facts: tuple[FrameFact, ...], *, empty: str = "") -> str:
    """The frame as text: grouped by segment, each fact tagged with level, why and pointer;
    ``empty`` says why a frame with no facts holds none (a budget too small, ...)."""
    return "\n".join(line.text for line in _frame_lines(receipt, facts, empty))


def frame_line_kinds(receipt: dict[str, Any], facts: tuple[FrameFact, ...],
                     empty: str = "") -> list[tuple[str, str]]:
    """Every line of the frame's envelope as ``(kind, line)``: what a frame spends on its own
    lines against its facts' text (scripts/bench/framing_lines.py). The kinds: ``envelope
    tags``, ``frame heading``, ``anchor line``, ``segment heading``, ``fact day line`` (the
    day above the facts of a day in a row), ``fact heading``, ``fact text``, ``breadcrumbs
    heading``, ``breadcrumb line`` (without its text) and ``breadcrumb text``,
    ``near-duplicates line``."""
    opening, _, closing = envelope(receipt.get("id", _LONGEST["receipt"]), "").split("\n")
    out = [("envelope tags", opening)]
    for line in _frame_lines(receipt, facts, empty):
        if line.kind == "breadcrumb line":
            out += [("breadcrumb line", line.counted), ("breadcrumb text", line.text[len(line.counted):])]
        else:  # the frame's heading as the envelope writes it (without the receipt id)
            out.append((line.kind, line.counted if line.kind == "frame heading" else line.text))
    return [*out, ("envelope tags", closing)]


class _Line(NamedTuple):
    """A line of the frame's text: the segment it belongs to (None for the frame's head), the
    line, what the estimate of the frame's own lines counts of it (the whole line for the
    frame's own lines, None for a fact's text, which the fact's ``tokens`` count, and a
    breadcrumb's line without its text, which the breadcrumb's ``tokens`` count), and its kind
    (:func:`frame_line_kinds`). A tuple: a frame makes ~200 of them, and a frozen dataclass
    costs twice the time to make (~2.6 against ~1.1 µs)."""

    segment: str | None
    text: str
    counted: str | None
    kind: str


def _written(receipt: dict[str, Any], lines: list[_Line]) -> str:
    """:func:`render_text` of ``receipt`` from ``lines`` that :func:`_frame_lines` built for
    it with another id of the same length: its heading lines written again with the id."""
    head = _head_lines(receipt["goal"], receipt["plane"], receipt["path"], receipt["budget"]["spent"],
                       receipt["budget"]["total"], receipt["id"], receipt.get("now") or "")
    return "\n".join([*head, *(line.text for line in lines[len(head):])])


def _frame_lines(receipt: dict[str, Any], facts: tuple[FrameFact, ...], empty: str) -> list[_Line]:
    """The frame's text line by line (:class:`_Line`)."""
    b = receipt["budget"]
    head = [_head_lines(receipt["goal"], receipt["plane"], receipt["path"], b["spent"],
                        b["total"], rid, receipt.get("now") or "") for rid in (receipt["id"], "")]
    # counted as the envelope writes them: its tag names the receipt, its second line does not
    lines = [_Line(None, line, counted, "frame heading") for line, counted in zip(*head)]
    anchor = receipt.get("anchor")
    if anchor:
        inside = sum(1 for f in receipt["facts"] if "in_window" in f)
        line = _anchor_line(anchor["phrase"], anchor["from"], anchor["to"], inside)
        lines.append(_Line(None, line, line, "anchor line"))
    lone = len(b["segments"]) == 1  # its second line gives the path and the tokens already
    for segment, seg in b["segments"].items():
        own = [""] if lone else ["", _segment_line(segment, seg["spent"], seg["budget"], seg["path"])]
        lines.extend(_Line(segment, line, line, "segment heading") for line in own)
        day = ""  # the day the facts above wrote: a fact of the same day says only its clock
        for f in (f for f in facts if f.segment == segment):
            fact_day, clock = _day_and_clock(f.time)
            if fact_day and fact_day != day:
                lines.append(_Line(segment, fact_day, fact_day, "fact day line"))
            day = fact_day
            line = _fact_line(f.level, f.handle, clock, bool(f.dirty_beliefs),
                              len(f.excerpt_spans), f.excerpt_units)
            lines.append(_Line(segment, line, line, "fact heading"))
            # split at newlines alone: the text is written as the record holds it (a log's
            # "\r\n", a form feed, a Unicode line separator), so that its verbatim pieces, an
            # excerpt's spans of the L0 among them, are found in the frame as they are
            lines.extend(_Line(segment, text, None, "fact text") for text in f.text.split("\n"))
        crumbs = [c for c in receipt["beyond"] if c["segment"] == segment]
        if crumbs:
            lines.append(_Line(segment, _BEYOND, _BEYOND, "breadcrumbs heading"))
            lines.extend(_Line(segment, _crumb_line(c["handle"], c["level"], c["text"]),
                               _crumb_line(c["handle"], c["level"], ""), "breadcrumb line")
                         for c in crumbs)
        left_out = [r for r in receipt.get("suppressed", []) if r["segment"] == segment]
        if left_out:
            line = _left_out_line(len(left_out))
            lines.append(_Line(segment, line, line, "near-duplicates line"))
    if not facts and not receipt["beyond"]:
        note = f"({empty})" if empty else "(memory holds nothing for this goal yet)"
        lines.extend(_Line(None, line, line, "frame heading") for line in ("", note))
    return lines


def frame_framing(receipt: dict[str, Any], facts: tuple[FrameFact, ...],
                  empty: str = "") -> tuple[int, dict[str, int]]:
    """The tokens of the frame's own lines as the envelope holds them (every line but the
    facts' and breadcrumbs' text, each with its newline, by the one estimator): the frame's
    total and each segment's, a segment's being its own lines and its share of the envelope
    and the frame's head (in proportion to its share of the budget; the shares add up to the
    head). So the receipt's ``spent`` plus ``framing`` is what the injected envelope costs, counted line by
    line (the estimate of the whole envelope is never more)."""
    return _framing_of(receipt["budget"]["segments"], _frame_lines(receipt, facts, empty))


def _framing_of(segments: dict[str, Any], lines: list[_Line]) -> tuple[int, dict[str, int]]:
    """:func:`frame_framing` of a frame's ``lines`` (:func:`_frame_lines`)."""
    from .curate.tokens import estimate_tokens

    tag_lines = envelope(_LONGEST["receipt"], "").split("\n")
    head = sum(estimate_tokens(line + "\n") for line in tag_lines if line)
    own = {segment: 0 for segment in segments}
    for line in lines:
        if line.counted is None:
            continue
        if line.segment is None:
            head += estimate_tokens(line.counted + "\n")
        else:
            own[line.segment] += estimate_tokens(line.counted + "\n")
    return head + sum(own.values()), _share_head(head, segments, own)


def _share_head(head: int, segments: dict[str, Any], own: dict[str, int]) -> dict[str, int]:
    # each segment's own lines and its share of the head, in proportion to its planned share of
    # the budget (a segment that received what others left unspent pays by its share, as the
    # planner charged it: rules/hydrate.pl, head_share_/3); what rounding leaves goes to the
    # largest share, so the segments add up to the frame's framing
    if not own:
        return {}

    def planned(k: str) -> int:
        return int(segments[k].get("share", segments[k]["budget"]))

    total = sum(planned(k) for k in segments)
    shares = {k: (head * planned(k) // total if total else 0) for k in segments}
    largest = max(segments, key=planned)
    shares[largest] += head - sum(shares.values())
    return {k: own[k] + shares[k] for k in own}


# -- the frame's own lines: written by render_text, budgeted by rules/hydrate.pl through
# framing_estimates / segment_framing_estimate (one shape for both) ---------------------------
#: The heading above a segment's breadcrumbs: each line below it names a record the frame left
#: out by its handle, which an agent may ask for (``atc show``). "beyond this frame (ask for
#: more):" said it in 9 tokens.
_BEYOND = "more (ask by handle):"


#: The most characters of the goal the frame's heading shows (the receipt keeps it whole): a
#: prompt with a pasted log is the goal of the prompt hook's frame, and echoed whole it would
#: spend the budget on text already in the agent's context.
GOAL_SHOWN_CHARS = 200


def goal_shown(goal: str) -> str:
    """The goal as the frame's heading shows it: on one line, at most GOAL_SHOWN_CHARS."""
    line = " ".join(goal.split())
    if len(line) <= GOAL_SHOWN_CHARS:
        return line
    return line[:GOAL_SHOWN_CHARS - 1].rstrip() + "…"


def _head_lines(goal: str, plane: str, path: str, spent: int, total: int, receipt_id: str,
                now: str = "") -> list[str]:
    # ``now``, the time the goal was read against, is what "how many days ago" counts from;
    # the facts' headings show the journal's UTC times
    read_at = f" · as of {_when(now)[1:]}" if now else ""
    return [f"memory frame for: {goal_shown(goal)}",
            f"plane {plane} · path {path} · {spent}/{total} tokens{_named_receipt(receipt_id)}"
            f"{read_at} · times UTC"]


def _named_receipt(receipt_id: str) -> str:
    """The part of the frame's second line naming its receipt; the envelope leaves it out, its
    tag naming the receipt already (:func:`envelope`)."""
    return f" · receipt {receipt_id}" if receipt_id else ""


# Where a window a bound leaves open starts (rules/when.pl, open_start/1): the year 1.
OPEN_WINDOW_START = "0001-01-01T00:00:00"


def _anchor_line(phrase: str, start: str, end: str, inside: int) -> str:
    # how many facts lie inside the window (the receipt's in_window): none says that memory
    # holds nothing written then or naming a day then, and the facts shown are from other times.
    # Its ends as the frame writes every other time (`Tue 2022-03-01 00:00`, the weekday and
    # the day of the day lines, as cheap as the ISO stamp the receipt keeps)
    # A bound ("before today") leaves its start open: the year 1 (rules/when.pl, open_start/1)
    # is written as what it means, not as a day
    # A window of one whole UTC day ("on Friday") is written as that day: its two midnights
    # read as two days
    day = _whole_day(start, end)
    if day:
        return f"anchored to \"{phrase}\": {day} · {inside} facts inside"
    shown_start = "up to" if start.startswith(OPEN_WINDOW_START) else f"{_when(start)[1:] or start} .."
    return (f"anchored to \"{phrase}\": {shown_start} {_when(end)[1:] or end}"
            f" · {inside} facts inside")


def _whole_day(start: str, end: str) -> str:
    """The day (``Fri 2026-12-11``) a window from ``start`` to ``end`` (ISO 8601 UTC) covers
    when it is exactly one day from midnight to midnight, else ""."""
    try:
        first = datetime.fromisoformat(start.removesuffix("Z"))
        after = datetime.fromisoformat(end.removesuffix("Z"))
    except ValueError:
        return ""
    if first.time() != first.min.time() or (after - first).total_seconds() != 86400:
        return ""
    return _day_and_clock(start)[0]


def _segment_line(segment: str, spent: int, budget: int, path: str) -> str:
    return f"## {segment} ({spent}/{budget} tokens, {path})"


def _fact_line(level: str, handle: str, clock: str, dirty: bool, kept: int = 0,
               units: int = 0) -> str:
    """The line heading a fact: its rung and its ``clock`` (:func:`_day_and_clock`; the day
    is the line above it, written once for the facts of a day in a row); above L0, or cut to an
    excerpt of it, also the handle that pages back to the detail. Its fields are parted by
    spaces alone: each " · " was a word of its own to the estimator."""
    cut = f" excerpt {kept}/{units}" if kept else ""
    shown = "" if level.upper() == "L0" and not cut else f" {handle}"
    when = f" {clock}" if clock else ""
    return f"[{level.upper()}{cut}{shown}{when}{' DIRTY' if dirty else ''}]"


def _crumb_line(handle: str, level: str, text: str) -> str:
    return f"  · {handle} [{level}] {' '.join(text.split())}"


def _left_out_line(count: int) -> str:
    return f"({count} near-duplicates left out: the receipt's suppressed)"


_LONGEST = {"receipt": "r_0123456789abcdef", "handle": "cell_0123456789abcdef",
            "time": "2026-01-11T20:11:00Z", "count": 1_000_000, "path": "semantic"}
"""The longest values the frame's own lines take, so that their estimates are upper bounds."""


def framing_estimates(goal: str, plane: str, phrase: str, budget: int | None = None,
                      timed: bool = True) -> list[int]:
    """The tokens of the frame's own lines as :func:`render_text` and :func:`envelope` write
    them, at their longest (rules/hydrate.pl's ``framing_/7`` budgets them):
    ``[head, fact at L0, fact above L0, excerpt fact, breadcrumb, breadcrumbs' heading,
    near-duplicates line, fact at L0, fact above L0, excerpt fact]``, the last three for a
    record without a time (its heading shows none), then those six fact lines marked DIRTY,
    for a record a dirty belief rests on (paid on every fact, the mark left ~2 tokens a fact
    unspent, ~50 of a 2000-token frame), then the line naming a day (a timed fact's lines
    include it: the planner charges it once for the facts of a day, which the frame writes
    together under it), then what a frame of one segment writes in place of its segment's
    heading (the blank line after the head: its second line gives the segment's path and
    tokens, which the heading repeated, ~10 tokens of every such frame); the head is the envelope and the frame's heading
    lines, with the anchor's line when ``phrase`` names one. The breadcrumbs' heading
    and the near-duplicates line are a segment's lines that it writes only when it has
    breadcrumbs or left near-duplicates out, so they are paid only then. A frame of ``budget``
    tokens writes no count above it (what it spent, the facts inside a window), and one read
    against no time (``timed`` false: a memory without times) writes no "as of": priced at the
    longest of any frame, a 500-token frame paid a dozen tokens it never wrote."""
    from .curate.tokens import estimate_tokens

    handle, when = _LONGEST["handle"], _LONGEST["time"]
    n = _LONGEST["count"] if budget is None else max(1, int(budget))
    head = _head_lines(goal, plane, _LONGEST["path"], n, n, _LONGEST["receipt"],
                       when if timed else "")
    if phrase:
        head.append(_anchor_line(phrase, when, when, n))

    def fact_lines(time_text: str, dirty: bool) -> list[int]:
        # a fact with a time is priced with the line naming its day: the facts of a day in a
        # row write it once, but which facts sit next to which is the fit's outcome
        day, clock = _day_and_clock(time_text)
        above = estimate_tokens(day + "\n") if day else 0
        return [above + estimate_tokens(line + "\n") for line in (
            _fact_line("L0", handle, clock, dirty), _fact_line("L3", handle, clock, dirty),
            _fact_line("L0", handle, clock, dirty, 999, 999))]

    edge = [_crumb_line(handle, "L3", ""), _BEYOND, _left_out_line(_LONGEST["count"])]
    # line by line, as frame_framing counts what was written: the estimate of the whole
    # envelope is up to a token a line less, and a frame priced by it came out a token over
    # its budget
    head_lines = envelope(_LONGEST["receipt"], "\n".join(head)).split("\n")
    return ([sum(estimate_tokens(line + "\n") for line in head_lines)]
            + fact_lines(when, False) + [estimate_tokens(line + "\n") for line in edge]
            + fact_lines("", False) + fact_lines(when, True) + fact_lines("", True)
            + [estimate_tokens(_day_and_clock(when)[0] + "\n"), estimate_tokens("\n")])


def segment_framing_estimate(segment: str, budget: int | None = None) -> int:
    """The tokens of a segment's heading (the blank line before it and the line naming it) at
    their longest (``framing_/7``'s per-segment part); for a segment of ``budget`` tokens, at
    the longest counts it can write."""
    from .curate.tokens import estimate_tokens

    n = _LONGEST["count"] if budget is None else max(1, int(budget))
    return sum(estimate_tokens(line + "\n")
               for line in ("", _segment_line(segment, n, n, _LONGEST["path"])))


def register_for_prolog(pl: Any) -> None:
    """Define ``atc_hydrate:host_frame_framing/6`` and ``host_segment_framing/3`` in ``pl``
    (rules/hydrate.pl budgets the frame's own lines with them), and ``host_date_note/4``, the
    note after a turn that names days (:func:`attention_cloud.ingest.timefmt.date_note`)."""
    pl.register("host_frame_framing", 6,
                lambda goal, plane, phrase, budget, timed: framing_estimates(
                    str(goal), str(plane), str(phrase), int(budget), str(timed) == "true"),
                module="atc_hydrate")
    pl.register("host_segment_framing", 3,
                lambda segment, budget: segment_framing_estimate(str(segment), int(budget)),
                module="atc_hydrate")
    pl.register("host_date_note", 4, _date_note, module="atc_hydrate")


def _date_note(text: Any, time: Any, days: Any) -> str:
    # timefmt (and dateutil) imported at the first turn that names days, not at every start
    from .ingest.timefmt import date_note

    return date_note(str(text), str(time), [str(d) for d in days])


def _when(time_text: str) -> str:
    """A time as the frame's heading shows it (its "as of"): `` Wed 2026-01-11 20:11`` (UTC;
    the weekday helps a reader place "last Saturday"), the stored text when it is not ISO
    8601, else ""."""
    day, clock = _day_and_clock(time_text)
    return f" {day} {clock}" if day else (f" {clock}" if clock else "")


def _day_and_clock(time_text: str) -> tuple[str, str]:
    """A fact's time as the frame writes it: its day (``Wed 2026-01-11``, UTC, with its
    weekday) on a line of its own above the facts of that day in a row, and its clock
    (``20:11``) in the fact's heading; a time that is not ISO 8601 is no day and its stored
    text the clock; no time, neither."""
    if not time_text:
        return "", ""
    try:
        if _ISO_UTC.fullmatch(time_text):  # what the journal writes: read without strptime (~10 µs)
            moment = datetime.fromisoformat(time_text[:-1])
            if moment.year >= 1000:
                # its day and clock are its own text, once read as a valid time: formatting
                # them again (two strftime calls, ~15 µs) was ~1 ms of a 50-fact frame
                return f"{_WEEKDAYS[moment.weekday()]} {time_text[:10]}", time_text[11:16]
        else:
            moment = datetime.strptime(time_text, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return "", time_text
    # the year in four digits: %Y writes the year 999 as "999"
    return f"{_WEEKDAYS[moment.weekday()]} {moment.year:04d}-{moment:%m-%d}", f"{moment:%H:%M}"


_ISO_UTC = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", re.ASCII)


_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")  # not %a: that follows the locale


def envelope(receipt_id: str, text: str) -> str:
    """Wrap frame text as ``<memory-frame receipt=… source="attention-cloud">…</memory-frame>``.
    The tag names the receipt, so the frame's second line does not name it again (it did, ~8
    tokens of every injected frame; the text without the envelope still names it)."""
    head, newline, rest = text.partition("\n")
    second, newline2, rest = rest.partition("\n")
    named = _named_receipt(receipt_id)
    if named and named in second:
        text = head + newline + second.replace(named, "", 1) + newline2 + rest
    safe = escape_envelope_content(text)  # recalled text or the goal may contain the tags
    return (f'<memory-frame receipt="{receipt_id}" source="attention-cloud">\n{safe}\n'
            f"</memory-frame>")


# -- receipts on disk ---------------------------------------------------------------------------
def save_receipt(home: Path, receipt: dict[str, Any]) -> Path:
    """Write a receipt to ``home/receipts/<id>.json``, then prune its reader's oldest past the
    home's ``receipts_kept`` (receipt_cap.py)."""
    from .receipt_cap import adopt_unlisted, enlist, prune, receipts_locked, sweep_leftovers

    path = home / "receipts" / f"{receipt['id']}.json"
    # a temporary name of this process and thread: a file a killed save left is told apart
    tmp = path.with_suffix(f".{os.getpid()}-{threading.get_ident()}.tmp")
    # the Memory open in this process, if any (a process that never imported memory.py, a
    # receipt tool, has none: importing it here would only slow such a process's start)
    memory = sys.modules.get(f"{__package__}.memory")
    with receipts_locked(home):
        sweep_leftovers(home)
        adopt_unlisted(home)
        reader = memory.current() if memory is not None else None
        if reader is not None and reader.home == home:
            # an erasure elsewhere may have redacted the receipts since this frame's view
            receipt = reader._settled_receipt(receipt)
        enlist(home, receipt)
        tmp.write_text(receipt_text(receipt), encoding="utf-8")
        tmp.replace(path)
        prune(home, receipt)
    return path


def receipt_text(receipt: dict[str, Any]) -> str:
    """A receipt as stored: JSON on one line (``atc receipt`` prints it indented). Written by
    json's C encoder: with ``indent`` json encodes in Python, ~0.4 ms a frame's receipt."""
    return json.dumps(receipt, ensure_ascii=False, separators=(",", ":"))


#: What load_receipt reads as a receipt id: letters, digits and '_' (a receipt is r_ and 16 hex
#: digits), no longer than a file name may be.
_RECEIPT_ID = re.compile(r"[A-Za-z0-9_]{1,128}")


def load_receipt(home: Path, receipt_id: str) -> dict[str, Any]:
    """A stored receipt by id; InputError when there is none, HomeError when its file is
    damaged (cut short, garbled, not UTF-8)."""
    if not _RECEIPT_ID.fullmatch(receipt_id):
        # an id past a file name's length was an OSError (File name too long): a traceback
        # under atc, an unexpected error from the MCP receipt tool; a long one is cut short
        shown = receipt_id if len(receipt_id) <= 60 else f"{receipt_id[:60]}…"
        raise BadArgument(f"{shown}: not a receipt id")
    path = home / "receipts" / f"{receipt_id}.json"
    if not path.exists():
        raise BadArgument(f"{receipt_id}: no such receipt in {home} (each reader's oldest "
                         "receipts past the home's receipts_kept are pruned; the audit log "
                         "keeps every read)")
    try:
        receipt = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # cut short or garbled on disk (UnicodeDecodeError is one too)
        raise HomeError(f"{path}: damaged receipt, not JSON ({exc})") from exc
    if not isinstance(receipt, dict):
        raise HomeError(f"{path}: damaged receipt, not a JSON object")
    return receipt
