"""Whether this process puts off one-time set-up costs until they have paid for themselves.

Some work has a faster path that costs something once to set up: onnxruntime converts float16
vector rows ~4-13x faster than numpy, but loading it costs ~0.15 s of CPU
(``embed/half_floats.py``), while one frame's rows take numpy a few milliseconds. A program
that keeps a Memory open pays such a cost at first use and gains from it for the rest of its
life; a process that runs one command and ends (every ``atc`` process: a hook on each prompt)
would pay it for a gain it never sees. The command line calls :func:`defer`, and a module with
such a set-up then takes its faster path only once the work it did the slow way has cost about
as much as the set-up would have: a process that turns out to live long (``atc mcp``, the warm
recall server, a large curation) gets there after its first frames, having paid at most about
twice what the better choice would have cost.

Contents:
    defer     -- put off one-time set-up costs in this process (the command line)
    deferred  -- whether they are put off
"""
from __future__ import annotations

__all__ = ["defer", "deferred"]

_deferred = False


def defer() -> None:
    """Put off one-time set-up costs in this process until they have paid for themselves."""
    global _deferred
    _deferred = True


def deferred() -> bool:
    """Whether :func:`defer` was called in this process."""
    return _deferred
