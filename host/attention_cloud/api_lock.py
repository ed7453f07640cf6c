"""One lock for the public :class:`~attention_cloud.memory.Memory` API.

A program embeds one Memory and calls it from wherever its work runs: a web server's thread
pool, ``asyncio.to_thread``, a background writer beside request handlers. A call is many steps
(take the home's write lock, write a batch, index it, give the lock back; open the indexes on
first use), and the engine's own lock only keeps two threads out of Prolog at once, not out of
each other's steps: two threads remembering at once took the home's lock twice (the second saw
"another process is writing"), renamed each other's index files and opened the vector store
twice. So every public call holds this one re-entrant lock: calls from several threads run one
at a time, in full, and a call made inside another (``remember`` runs ``curate``) goes on.
The functions of :mod:`attention_cloud.sharing` and :mod:`attention_cloud.cells` that take the
Memory first hold it too, as do the attention Controller's calls: a grantee's query notes the records it read in the engine and its
audit entry reads them back, so two reads at once logged each other's records.

A fork waits for the call in progress, if another thread is in one, to end: a process forked
while a thread was inside a call (gunicorn's workers forked from a preloaded app whose
background thread was framing) inherited the engine mid-call, its locks held by a thread that
does not exist there, and hung on its first call. The child gets a fresh lock.

The outermost call of a Memory first follows what other processes committed since it last
looked (:meth:`Memory._follow_writers`: a ``stat`` of four files when nothing changed), so no
read answers from a view an erasure, a revoked grant or a label elsewhere has made stale. Only
the outermost: a call made inside another reads the state its caller began with.
"""
from __future__ import annotations

import contextlib
import functools
import os
import threading
from typing import Any, Callable, Iterator, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

_lock = threading.RLock()
_depth = 0                      # calls in progress on the thread holding _lock

#: Methods that do not follow other writers first: ``close`` ends the Memory, ``stale`` says
#: whether the view is stale (following would make it never so), ``refresh`` follows itself.
_NOT_FOLLOWING = frozenset({"close", "stale", "refresh"})


def _before_fork() -> None:
    _lock.acquire()             # re-entrant: a call that forks (ingest's parsers) goes on


def _after_fork_in_parent() -> None:
    _lock.release()


def _fresh_lock() -> None:
    global _lock, _depth
    _lock = threading.RLock()
    _depth = 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_fresh_lock)


def serialised(method: _F) -> _F:
    """``method`` (or a function whose first argument is the Memory) run under the API lock,
    after its Memory took stock of a fork (see
    :meth:`Memory._after_fork`) when the process is not the one that opened it. A closed
    Memory refuses it with a UsageError (``close`` itself excepted: closing twice is fine),
    also where the method needs no Prolog (``rules_remove`` deleted a saved rule). The
    outermost call first takes in what other processes committed (see the module doc)."""
    refuses_closed = method.__name__ != "close"
    follows = method.__name__ not in _NOT_FOLLOWING

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with _lock:
            if self._pid != os.getpid():
                self._after_fork()
            if refuses_closed:
                self.pl  # noqa: B018 - the property raises UsageError once closed
            with entered(self if follows else None):
                return method(self, *args, **kwargs)

    return call  # type: ignore[return-value]


@contextlib.contextmanager
def entered(memory: Any) -> Iterator[None]:
    """Hold the API lock for a call; when it is the outermost call and ``memory`` (a Memory)
    is given, that Memory first takes in what other processes committed (see the module doc).
    For readers outside :func:`serialised` (the attention Controller's reads)."""
    global _depth
    with _lock:
        _depth += 1
        try:
            if memory is not None and _depth == 1:
                memory._follow_writers()
            yield
        finally:
            _depth -= 1


def held() -> Any:
    """The API lock itself, for a classmethod (``Memory.open``) that has no Memory yet."""
    return _lock
