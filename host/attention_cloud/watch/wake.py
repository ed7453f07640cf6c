"""The watcher's wake-up: what its loop sleeps on, set by the observer's thread, by
:meth:`~.watcher.Watcher.stop` and by signal handlers.

A ``threading.Event`` cannot be set from a signal handler: Python runs the handler in the
main thread between two bytecodes, possibly while that thread is inside the event's own
``wait()`` or ``clear()`` holding its lock, and ``set()`` then waits forever for a lock its own
thread holds (a SIGTERM that lands there leaves ``atc watch`` hung instead of stopped). This
wake-up is a pipe: setting it writes a byte, which takes no lock; the loop sleeps in
``poll`` on the pipe's other end.
"""
from __future__ import annotations

import os
import select


class Wake:
    """``set()`` / ``wait(timeout)`` / ``clear()`` as ``threading.Event``'s, safe from signal
    handlers and from any thread. Its pipe is closed when it is collected, never before: a
    descriptor closed early could be reused by a file a late ``set()`` would then write to."""

    def __init__(self) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._poll = select.poll()  # not select.select: no limit on the descriptor's number
        self._poll.register(self._read, select.POLLIN)

    def set(self) -> None:
        """Wake the sleeper (now, or at its next :meth:`wait`)."""
        try:
            os.write(self._write, b"\0")
        except BlockingIOError:
            pass  # the pipe is full of wake-ups already: it is set

    def wait(self, timeout: float) -> bool:
        """Sleep until set or ``timeout`` seconds pass; True when set."""
        return bool(self._poll.poll(max(timeout, 0.0) * 1000))

    def clear(self) -> None:
        """Forget the wake-ups so far."""
        try:
            while os.read(self._read, 4096):
                pass
        except BlockingIOError:
            pass

    def __del__(self) -> None:
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass
