"""One Memory for a long-running process (the MCP server, the prompt hook's recall server).

A process that lives for days beside ``atc ingest``, ``atc curate`` and the capture hooks must
neither answer from a stale view nor keep other writers out. :class:`MemoryHost` opens memory
lazily and follows other writers without reopening: when the journal grew (another process
committed) the new batches are replayed (:meth:`~attention_cloud.Memory.refresh`), when the
BM25 index committed entries (an ingest writes them after its journal batch) it reads them, and when
the vector store changed (a curate, ``atc curate --reembed``) the indexes are reopened on use;
a compacted journal (an erasure) or a changed configuration opens memory afresh. After a write
it gives the write lock back at once, so the lock is held only while writing.
"""
from __future__ import annotations

import os
from typing import Any


class MemoryHost:
    """The process's one Memory: opened lazily, caught up when others committed, reopened
    after an erasure or a configuration change; the write lock given back after every write."""

    def __init__(self, home: str | os.PathLike[str] | None) -> None:
        from ..home import resolve_home

        self.home = resolve_home(home)
        self._mem: Any = None
        self._seen: tuple[tuple[int, int, int], ...] | None = None

    def _stamp(self) -> tuple[tuple[int, int, int], ...]:
        """What writers change (see :func:`~attention_cloud.memory.writers_stamp`): the
        journal, the configuration, the vector store's and the BM25 index's commits."""
        from ..memory import writers_stamp

        return writers_stamp(self.home)

    def memory(self, *, create: bool = False) -> Any:
        """The open Memory, fresh as of the journal on disk."""
        from ..attention.controller import ensure_loaded
        from ..bridge import get_prolog
        from ..memory import Memory

        stamp = self._stamp()
        if self._mem is not None and not self._mem._closed and stamp != self._seen:
            # a new commit to the journal is replayed (no reopen: ~1.7 s at 100k items); a
            # compacted journal (an erasure) or a changed configuration needs a fresh open
            if stamp[1] == self._seen[1] and self._mem.refresh():
                self._seen = stamp
            else:
                self.close()
        if self._mem is not None and self._mem._closed:
            self.close()
        if self._mem is None:
            ensure_loaded(get_prolog())      # attention rules before the journal replays
            self._mem = Memory.open(self.home, create=create)
            self._seen = stamp
        return self._mem

    def wrote(self) -> None:
        """After a write: give the write lock back, memory staying loaded (the next call
        catches up with whatever others commit meanwhile)."""
        if self._mem is not None and not self._mem._closed:
            self._mem.release()

    def remove_home(self) -> None:
        """Close memory and remove the home: what a call that made the home and then failed
        does, so that a failed call leaves nothing behind (the caller held the write lock
        from the home's making to here, so no other process wrote to it)."""
        import shutil

        self.close()
        shutil.rmtree(self.home, ignore_errors=True)

    def close(self) -> None:
        """Close memory (releasing the write lock if a write took it); the next call reopens."""
        if self._mem is not None:
            try:
                self._mem.close()
            finally:
                self._mem = None
                self._seen = None
