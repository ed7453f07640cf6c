"""A reader that stops reading early (``atc query ... | head -1``): the work goes on, quietly.

Python ignores SIGPIPE, so a write to a pipe whose reader has left raises BrokenPipeError;
click's own handling of it exits 1 with nothing said, which a script under ``set -o pipefail``
reads as a failure of atc. Stopping at that write instead, with status 0, cut work short and
said it succeeded: ``atc curate 2>&1 | head -1`` stopped after its first phase's progress line,
its arcs, rollups and cells never built. So the ``atc`` program writes its standard streams
through files that, once their reader has gone, point the stream at /dev/null and take every
later write (:func:`keep_working_when_output_closes`): the command finishes what it was asked
to do and exits with the status its work earned, its output past the reader's leaving dropped.
A command that follows until stopped (``atc watch``) asks to be stopped instead
(:func:`stop_when_output_closes`), and stops with status 0, as the group's
:func:`stopping_quietly_when_output_closes` did for every command before. An EPIPE from
anything else (a socket a server writes to) is no closed output and is raised as before.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import select
import sys
from collections.abc import Iterator
from typing import Any, TextIO


@contextlib.contextmanager
def stopping_quietly_when_output_closes() -> Iterator[None]:
    """Run the body; a BrokenPipeError from stdout or stderr, whose reader has gone, becomes a
    quiet ``SystemExit(0)``."""
    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EPIPE or not silence_closed_outputs():
            raise
        raise SystemExit(0) from None


#: Whether a write whose reader has gone is taken (True) or raised, to stop the command.
_work_goes_on = True


class _OutputOutlivingItsReader(io.FileIO):
    """A standard stream's file that, once its reader has gone, points the stream at /dev/null
    and takes the write, so that the command's work goes on (see the module docstring)."""

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            if not _work_goes_on:
                raise
            _point_at_devnull(self.fileno())
            return memoryview(data).nbytes


def keep_working_when_output_closes() -> None:
    """Write stdout and stderr, from now on, through files that drop their output once its
    reader has gone rather than raise: a command's work is never cut short by a reader that
    stopped early. Streams with no file descriptor (a test runner's) are left as they are."""
    sys.stdout = _outliving_its_reader(sys.stdout)  # type: ignore[assignment]
    sys.stderr = _outliving_its_reader(sys.stderr)  # type: ignore[assignment]


def stop_when_output_closes() -> None:
    """A command that follows until stopped (``atc watch``): a reader that stopped reading its
    output stops it (quietly, status 0: :func:`stopping_quietly_when_output_closes`)."""
    global _work_goes_on
    _work_goes_on = False


def _outliving_its_reader(stream: TextIO | None) -> TextIO | None:
    fd = _fd_of(stream)
    if stream is None or fd is None or not isinstance(stream, io.TextIOWrapper):
        return stream
    stream.flush()
    return io.TextIOWrapper(io.BufferedWriter(_OutputOutlivingItsReader(fd, "w", closefd=False)),
                            encoding=stream.encoding, errors=stream.errors,
                            line_buffering=stream.line_buffering,
                            write_through=stream.write_through)


def flush_quietly() -> None:
    """Flush stdout and stderr at the end of a run; one whose reader has gone is silenced
    rather than failing at the interpreter's own flush (exit 120, "Exception ignored")."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue                # no console at all (pythonw): nothing to flush
        try:
            stream.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise
            silence_closed_outputs()
        except ValueError:
            pass                    # already closed by the program: nothing left to flush


def silence_closed_outputs() -> bool:
    """Point stdout and stderr, whichever has lost its reader, at /dev/null; True when one had."""
    silenced = False
    for stream in (sys.stdout, sys.stderr):
        fd = _fd_of(stream)
        if fd is not None and _reader_gone(fd):
            _point_at_devnull(fd)
            silenced = True
    return silenced


def _point_at_devnull(fd: int) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _fd_of(stream: TextIO | None) -> int | None:
    try:
        return stream.fileno() if stream is not None else None
    except (AttributeError, OSError, ValueError):
        return None                 # a stream in memory (a test runner's): no pipe to lose


def _reader_gone(fd: int) -> bool:
    """True when ``fd`` is a pipe or socket whose other end has closed: poll reports an error
    (Linux and the BSDs report POLLERR for a pipe without readers) or a hang-up."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(mask & (select.POLLERR | select.POLLHUP) for _fd, mask in poller.poll(0))
