"""The watcher: follow transcript folders and ingest (and curate) what changes, for days.

One loop, in the main thread: it sleeps until an event, a deadline or a poll; notes what
changed (:mod:`.files`); and ingests the files that are due as one batch through
:meth:`Memory.ingest` (watermarks and upsert: a re-read file adds only its new items), then
curates what the batch added. Each batch takes the home's write lock and gives it back when
done (:meth:`Memory.release`), so ``atc curate`` and other writers wait at most one batch;
while another process holds the lock the watcher waits (and says so once).

Files still being written are read up to their last complete line; a file quiet for
``settle`` seconds is read whole. Rotated, truncated, rewritten and deleted files are new
states of a name (or no state), noticed by events or the next scan. In event mode a full walk
still runs every ``rescan`` seconds, so an event lost (a full inotify queue) delays a file but
never loses it; if events cannot be had, or the observer dies (watches ran out on a new
folder), the watcher polls every ``interval`` seconds and says why.

SIGTERM and SIGINT stop it (exit 0) at the next checkpoint of the batch in progress: after the
ingest's batch of files or the curate's step being written, each committed whole, which the
next run goes on from (a backfill's batch runs for minutes; a service manager kills what does
not stop within seconds). A second one stops it at once. SIGUSR1 logs where it stands (a
``status`` event).
"""
from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import AtcError, InputError, UsageError, WriterBusy, one_line, write_refused
from ..home import WatcherMark
from ..ingest.records import check_segment
from .events import EventFeed, ObserverFactory, start_events
from .files import FileTable
from .wake import Wake

#: The watcher's events (dicts with an ``event`` key) go to a callable of this type.
EventLog = Callable[[dict[str, Any]], None]


class _Stopped(KeyboardInterrupt):
    """Raised at a batch's checkpoint once a stop was asked for. A KeyboardInterrupt, as a
    Ctrl-C is: an ingest keeps the batches it wrote, a curate leaves its pending list for the
    next run to finish (a kill at that point would leave the same)."""


@dataclass
class WatchOptions:
    """How ``atc watch`` ingests and when (seconds throughout)."""

    format: str | None = None
    segment: str = "default"
    item_budget: int | None = None
    max_file_bytes: int | None = None
    curate: bool = True
    poll: bool = False          # poll even where events are available
    interval: float = 2.0       # between polls (polling mode)
    debounce: float = 0.5       # quiet time after a change before a file is read
    max_delay: float = 10.0     # a file written without pause is still read this often
    settle: float = 10.0        # after this long unchanged, an unfinished last line is read too
    rescan: float = 300.0       # full walk in event mode (a lost event delays, never loses)
    lock_retry: float = 0.5     # between tries while another process writes


@dataclass
class WatchTotals:
    """What a watcher did since it started."""

    batches: int = 0
    files: int = 0
    new: int = 0
    curated: int = 0
    errors: int = 0
    lock_seconds: list[float] = field(default_factory=list)  # per batch: write lock held

    def as_dict(self) -> dict[str, Any]:
        held = sorted(self.lock_seconds)
        return {"batches": self.batches, "files": self.files, "new": self.new,
                "curated": self.curated, "errors": self.errors,
                "lock_held_max_s": round(held[-1], 3) if held else 0.0,
                "lock_held_p50_s": round(held[len(held) // 2], 3) if held else 0.0}


def _now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _refuse_the_home(path: Path, home: Path | None) -> None:
    """A watch of the memory home itself (or of a folder in it) would watch nothing, silently,
    for as long as it ran: the home is left out of every walk. UsageError naming it."""
    if home is None:
        return
    try:
        inside = path.resolve().relative_to(Path(home).resolve())
    except (ValueError, OSError):
        return
    where = "this is the memory home itself" if inside == Path(".") else \
        f"this lies in the memory home {one_line(str(home))}"
    raise UsageError(f"{one_line(str(path))}: {where}; its files are no transcripts (watch the "
                     "folder the transcripts are in)")


class Watcher:
    """Follows ``paths`` and keeps ``mem`` up to date with them; :meth:`run` until stopped."""

    def __init__(self, mem: Any, paths: Iterable[str | Path], options: WatchOptions,
                 log: EventLog, *, progress: Any = None,
                 observer_factory: ObserverFactory | None = None,
                 reported: Iterable[tuple[str, str]] = ()) -> None:
        self.mem = mem
        self.paths = [Path(p) for p in paths]
        for path in self.paths:
            if not path.exists():
                raise InputError(f"{path}: no such file or directory")
            _refuse_the_home(path, getattr(mem, "home", None))
        # A bad segment fails now, in one line: every batch would refuse it, and the loop
        # retries a failed batch for as long as it runs.
        check_segment(options.segment)
        self.options = options
        self.log = log
        self.progress = progress              # hears of the first batch (the backfill)
        self.table = FileTable(self.paths, skip=getattr(mem, "home", None))
        self.totals = WatchTotals()
        self.wake = Wake()   # not a threading.Event: signal handlers set it (see .wake)
        self.feed: EventFeed | None = None
        self.mode = "polling"
        self._factory = observer_factory
        self._stop: str | None = None
        self._status = False
        self._reported: dict[str, str] = dict(reported)   # path -> reason already logged
        self._noted: dict[str, set[str]] = {}              # path -> ingest notes logged
        self._backoff = 0.0
        self._resume_at = 0.0
        self._curated_once = False

    # -- control (safe from signal handlers) ---------------------------------------------------
    def stop(self, why: str = "stopped") -> None:
        """Stop at the next checkpoint of the batch in progress, or before the next batch."""
        self._stop = why
        self.wake.set()

    def status(self) -> None:
        """Log a ``status`` event at the next turn of the loop."""
        self._status = True
        self.wake.set()

    def install_signal_handlers(self) -> None:
        """SIGTERM/SIGINT: stop at the batch's next checkpoint (a second one: at once);
        SIGUSR1: status."""

        def on_stop(signum: int, _frame: Any) -> None:
            if self._stop is not None:
                raise KeyboardInterrupt
            self.stop(signal.Signals(signum).name)

        signal.signal(signal.SIGTERM, on_stop)
        signal.signal(signal.SIGINT, on_stop)
        signal.signal(signal.SIGUSR1, lambda *_: self.status())

    # -- the loop -------------------------------------------------------------------------------
    def run(self) -> WatchTotals:
        """Watch until :meth:`stop`; returns the totals (also logged as a ``stop`` event).
        HomeError, before anything is read, when another watcher follows the home."""
        # One watcher a home: a second one's batches would race the first's, and other writers
        # wait only while the mark is held (refused here before anything is read or written).
        mark = WatcherMark(self.mem.home)
        dead = mark.claim()
        try:
            return self._run(mark, dead)
        finally:
            mark.release()

    def _run(self, mark: WatcherMark, dead: int | None) -> WatchTotals:
        o = self.options
        why = "--poll" if o.poll else ""
        if not o.poll:
            found = start_events(self.paths, self.wake, self._factory)
            if isinstance(found, EventFeed):
                self.feed, self.mode = found, "events"
            else:
                why = found
        self.log({"event": "start", "time": _now_iso(), "paths": [str(p) for p in self.paths],
                  "mode": self.mode, **({"why": why} if why else {})})
        if dead is not None:
            self.log({"event": "took_over", "time": _now_iso(), "pid": dead,
                      "path": str(mark.path)})
        started = time.monotonic()
        next_scan = started                     # the first walk finds every file
        try:
            while self._stop is None:
                now = time.monotonic()
                if now >= next_scan:
                    self.table.scan(now)
                    next_scan = now + (o.rescan if self.feed else o.interval)
                self._take_events(now)
                if self.feed is not None and not self.feed.alive:
                    self._fall_back("the inotify observer stopped (watches ran out?)")
                    next_scan = now
                    continue
                self._log_problems()
                due = self.table.due(now, o.debounce, o.max_delay, o.settle)
                if due and now >= self._resume_at:
                    self._batch(due)
                    continue
                if self._status:
                    self._status = False
                    # "followed": files followed now; the totals' "files" counts reads
                    self.log({"event": "status", "time": _now_iso(), "mode": self.mode,
                              "followed": len(self.table.files),
                              "pending": self.table.pending(), **self.totals.as_dict()})
                if due:                         # pausing after an error
                    wake_at = min(next_scan, self._resume_at)
                else:
                    deadline = self.table.next_deadline(o.debounce, o.max_delay, o.settle)
                    wake_at = next_scan if deadline is None else min(next_scan, deadline)
                self.wake.wait(min(max(wake_at - now, 0.01), 1.0))
                self.wake.clear()
        finally:
            if self.feed is not None:
                self.feed.stop()
        self.log({"event": "stop", "time": _now_iso(), "why": self._stop,
                  "seconds": round(time.monotonic() - started, 1), **self.totals.as_dict()})
        return self.totals

    def _take_events(self, now: float) -> None:
        if self.feed is None:
            return
        paths, rescan = self.feed.drain()
        if rescan:
            self.table.scan(now)
        else:
            self.table.check([p for p in paths if self.table.watched(p)], now)

    def _fall_back(self, why: str) -> None:
        if self.feed is not None:
            self.feed.stop()
        self.feed, self.mode = None, "polling"
        self.log({"event": "polling", "time": _now_iso(), "why": why})

    def _log_problems(self) -> None:
        for path, reason in self.table.problems.items():
            self._report_skip(str(path), reason)

    def _report_skip(self, path: str, reason: str) -> bool:
        if self._reported.get(path) == reason:
            return False
        self._reported[path] = reason
        self.log({"event": "skipped", "time": _now_iso(), "path": path, "reason": reason})
        return True

    # -- one batch ------------------------------------------------------------------------------
    def _batch(self, due: list[Path]) -> None:
        o = self.options
        if not self._acquire():
            return                              # stopped while another process wrote
        began = time.monotonic()
        states = {p: self.table.files[p].state for p in due}
        hold = self.table.unsettled(due, began, o.settle)
        # Read whole only what was quiet: a file written again since it settled (the write
        # not noticed yet) is held back as a file being written.
        finished = {p: 0 if p in hold else states[p][2] for p in due}
        curated = None
        try:
            try:
                report = self._ingest(due, finished)
                if o.curate and (report.new or not self._curated_once):
                    curated = self.mem.curate(progress=self._checkpoints(None))
                    self._curated_once = True
            finally:
                # the writer's tables, not kept between batches; the batch's own error, if
                # any, is the one said
                refused = self._give_back()
            if refused is not None:
                raise refused                   # the indexes' last writes: the batch failed
        except _Stopped:
            return                              # the loop ends; the next run goes on from here
        except Exception as exc:
            if not (isinstance(exc, AtcError) or write_refused(exc)):
                raise
            self.totals.errors += 1
            if o.curate:  # the retry curates even if its ingest finds nothing new then
                self._curated_once = False
            self._backoff = min(max(self._backoff * 2, 1.0), 60.0)
            self._resume_at = time.monotonic() + self._backoff
            # a write the file system refused (the journal's) is said as the CLI says it,
            # not as a Prolog stream's address: "write/2: I/O error in write on stream <stream>(0x…)"
            self.log({"event": "error", "time": _now_iso(),
                      "message": write_refused(exc) or one_line(exc, "cli"),
                      "retry_in_s": self._backoff})
            return                              # the files stay due: tried again after the pause
        finally:
            held = time.monotonic() - began
            self.totals.lock_seconds.append(held)
            # Leave the lock free a while before the next batch, so that another writer
            # waiting for it (they poll every 50 ms) gets in even while files keep changing.
            self._resume_at = max(self._resume_at, time.monotonic() + max(0.25, held / 2))
            self.mem.give_back_memory()
            if len(self.totals.lock_seconds) > 10_000:   # bounded over days
                del self.totals.lock_seconds[:5_000]
        self._backoff = 0.0
        for path in due:
            self.table.ingested(path, states[path], path in hold)  # read whole once settled
        fresh = [(f, r) for f, r in report.files_skipped if self._reported.get(f) != r]
        for file, reason in fresh:
            self._reported[file] = reason
        for file in [f for f in self._reported if Path(f) in states]:
            if all(f != file for f, _ in report.files_skipped):
                del self._reported[file]    # ingested now: a later failure is news again
        report.files_skipped = fresh
        notes = self._fresh_notes(report.notes, states)
        self.totals.batches += 1
        self.totals.files += len(due)
        self.totals.new += report.new
        self.totals.curated += curated.items if curated is not None else 0
        self.log({"event": "batch", "time": _now_iso(), "files": len(due), "new": report.new,
                  "unchanged": report.unchanged, "superseded": report.superseded,
                  "updated": report.updated, "lines_skipped": len(report.skipped),
                  "files_skipped": [{"file": f, "reason": r} for f, r in fresh],
                  "notes": [{"file": f, "note": n} for f, n in notes],
                  "held": len(hold), "curated": curated.items if curated is not None else 0,
                  "seconds": round(time.monotonic() - began, 3),
                  "ingested": [{"path": str(p), "size": states[p][2], "whole": p not in hold}
                               for p in due],
                  "report": report, "curate_report": curated})

    def _give_back(self) -> OSError | None:
        """Give the write lock back after a batch (its indexes closed). A write the file
        system refused there (a full disk met first by an index's own write) is returned, not
        raised: the Memory gave the lock back all the same and let go of what the indexes held
        unwritten, and the batch is retried like one whose journal write was refused."""
        try:
            self.mem.release(keep_indexes=False)
        except OSError as exc:
            if not write_refused(exc):
                raise
            return exc
        return None

    def _fresh_notes(self, notes: list[tuple[str, str]],
                     read: dict[Path, Any]) -> list[tuple[str, str]]:
        """The ingest notes (how a file was read: its order of day and month, items that
        stay in another segment, items without a time) not said of that file before: a file
        read again batch after batch says each once, and again when it changes."""
        said = {f: n for f, n in self._noted.items() if Path(f) not in read}
        fresh = []
        for file, note in notes:
            if note not in self._noted.get(file, ()):
                fresh.append((file, note))
            said.setdefault(file, set()).add(note)
        self._noted = said                  # bounded: the notes of each file's latest read
        return fresh

    def _checkpoints(self, progress: Any) -> Callable[[Any], None]:
        """The ``progress`` callable of a batch's ingest or curate, which hears of each step
        between writes (a file parsed, a curate batch written, a session's arcs, echoes): once
        a stop was asked for, it ends the batch there (``_Stopped``); else it passes the step
        on to ``progress`` (the backfill's progress bar), if any."""
        def step(done: Any) -> None:
            if self._stop is not None:
                raise _Stopped(self._stop)
            if progress is not None:
                progress(done)
        return step

    def _acquire(self) -> bool:
        """Take the write lock, waiting while another process writes; False when stopped."""
        said = False
        while True:
            try:
                self.mem.acquire(wait=0)       # not blocking: a stop is noticed while waiting
                return True
            except WriterBusy as exc:
                if not said:   # who holds it; not the advice to run again: this waits itself
                    self.log({"event": "waiting", "time": _now_iso(),
                              "why": exc.who})
                    said = True
            if self._stop is not None:
                return False
            self.wake.wait(self.options.lock_retry)
            self.wake.clear()

    def _ingest(self, due: list[Path], finished: dict[Path, int]) -> Any:
        o = self.options
        kwargs = {"format": o.format, "segment": o.segment, "item_budget": o.item_budget,
                  "strict": False, "max_file_bytes": o.max_file_bytes}
        first = self.totals.batches == 0
        for attempt in range(3):
            present = [p for p in due if p.exists()]
            if not present:
                from ..memory import IngestReport

                return IngestReport()
            try:
                return self.mem.ingest(present, unfinished=finished, progress=self._checkpoints(
                    self.progress if first else None), **kwargs)
            except InputError as exc:       # a file went away between the walk and the read
                if attempt == 2 or all(p.exists() for p in present):
                    raise exc
        raise AssertionError("unreachable")
