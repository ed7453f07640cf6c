"""The Python API: :class:`Memory` opens a memory home and is the library behind every command.

Example::

    from attention_cloud import Memory
    mem = Memory.open("~/.attention-cloud")
    report = mem.ingest(["session.jsonl"])
    for row in mem.query("item_kind(H, error), item_goal(H, G)").rows:
        print(row["H"], row["G"])

One Memory is open per process at a time: SWI-Prolog's database is process-wide, so opening a
second home replaces the first. Threads may share it (its calls run one at a time, see
:mod:`attention_cloud.api_lock`); a process forked after opening it reads what was loaded and
writes as a writer of its own (:meth:`Memory._after_fork`).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, TypeVar

from . import api_args as args
from . import api_lock
from .api_lock import serialised
from .bridge import Atom, Prolog, Term, Var, get_prolog, to_plain
from .errors import BadArgument, HomeError, InputError, PrologError, UsageError
from .heap import give_back_c_heap
from .home import (ERASURE_PLAN_FILE, WriteLock, check_not_foreign, files_bytes, fsync_path,
                   read_config, require_home, resolve_home)
from .ingest.subagents import GoalResolver, inherit_goal
from .ingest.source import (DEFAULT_MAX_FILE_BYTES, TRANSCRIPT_SUFFIXES,  # noqa: F401
                            Found, find_transcripts, left_out, not_regular)
from .ingest.item_limits import DEFAULT_MAX_ITEM_CHARS
from .ingest.records import check_segment
from .ingest.resume import ReadPoints
from .progress import ProgressCallback, report as report_progress
from . import ingest_index
from .wire import decode_fields, encode_item, wire_handle
from .store import journal_path, open_store, snapshot_due, sync_journal, write_snapshot

if TYPE_CHECKING:  # the result types, for type checkers: their modules load on first use
    from .agents.remember import Remembered
    from .curation import CurateReport
    from .erasure import Erasure, ForgetReport
    from .hydration import Frame
    from .reembed import ReembedReport

_current: "Memory | None" = None

#: What a saved rule's name is (and the stem of its file in the home's ``rules/``).
RULE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: What RULE_NAME takes, in words, for the errors that refuse a name: ASCII said outright, or
#: a name such as 'règles' is refused for holding what reads as letters.
RULE_NAME_WORDS = ("ASCII letters (A-Z, a-z), digits, '-' or '_', starting with a letter or "
                   "digit, at most 64")

#: The largest rules file ``--rules`` reads (the Prolog side checks the text it loads too).
MAX_RULES_BYTES = 1_000_000



@dataclass
class IngestReport:
    """What one ingest call did."""

    files: int = 0
    files_unchanged: int = 0
    records: int = 0
    new: int = 0
    unchanged: int = 0
    #: items refused because they were forgotten (``atc forget``): by handle or by text
    forgotten: int = 0
    evicted: int = 0
    #: items of an earlier reading of a file that only grew which its new reading no longer
    #: gives (a turn continued below, a speaker found): tombstoned, the new items in their place
    superseded: int = 0
    #: items a grown file's new reading gives again at another place or time (an earlier turn
    #: split in two; dates read day-first once later dates said so): the journal takes the new
    #: reading's fields, and the next curation computes their rungs again
    updated: int = 0
    envelopes_stripped: int = 0
    skipped: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, reason)
    new_handles: list[str] = field(default_factory=list)
    #: (file, line, the time as written) for each timestamp that could not be read; the item
    #: is kept without a time
    unread_times: list[tuple[str, int, str]] = field(default_factory=list)
    #: (file, reason) for each file not ingested (``strict=False``): no recognised format,
    #: empty, not a regular file, over the size limit, unreadable.
    files_skipped: list[tuple[str, str]] = field(default_factory=list)
    #: well-formed records that produce no item by design, by type, summed over the files
    #: (Claude Code ``progress``, ``queue-operation``, ``file-history-snapshot``, ``compaction``)
    ignored: dict[str, int] = field(default_factory=dict)
    #: (file, agent id) for each Claude Code subagent file whose launching turn was found
    #: nowhere (not in this call, not in the journal, no parent session file beside it): its
    #: items are kept with goal ""
    goals_unresolved: list[tuple[str, str]] = field(default_factory=list)
    #: (file, note) for what a reader decided that the file left open: a WhatsApp export
    #: whose dates could be day/month or month/day, and the order it read them in
    notes: list[tuple[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {"files": self.files, "files_unchanged": self.files_unchanged,
                "files_skipped": [{"file": f, "reason": r} for f, r in self.files_skipped],
                "records": self.records, "new": self.new, "unchanged": self.unchanged,
                "forgotten": self.forgotten,
                "evicted": self.evicted, "superseded": self.superseded, "updated": self.updated,
                "envelopes_stripped": self.envelopes_stripped,
                "skipped": [{"file": f, "line": n, "reason": r} for f, n, r in self.skipped],
                "unread_times": [{"file": f, "line": n, "time": t}
                                 for f, n, t in self.unread_times],
                "ignored": dict(sorted(self.ignored.items())),
                "goals_unresolved": [{"file": f, "agent": a} for f, a in self.goals_unresolved],
                "notes": [{"file": f, "note": n} for f, n in self.notes]}


@dataclass
class QueryResult:
    """Solutions of a user goal: one dict per solution, variable name to value."""

    rows: list[dict[str, Any]]
    more: bool                       # True when ``limit`` cut the solutions off
    variables: list[str]


@dataclass(frozen=True)
class Item:
    """A journal item as the API returns it."""

    handle: str
    kind: str
    role: str
    goal: str
    session: str
    seq: int
    time: str
    segment: str
    source: str
    source_name: str
    text: str
    relations: tuple[tuple[str, str], ...]


class Memory:
    """A memory home loaded into the embedded Prolog engine."""

    def __init__(self, home: Path, pl: Prolog) -> None:
        self.home = home
        self._pl = pl
        self._closed = False
        self._closed_by = "close() or the end of its with block"  # or by another Memory.open
        self._pid = os.getpid()          # the process that opened it (see _after_fork)
        self.lock = WriteLock(home, on_lost=self._lost_the_lock)
        self.config = read_config(home)
        self._seen = writers_stamp(home)  # before reading: a write meanwhile is taken in next
        self._finished_erasure: Any = None  # a left erasure a call finished (finish_erasure)
        self.open_info = open_store(pl, home, self.lock)
        self._jump: Any = None
        #: the extractive rungs of the sessions the last curate built (curation.session_rungs)
        self.session_rungs: Any = None
        #: where each JSON Lines transcript this process read was left, to read on from there
        #: when it grows (ingest.resume)
        self.read_points = ReadPoints()

    @property
    def pl(self) -> Prolog:
        """The Prolog engine holding this home. Refused once this Memory is closed: the engine
        is process-wide, so a closed Memory would otherwise answer from (and write to) whatever
        home was opened after it."""
        if self._closed:
            raise UsageError(f"{self.home}: this Memory is closed (by {self._closed_by}); open "
                             "it again with Memory.open")
        return self._pl

    # -- lifecycle ------------------------------------------------------------------------------
    @classmethod
    def open(cls, home: str | os.PathLike[str] | None = None, *, create: bool = True) -> "Memory":
        """Open the memory home ``home`` (default ``$ATC_HOME`` or ``~/.attention-cloud``),
        creating it if needed; with ``create=False`` a home that does not exist is a HomeError
        and nothing is created (what reading commands use). The Memory open before in this
        process, of this home or another, is closed first (one per process: SWI-Prolog's
        database is process-wide). Usable as a context manager: ``with Memory.open(p) as mem:``
        closes it at the end of the block."""
        global _current
        path = resolve_home(args.path("home", home, optional=True))
        args.flag("create", create)
        if path.exists() and not path.is_dir():
            raise HomeError(f"{path}: memory home is not a directory")
        if not create:
            require_home(path)
        check_not_foreign(path)
        with api_lock.held():  # not while another thread is inside a call of the open one
            if _current is not None and not _current._closed:
                _current.close()
                _current._closed_by = ("opening another Memory in this process, which closes "
                                       "the one open before")
            pl = get_prolog()
            _current = cls(path, pl)
            return _current

    def _after_fork(self) -> None:
        """Take stock of running in a process forked after this Memory was opened (a web
        server's workers forked from a preloaded app, ``multiprocessing`` with ``fork``).
        What was loaded stays and is read as it is; what the parent holds stays the parent's:
        its write lock is not released from here, its open indexes are left to it (reopened
        here on use) and its journal stream is not written through. A write here takes the
        locks for this process, waiting while the parent writes, and first catches up with
        what was committed since the fork, as any other writer would."""
        self._pid = os.getpid()
        self.lock.release()       # only this process's copy of the parent's lock: see WriteLock
        self._jump = None         # its files and locks are the parent's; never closed from here
        if not self._closed:
            self._pl.once("atc_api:api_after_fork")

    def __reduce__(self) -> Any:
        raise UsageError(f"{self.home}: a Memory cannot be sent to another process (pickled); "
                         "open the home there with Memory.open")

    @serialised
    def close(self) -> None:
        """Release the write lock (snapshotting first when the journal has grown a lot). Every
        later call of this Memory is a UsageError; closing again does nothing.

        Where a write fails (a full disk: the snapshot, the indexes' last flush), this Memory
        is closed all the same (the indexes let go of what they held unwritten, the lock is
        released) and the error is raised, once: what was committed is kept, and the next
        open reads it from the journal (the ingest's pending file, curation, index what the
        indexes lack)."""
        if self._closed:
            return
        try:
            if self.lock.held and snapshot_due(self.home):
                self._write_snapshot()
            if self._jump is not None:
                self._jump.close()
        except BaseException:
            self._let_go_of_indexes()
            raise
        finally:
            try:
                self._pl.once("atc_api:api_close")
            finally:
                self.lock.release()
                self._forget_what_was_read()
                self._closed = True

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sharing the write lock (a long-running writer) -----------------------------------------
    @serialised
    def acquire(self, wait: float | None = None) -> None:
        """Become the home's writer now: take the write lock (waiting up to ``wait`` seconds
        while another process holds it, then HomeError; by default ``$ATC_LOCK_WAIT``, else 10
        while ``atc watch`` follows the home, else none: HomeError at once) and
        bring memory up to what other writers committed since this Memory last wrote or
        opened, so what follows is computed on the latest state."""
        self.lock.acquire(args.seconds("wait", wait, optional=True, zero=True))
        try:
            (epoch,) = self.pl.once("atc_store:store_epoch", Var())
            self.pl.once("atc_api:api_prepare_write")
            if self.pl.once("atc_store:store_epoch", Var())[0] != epoch:
                # an erasure compacted the journal while this waited for the lock (the
                # catch-up above read the new one): what this Memory kept of what it read
                # before may hold forgotten text
                self._forget_what_was_read()
            self._adopt_config()  # another writer may have moved the home to another embedder
        except BaseException:
            self.lock.release()
            raise

    @serialised
    def release(self, *, keep_indexes: bool = True) -> None:
        """Let other writers in while this Memory stays open (an agent loop after each turn,
        ``atc watch`` after each batch): snapshot when due, make the vector and BM25 indexes
        durable, and give back the journal's and the home's write locks. The indexes go on as
        readers of what was committed (:meth:`refresh` takes in what others write next), or,
        with ``keep_indexes=False``, are closed, freeing the writer's tables (reopened on use).
        The next write (or :meth:`acquire`) takes the locks again and first catches up with
        what others wrote."""
        args.flag("keep_indexes", keep_indexes)
        if not self.lock.held:
            return
        try:
            if snapshot_due(self.home):
                self._write_snapshot()
            if self._jump is not None:
                if keep_indexes:
                    self._jump.keep_as_readers()
                else:
                    self._jump.flush()
                    self._jump.close()  # reopened on use: as a reader, or as the writer once locked
        except BaseException:
            # a full disk: the locks are given back all the same, the indexes let go of what
            # they hold unwritten (never written after another writer's appends) and read
            # again on use, and the error is raised (see close)
            self._let_go_of_indexes()
            raise
        finally:
            self.pl.once("atc_api:api_release")
            self._seen = writers_stamp(self.home)  # still the writer: every change so far is ours
            self.lock.release()

    def _lost_the_lock(self) -> None:
        """The write lock's file was removed while this Memory held it (see WriteLock): give
        the journal back as :meth:`release` does, so that the next write catches up with what
        another process wrote meanwhile instead of appending to this view of it."""
        self._pl.once("atc_api:api_release")

    def _let_go_of_indexes(self) -> None:
        """After a write that failed: the indexes dropped without writing what they hold
        unwritten (reopened on use)."""
        if self._jump is not None:
            self._jump.let_go()

    @serialised
    def refresh(self) -> bool:
        """Catch up with what other processes committed since this Memory read the journal,
        without reopening it (a long-running reader: the MCP server, the prompt hook's recall
        server). The new batches are replayed, and the vector and BM25 indexes read the records
        their writers flushed since (reopened on use where they cannot, and with the new
        embedder where another process moved the home to one: ``atc curate --reembed
        --embedder``). Returns False when
        the journal was compacted meanwhile (an erasure): open the home again then, so that
        nothing forgotten is still answered from (every other call of this Memory does that by
        itself: see :meth:`_follow_writers`). A no-op while this Memory holds the write
        lock (it is the writer: nothing else committed)."""
        stamp = writers_stamp(self.home)
        (outcome,) = self.pl.once("atc_api:api_refresh", Var())
        if str(outcome) == "replaced":
            return False
        if str(outcome) == "writing":
            return True
        self._adopt_config()
        if self._jump is not None:
            self._jump.refresh()  # what the writers flushed to the vector and BM25 indexes
        self._seen = stamp
        return True

    def _follow_writers(self) -> None:
        """Take in what other processes committed since this Memory last looked, before a call
        answers (api_lock runs it at the start of every outermost call): nothing when the
        files writers change are as they were (one ``stat`` each), the new batches and index
        records when they grew (:meth:`refresh`), and the home read afresh when the journal
        was compacted (an erasure elsewhere), so that no call answers with what was
        forgotten, nor with a grant revoked or a label set elsewhere. Not while this Memory
        holds the write lock: it is the writer, nothing else committed."""
        if self._closed or self.lock.held:
            return
        self._finish_left_erasure()
        stamp = writers_stamp(self.home)
        if stamp == self._seen:
            return
        if not self.refresh():
            self._read_afresh(stamp)

    def _finish_left_erasure(self) -> None:
        """Finish an erasure a killed process left (its plan on disk) before this call reads,
        when no other process is writing: until a writer came, every reader went on serving
        the text the user had asked to forget (a Memory held open behind ``atc serve`` or
        ``atc mcp``, every ``atc query`` opened afresh). The write lock is taken for that alone
        and given back; a writer at work (that erasure itself, still running) is left to it,
        and so is a home this process cannot write to or whose plan it cannot read (the reader
        answers as before; one ``stat`` when there is no plan)."""
        if not (self.home / ERASURE_PLAN_FILE).exists():
            return
        from . import erasure   # only then: it imports most of the package (0.45 s of CPU)

        try:
            if not self.lock.try_acquire():   # a writer at work: not waited for, not named
                return
            self.acquire(wait=0)
        except (HomeError, OSError):
            return
        try:
            report = erasure.finish_pending(self)
        except OSError:     # a full disk, a plan it may not read: the next writer meets it too
            return
        finally:
            self.release()
        if report is not None:
            self._finished_erasure = report     # finish_erasure() hands it to the caller

    def _settled_receipt(self, receipt: dict[str, Any]) -> dict[str, Any]:
        """``receipt`` as it may be stored now (save_receipt calls this under the receipts'
        lock). A frame computed on a view from before another process's erasure, stored after
        that erasure redacted the stored receipts (stage 2), would keep the erased text in a
        file of the home: when an erasure's plan is on disk (stages 1-6) or the journal was
        compacted since this Memory's view (the erasure is done), the receipt is redacted of
        the items it erased (their texts as this view held them) and of the records it
        dropped. Otherwise (a stat of two files) no erasure has redacted the receipts since,
        and any that starts will redact this one. Not while this Memory holds the write lock:
        then no other process erases."""
        if self._closed or self.lock.held:
            return receipt
        try:
            inode = os.stat(_writers_files(self.home)[0]).st_ino
        except FileNotFoundError:
            inode = 0
        compacted = inode != self._seen[0][0]
        if not compacted and not (self.home / ERASURE_PLAN_FILE).exists():
            return receipt      # the usual case: no erasure module imported (0.3 s of CPU)
        from . import erasure

        plan = erasure.pending_plan(self.home) or None
        if plan is None and not compacted:
            return receipt
        named = erasure.named_handles(receipt)
        texts = {h: self._erasable_texts(h) for h in named}
        known = {h for h in named if self._record_exists(h)}
        erased = set(plan.get("handles", [])) if plan else set()
        records = set(plan.get("invalidated", [])) if plan else set()
        if compacted:
            self._follow_writers()  # the erasure committed: learn what it erased
            (gone,) = self.pl.once("atc_api:api_erasures", Var())
            erased |= {str(g["handle"]) for g in gone} & named
            records |= {h for h in known if not self._record_exists(h)} - erased
        return erasure.redact_in_flight(receipt, erased, records,
                                        [t for h in erased & named for t in texts[h]])

    def _erasable_texts(self, handle: str) -> list[str]:
        """The texts an erasure of ``handle`` redacts (its text; a user goal's goal too)."""
        found = self.pl.once("atc_api:api_item", Atom(handle), Var())
        if not found:
            return []
        item = found[0]
        return [str(t) for t in (item["text"], item["goal"] if str(item["kind"]) == "user_goal"
                                 else "") if str(t)]

    def _record_exists(self, handle: str) -> bool:
        h = Atom(handle)
        return any(self.pl.once(goal, h) is not None for goal in
                   ("atc_journal:item", "atc_ladder:arc", "atc_cells:cell")) or \
            self.pl.once("atc_ladder:rollup", h, Var()) is not None

    def _read_afresh(self, stamp: tuple[tuple[int, int, int], ...]) -> None:
        """Load the home again in place (the journal was compacted: its facts are another
        file's), the indexes closed and reopened on use."""
        if self._jump is not None:
            self._jump.close()
            self._jump = None
        self.pl.once("atc_api:api_close")
        self._forget_what_was_read()
        self.config = read_config(self.home)
        self.open_info = open_store(self.pl, self.home, self.lock)
        self._seen = stamp

    def _forget_what_was_read(self) -> None:
        """After an erasure elsewhere: no rung of what it forgot stays here, nor a reader's
        state holding its text (each transcript is read whole next time)."""
        self.session_rungs = None
        self.read_points.forget()

    def _adopt_config(self) -> None:
        """Read config.json again; when another process moved the home to another embedder
        (`atc curate --reembed --embedder`) the indexes are opened again, with it, on use."""
        self.config = read_config(self.home)
        if self._jump is not None and self._jump.embedder_spec != self.embedder_spec():
            self._jump.close()
            self._jump = None

    @serialised
    def give_back_memory(self) -> None:
        """Hand back memory this process holds but no longer uses (``atc watch`` does it after
        each batch): Prolog's stacks shrink to what they hold (a large batch grows them) and
        the C heap returns its free pages to the system (glibc keeps them otherwise, so a
        process that parses and reloads indexes batch after batch would hold its peak)."""
        self.pl.once("user:garbage_collect")
        self.pl.once("user:trim_stacks")
        give_back_c_heap()

    @serialised
    def snapshot(self) -> int:
        """Rebuild the compiled snapshot now; returns the number of facts written."""
        return self._write_snapshot()

    def _write_snapshot(self) -> int:
        # The indexes are made durable and closed first (reopened on use): a writer's vector
        # and BM25 tables (~1 GB at a million items) need not sit beside the dump.
        if self._jump is not None:
            self._jump.flush()
            self._jump.close()
        self.give_back_memory()
        return write_snapshot(self.pl, self.home, self.lock)

    # -- the jump ---------------------------------------------------------------------------------
    @property
    def jump(self) -> Any:
        """Embedder, vectors and BM25 of this home, registered as Prolog's jump predicates."""
        if self._jump is None:
            from .jump import Jump

            from .cells.hot import ReceiptReader

            self._jump = Jump(self.home, self.embedder_spec(), lock=self.lock)
            self._jump.register(self.pl)
            ReceiptReader(self.home).register(self.pl)  # cell_hot/2 reads this home's receipts
            from .excerpt import register as register_excerpts

            jump = self._jump
            register_excerpts(self.pl, lambda: jump.lexical.idf)  # goal-focused excerpts
        return self._jump

    def embedder_spec(self) -> str | None:
        """The embedder this home's vectors are queried with: config.json's, or the target of a
        move to another embedder killed after its vectors were switched in (config.json names
        the new one when the move is finished: see :mod:`attention_cloud.reembed`)."""
        from .reembed import switched_target

        return switched_target(self.home) or self.config.get("embedder")

    # -- writing ----------------------------------------------------------------------------------
    @serialised
    def store_ladder(self, records: list[Term]) -> None:
        """Store curated records (see atc_ladder:ladder_store/1) as one fsynced batch."""
        self.lock.acquire()
        self.pl.once("atc_api:api_batch", Term(":", [Atom("atc_ladder"), Term("ladder_store", [records])]))
        sync_journal(self.home)

    @serialised
    def curate(self, *, progress: ProgressCallback | None = None) -> CurateReport:
        """Build the ladder, arcs, rollups, vectors and echoes for everything new.

        Returns a :class:`~attention_cloud.curation.CurateReport`; ``progress`` (see
        :mod:`attention_cloud.progress`) hears of every batch.
        """
        from .curation import curate_memory
        from .reembed import finish_switch

        args.callable_("progress", progress)
        self.finish_erasure()
        finish_switch(self)  # a move killed after its exchange: config.json names it now
        return curate_memory(self, progress=progress, model=self._model_curator())

    @serialised
    def reembed(self, embedder: str | None = None, *,
                progress: ProgressCallback | None = None) -> ReembedReport:
        """Move the home's vectors to ``embedder`` (default: the configured one) without a
        re-ingest: the new vectors are built beside the old, which keep serving frames, and
        replace them when complete (config.json then names ``embedder``); a killed run resumes.
        Returns a :class:`~attention_cloud.reembed.ReembedReport`."""
        from .reembed import reembed

        args.callable_("progress", progress)
        return reembed(self, args.text("embedder", embedder, optional=True), progress=progress)

    def _model_curator(self) -> Any:
        spec = self.config.get("curator")
        if not spec or not spec.get("url"):
            return None
        from .curate import ModelCurator

        return ModelCurator(spec["url"], spec.get("model", ""),
                            api_key=os.environ.get(spec.get("api_key_env", "ATC_CURATOR_API_KEY")))

    @serialised
    def ingest(self, paths: Iterable[str | os.PathLike[str]], *, format: str | None = None,
               segment: str = "default", source: str | None = None,
               item_budget: int | None = None,
               progress: ProgressCallback | None = None, strict: bool = True,
               max_file_bytes: int | None = None,
               unfinished: Iterable[str | os.PathLike[str]]
               | Mapping[str | os.PathLike[str], int] = ()) -> IngestReport:
        """Parse transcripts and upsert their items.

        Files are parsed (in worker processes for large batches) while the items of files
        already parsed are written, in fsynced batches of whole files (about ``BATCH_ITEMS``
        items each). Folders are walked for ``TRANSCRIPT_SUFFIXES`` and for HTML pages, read when
        they are a chat export's (others are left out and listed in ``files_skipped``, never a
        failure); only regular files are
        read, none larger than ``max_file_bytes`` (default: ``max_file_bytes`` in config.json,
        else ``DEFAULT_MAX_FILE_BYTES``). With ``strict`` (the default), if any file cannot be
        ingested the call raises InputError and the journal is as it was before the call:
        batches already written are cut off again. With ``strict=False`` such a file (no
        recognised format, empty, a FIFO found in a folder, too large) is skipped and listed in
        ``files_skipped`` and the others are ingested. Files whose size and content digest
        match their watermark are skipped without parsing (the digest is taken by the parser,
        of the very bytes it would parse). A path that does not exist, or that names a FIFO,
        socket or device itself, is an InputError before anything is read. ``source`` is the
        name a single file's items record (``item_source_name/2``) instead of its path; with
        paths that hold several files it is a UsageError. ``progress`` (see
        :mod:`attention_cloud.progress`) hears of every file handled.

        ``unfinished`` names files still being written: of each, only the finished part is
        read (up to its last newline, unless the whole file is one JSON document; of
        speaker-line text, the turns before the last; see
        :mod:`attention_cloud.ingest.unfinished`), so a half-written line or turn is left for a
        later call and never parsed half; the watermark records the part read. A file with
        nothing finished yet is left alone. As a mapping, ``unfinished`` gives for each file
        the size at which it was quiet (finished): the file is read whole unless its size has
        changed since (grown, or cut back and being written again).

        A KeyboardInterrupt (Ctrl-C) keeps the batches already written, as a kill does: their
        files are recorded as read, so the same call again goes on where this one stopped.
        """
        paths = args.paths("paths", paths)
        segment = check_segment(segment)
        args.text("format", format, optional=True)
        args.text("source", source, optional=True)
        if source is not None and not source.strip():
            raise UsageError("source must name the file (the name its items record), not ''")
        args.whole("max_file_bytes", max_file_bytes, minimum=1, optional=True)
        args.flag("strict", strict)
        args.callable_("progress", progress)
        if isinstance(unfinished, Mapping):
            for size in unfinished.values():
                args.whole("each size in unfinished", size)
        else:
            unfinished = args.paths("unfinished", unfinished) if unfinished else ()
        found = self._without_pages_held_as_json(find_transcripts(paths, skip=self.home))
        if not found:
            raise InputError("no transcript files found in the given paths")
        if source is not None and len(found) > 1:
            # One name for several files would give them one watermark and one session name.
            raise UsageError(f"source names a single file, but the paths hold {len(found)} "
                             "transcript files: ingest them without it, or one at a time")
        self.finish_erasure()
        if (self.home / ingest_index.PENDING_FILE).exists():
            self.lock.acquire()
            ingest_index.finish_pending(self)  # a killed ingest's BM25 entries
        report = IngestReport(files=len(found))
        for entry in found:
            if entry.problem:
                if strict and not left_out(entry.problem):  # a home, a web page: not failed
                    raise InputError(f"{entry.path}: {entry.problem}")
                report.files_skipped.append((str(entry.path), entry.problem))
        files = [entry.path for entry in found if not entry.problem]
        limit = self.config.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES) \
            if max_file_bytes is None else max_file_bytes
        names = [source if (source and len(files) == 1) else str(path) for path in files]
        elsewhere, resumed = self._session_files_elsewhere(files)
        again = frozenset(resumed.values())   # read again after the files they resume
        files += map(Path, resumed)
        names += resumed.values()
        report.notes.extend((path, "read again: it resumes a session this call reads (its "
                             "copies are that session's items)") for path in resumed)
        (marks,) = self.pl.once("atc_api:api_watermarks", [Atom(n) for n in names], Var())
        todo = [(path, name, None if mark == "none" else (mark.args[0], str(mark.args[1])))
                for path, name, mark in zip(files, names, marks)]
        journal_before: int | None = None        # None: there was no journal
        wrote = False
        open_tails = {str(Path(p)): int(n) for p, n in (
            unfinished.items() if isinstance(unfinished, Mapping) else ((p, 0) for p in unfinished))}
        sessions = self._distinct_default_sessions(names)
        max_item_chars = self.config.get("max_item_chars", DEFAULT_MAX_ITEM_CHARS)
        parsed_files = _parse_all(todo, format, item_budget, segment, limit, open_tails,
                                  max_item_chars, sessions, self.read_points, elsewhere, again)
        pages_replaced = self._thread_pages_held(names)
        users = _UserSpeakers(self._user_speakers)

        def one_user_each() -> Iterator[_Parsed]:
            # A transcript whose people take roles by who speaks first gave the user's role to
            # someone else than a person who took it before and speaks there: read it again
            # with their names (the first parse, in a worker, knew none of them)
            for (path, name, known), parsed in zip(todo, parsed_files):
                returning = users.returning(parsed.named_roles)
                if returning and not returning & users.of(parsed.named_roles):
                    parsed = _parse_one(path, name, known, format, item_budget, segment, limit,
                                        open_tails.get(str(path)), max_item_chars,
                                        sessions.get(name), returning, self.read_points,
                                        elsewhere, name in again)
                users.took(parsed.named_roles)
                yield parsed
        resolver = GoalResolver(self._launch_goal, max_file_bytes=limit)
        subagents: list[tuple[str, _Parsed]] = []   # written last, once their parents are known

        def parents_first() -> Iterator[tuple[str, _Parsed]]:
            for name, parsed in _changed(todo, one_user_each(), report, progress, strict):
                parsed.replaces = pages_replaced.get(name, [])
                for agent, goal in parsed.launches.items():
                    resolver.launches.setdefault(agent, goal)
                if parsed.subagent:
                    subagents.append((name, parsed))
                else:
                    yield name, parsed

        def subagents_last() -> Iterator[tuple[str, _Parsed]]:
            # Runs once every other file was handed on: all launches of this call are known.
            for name, parsed in subagents:
                yield name, self._inherit_goal(name, parsed, resolver, segment, report)

        try:
            for batch in _file_batches(chain(parents_first(), subagents_last()), BATCH_ITEMS):
                if not wrote:
                    self.lock.acquire()
                    journal = journal_path(self.home)
                    journal_before = journal.stat().st_size if journal.exists() else None
                    wrote = True
                self._write_batch(batch, report, segment)
        except KeyboardInterrupt:
            # what is written stays (a kill keeps it too): ingest_index's pending file covers
            # a batch committed whose BM25 entries the interrupt cut short
            parsed_files.close()
            raise
        except BaseException:
            parsed_files.close()
            if wrote:
                self._cut_journal(journal_before)
                ingest_index.drop_entries(self, report.new_handles)  # items no longer there
            raise
        return report

    def _session_files_elsewhere(self, files: list[Path]) -> tuple[tuple[str, ...],
                                                                   dict[str, str]]:
        """The JSON Lines files where a Claude Code session of ``files`` resumed from another
        folder may find its earlier part (:mod:`.ingest.earlier_files`): the others of this
        call, and those memory read items from at the times the sessions' first records
        copy, or just before a file of new records began (() when none of ``files`` is JSON
        Lines; subagents' own files are never an earlier part). Beside them, each file memory
        read before (its absolute path -> the name it was read under) that resumed one of
        ``files`` with copies of its records: read again after it."""
        from .ingest.earlier_files import SESSIONS_BEFORE, head_times, resumed_from

        def session_file(path: str) -> bool:
            return path.endswith(".jsonl") and \
                os.path.basename(os.path.dirname(path)) != "subagents"

        sessions = [str(path) for path in files if session_file(str(path))]
        if not sessions:
            return (), {}
        ours = set(map(os.path.abspath, sessions))
        held: dict[str, str] = {}   # absolute path -> the name memory read it under
        heads = [head_times(path) for path in sessions]
        times = sorted(set().union(*(head.times for head in heads)))
        found = [self.pl.once("atc_api:api_sources_at_times", times, Var())[0]] if times else []
        found += [self.pl.once("atc_api:api_sources_before", start, SESSIONS_BEFORE, Var())[0]
                  for start in sorted({head.follows_from for head in heads if head.follows_from})]
        for name in map(str, chain.from_iterable(found)):
            if session_file(name) and os.path.abspath(name) not in ours:
                held.setdefault(os.path.abspath(name), name)
        elsewhere = tuple(sorted(ours | held.keys()))
        later = resumed_from(sorted(ours), [p for p in sorted(held) if os.path.isfile(p)])
        return elsewhere, {path: held[path] for path in later}

    def _session_sources(self, sessions: Iterable[str]) -> dict[str, list[str]]:
        """The source files memory holds live items of each of ``sessions`` from."""
        (pairs,) = self.pl.once("atc_api:api_session_sources",
                                [Atom(s) for s in sorted(set(sessions))], Var())
        held: dict[str, list[str]] = {}
        for pair in pairs:
            held.setdefault(str(pair.args[0]), []).append(str(pair.args[1]))
        return held

    def _without_pages_held_as_json(self, found: list[Found]) -> list[Found]:
        """``found`` with each Messenger or Instagram thread page left out where memory holds
        the thread's items from its JSON pages (an earlier ingest, or ``atc watch``, read
        them): the page gives the same messages under other handles
        (:data:`.chat_pages.JSON_HELD`). A page named as a path is left out too: reading it
        would only hold each message twice."""
        # imported here: the chat-page readers import the date parser, which a process that
        # never ingests (stats, query, hydrate) does not load (tests/test_cli_light_start.py)
        from .ingest.chat_pages import JSON_HELD, thread_json_session, thread_pages

        pages = thread_pages(f.path for f in found if not f.problem)
        if not pages:
            return found
        held = self._session_sources(pages.values())
        as_json = {session for session, sources in held.items()
                   if any(thread_json_session(source) == session for source in sources)}
        return [Found(f.path, f.named, JSON_HELD) if pages.get(f.path) in as_json else f
                for f in found]

    def _thread_pages_held(self, names: list[str]) -> dict[str, list[str]]:
        """For each of ``names`` that is a Messenger or Instagram thread's JSON page, the
        thread's HTML pages memory holds items of (an earlier ingest read the export as HTML):
        its reading supersedes theirs (journal_supersede_sources/3), so no message is held
        twice."""
        from .ingest.chat_pages import is_page, thread_json_session

        threads = {name: session for name in names if (session := thread_json_session(name))}
        if not threads:
            return {}
        held = self._session_sources(threads.values())
        return {name: pages for name, session in threads.items()
                if (pages := [s for s in held.get(session, ()) if is_page(Path(s))])}

    def _user_speakers(self, names: Iterable[str]) -> set[str]:
        """Those of ``names`` that memory holds an item of the user's role from."""
        (users,) = self.pl.once("atc_journal:journal_user_speakers", sorted(names), Var())
        return {str(name) for name in users}

    def _distinct_default_sessions(self, names: list[str]) -> dict[str, str]:
        """The session to give the items of each file named in ``names`` that names none of
        its own, where its default (the file name without its extension) would mix it with
        another file: two files of this call with the same name in different folders
        (``2026-01/chat.json``, ``2026-02/chat.json``), or a file whose name's session memory
        already holds for another file that still exists. Such a file's session is its name,
        ``~``, and 8 hex digits of its absolute path; a file whose session is already its own (ingested
        before), or that takes the place of a file no longer there (a folder moved), keeps the
        plain name, so that their items keep their handles. Files not listed keep the default."""
        by_stem: dict[str, list[str]] = {}
        for name in names:
            by_stem.setdefault(Path(name).stem or name, []).append(name)
        apart = session_apart
        asked = list(by_stem) + [apart(stem, n) for stem, group in by_stem.items() for n in group]
        (held,) = self.pl.once("atc_api:api_session_pointers", [Atom(s) for s in asked], Var())
        holders = {str(pair.args[0]): _pointer_file(str(pair.args[1])) for pair in held}
        out: dict[str, str] = {}
        for stem, group in by_stem.items():
            # pointers hold the absolute path a file was read at; names are as given
            where = {name: os.path.abspath(name) for name in group}
            holder = holders.get(stem)
            if holder is not None and holder not in where.values() and not Path(holder).exists():
                holder = None  # its file is gone: the first of this call takes the session on
            keeper = holder if holder is not None else where[group[0]]
            vacated: list[str] | None = None  # told-apart sessions of this name, file gone
            for name in group:
                if apart(stem, name) in holders:
                    out[name] = apart(stem, name)  # told apart before: stays so
                elif where[name] != keeper:
                    if vacated is None:
                        vacated = self._vacated_sessions_apart(stem)
                    # one such session, its file gone: this is that file, moved, and keeps
                    # it; with two or more, which one it is cannot be told
                    out[name] = vacated.pop() if len(vacated) == 1 else apart(stem, name)
        return out

    def _vacated_sessions_apart(self, stem: str) -> list[str]:
        """The sessions named after ``stem`` told apart from another file of that name
        (``stem~`` and 8 hex digits) whose file is no longer there."""
        (held,) = self.pl.once("atc_api:api_sessions_apart", [Atom(stem)], Var())
        return [str(pair.args[0]) for pair in held
                if not Path(_pointer_file(str(pair.args[1]))).exists()]

    def _launch_goal(self, agent: str) -> str | None:
        """The goal of the journal item linked ``relation(H, launched_agent, Agent)`` (the
        result of the call that launched a Claude Code subagent), or None."""
        (goals,) = self.pl.once("atc_api:api_linked_goals", Atom("launched_agent"), Atom(agent),
                                Var())
        return str(goals[0]) if goals else None

    def _inherit_goal(self, name: str, parsed: "_Parsed", resolver: GoalResolver, segment: str,
                      report: IngestReport) -> "_Parsed":
        """A subagent file's items with the goal of the turn that launched it, encoded."""
        session = parsed.pending[0].session if parsed.pending else ""
        goal = resolver.goal(parsed.subagent, parsed.path, session)
        items = parsed.pending
        if goal is None:
            report.goals_unresolved.append((parsed.path, parsed.subagent))
        else:
            items = inherit_goal(items, goal)
        parsed.encoded = [encode_item(rec, name, segment) for rec in items]
        parsed.pending = []
        return parsed

    def _write_batch(self, batch: list[tuple[str, "_Parsed"]], report: IngestReport,
                     segment: str) -> None:
        """Upsert the items of some parsed files and their watermarks as one fsynced batch."""
        encoded = [e for _, parsed in batch for e in parsed.encoded]
        marks = [_mark(name, parsed, segment) for name, parsed in batch]
        # findable by BM25 and recency at once, before curation (see ingest_index)
        counts = ingest_index.commit(self, encoded, marks, _launches(batch))
        report.superseded += len(counts["superseded"])
        report.updated += len(counts["refreshed"])
        report.new += counts["new"]
        report.unchanged += counts["unchanged"]
        report.forgotten += counts["forgotten"]
        if counts["forgotten"]:
            # their readings gave items an erasure forgot: where they were left holds the text
            for _, parsed in batch:
                if parsed.path:
                    self.read_points.drop(os.path.abspath(parsed.path))
        report.new_handles.extend(str(h) for h in counts["new_handles"])
        if counts["unchanged"]:
            self._note_segments_kept(batch, segment, report)
        if counts.get("moved"):
            _note_moved(batch, {str(h) for h in counts["moved"]}, report)

    def _note_segments_kept(self, batch: list[tuple[str, "_Parsed"]], segment: str,
                            report: IngestReport) -> None:
        """A note per file whose items were already held in another segment than ``segment``
        (a file ingested again with another ``--segment``): they stay where they are, and the
        report says so rather than only counting them unchanged."""
        for name, parsed in batch:
            handles = [Atom(wire_handle(wire)) for wire in parsed.encoded]
            if not handles:
                continue
            (held,) = self.pl.once("atc_api:api_segments_held", handles, Atom(segment), Var())
            for pair in held:
                count, other = int(pair.args[1]), str(pair.args[0])
                report.notes.append((
                    parsed.path or name,
                    f"{count} item{'s' if count != 1 else ''} already in segment {other} "
                    f"stay{'s' if count == 1 else ''} there (an item keeps the segment it was "
                    "first ingested into; the segment asked for applies to new items only)"))

    def _cut_journal(self, size: int | None) -> None:
        """Undo the batches an ingest call wrote: cut the journal back to ``size`` (None: remove
        it, there was none) and reload.

        Reloading (snapshot plus journal) is the one undo that is exact whatever the batches
        changed; it runs only when a file fails after earlier files were written.
        """
        try:
            self.pl.once("atc_api:api_close")
        finally:  # a close that failed must not leave the store closed: later batches of
            # this process would be kept in memory alone (durable_record/2 without a home)
            journal = journal_path(self.home)
            if size is None:
                journal.unlink(missing_ok=True)
                fsync_path(self.home)
            else:
                with open(journal, "r+b") as fh:
                    fh.truncate(size)
                    fh.flush()
                    os.fsync(fh.fileno())
            self.open_info = open_store(self.pl, self.home, self.lock)

    @serialised
    def forget(self, handles: Iterable[str] | str = (), *, session: str | None = None,
               query: str | None = None, reason: str = "forgotten by request",
               who: str | None = None, dry_run: bool = False) -> ForgetReport:
        """Erase items so that no file of the home holds their text (see README "Erasure").

        The items are ``handles``, every item of ``session`` and every handle the first
        variable of ``query`` binds (a sandboxed goal). Each keeps only its audit record
        (:meth:`erasures`); items that inherited an erased user goal get the goal
        ``[forgotten]``; every rung, arc, rollup, echo mark, vector and BM25 entry derived from
        them is dropped and rebuilt without them; receipts are redacted; the journal is
        compacted and the snapshot rebuilt. Re-ingesting the source never brings them back.
        Returns a :class:`~attention_cloud.erasure.ForgetReport` (``sources`` names the
        transcript files that still hold the text). ``dry_run`` lists and changes nothing.
        ``who`` (default: the OS user) is recorded with ``reason``.
        """
        from . import erasure

        handles = args.texts("handles", handles)
        args.flag("dry_run", dry_run)
        args.text("session", session, optional=True)
        args.text("query", query, optional=True)
        args.text("reason", reason)
        args.text("who", who, optional=True)
        if not dry_run:
            # the selection and its plan read the journal as other processes left it (items
            # added to the session since this Memory read it are erased too), and a killed
            # run's items are gone from the selection, not yet from the files: finish it first
            self.acquire()
            self.finish_erasure()
        chosen = erasure.select(self, handles, session=session, query=query)
        return erasure.forget(self, chosen, who=who, reason=reason, dry_run=dry_run)

    @serialised
    def finish_erasure(self) -> ForgetReport | None:
        """Finish an erasure a killed process left half done (every call of a Memory does this
        first when no other process is writing); returns its ForgetReport (that of one this
        Memory finished so on the way into a call since the last finish_erasure), or None
        when there was none."""
        finished, self._finished_erasure = self._finished_erasure, None
        if not (self.home / ERASURE_PLAN_FILE).exists():
            return finished         # this call (or an earlier one) finished it on the way in
        from . import erasure       # only then: it imports numpy and the curation (0.5 s of CPU)

        return erasure.finish_pending(self)

    @serialised
    def erasures(self) -> list[Erasure]:
        """The audit record of every forgotten item
        (:class:`~attention_cloud.erasure.Erasure`: handle, digest, time, who, reason)."""
        from . import erasure

        return erasure.erasures(self)

    @serialised
    def stale(self) -> bool:
        """True when another process compacted the journal (an erasure) since this Memory
        read it: a long-running reader should reopen to stop seeing what was forgotten."""
        return self.pl.once("atc_api:api_journal_replaced") is not None

    @serialised
    def remember(self, text: str, *, kind: str = "note", segment: str = "default",
                 role: str = "user", goal: str | None = None, time: str | None = None,
                 curate: bool = True) -> Remembered:
        """Add one memory by hand: ``text`` becomes a journal item of ``kind`` (``note``,
        ``decision`` or ``preference``) in ``segment``, with its verbatim record appended to
        ``home/remembered.jsonl`` (its pointer is ``that file:line``).

        The handle is content-derived: remembering the same text again (same kind and
        segment) writes nothing and returns ``new=False``. The item's goal is ``goal``, else
        the text itself; its time is ``time`` (any form ingest reads), else now; ``role`` is
        ``user`` or ``assistant`` (an agent remembering on its own account). With ``curate``
        (the default) the item is curated at once when at most
        :data:`~attention_cloud.agents.remember.CURATE_AT_ONCE_MAX` items await curation, so
        frames find it by meaning right away; otherwise ``atc curate`` does it.

        Returns an :class:`~attention_cloud.agents.remember.Remembered`. Raises InputError for
        an empty or over-long text, UsageError for a bad kind, segment, role or time.
        """
        from .agents.remember import remember

        args.text("goal", goal, optional=True)
        args.flag("curate", curate)
        return remember(self, text, kind=kind, segment=segment, role=role, goal=goal,
                        when=time, curate=curate)

    # -- reading ----------------------------------------------------------------------------------
    @serialised
    def query(self, goal: str, *, limit: int = 100, time_limit: float | None = None,
              rules: str | os.PathLike[str] | None = None) -> QueryResult:
        """Solutions of a Prolog goal over the public vocabulary, in a module of its own.

        The goal is checked before it runs (library(sandbox), no module-qualified goals, no
        database builtins) and runs, answers included, under one set of limits that catch/3
        cannot escape (``time_limit`` seconds, default 30 or what :meth:`set_limits` set;
        stack, heap and atom growth; see README
        "Security"); a goal stopped by one raises PrologError naming it. The home's saved
        rules (``atc rules add``) and the optional ``rules`` file are loaded first, so the goal
        may call predicates they define.
        """
        args.text("goal", goal)
        if not goal.strip():
            raise UsageError("the goal must not be empty")
        args.whole("limit", limit, minimum=1)
        args.seconds("time_limit", time_limit, optional=True)
        args.not_blank("rules", args.path("rules", rules, optional=True))
        self.jump  # nearest/3 in a user goal needs the host's search registered
        options: dict[str, Any] = {"limit": limit, "module": Atom(self._load_user_rules(rules))}
        if time_limit is not None:
            options["time_limit"] = float(time_limit)
        with self._limits():
            (solutions, more) = self.pl.once("atc_api:api_query", goal, options, Var(), Var())
        rows = [{str(pair.args[0]): to_plain(pair.args[1]) for pair in sol} for sol in solutions]
        variables = list(rows[0]) if rows else []
        return QueryResult(rows=rows, more=str(more) == "true", variables=variables)

    @serialised
    def set_limits(self, *, time_limit: float | None = None, stack_limit: int | None = None,
                   memory_limit: int | None = None, atom_limit: int | None = None,
                   functor_limit: int | None = None) -> None:
        """Change the limits user code runs under in this process (queries, rule loading and
        frames with rules): seconds, bytes of Prolog stacks, bytes of the process's memory
        growth (its anonymous resident memory), new atoms (each a call's), and new functors (a
        principal's, the owner's as one, over the life of the process: SWI-Prolog never frees
        one). Defaults: 30 s, 256 MB, 1 GB, 2,000,000, 1,000,000."""
        given = {"time_limit": args.seconds("time_limit", time_limit, optional=True),
                 "stack_limit": args.whole("stack_limit", stack_limit, minimum=1, optional=True),
                 "memory_limit": args.whole("memory_limit", memory_limit, minimum=1,
                                            optional=True),
                 "atom_limit": args.whole("atom_limit", atom_limit, minimum=1, optional=True),
                 "functor_limit": args.whole("functor_limit", functor_limit, minimum=1,
                                             optional=True)}
        options = {k: v for k, v in given.items() if v is not None}
        try:
            self.pl.once("atc_api:api_set_limits", options)
        except PrologError as exc:  # a stack limit the engine cannot take
            raise UsageError(f"stack_limit {stack_limit} cannot be used: {exc}") from None

    @contextmanager
    def _limits(self) -> Iterator[None]:
        """Turn SWI-Prolog's uncatchable abort, which the limits of user code use to stop a
        goal, into a PrologError saying which limit stopped it."""
        try:
            yield
        except PrologError as exc:
            if not (isinstance(exc.term, Atom) and str(exc.term) == "$aborted"):
                raise
            (reason,) = self.pl.once("atc_api:api_stopped", Var())
            raise PrologError(str(reason), exc.term) from None

    # -- user rules -------------------------------------------------------------------------------
    @property
    def rules_dir(self) -> Path:
        """Where ``atc rules add`` saves rules."""
        return self.home / "rules"

    @serialised
    def rules_add(self, text: str, name: str, *, source: str | None = None) -> None:
        """Check a rules text and save it in the home under ``name``.

        Every clause must pass (library(sandbox), no directive but ``discontiguous``, no
        module-qualified goal, no database builtin), together with the rules already saved,
        and define no predicate (no plane) another saved rule defines;
        otherwise PrologError names the reason and nothing is saved (UsageError when the text
        defines no predicate at all: empty, or comments only). A syntax error or a
        refused clause is located as ``SOURCE:LINE`` in the text (``source``, default
        ``NAME.pl``: the file the text came from, as ``atc rules add FILE`` passes it).
        """
        args.text("text", text)
        args.text("source", source, optional=True)
        path = self._rule_path(name)
        with _rules_lock(self.home):
            self._save_rule(text, name, path, source)

    def _save_rule(self, text: str, name: str, path: Path, source: str | None) -> None:
        # under the rules lock: the check reads the rules saved by then, the save follows it
        others = [_rule_source(p) for p in self._rule_files() if p.stem != name]
        shown = source or f"{name}.pl"
        try:
            with self._limits():
                self.pl.once("atc_api:api_load_rules", [*others, Term("-", [shown, text])],
                             Atom("rules_check"), {"one_owner": Atom("true")}, Var())
                (defined,) = self.pl.once("atc_api:api_rule_predicates", shown, text, Var())
        except PrologError as exc:
            raise PrologError(f"rule {name} rejected: {exc}", exc.term) from exc
        if not defined:  # an empty file, or comments only: saved, it was listed with no predicate
            raise UsageError(f"rule {name} rejected: {shown} defines no predicate")
        _refuse_builtin_walk_names(name, shown, defined)
        self.rules_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.rules_dir / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        fsync_path(tmp)  # saved means saved: not an empty file after a power cut
        tmp.replace(path)
        fsync_path(self.rules_dir)

    @serialised
    def rules_list(self) -> list[dict[str, Any]]:
        """Saved rules: name, size, and the predicates each defines. A saved file that cannot
        be read (edited by hand into a syntax error, not UTF-8) is listed with ``error`` saying
        why, file and line, and no predicates: the others are still listed, and it can be
        found and removed."""
        return _saved_rules(self.pl, self._rule_files())

    @serialised
    def rules_remove(self, name: str) -> None:
        """Delete a saved rule; UsageError for a name that is not a rule name, InputError when
        there is no saved rule of that name. Only files in the home's ``rules/`` are touched.
        The file name ``NAME.pl`` names rule ``NAME`` (``atc rules add fixes.pl`` saved
        ``fixes``)."""
        if isinstance(name, str) and name.endswith(".pl") and RULE_NAME.fullmatch(name[:-3]):
            name = name[:-3]
        path = self._rule_path(name)
        if not path.is_file() or path.is_symlink():
            raise BadArgument(f"{name}: no such saved rule")
        path.unlink()

    def _rule_path(self, name: str) -> Path:
        """The file of saved rule ``name``: UsageError unless ``name`` is a plain rule name
        (ASCII letters, digits, '-' and '_', starting with a letter or digit; no path separators,
        no '..'), so the path stays inside the home's ``rules/``."""
        if not isinstance(name, str) or not RULE_NAME.fullmatch(name):
            raise UsageError(f"rule name {name!r} must be {RULE_NAME_WORDS}")
        path = self.rules_dir / f"{name}.pl"
        if path.parent.resolve() != self.rules_dir.resolve():
            raise UsageError(f"rule name {name!r} does not name a file in {self.rules_dir}")
        return path

    @serialised
    def saved_rule_texts(self) -> list[str]:
        """The text of every rule saved in the home (``atc rules add``), in name order."""
        return [p.read_text(encoding="utf-8") for p in self._rule_files()]

    def saved_rule_sources(self, *, named_in_home: bool = False) -> list[Term]:
        """Every rule saved in the home as ``Path-Text`` terms for ``api_load_rules``, in name
        order: an error in one names its file and line. With ``named_in_home`` each is named
        by its place in the home (``rules/walk.pl``): for a grantee, to whom the home's own
        directory (``/home/alice/...``) is the owner's and no part of a grant."""
        return [_rule_source(p, p.relative_to(self.home) if named_in_home else p)
                for p in self._rule_files()]

    def _rule_files(self) -> list[Path]:
        return _rule_files_in(self.rules_dir)

    def _load_user_rules(self, extra: str | os.PathLike[str] | None) -> str:
        """Load saved rules plus ``extra`` into the user module user_rules (checked and under
        limits, see rules_add); returns the user module a goal or frame should use."""
        sources = [_rule_source(p) for p in self._rule_files()]
        if extra is not None:
            path = Path(extra)
            text = read_rules_file(path, f"{path}: rules file is larger than {MAX_RULES_BYTES} "
                                   "bytes")
            sources.append(Term("-", [str(path), text]))
        if not sources:
            return "atc_query"
        # a --rules file's predicates are its own: an edited copy of a saved rule replaces it
        with self._limits():
            (module,) = self.pl.once("atc_api:api_load_rules", sources, Atom("user_rules"),
                                     {"last_wins": Atom("true" if extra is not None else "false")},
                                     Var())
        return str(module)

    # -- hydration --------------------------------------------------------------------------------
    @serialised
    def hydrate(self, goal: str, *, budget: int = 2000, plane: str = "default",
                segments: dict[str, int] | None = None, ceiling: str = "L0",
                rules: str | os.PathLike[str] | None = None, walk: str | None = None,
                now: str | float | None = None, mount: str | Iterable[str] | None = None,
                depth: int | None = None, cells: bool | None = None, bridge: bool = True,
                excerpt: bool = True) -> Frame:
        """Render a frame for ``goal``.

        Returns a :class:`~attention_cloud.hydration.Frame` with ``.text``, ``.receipt``
        (also stored in the home; ``atc receipt ID`` prints it) and ``.envelope``.

        Args:
            goal: what the agent is trying to do now.
            budget: total token budget (estimated tokens).
            plane: default, execution, exploration, or a plane defined in a rules file.
            segments: per-segment budgets overriding the plane's split.
            ceiling: the most detailed level allowed (L0..L3).
            rules: an extra rules file (checked by library(sandbox)) with walk rules or planes.
            walk: a walk rule ``Name(+Seeds, -Handle-Score)`` to use instead of the plane's,
                or ``entity_walk``, the built-in walk.
            now: the present a goal's "two weeks ago" is read against (POSIX seconds, or
                text read as every time option reads it: ISO 8601, a date, a count of epoch
                seconds; a year alone is refused); default the time of the newest item.
            mount: a cell, or cells, to draw the frame from, each with its neighbourhood to
                ``depth`` links; each mount renders with an equal share of the budget and the parts
                merge into one frame (``atc cells list`` names the cells).
            depth: how many links around a mounted cell its region reaches (default 1); only
                with ``mount`` (UsageError otherwise: without a mount nothing reads it).
            cells: False walks the entity graph even when memory holds cells; None (default)
                walks through cell adjacency when it does.
            bridge: False leaves out the second hop (items of other sessions that share a
                seed's rare named thing; the receipt's ``bridged`` names seed and thing).
            excerpt: False never shows a long record as an excerpt (the sentences of its
                verbatim text nearest the goal, marked ``excerpt`` in the receipt): a fact
                too long for its share of the budget falls to its summary instead.
        """
        from .hydration import hydrate

        # goal, budget, plane, ceiling and segments are checked where every caller passes
        # (hydration.hydrate, a grantee's read included); these before a rules file is loaded
        args.not_blank("walk", args.text("walk", walk, optional=True))
        args.not_blank("rules", args.path("rules", rules, optional=True))
        mounts = args.texts("mount", mount) if mount is not None else []  # one cell, or several
        if mount is not None and not mounts:
            # an empty list (a filter that matched no cell) must not widen to the whole memory
            raise UsageError("mount names no cell: give one or more cells, or leave mount out "
                             "for a frame from the whole memory")
        if depth is not None and not mounts:
            raise UsageError("depth goes with mount (how many links around a mounted cell the "
                             "frame reaches)")
        if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 0):
            raise UsageError(f"depth must be a whole number of links, 0 or more, not {depth!r}")
        module = self._load_user_rules(rules)
        with self._limits():
            return hydrate(self, goal, budget=budget, plane=plane, segments=segments,
                           ceiling=ceiling, rules=module if module != "atc_query" else None,
                           walk_rule=walk, now=now, mount=mounts, depth=1 if depth is None else depth,
                           cells=cells, bridge=bridge, excerpt=excerpt)

    @serialised
    def item(self, handle: str) -> Item | None:
        """The live journal item with this handle, or None where the home holds none (never
        held, or forgotten): the one lookup that answers None rather than BadArgument, as a
        caller checks what ``forget`` or retention left."""
        args.text("handle", handle)
        found = self.pl.once("atc_api:api_item", Atom(handle), Var())
        if not found:
            return None
        d = found[0]
        return Item(handle=str(d["handle"]), kind=str(d["kind"]), role=str(d["role"]),
                    goal=d["goal"], session=str(d["session"]), seq=d["seq"], time=d["time"],
                    segment=str(d["segment"]), source=d["source"],
                    source_name=str(d["source_name"]), text=d["text"],
                    relations=tuple((str(p), str(o)) for p, o in d["relations"]))

    @serialised
    def receipt(self, receipt_id: str) -> dict[str, Any]:
        """The stored receipt ``receipt_id`` (a frame's ``receipt_id``, from this process or
        any other), as ``atc receipt ID`` prints it; InputError when there is none (never
        stored, or pruned past ``receipts_kept``), HomeError when its file is damaged."""
        from .hydration import load_receipt

        return load_receipt(self.home, args.text("receipt_id", receipt_id))

    @serialised
    def stats(self) -> dict[str, Any]:
        """Counts of items, kinds, sessions, relations; on-disk sizes."""
        (stats,) = self.pl.once("atc_journal:journal_stats", Var())
        out = to_plain(stats)
        out["kinds"] = {k: n for k, n in out["kinds"]}
        out["segments"] = {k: n for k, n in out["segments"]}
        from .cells import cells_stats

        out["cells"] = cells_stats(self)
        out["home"] = str(self.home)
        out["disk_bytes"] = files_bytes(self.home)   # beside writers removing files
        return out


@dataclass
class _Parsed:
    """One file parsed and encoded for the journal (what a worker process sends back)."""

    encoded: list[str]
    records_read: int
    evicted: int
    envelopes_stripped: int
    skipped: list[tuple[str, int, str]]
    size: int = 0
    unread_times: list[tuple[str, int, str]] = field(default_factory=list)
    digest: str = ""
    unchanged: bool = False          # size and digest match the watermark: not parsed
    failed: str = ""                 # why the file cannot be ingested (its InputError)
    ignored: dict[str, int] = field(default_factory=dict)
    launches: dict[str, str] = field(default_factory=dict)   # subagent id -> launching goal
    subagent: str = ""               # a subagent's own file: its items wait for their goal
    pending: list[Any] = field(default_factory=list)        # its ItemRecords until then
    path: str = ""
    notes: list[tuple[str, str]] = field(default_factory=list)  # (file, how it was read)
    # A file that only grew, read again whole: the handles its reading gave without writing
    # them (evicted, held back) and the last line it covered (see :func:`_regrown`)
    regrown: tuple[list[str], int] | None = None
    # A file read before and changed otherwise (a JSON document written anew): the handles
    # its reading gave without writing them; the calls it answers supersede their earlier
    # reading without a result (journal_supersede_answered/4)
    reread: list[str] | None = None
    # name -> role, for a transcript whose people take roles by who speaks first
    named_roles: dict[str, str] = field(default_factory=dict)
    # another export's files of the same conversation that memory holds items of, which this
    # reading supersedes (a Messenger thread's HTML pages, before its JSON: journal_supersede_sources/3)
    replaces: list[str] = field(default_factory=list)


class _UserSpeakers:
    """Who took the user's role, for the transcripts whose people take roles by who speaks
    first (plain text with named speaker lines): the names memory knows so (asked once a name,
    through ``in_memory``) and those an earlier file of this ingest gave it. A later file where
    one of them speaks gives it to them (``user_names`` of the parse), not to whoever spoke
    first there, so one person is not the user of one session and the assistant of the next."""

    def __init__(self, in_memory: Callable[[Iterable[str]], set[str]]) -> None:
        self._in_memory = in_memory
        self._known: dict[str, bool] = {}

    @staticmethod
    def of(roles: Mapping[str, str]) -> frozenset[str]:
        """The names a parse gave the user's role."""
        return frozenset(name for name, role in roles.items() if role == "user")

    def returning(self, roles: Mapping[str, str]) -> frozenset[str]:
        """The speakers of a parse (name -> role) who took the user's role before."""
        unknown = [name for name in roles if name not in self._known]
        if unknown:
            users = self._in_memory(unknown)
            self._known.update((name, name in users) for name in unknown)
        return frozenset(name for name in roles if self._known[name])

    def took(self, roles: Mapping[str, str]) -> None:
        """Remember whom a parse that is kept gave the user's role."""
        for name in self.of(roles):
            self._known[name] = True


def _note_moved(batch: list[tuple[str, "_Parsed"]], moved: set[str],
                report: IngestReport) -> None:
    """A note per file whose items memory held from a file no longer there (its folder moved):
    they point at this file now (atc_journal:journal_follow_moved/2)."""
    for name, parsed in batch:
        count = sum(wire_handle(wire) in moved for wire in parsed.encoded)
        if count:
            report.notes.append((
                parsed.path or name,
                f"{count} item{'s' if count != 1 else ''} held from a file no longer there "
                f"(moved) point{'s' if count == 1 else ''} here now"))


def session_apart(stem: str, name: str) -> str:
    """The default session of a file told apart from another of the same name (see
    ``Memory._distinct_default_sessions``): ``stem``, ``~`` and 8 hex digits of the file's
    absolute path, as pointers hold it."""
    where = os.path.abspath(name).encode("utf-8", "surrogatepass")
    return f"{stem}~{hashlib.sha256(where).hexdigest()[:8]}"


#: Items per journal batch: large ingests are written in several fsynced batches of whole files.
BATCH_ITEMS = 10_000

_T = TypeVar("_T")


@contextmanager
def _rules_lock(home: Path) -> Iterator[None]:
    """Hold the saved rules' own lock (flock on the home folder itself, so a refused rule leaves
    no file behind): two processes adding rules at once each checked against the files saved
    before either wrote, and both saved a definition of the same predicate. Not the home's
    write lock, which a process that wrote to the journal keeps until it releases: saving a
    rule beside a running agent or watcher must not wait for it."""
    import fcntl

    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def read_rules_file(path: str | os.PathLike[str], too_large: str) -> str:
    """The text of a rules file (``-``: standard input), read no further than
    :data:`MAX_RULES_BYTES`, so that a device that never ends (``/dev/zero``) or a file of
    gigabytes is refused without filling memory, and a FIFO without a writer without waiting.

    Raises:
        UsageError: the file is not there, is no regular file (``PATH: not a regular file (a
            FIFO), not read``), or holds more than the limit (``too_large``, the message).
        InputError: it cannot be read, or is not UTF-8 (``PATH: cannot read rules file
            (...)``).
    """
    given = os.fspath(path)
    name = _path_shown(given)
    if given == "-":
        data = sys.stdin.buffer.read(MAX_RULES_BYTES + 1)
    else:
        try:
            # O_NONBLOCK: a FIFO with no writer opens at once, and fstat refuses it unread
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise UsageError(f"{name}: rules file not found") from None
        except OSError as exc:
            raise InputError(f"{name}: cannot read rules file ({exc.strerror or exc})") from None
        mode = os.fstat(fd).st_mode      # before fdopen, which refuses a folder itself
        if not stat.S_ISREG(mode):
            os.close(fd)
            raise UsageError(f"{name}: rules file not found" if stat.S_ISDIR(mode)
                             else f"{name}: {not_regular(mode)}")
        with os.fdopen(fd, "rb") as handle:
            try:
                data = handle.read(MAX_RULES_BYTES + 1)
            except OSError as exc:
                raise InputError(f"{name}: cannot read rules file ({exc.strerror or exc})"
                                 ) from None
    if len(data) > MAX_RULES_BYTES:
        raise UsageError(too_large)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: cannot read rules file ({exc})") from None


#: The most characters of a rules file's name an error repeats.
PATH_SHOWN_CHARS = 200


def _path_shown(name: str) -> str:
    """A rules file's name as an error shows it, on one line: the text of a rule passed where
    its file's name goes (``rules="p :- ..."``, 600 KB of it) would be repeated whole."""
    if len(name) <= PATH_SHOWN_CHARS and name.isprintable():
        return name
    head = " ".join(name.split())[:60]
    return f"{head!r}… (a text of {len(name):,} characters, given as a file's name)"


def _rule_source(path: Path, name: Path | None = None) -> Term:
    """A saved rule as the ``Name-Text`` source ``api_load_rules`` reads: errors name the file
    as ``name`` (default its path; one edited by hand into something not UTF-8 too:
    InputError, not a traceback)."""
    name = path if name is None else name
    try:
        return Term("-", [str(name), path.read_text(encoding="utf-8")])
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: saved rule is not UTF-8 ({exc}); fix it or atc rules "
                         f"remove {path.stem}") from None


def _file_batches(files: Iterable[tuple[_T, "_Parsed"]], limit: int) -> Iterator[list[tuple[_T, "_Parsed"]]]:
    """Group parsed files, as they arrive, into consecutive runs of about ``limit`` items.

    A file is never split; a run is handed out as soon as the next file would overfill it, so
    it is written while later files are still being parsed.
    """
    batch: list[tuple[_T, _Parsed]] = []
    count = 0
    for entry in files:
        items = len(entry[1].encoded)
        if batch and count + items > limit:
            yield batch
            batch, count = [], 0
        batch.append(entry)
        count += items
    if batch:
        yield batch


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


#: How much lower the parse workers' scheduling priority is than the writing process's.
WORKER_NICENESS = 2

#: Parse in worker processes once a batch is this large: below it, starting them costs more.
PARALLEL_PARSE_BYTES = 8 * 1024 * 1024


#: The session files of other folders a parse worker's files may resume (its initializer sets it).
_worker_elsewhere: tuple[str, ...] = ()


def _parse_worker_start(niceness: int, parent: int, elsewhere: tuple[str, ...] = ()) -> None:
    """Initializer of a parse worker: a lower priority, and death with the process that
    forked it (a killed ``atc ingest`` leaves no orphaned parsers): Linux's
    ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, then a check that the parent did not die first.
    ``elsewhere``: the session files of other folders every file it parses may resume
    (handed once to the worker, not with each file)."""
    import ctypes
    import signal

    global _worker_elsewhere
    _worker_elsewhere = elsewhere

    os.nice(niceness)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to act on
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: workers end when their queue breaks
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def _changed(todo: list[tuple[Path, str, tuple[int, str] | None]], parsed: Iterable[_Parsed],
             report: IngestReport, progress: ProgressCallback | None,
             strict: bool = True) -> Iterator[tuple[str, _Parsed]]:
    """The parsed files that changed, by name, with their counts added to ``report``; a file
    that failed raises its InputError when ``strict``, else goes to ``report.files_skipped``.
    ``progress`` hears of each file handled (phase ``ingesting``, unit ``files``)."""
    report_progress(progress, "ingesting", 0, len(todo), "files")
    for done, ((path, name, _), result) in enumerate(zip(todo, parsed), 1):
        if result.failed:
            if strict:
                raise InputError(result.failed)
            report.files_skipped.append((str(path), _reason(result.failed, str(path))))
            report_progress(progress, "ingesting", done, len(todo), "files")
            continue
        if result.unchanged:
            report.files_unchanged += 1
        else:
            report.records += result.records_read
            report.evicted += result.evicted
            report.envelopes_stripped += result.envelopes_stripped
            report.skipped.extend(result.skipped)
            report.unread_times.extend(result.unread_times)
            report.notes.extend(result.notes)
            for record_type, count in result.ignored.items():
                report.ignored[record_type] = report.ignored.get(record_type, 0) + count
        report_progress(progress, "ingesting", done, len(todo), "files")
        if not result.unchanged:
            yield name, result


def _reason(message: str, name: str) -> str:
    """An InputError's message without the file name it starts with."""
    from .ingest.source import one_line

    prefix = one_line(name) + ":"
    if not message.startswith(prefix):
        return message
    rest = message[len(prefix):]
    line, sep, tail = rest.partition(": ")
    return f"line {line}: {tail}" if sep and line.isdigit() else rest.lstrip()


def _pointer_file(pointer: str) -> str:
    """The file a source pointer addresses (the pointer itself when it is none)."""
    from .ingest.pointers import parse_pointer

    try:
        return parse_pointer(pointer).path
    except InputError:
        return pointer


def _read_digest(data: bytes, format: str | None, item_budget: int | None, segment: str,
                 session: str | None, side: str = "") -> str:
    """What a watermark records of a file read: the digest of its bytes, and of the options that
    change what they give (a format forced, an item budget, a segment, a session told apart),
    so that a file read again with other options is parsed again (items an ``--item-budget``
    evicted come back under a larger one) while one read again as before is skipped. With the
    default options it is the bytes' digest alone, as watermarks were before options counted.
    ``side``: the digest of the files beside it that change what it gives (the export's
    ``users.json``, :mod:`~attention_cloud.ingest.side_files`), so adding or changing one reads
    it again."""
    digest = hashlib.sha256(data)
    if (format, item_budget, segment, session) != (None, None, "default", None):
        digest.update(b"\0" + json.dumps([format, item_budget, segment, session]).encode())
    if side:
        digest.update(b"\0side\0" + side.encode())
    return digest.hexdigest()[:32]


def _calls_held(digest: str) -> str:
    """The watermark digest of a read that held back the calls still waiting for a result
    (see :func:`_parse_one`): not that of the same bytes read whole, which makes them."""
    return hashlib.sha256(f"{digest}\0calls held".encode()).hexdigest()[:32]


def _parse_one(path: Path, name: str, known: tuple[int, str] | None, format: str | None,
               item_budget: int | None, segment: str,
               max_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
               settled: int | None = None,
               max_item_chars: int = DEFAULT_MAX_ITEM_CHARS,
               session: str | None = None, user_names: frozenset[str] = frozenset(),
               read_points: ReadPoints | None = None,
               elsewhere: tuple[str, ...] | None = None, again: bool = False) -> _Parsed:
    from .ingest.api import parse_source
    from .ingest.open_calls import is_unanswered_call
    from .ingest.side_files import side_files_digest
    from .ingest.source import read_path
    from .ingest.unfinished import finished_part

    try:
        source = read_path(path, max_bytes=max_bytes)
        # Written since it was quiet at ``settled`` bytes (grown on, or cut back and written
        # again: a half line may end it at any size): only its finished part is read.
        live = settled is not None and source.size_read != settled
        if live:
            finished = finished_part(source, format)
            if finished is None:  # nothing finished yet: nothing to do now
                return _Parsed(encoded=[], records_read=0, evicted=0, envelopes_stripped=0,
                               skipped=[], unchanged=True)
            source = finished
        source.elsewhere = _worker_elsewhere if elsewhere is None else elsewhere
        side = side_files_digest(path)
        size, digest = len(source.data), _read_digest(source.data, format, item_budget, segment,
                                                      session, side)
        if not again and (known == (size, digest)
                          or (live and known == (size, _calls_held(digest)))):
            return _Parsed(encoded=[], records_read=0, evicted=0, envelopes_stripped=0,
                           skipped=[], size=size, digest=known[1], unchanged=True)
        # a file read before is likely growing (an agent's own transcript): where its reading
        # is left is kept, not that of every file of a first ingest (a backfill)
        parsed = parse_source(source, format=format, session=session, item_budget=item_budget,
                              max_item_chars=max_item_chars, user_names=user_names,
                              read_points=read_points if known is not None and not again
                              else None)   # read again: whole, as the files beside it are now
        held: list[Any] = []
        if live and any(is_unanswered_call(item.relations) for item in parsed.items):
            # A call still running in a file still being written has no result yet, not none:
            # its result is likely the next thing written. Held back until the file is quiet
            # (its watermark says so, so that the whole read that follows makes them).
            held = [i for i in parsed.items if is_unanswered_call(i.relations)]
            parsed.items = [i for i in parsed.items if not is_unanswered_call(i.relations)]
            digest = _calls_held(digest)
        unwritten = [i.handle for i in (*parsed.evicted, *held)]
        regrown = _regrown(source.data, known, format, item_budget, segment, session, unwritten,
                           side)
        if again and known is not None:
            # read again after the file it resumes: what its first reading made of the copies
            # (items of its own session) gives way to this reading (the earlier file's items)
            regrown = (unwritten, source.data.count(b"\n") + (not source.data.endswith(b"\n")))
        reread = unwritten if known is not None and regrown is None else None
    except InputError as exc:  # the caller decides: abort the call (strict) or skip the file
        return _Parsed(encoded=[], records_read=0, evicted=0, envelopes_stripped=0, skipped=[],
                       failed=str(exc))
    encoded = [] if parsed.subagent else [encode_item(rec, name, segment) for rec in parsed.items]
    return _Parsed(encoded=encoded, pending=parsed.items if parsed.subagent else [],
                   subagent=parsed.subagent, launches=parsed.launches, ignored=parsed.ignored,
                   path=str(path), records_read=parsed.records_read, evicted=len(parsed.evicted),
                   envelopes_stripped=parsed.envelopes_stripped,
                   skipped=[(str(path), line, why) for line, why in parsed.skipped],
                   size=size, digest=digest,
                   unread_times=[(str(path), line, t) for line, t in parsed.unread_times],
                   notes=[(str(path), note) for note in parsed.notes], regrown=regrown,
                   reread=reread, named_roles=parsed.named_roles)


def _launches(batch: list[tuple[str, _Parsed]]) -> list[Term]:
    """``launch(Session, Agent, Goal)`` for each subagent a parent transcript of ``batch``
    launched, in each session its items belong to: a call whose result was never written
    names its agent only in ``progress`` records, so no result item carries the goal to the
    subagent's items stored before (journal_adopt_launches/2)."""
    out: list[Term] = []
    for _, parsed in batch:
        if not parsed.launches or parsed.subagent:
            continue
        sessions = sorted({decode_fields(wire)[2] for wire in parsed.encoded})
        out.extend(Term("launch", [Atom(session), Atom(agent), goal])
                   for session in sessions for agent, goal in parsed.launches.items() if goal)
    return out


def _mark(name: str, parsed: _Parsed, segment: str) -> Term:
    """The watermark term of a file written: ``mark(Source, Size, Digest)``, with
    ``regrown(Segment, Keep, LastLine)`` when its reading supersedes an earlier one's items, or
    ``reread(Segment, Keep)`` when it was read before and changed otherwise (the calls its
    reading answers supersede their reading without a result)."""
    args: list[Any] = [Atom(name), parsed.size, parsed.digest]
    if parsed.regrown is None and parsed.reread is None and parsed.replaces:
        keep = [Atom(wire_handle(wire)) for wire in parsed.encoded]
        args.append(Term("replaces", [[Atom(s) for s in parsed.replaces], keep]))
    elif parsed.regrown is not None:
        unwritten, last_line = parsed.regrown
        keep = [Atom(h) for h in {*map(wire_handle, parsed.encoded), *unwritten}]
        args.append(Term("regrown", [Atom(segment), keep, last_line]))
    elif parsed.reread is not None:
        keep = [Atom(h) for h in {*map(wire_handle, parsed.encoded), *parsed.reread}]
        args.append(Term("reread", [Atom(segment), keep]))
    return Term("mark", args)


def _regrown(data: bytes, known: tuple[int, str] | None, format: str | None,
             item_budget: int | None, segment: str, session: str | None,
             unwritten: list[str], side: str = "") -> tuple[list[str], int] | None:
    """When ``data`` is the file read before (``known``: its size and digest, same options)
    with more after it, ``(unwritten, last line)``: this reading of the whole supersedes the
    items of the earlier one it no longer gives (a turn that went on below its first line, a
    name that became a speaker when it spoke again; journal_supersede/5), except those it
    gives without writing (``unwritten``: evicted by an item budget, held back). Else None
    (first read, or a file edited or cut back: its earlier items stay)."""
    if known is None or len(data) <= known[0]:
        return None
    before = _read_digest(data[:known[0]], format, item_budget, segment, session, side)
    if known[1] not in (before, _calls_held(before)):
        return None
    return unwritten, data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def _parse_all(todo: list[tuple[Path, str, tuple[int, str] | None]], format: str | None,
               item_budget: int | None, segment: str,
               max_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
               open_tails: Mapping[str, int] | None = None,
               max_item_chars: int = DEFAULT_MAX_ITEM_CHARS,
               sessions: Mapping[str, str] | None = None,
               read_points: ReadPoints | None = None,
               elsewhere: tuple[str, ...] = (),
               again: frozenset[str] = frozenset()) -> Iterator[_Parsed]:
    """Parse files, yielding each as it is done, in order; large batches use one worker
    process per core (which keep parsing while the caller writes what they yielded). Of a
    file in ``open_tails`` grown past the size given there only the finished part is parsed
    (see :meth:`Memory.ingest`, ``unfinished``). A file read before in this process is read
    on from where it was left (``read_points``) when parsed here; workers read whole.
    ``elsewhere``: session files of other folders a resumed session's earlier part may be in;
    ``again``: names of files read again whatever their watermark says (their reading
    supersedes the last one's items).

    Workers are forked: they run only the pure-Python parser and leave through os._exit, so
    the embedded Prolog engine they inherit is never touched (a spawned worker would have to
    re-import the caller's __main__, which fails for ``python -`` and notebooks).
    """
    workers = min(os.cpu_count() or 1, 4, len(todo))
    if workers < 2 or sum(_file_size(path) for path, _, _ in todo) < PARALLEL_PARSE_BYTES:
        for path, name, known in todo:
            yield _parse_one(path, name, known, format, item_budget, segment, max_bytes,
                             (open_tails or {}).get(str(path)), max_item_chars,
                             (sessions or {}).get(name), read_points=read_points,
                             elsewhere=elsewhere, again=name in again)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # Workers run at a lower priority: the one process writing to Prolog is the serial part of
    # the pipeline, and on a busy machine it should not wait behind its own parsers.
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_parse_worker_start,
                               initargs=(WORKER_NICENESS, os.getpid(), elsewhere))
    try:
        yield from pool.map(_parse_one, *zip(*((p, n, k, format, item_budget, segment, max_bytes,
                                                (open_tails or {}).get(str(p)), max_item_chars,
                                                (sessions or {}).get(n), frozenset(), None, None,
                                                n in again)
                                               for p, n, k in todo)), chunksize=4)
    finally:
        # Also when the caller stops early (a failed write): files not yet parsed are dropped.
        pool.shutdown(wait=True, cancel_futures=True)


def writers_stamp(home: Path) -> tuple[tuple[int, int, int], ...]:
    """Inode, size and modification time of each file another process changes when it writes:
    the journal (a commit grows it, a compaction replaces it), the configuration, and what the
    vector store and the BM25 index committed (an ingest writes its items' BM25 entries after
    their journal batch). Equal stamps: nothing was committed in between."""
    stamps = []
    for path in _writers_files(home):
        try:
            st = os.stat(path)
            stamps.append((st.st_ino, st.st_size, st.st_mtime_ns))
        except FileNotFoundError:
            stamps.append((0, 0, 0))
    return tuple(stamps)


@functools.lru_cache(maxsize=8)
def _writers_files(home: Path) -> tuple[str, ...]:
    # every call of a long-open Memory stats these: paths built once (see writers_stamp)
    return tuple(str(home / name) for name in ("journal.pl", "config.json",
                                               "vectors/manifest.json", "lexical/committed.json"))


def current() -> "Memory | None":
    """The Memory open in this process, if any."""
    return _current if _current is not None and not _current._closed else None


def list_saved_rules(home: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """:meth:`Memory.rules_list` of ``home`` without opening it: the rules are files in its
    ``rules/`` and reading them needs Prolog, not the journal, whose loading (seconds for a
    large home) was most of what ``atc rules list`` spent. A missing home is a HomeError."""
    path = resolve_home(args.path("home", home, optional=True))
    require_home(path)
    check_not_foreign(path)
    with api_lock.held():
        return _saved_rules(get_prolog(), _rule_files_in(path / "rules"))


def _rule_files_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.pl")
                  if RULE_NAME.fullmatch(p.stem)) if folder.is_dir() else []


def _refuse_builtin_walk_names(name: str, shown: str, defined: list[Term]) -> None:
    """UsageError when a new rule defines ``W/2`` for a built-in walk ``W`` (entity_walk): a
    walk is taken by its name, the built-in first, so such a rule would never run. Checked when
    a rule is added only: a home already holding one still loads."""
    from .hydration import BUILTIN_WALKS

    for indicator in defined:
        walk, arity = str(indicator.args[0]), indicator.args[1]
        if walk in BUILTIN_WALKS and arity == 2:
            raise UsageError(f"rule {name} rejected: {shown} defines {walk}/2, the built-in "
                             f"walk's name (walk={walk} runs the built-in one, never this "
                             "rule): give the walk another name")


def _saved_rules(pl: Prolog, files: list[Path]) -> list[dict[str, Any]]:
    out = []
    for path in files:
        entry: dict[str, Any] = {"name": path.stem, "bytes": path.stat().st_size,
                                 "predicates": []}
        try:
            (preds,) = pl.once("atc_api:api_rule_predicate_texts", str(path),
                               path.read_text(encoding="utf-8"), Var())
            entry["predicates"] = [str(p) for p in preds]   # as writeq writes them
        except UnicodeDecodeError as exc:
            entry["error"] = f"{path}: not UTF-8 ({exc})"
        except PrologError as exc:
            entry["error"] = str(exc)
        out.append(entry)
    return out
