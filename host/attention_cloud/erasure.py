"""Erasure: forget items so that no file of the home holds their text, and nothing derived from
them keeps their influence (``atc forget``, :meth:`Memory.forget <attention_cloud.Memory.forget>`).

An erasure runs in stages, each safe to be killed in, and resumable from the file
``erasure.pending.json`` (handles, record ids, who and why; never text), which the next call
of any Memory on the home finishes when no other process is writing (a reader's too, so that
none goes on serving the text; else the next writer: ``forget``, ``curate``, ``ingest``, or
:meth:`Memory.finish_erasure`):

1. **plan** (nothing changes): the items, the items that inherited an erased user goal (their
   goal becomes ``[forgotten]``; they are curated again), the curated records derived from any
   of them, their sessions; the plan is written to the pending file.
2. **redact** receipts (``receipts/*.json``) and the owner's audit log (``audit.jsonl``): entries
   naming an erased item or a derived record lose their text, and any string holding an erased
   text (a goal that quoted it) becomes ``[forgotten]``; each file is replaced atomically.
3. **erase** in the journal, as one batch: only the audit record ``forgotten/5`` (handle, digest,
   time, who, reason) remains of each item; derived records are dropped, echo marks removed,
   beliefs citing an item go dirty.
4. **rebuild** without them: the re-goaled items' rungs, the sessions' arcs and rollups, echoes.
5. **purge** the indexes: vector logs and saved faiss index rewritten with live rows only, the
   BM25 log, term table and snapshot rewritten from live documents; an unfinished move to another
   embedder's store (``vectors.next/``) purged alike.
6. **compact** the journal: every fact in memory written to ``journal.compact`` (starting with a
   new ``epoch``), fsynced; the snapshot deleted (it holds the text); the file renamed over
   ``journal.pl``, the directory fsynced; a new snapshot written when the journal is large
   enough to want one. A kill at any step leaves the old journal or the new one, and the home
   opens.
7. the owner's audit log gets a ``forget`` event for each erased item that has none yet (a
   resumed erasure's included), then the pending file is removed.
"""
from __future__ import annotations

import getpass
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from .agents.remember import REMEMBER_SESSION, REMEMBERED_FILE
from .audit import AUDIT_FILE, append_event, logged_forgets
from .bridge import Atom, Var, to_plain
from .cells.files import STATE_FILE as CELLS_STATE
from .cells.files import drop as drop_cell_rows
from .errors import BadArgument, InputError, PrologError, UsageError
from .erasure_texts import dropped_texts
from .ingest.item_limits import DEFAULT_MAX_ITEM_CHARS
from .home import ERASURE_PLAN_FILE, fsync_path
from .hydration import receipt_text
from .receipt_cap import receipts_locked
from .store import journal_path, snapshot_due, sync_journal, write_snapshot

#: In the home: the plan of an erasure that has not finished (handles and ids only).
PENDING_FILE = ERASURE_PLAN_FILE
#: The compacted journal before it replaces ``journal.pl``.
COMPACT_FILE = "journal.compact"
#: Line files of the home redacted like receipts: the owner's audit log, the records of
#: ``atc remember`` (an entry keeps its line, so the other items' pointers stay right) and the
#: hooks' log (a plain-text line holding an erased text becomes the marker).
LINE_FILES = (AUDIT_FILE, REMEMBERED_FILE, "hooks.log", "hooks.log.1")
#: What a redacted string, and a goal inherited from an erased item, become.
MARKER = "[forgotten]"
#: Erased texts shorter than this (whitespace collapsed) are matched in receipts only as whole
#: strings, not inside longer ones: "ok" would otherwise redact half the log.
MIN_MATCH_CHARS = 6


@dataclass(frozen=True)
class Erasure:
    """The audit record that remains of a forgotten item."""

    handle: str
    digest: str          # "sha256:HEX" of its L0 text (retention dropped it: as its file
    #                      gives it again; "" when that file no longer does)
    time: str            # ISO 8601 UTC
    who: str
    reason: str


@dataclass
class ForgetReport:
    """What ``forget`` did (or, with ``dry_run``, would do)."""

    handles: list[str]
    items: list[dict[str, Any]]                      # kind, session, source of each
    sources: list[str] = field(default_factory=list)  # transcript files still holding the text
    already: list[str] = field(default_factory=list)  # erased before this call
    regoaled: list[str] = field(default_factory=list)
    invalidated: list[str] = field(default_factory=list)
    rebuilt: dict[str, int] = field(default_factory=dict)
    receipts_redacted: int = 0
    vectors_dropped: int = 0
    journal_bytes: tuple[int, int] = (0, 0)          # before, after compaction
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {"handles": self.handles, "items": self.items, "sources": self.sources,
                "already_forgotten": self.already, "regoaled": self.regoaled,
                "invalidated": self.invalidated, "rebuilt": self.rebuilt,
                "receipts_redacted": self.receipts_redacted,
                "vectors_dropped": self.vectors_dropped,
                "journal_bytes": {"before": self.journal_bytes[0], "after": self.journal_bytes[1]},
                "dry_run": self.dry_run}


# -- choosing what to forget ----------------------------------------------------------------------
def select(mem: Any, handles: Iterable[str] = (), *, session: str | None = None,
           query: str | None = None) -> list[str]:
    """The handles named, those of ``session`` and those the first variable of ``query`` binds
    (a sandboxed goal, as ``atc query`` runs it), in that order without repeats."""
    chosen = [str(h) for h in handles]
    if session is not None:
        rows = mem.pl.solutions("atc_journal:item_session", Var(), Atom(session))
        found = sorted(str(h) for (h,) in rows)
        if not found:
            # a name the home does not hold, as a handle no item has: bad usage (exit 2)
            raise BadArgument(f"{session}: no items in this session")
        chosen += found
    if query is not None:
        result = mem.query(query, limit=1_000_000)
        if result.more:
            raise UsageError("the query has more than 1,000,000 solutions; narrow it")
        if not result.rows:
            raise InputError("the query found no items to forget")
        if not result.variables:
            raise UsageError("the query binds no variable: its first variable must bind handles")
        for row in result.rows:
            value = row[result.variables[0]]
            if not isinstance(value, str) or not value.startswith("it_"):
                raise UsageError(f"the query's first variable {result.variables[0]} must bind "
                                 f"item handles, not {value!r}")
            chosen.append(value)
    if not chosen:
        raise UsageError("name what to forget: handles, session or query")
    chosen = list(dict.fromkeys(chosen))
    return chosen + superseded_readings(mem, chosen)


def superseded_readings(mem: Any, handles: list[str]) -> list[str]:
    """The earlier readings of ``handles`` that a later reading of their grown file
    superseded (the turn before it went on, the call before its result): out of every query,
    but holding the text that is to go (atc_journal:journal_superseded_readings/2)."""
    names = [h for h in handles if re.fullmatch(r"[A-Za-z0-9_]+", h)]  # plan() says why not
    if not names:
        return []
    (found,) = mem.pl.once("atc_journal:journal_superseded_readings", [Atom(h) for h in names],
                           Var())
    return [str(h) for h in found]


def plan(mem: Any, handles: list[str]) -> dict[str, Any]:
    """What erasing ``handles`` changes (nothing is changed): Prolog's ``api_erase_plan/2``."""
    for handle in handles:
        if not re.fullmatch(r"[A-Za-z0-9_]+", handle):
            raise InputError(f"{handle!r} is not an item handle")
    try:
        (raw,) = mem.pl.once("atc_api:api_erase_plan", [Atom(h) for h in handles], Var())
    except PrologError as exc:
        raise _missing_item(exc) or exc
    return to_plain(raw)


def _missing_item(exc: PrologError) -> InputError | None:
    """Prolog's ``existence_error(item, H)`` (a handle the journal never held) as the one line
    ``show`` and the MCP tools give for a missing item; None for any other error."""
    missing = exc.existence()
    if missing is not None and missing[0] == "item":
        return BadArgument(f"{missing[1]}: no such item in this memory")
    return None


# -- the stages -----------------------------------------------------------------------------------
def forget(mem: Any, handles: list[str], *, who: str | None = None,
           reason: str = "forgotten by request", dry_run: bool = False) -> ForgetReport:
    """Erase ``handles`` from ``mem`` (see the module doc); with ``dry_run`` only report."""
    who = who or _user()
    the_plan = plan(mem, handles)
    items = the_plan["items"]
    for item in items:
        item["forgotten"] = item["forgotten"] is True or str(item["forgotten"]) == "true"
    report = ForgetReport(
        handles=handles, dry_run=dry_run,
        items=[{"handle": i["handle"], "kind": i["kind"], "session": i["session"],
                "source": i["source"]} for i in items if not i["forgotten"]],
        # a remembered item's file is this home's remembered.jsonl, redacted below, whatever
        # path its pointer kept (a moved or copied home's is another folder's)
        sources=sorted({_source_file(i["source"]) for i in items if i["source"]
                        and not (i["session"] == REMEMBER_SESSION
                                 and Path(_source_file(i["source"])).name == REMEMBERED_FILE)}),
        already=[i["handle"] for i in items if i["forgotten"]],
        regoaled=list(the_plan["recurate"]), invalidated=list(the_plan["invalidated"]))
    if dry_run:
        return report
    mem.lock.acquire()
    pending = _read_pending(mem.home) or {}
    records = sorted(set(the_plan["invalidated"]) | set(pending.get("invalidated", [])))
    sessions = sorted(set(the_plan["sessions"]) | set(pending.get("sessions", [])))
    regoaled = sorted(set(the_plan["recurate"]) | set(pending.get("recurate", [])))
    _write_pending(mem.home, {"handles": handles, "invalidated": records, "sessions": sessions,
                              "recurate": regoaled, "who": who, "reason": reason})
    # an item whose L0 retention dropped: its text read again from its file, for its digests
    # (so that its file, grown, does not give it back) and for redaction; never stored
    dropped = dropped_texts(items, _source_file,
                            mem.config.get("max_item_chars", DEFAULT_MAX_ITEM_CHARS))
    texts = [t for i in items for t in (i["text"] or dropped.get(i["handle"], ""),
                                        i["goal"] if i["kind"] == "user_goal" else "")
             if t]
    report.receipts_redacted = redact_home_files(mem.home, set(handles), set(records), texts)
    redact_quotes(mem, texts, handles)
    (result,) = mem.pl.once("atc_api:api_erase", [Atom(h) for h in handles],
                            [[Atom(h), t] for h, t in dropped.items()], who, reason, Var())
    sync_journal(mem.home)
    result = to_plain(result)
    report.invalidated = sorted(set(records) | set(result["invalidated"]))
    report.regoaled = sorted(set(regoaled) | set(result["recurate"]))
    _finish(mem, handles, report.invalidated, report.regoaled, sessions,
            list(result["echoes"]), report)
    return report


def finish_pending(mem: Any) -> ForgetReport | None:
    """Finish an erasure a killed process left (``erasure.pending.json``); None when none."""
    pending = _read_pending(mem.home)
    if pending is None:
        _remove_leftovers(mem.home)
        return None
    mem.lock.acquire()
    if not isinstance(pending.get("handles"), list):  # damaged: the batch may have run
        return _finish_unplanned(mem)
    known = [h for h in pending.get("handles", []) if _known(mem, h)]
    if not known:  # the plan named nothing the journal holds: nothing to finish
        _clear_pending(mem.home)
        return None
    return forget(mem, known, who=pending.get("who"), reason=pending.get("reason", ""))


def _finish_unplanned(mem: Any) -> ForgetReport | None:
    """Finish an erasure whose plan was damaged on disk (the plan is fsynced before it
    replaces the old one, so it is never torn by a kill). Its erase batch may have committed:
    the journal file, its snapshot and the indexes would then hold the erased text until
    purged and compacted. So every index entry that names neither a live item nor a curated
    record (an erased item, a dropped arc or rollup), and every tombstoned handle, is purged
    and the journal compacted; with no tombstone at all, no batch ran and the plan is only
    removed. The plan's re-goaled items and sessions are not known: the next curate rebuilds
    them (their rungs and arcs are missing)."""
    (gone,) = mem.pl.once("atc_api:api_erasures", Var())
    tombstones = sorted({str(g["handle"]) for g in gone})
    if not tombstones:
        _clear_pending(mem.home)
        return None
    # the erasures the log records were finished (their record is an erasure's last step):
    # what this one finishes is the rest, not every item ever forgotten
    unfinished = sorted(set(tombstones) - logged_forgets(mem.home))
    jump = mem.jump
    indexed = set(jump.lexical.keys())
    if jump.has_vectors():
        indexed |= set(jump.vectors.keys())
    (unrung,) = mem.pl.once("atc_ladder:ladder_unrung", [Atom(k) for k in sorted(indexed)], Var())
    (uncurated,) = mem.pl.once("atc_ladder:ladder_uncurated_handles", Var())
    live = {str(h) for h in uncurated}  # the live items among the unrung: keep their entries
    dead = sorted({*tombstones, *(str(k) for k in unrung if str(k) not in live)})
    report = ForgetReport(handles=unfinished, dry_run=False, items=[], sources=[],
                          already=unfinished, regoaled=[], invalidated=[])
    _finish(mem, dead, [], [], [], [], report)
    return report


def _vector_count(jump: Any) -> int:
    """The vectors the home's store holds (0 without a store)."""
    return len(jump.vectors) if jump.has_vectors() else 0


def _finish(mem: Any, handles: list[str], records: list[str], regoaled: list[str],
            sessions: list[str], echoes: list[str], report: ForgetReport) -> None:
    """Stages 4 to 7 (see the module doc); each can be run again after a kill."""
    from .curate.arcs import session_rollup_id
    from .curation import curate_scope
    from .reembed import forget_in_next

    # where this process left the files it read holds their items' texts: none of a forgotten
    # item stays in the process (the next ingest of each file parses it whole)
    mem.read_points.forget()
    jump = mem.jump
    # the indexes' entries of the erased items, and of the derived records that have no rungs
    # now (a re-goaled item that was curated is one of them: curated again below); a record a
    # killed run already rebuilt (an arc whose members did not change keeps its id) keeps the
    # entries it was given, and so does an uncurated re-goaled item (its text is unchanged)
    ids = list(dict.fromkeys([*handles, *records]))
    (unrung,) = mem.pl.once("atc_ladder:ladder_unrung", [Atom(i) for i in ids], Var())
    before = _vector_count(jump)
    jump.remove([str(i) for i in unrung])
    jump.flush()
    report.vectors_dropped = max(0, before - _vector_count(jump))  # counted before rebuilding
    dropped = set(records)
    rebuilt = curate_scope(mem, [h for h in regoaled if h in dropped],
                           {s for s in sessions if session_rollup_id(s) in dropped}, echoes)
    report.rebuilt = {"items": rebuilt.items, "arcs": rebuilt.arcs, "rollups": rebuilt.rollups,
                      "echoes": rebuilt.echoes}
    if not jump.disabled or (mem.home / "lexical").exists():
        jump.purge()
    forget_in_next(mem, [str(i) for i in unrung])  # a move to another embedder under way
    # the cells' cached centroid sums still count the erased items' vectors: the next
    # curate recomputes them from the partition (rules/cells.pl has already dropped them)
    (mem.home / CELLS_STATE).unlink(missing_ok=True)
    drop_cell_rows(mem.home)  # copies of the erased items' vectors; the next curate writes them anew
    report.journal_bytes = compact_journal(mem)
    # the audit record of each item erased, written once (a resumed erasure's items were
    # tombstoned by the killed run, so they are not told apart by the plan), before the plan
    # goes: a kill in between leaves the plan, and the next call writes what is missing
    logged = logged_forgets(mem.home)
    _append_audit(mem.home, [r for r in erasures(mem)
                             if r.handle in set(handles) and r.handle not in logged])
    _clear_pending(mem.home)


def compact_journal(mem: Any) -> tuple[int, int]:
    """Rewrite the journal from the facts in memory (stage 6); the old snapshot is deleted
    and a new one written at once when the journal is large enough to want one
    (``snapshot_due``; otherwise by the usual rule, on a later close). Returns the journal's
    size before and after."""
    home = mem.home
    mem.lock.acquire()
    journal = journal_path(home)
    before = journal.stat().st_size if journal.exists() else 0
    temporary = home / COMPACT_FILE
    temporary.unlink(missing_ok=True)
    from .curation import upgrade_ladder

    upgrade_ladder(mem)  # the compacted journal holds curated records in their packed form
    (info,) = mem.pl.once("atc_api:api_compact", str(temporary), Var())
    fsync_path(temporary)
    for name in ("snapshot.qlf", "snapshot.meta"):  # the old snapshot holds the erased text
        (home / name).unlink(missing_ok=True)
    fsync_path(home)
    os.replace(temporary, journal)
    fsync_path(home)
    mem.pl.once("atc_api:api_adopt_compacted", Atom(str(info["epoch"])))
    _remove_leftovers(home)
    if snapshot_due(home):  # else the journal alone reopens fast; close rebuilds it when due
        write_snapshot(mem.pl, home, mem.lock)
    return before, journal.stat().st_size


def _remove_leftovers(home: Path) -> None:
    """Files a killed compaction, snapshot or redaction left, which may hold erased text (the
    caller holds the write lock, so none of them is being written now)."""
    import shutil

    leftovers = [path for path in (home / COMPACT_FILE, *(home / (n + ".redact") for n in LINE_FILES),
                                   *home.glob("receipts/*.redact"), *home.glob(".snap-*"))
                 if path.exists()]
    for path in leftovers:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    if leftovers:
        fsync_path(home)


# -- redaction ------------------------------------------------------------------------------------
def redact_home_files(home: Path, handles: set[str], records: set[str], texts: list[str]) -> int:
    """Redact every receipt and the audit log (see :func:`redact`); returns files changed."""
    needles = _needles(texts)
    changed = 0
    folder = home / "receipts"
    if folder.is_dir():
        # a save in progress in another process finishes first (its file is then redacted
        # here), so each *.tmp left is one a kill cut short: it may hold anything
        with receipts_locked(home):
            for path in sorted(folder.glob("*.json")):
                try:
                    receipt = json.loads(path.read_text(encoding="utf-8"))
                except OSError:
                    continue  # pruned since the listing
                except ValueError:
                    # damaged (cut short, garbled): no field of it can be redacted and any may
                    # hold the text, so it goes, as a killed save's *.tmp does
                    path.unlink(missing_ok=True)
                    changed += 1
                    continue
                redacted = redact(receipt, handles, records, needles)
                if redacted != receipt:
                    _replace(path, receipt_text(redacted))
                    changed += 1
            for path in sorted(folder.glob("*.tmp")):
                path.unlink()
    for name in LINE_FILES:  # the audit log, remembered items, the hooks' log
        path = home / name
        if path.exists():
            changed += _redact_lines(path, handles, records, needles)
    return changed


def redact_quotes(mem: Any, texts: list[str], handles: Iterable[str] = ()) -> int:
    """Redact the attention side (beliefs, inspections, claims, event payloads, candidates'
    keys, the trace): every free text there that quotes one of ``texts`` as
    :func:`quotes_part` judges it becomes the marker wherever it stands, and so does the
    value of every belief citing one of ``handles`` as support (it was read from the item);
    the records stay, with their other fields. Returns how many texts were replaced. The
    journal still holds the old fields until the compaction that ends the erasure."""
    parts = QuotedParts(texts)
    (leaves,) = mem.pl.once("atc_api:api_attention_texts", Var())
    hits = [str(t) for t in leaves if parts.quoted(str(t))]
    mem.pl.once("atc_api:api_redact_attention", hits, [str(h) for h in handles], MARKER)
    return len(hits)


#: A span of an erased text at least this long (whitespace collapsed, case folded) inside an
#: attention record's text is a quote of it.
MIN_SPAN_CHARS = 24
#: A token of an erased text at least this long, with a digit and a letter or with 8 digits
#: (a password, key, account or card number), inside an attention record's text is a quote.
MIN_TOKEN_CHARS = 6
_EDGE_PUNCTUATION = ".,;:!?\"'()[]{}<>*`"


def rare_tokens(text: str) -> set[str]:
    """The tokens of ``text`` (split on whitespace, punctuation trimmed at both ends, case
    folded) that name something rather than say it: at least ``MIN_TOKEN_CHARS`` long and
    holding a digit and a letter, or at least 8 digits (``hunter2-zebra``, ``sk_live_4eC39``,
    ``4111-1111-1111-1111``)."""
    found = set()
    for word in text.lower().split():
        token = word.strip(_EDGE_PUNCTUATION)
        digits = sum(c.isdigit() for c in token)
        if len(token) >= MIN_TOKEN_CHARS and \
                (digits >= 8 or (digits and any(c.isalpha() for c in token))):
            found.add(token)
    return found


class QuotedParts:
    """Judges whether a text quotes an erased one: it holds the whole text (as :func:`redact`
    judges a receipt's strings), a span of at least ``MIN_SPAN_CHARS`` of it, or one of its
    :func:`rare_tokens`. Used for the attention side only: a later transcript message that
    quotes a forgotten one is another item, kept (README, Erasure)."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.needles = _needles(texts)
        self.tokens = set().union(*(rare_tokens(t) for t in self.needles)) if self.needles \
            else set()
        self.spans = {needle[i:i + MIN_SPAN_CHARS] for needle in self.needles
                      for i in range(len(needle) - MIN_SPAN_CHARS + 1)}

    def quoted(self, value: str) -> bool:
        """Whether ``value`` quotes one of the texts."""
        if _holds(value, self.needles):
            return True
        text = _norm(value)
        if any(token in text for token in self.tokens):
            return True
        return any(text[i:i + MIN_SPAN_CHARS] in self.spans
                   for i in range(len(text) - MIN_SPAN_CHARS + 1))


def redact(value: Any, handles: set[str], records: set[str], needles: list[str]) -> Any:
    """``value`` (a receipt or an audit entry) with its text about erased items removed: an
    entry naming an erased item (``handle``) keeps only ``handle``, ``segment``, ``level`` and
    ``forgotten: true``; one naming a record derived from it loses ``text``; any other string
    that holds an erased text (``needles``), or is a long part of one, becomes ``[forgotten]``
    (and the digest an audit line keeps of it, ``KEY_sha256``, goes). An audit log's ``forget`` event is the record that is to remain of the item (it holds no
    text of it): only its strings are redacted, so forgetting the item again keeps it."""
    if isinstance(value, dict):
        handle = value.get("handle")
        if isinstance(handle, str) and handle in handles and value.get("event") != "forget":
            return {k: value[k] for k in ("handle", "segment", "level") if k in value} | \
                {"forgotten": True}
        out = {k: redact(v, handles, records, needles) for k, v in value.items()}
        for key in [k for k, v in out.items() if v == MARKER and value[k] != MARKER]:
            out.pop(f"{key}_sha256", None)   # a digest of it would confirm a guess of it
        if isinstance(handle, str) and handle in records and "text" in out:
            out["text"] = MARKER
        return out
    if isinstance(value, list):
        return [redact(v, handles, records, needles) for v in value]
    if isinstance(value, str) and _holds(value, needles):
        return MARKER
    return value


def redact_in_flight(receipt: dict[str, Any], erased: set[str], records: set[str],
                     texts: Iterable[str]) -> dict[str, Any]:
    """A receipt of a frame computed before an erasure elsewhere, stored after that erasure
    redacted the receipts (see :meth:`Memory._settled_receipt`): redacted as stage 2 redacts
    the stored ones, ``texts`` being the erased items' texts as the frame's view held them."""
    if not erased and not records:
        return receipt
    return redact(receipt, erased, records, _needles(texts))


def named_handles(value: Any) -> set[str]:
    """Every ``handle`` a receipt (or any JSON value) names."""
    found: set[str] = set()
    pending = [value]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            if isinstance(value.get("handle"), str):
                found.add(value["handle"])
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return found


def pending_plan(home: Path) -> dict[str, Any] | None:
    """The plan of an erasure under way (or killed) in ``home``, or None when there is none."""
    return _read_pending(home)


def _needles(texts: Iterable[str]) -> list[str]:
    return sorted({_norm(t) for t in texts if _norm(t)}, key=len, reverse=True)


def _norm(text: str) -> str:
    return " ".join(text.split()).lower().rstrip("…")


def _holds(value: str, needles: list[str]) -> bool:
    text = _norm(value)
    if not text:
        return False
    for needle in needles:
        if text == needle or (len(needle) >= MIN_MATCH_CHARS and needle in text) or \
                (len(text) >= 4 * MIN_MATCH_CHARS and text in needle):
            return True
    return False


def _redact_lines(path: Path, handles: set[str], records: set[str], needles: list[str]) -> int:
    """Redact a JSON-lines file in place (under its own lock, atomically); 1 if it changed."""
    import fcntl

    with open(path, "r+", encoding="utf-8") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        lines = handle.read().splitlines()
        out, changed = [], False
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                keep = not _holds(line, needles)
                changed |= not keep
                out.append(line if keep else MARKER)
                continue
            redacted = redact(entry, handles, records, needles)
            changed |= redacted != entry
            out.append(json.dumps(redacted, ensure_ascii=False) if redacted != entry else line)
        if changed:
            _replace(path, "".join(line + "\n" for line in out))
    return int(changed)


def _replace(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".redact")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    fsync_path(path.parent)


# -- the audit records ----------------------------------------------------------------------------
def erasures(mem: Any) -> list[Erasure]:
    """Every erasure's audit record, oldest first."""
    (raw,) = mem.pl.once("atc_api:api_erasures", Var())
    return sorted(_records(raw), key=lambda e: (e.time, e.handle))


def _records(raw: Iterable[Any]) -> list[Erasure]:
    return [Erasure(handle=str(r["handle"]), digest=str(r["digest"]), who=str(r["who"]),
                    reason=str(r["reason"]),
                    time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(r["time"]))))
            for r in (to_plain(r) for r in raw)]


def _append_audit(home: Path, records: list[Erasure]) -> None:
    """One ``forget`` event per record in the owner's audit log (``atc audit`` lists them)."""
    for r in records:
        append_event(home, {"event": "forget", "time": r.time, "who": r.who, "handle": r.handle,
                            "digest": r.digest, "reason": r.reason})


# -- helpers --------------------------------------------------------------------------------------
def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "owner"


def _source_file(pointer: str) -> str:
    """The transcript file of an item_source pointer (``path:line``, ``path:first-last``,
    ``path#/json/ptr``)."""
    from .ingest.pointers import parse_pointer

    try:
        return parse_pointer(pointer).path
    except InputError:
        return pointer.split("#", 1)[0]


def _known(mem: Any, handle: str) -> bool:
    try:
        plan(mem, [handle])
        return True
    except Exception:  # noqa: BLE001 - an unknown handle: nothing to finish for it
        return False


def _read_pending(home: Path) -> dict[str, Any] | None:
    try:
        plan = json.loads((home / PENDING_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        return {}  # damaged on disk (it is written whole, by rename): see _finish_unplanned
    return plan if isinstance(plan, dict) else {}  # damaged into another JSON value: the same


def _write_pending(home: Path, plan: dict[str, Any]) -> None:
    temporary = home / (PENDING_FILE + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(plan, handle)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, home / PENDING_FILE)
    fsync_path(home)


def _clear_pending(home: Path) -> None:
    path = home / PENDING_FILE
    if path.exists():
        path.unlink()
        fsync_path(home)
