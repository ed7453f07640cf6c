"""First answers while curation works: ingest puts each new item's text into BM25 at once.

Without this an item is findable only once ``atc curate`` has built its rungs and vectors; a
large history is most of an hour from its first good frame. Now each ingest batch indexes its
new items' L0 text (after the speaker's name, as curation indexes it) with the meta curation
gives it, so ``atc hydrate`` right after ``atc ingest`` finds them by exact words (path
``lexical``, or ``hybrid`` beside what is already embedded) and by recency. Curation later
adds their vectors and leaves the BM25 entry as it is (the same text, the same key).

Crash safety: the handles of a batch go to ``ingest.pending.jsonl`` (fsynced) before the batch
is committed to the journal; the batch's BM25 entries are added for the items the journal
accepted as new (so an erased item that is refused is never indexed again), flushed, and the
file removed. A kill in between leaves the file, and the next ingest or curate indexes whichever
of its live items lack an entry (:func:`finish_pending`).

Contents:
    commit, drop_entries, LexicalEntry, entries_of, note_pending, index_new, finish_pending,
    PENDING_FILE
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable

from .bridge import Atom, Var
from .home import fsync_path
from .vector_texts import indexed_text
from .wire import decode_fields, wire_handle

#: In the home: handles of an ingest batch whose BM25 entries may not be written yet.
PENDING_FILE = "ingest.pending.jsonl"


@dataclass(frozen=True)
class LexicalEntry:
    """What BM25 indexes of one item: key, text as indexed, and its filterable meta."""

    handle: str
    text: str
    meta: dict[str, Any]


def item_meta(kind: str, segment: str) -> dict[str, Any]:
    """The meta BM25 and the vector store keep for an item's L0 (curation uses the same)."""
    return {"record": "item", "level": "l0", "kind": kind, "segment": segment}


def entries_of(encoded: Iterable[str]) -> list[LexicalEntry]:
    """BM25 entries for items in the journal's wire format (see :mod:`.wire`)."""
    out: list[LexicalEntry] = []
    for wire in encoded:
        fields = decode_fields(wire)
        handle, kind, segment, text = fields[0], fields[4], fields[8], fields[10]
        links = fields[11:]
        speaker = next((links[i + 1] for i in range(0, len(links) - 1, 2)
                        if links[i] == "speaker"), None)
        out.append(LexicalEntry(handle, indexed_text(text, speaker), item_meta(kind, segment)))
    return out


def commit(mem: Any, encoded: list[str], marks: list[Any], launches: list[Any] = ()) -> Any:
    """Upsert wire-format items and source watermarks as one fsynced journal batch, their BM25
    entries added for the items the journal accepted as new (unless config.json says
    ``"index_at_ingest": false``); returns the journal's counts dict. ``launches`` are
    ``launch(Session, Agent, Goal)`` terms of the batch's parent transcripts, for subagent
    items stored without a goal (atc_journal:journal_adopt_launches/2)."""
    from .store import sync_journal

    indexing = bool(encoded) and mem.config.get("index_at_ingest", True)
    if indexing:
        note_pending(mem, [wire_handle(wire) for wire in encoded])
    with _stack_for(mem, encoded):
        (counts,) = mem.pl.once("atc_api:api_ingest_with_marks", encoded, marks,
                                list(launches), Var())
    sync_journal(mem.home)
    if indexing:
        # entries of the new items only: a grown transcript gives every item again each time,
        # and most are unchanged (their entries were added when they were new)
        new = {str(h) for h in counts["new_handles"]}
        index_new(mem, entries_of(w for w in encoded if wire_handle(w) in new), new)
    if counts["superseded"]:  # tombstoned: hits skip them; their entries need not stay
        drop_entries(mem, [str(h) for h in counts["superseded"]])
    # the arcs a refreshed item was in are gone with their rungs (curation forms them again
    # under new ids): their entries too; the items keep theirs (the same text)
    arcs = [str(i) for i in counts.get("invalidated", []) if str(i).startswith("arc_")]
    if arcs:
        drop_entries(mem, arcs)
    return counts


#: The Prolog stack a batch is given, at least: this many bytes for each character of its wire
#: strings (copied onto the global stack as one list, four bytes a character where one is
#: past U+00FF, and each item's fields cut from its string as it is added), and a spare.
STACK_PER_CHAR = 8
STACK_SPARE = 512 * 1024 * 1024


@contextmanager
def _stack_for(mem: Any, encoded: list[str]) -> Iterator[None]:
    """Raise SWI-Prolog's stack limit for the batch ``encoded``, when its default (1 GB) is
    less than the batch may need, and put it back after: one file is one batch, and a 250 MB
    Claude Code session (~450,000 items) was refused while its strings were made a Prolog
    list ("could not build a Prolog term"), nothing written. What the stack holds is the
    batch; the limit only lets it grow that far."""
    need = STACK_PER_CHAR * sum(map(len, encoded)) + STACK_SPARE
    (limit,) = mem.pl.once("current_prolog_flag", Atom("stack_limit"), Var())
    if need <= int(limit):
        yield
        return
    mem.pl.once("set_prolog_flag", Atom("stack_limit"), need)
    try:
        yield
    finally:
        mem.pl.once("set_prolog_flag", Atom("stack_limit"), int(limit))


def drop_entries(mem: Any, handles: list[str]) -> None:
    """Remove the BM25 entries (and vectors) of items an ingest call wrote and then cut off
    again (a strict call whose later file failed), or superseded, so that the indexes hold no
    key of an item that is not live."""
    lexical = mem.jump.lexical
    gone = [h for h in handles if lexical.has(h)]
    if gone:
        mem.jump.remove(gone)
        mem.jump.flush()


def _path(mem: Any) -> Any:
    return mem.home / PENDING_FILE


def note_pending(mem: Any, handles: list[str]) -> None:
    """Record (fsynced) the handles of a batch about to be committed to the journal."""
    line = json.dumps({"items": handles}) + "\n"
    with open(_path(mem), "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())


def index_new(mem: Any, entries: list[LexicalEntry], new_handles: Iterable[str]) -> int:
    """Add BM25 entries for the committed batch's new items, flush, clear the pending file.
    Returns the entries added."""
    accepted = set(new_handles)
    todo = [e for e in entries if e.handle in accepted]
    added = _index(mem, todo)
    _clear(mem)
    return added


def _index(mem: Any, entries: list[LexicalEntry]) -> int:
    lexical = mem.jump.lexical
    todo = [e for e in entries if not lexical.has(e.handle)]
    if todo:
        mem.jump.index([e.handle for e in todo], [e.text for e in todo], [e.meta for e in todo],
                       embed=False)
        mem.jump.flush()
    return len(todo)


def _clear(mem: Any) -> None:
    path = _path(mem)
    if path.exists():
        path.unlink()
        fsync_path(mem.home)


def finish_pending(mem: Any) -> int:
    """Index the live items a killed ingest committed without their BM25 entries; returns how
    many were indexed (0 when no ingest was killed)."""
    try:  # bytes damaged on disk are replaced, so their line is skipped as a torn one is
        lines = _path(mem).read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return 0
    handles: list[str] = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a torn last line: its batch was never committed
        if isinstance(entry, dict):  # not a damaged line that reads as another JSON value
            handles.extend(str(h) for h in entry.get("items", []))
    entries: list[LexicalEntry] = []
    if handles:
        (speakers,) = mem.pl.once("atc_journal:journal_item_speakers", [Atom(h) for h in handles], Var())
        speaker_of = {str(p.args[0]): str(p.args[1]) for p in speakers}
        for handle in handles:
            found = mem.pl.once("atc_api:api_item", Atom(handle), Var())
            if not found or not found[0]["text"]:
                continue  # refused, tombstoned, or its L0 expired
            d = found[0]
            entries.append(LexicalEntry(handle, indexed_text(d["text"], speaker_of.get(handle)),
                                        item_meta(str(d["kind"]), str(d["segment"]))))
    added = _index(mem, entries)
    _clear(mem)
    return added
