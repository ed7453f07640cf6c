"""Ctrl-C during a long Prolog call, on the pyswip backend.

SWI-Prolog runs embedded with ``--nosignals``, and a call into it is one ctypes call: Python's
SIGINT handler runs only once the call returns, so Ctrl-C on ``atc query "between(1, inf, X),
X < 0"`` took effect when the goal met its time limit (30 s later). :func:`forward_interrupts`
has the C-level handler Python installs write each signal to a pipe
(:func:`signal.set_wakeup_fd`); a thread reading it asks Prolog, while a call is running, to
handle SIGINT (``PL_thread_raise``) in the calling thread. There ``atc_api:interrupt_signal/1``
aborts a call running under the limits of a user goal or a frame (``atc query``, ``atc
hydrate``, a walk rule), as a limit does, so ``catch/3`` in user code cannot keep it going; any
other call (a journal batch) finishes, and the interrupt is Python's as before. The bridge then
raises KeyboardInterrupt in place of the call's error.

The CLI turns it on (a library embedding the engine keeps its own SIGINT handling and its own
wakeup fd: asyncio uses one). janus is not covered: its engine reads signals its own way.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Any

from .terms import Atom, Term, Var

_wanted = False
_installed = False


def want_forwarding() -> None:
    """Forward Ctrl-C into the Prolog calls of this process once the engine starts (the CLI)."""
    global _wanted
    _wanted = True


def forward_interrupts(pl: Any) -> bool:
    """Start forwarding SIGINT into ``pl``'s running calls when the process asked for it
    (:func:`want_forwarding`), the backend can (pyswip), this is the main thread, SIGINT has
    Python's default handler and no one else holds the wakeup fd. True when forwarding."""
    global _installed
    engine = pl.engine
    if (_installed or not _wanted or not hasattr(engine, "interrupt_call")
            or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        return _installed
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main thread of the main interpreter after all
        previous = None
    if previous != -1:  # someone else's, or none could be set: leave theirs in place
        if previous is not None:
            signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)
        return False
    pl.once("system:on_signal", Atom("int"), Var(),
            Term(":", [Atom("atc_api"), Atom("interrupt_signal")]))
    # on_signal/3 installed SWI-Prolog's own C handler for SIGINT: Python's goes back, so the
    # signal reaches Python (KeyboardInterrupt, the wakeup fd) and Prolog's table keeps the
    # handler PL_thread_raise calls.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=_watch, args=(read_end, engine), name="atc-interrupts",
                     daemon=True).start()
    _installed = True
    return True


def _watch(read_end: int, engine: Any) -> None:
    """Read the signals Python's handler wrote; hand each SIGINT to the running call."""
    while True:
        try:
            received = os.read(read_end, 64)
        except OSError:
            return
        if not received:
            return
        if signal.SIGINT in received:
            engine.interrupt_call(signal.SIGINT)
