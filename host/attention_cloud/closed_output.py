"""A reader that stops reading early (``atc query ... | head -1``): the command stops quietly.

Python ignores SIGPIPE, so a write to a pipe whose reader has left raises BrokenPipeError;
click's own handling of it exits 1 with nothing said, which a script under ``set -o pipefail``
reads as a failure of atc. The ``atc`` program (cli.py's group) instead stops at once with
status 0, as a reader who wanted only the first lines expects, and sends what is still
buffered to /dev/null so that Python's flush at exit does not fail a second time. An EPIPE
from anything else (a socket a server writes to) is no closed output and is raised as before.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import sys
from collections.abc import Iterator
from typing import TextIO


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
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
            os.close(devnull)
            silenced = True
    return silenced


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
