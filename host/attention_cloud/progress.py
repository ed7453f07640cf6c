"""Progress of long calls: the event the library reports, and how the command line shows it.

Library functions that take a while (``Memory.ingest``, ``Memory.curate``,
``run_attention_benchmark``) take an optional ``progress`` callback and call it with a
:class:`Progress` after every batch: the phase, how many units of it are done, and how many
there are (when known). They never print. The command line renders the events with
:class:`ProgressDisplay`: on a terminal a ``rich`` bar per phase (done/total, rate, time left);
otherwise (a pipe, a CI log) one plain line per phase when it ends, so logs stay short. Both go
to stderr: what a command prints on stdout (JSON reports included) stays parseable.

Example::

    with ProgressDisplay() as show:
        mem.curate(progress=show)
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import IO, Any, Callable

__all__ = ["Progress", "ProgressCallback", "ProgressDisplay"]


@dataclass(frozen=True)
class Progress:
    """``done`` of ``total`` ``unit`` in ``phase`` (``total`` None: not known in advance)."""

    phase: str
    done: int
    total: int | None = None
    unit: str = "items"


#: What a library function calls after each batch.
ProgressCallback = Callable[[Progress], None]


def report(progress: ProgressCallback | None, phase: str, done: int, total: int | None = None,
           unit: str = "items") -> None:
    """Call ``progress`` (when given) with one event."""
    if progress is not None:
        progress(Progress(phase, done, total, unit))


class ProgressDisplay:
    """Renders :class:`Progress` events on ``file`` (default: stderr); call it with each event.

    ``live`` (default: whether ``file`` is a terminal) picks the ``rich`` bars; otherwise a
    phase prints one line when the next phase starts or the display closes::

        curating items: 3000/3000 items in 4.2 s (714 items/s)
    """

    def __init__(self, file: IO[str] | None = None, *, live: bool | None = None) -> None:
        self.file = file if file is not None else sys.stderr
        isatty = getattr(self.file, "isatty", None)
        self.live = bool(isatty and isatty()) if live is None else live
        self._bars: Any = None
        self._tasks: dict[str, Any] = {}
        self._current: Progress | None = None
        self._started = 0.0

    def __enter__(self) -> "ProgressDisplay":
        if self.live:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bars, TaskProgressColumn,
                                       TextColumn, TimeElapsedColumn, TimeRemainingColumn)

            self._bars = Bars(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                              TextColumn("{task.fields[unit]}"), TaskProgressColumn(),
                              TextColumn("{task.fields[rate]}"), TextColumn("elapsed"),
                              TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                              console=Console(file=self.file), transient=False)
            self._bars.start()
        return self

    def __call__(self, event: Progress) -> None:
        if self._current is None or event.phase != self._current.phase:
            self._end_phase()
            self._started = time.monotonic()
        self._current = event
        if self._bars is not None:
            task = self._tasks.get(event.phase)
            if task is None:
                task = self._tasks[event.phase] = self._bars.add_task(
                    event.phase, total=event.total, unit=event.unit, rate="")
            self._bars.update(task, completed=event.done, total=event.total,
                              rate=self._rate(event))

    def _rate(self, event: Progress) -> str:
        elapsed = time.monotonic() - self._started
        return f"{event.done / elapsed:,.0f} {event.unit}/s" if elapsed > 0 and event.done else ""

    def _end_phase(self) -> None:
        event = self._current
        if event is None or self._bars is not None:
            return
        elapsed = time.monotonic() - self._started
        count = f"{event.done}/{event.total}" if event.total is not None else f"{event.done}"
        rate = f" ({event.done / elapsed:,.0f} {event.unit}/s)" if elapsed > 0 and event.done else ""
        print(f"{event.phase}: {count} {event.unit} in {elapsed:.1f} s{rate}", file=self.file, flush=True)

    def close(self, *, failed: bool = False) -> None:
        """Print the last phase's line (none when the call ``failed``: its error is the one
        line to read), or stop the bars."""
        if not failed:
            self._end_phase()
        self._current = None
        if self._bars is not None:
            self._bars.stop()
            self._bars = None

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(failed=kind is not None)
