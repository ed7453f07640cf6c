"""Many reads at scattered offsets of one file in one system call (Linux native AIO).

A 100k-item frame reads ~650 vector rows of 1 KiB at scattered offsets of the vector log, most
of them the IVF candidates it re-ranks: one ``preadv`` each, ~1.3-2 µs a row of which most is
entering and leaving the kernel (BENCHMARKS.md, "Rows read in one system call"). Linux's native
AIO takes a batch of reads at any offsets in one ``io_submit``; for a file opened without
``O_DIRECT`` the kernel performs each read from the page cache (or the disk) during that call,
and ``io_getevents`` only collects how many bytes each read got. The same bytes land in the
same places as with ``preadv``; only the number of system calls changes.

The calls are made through ``syscall(2)`` (glibc has no wrapper and libaio is not a
dependency), so only where their numbers are known: Linux on x86-64 and on 64-bit ARM. Anywhere
else, or where the kernel refuses (a seccomp filter, ``fs.aio-max-nr`` reached),
:func:`read_scattered` answers False and the caller reads one stretch at a time as before.

Contents:
    read_scattered, available
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
import threading

import numpy as np

__all__ = ["read_scattered", "available"]

#: syscall numbers of io_setup, io_submit and io_getevents, by machine (Linux only).
_SYSCALLS = {"x86_64": (206, 209, 208), "aarch64": (0, 2, 4)}
#: Reads in flight at once: a batch larger than this is submitted in parts. Small, since each
#: process's context takes this many of the system's ``fs.aio-max-nr`` (65,536 by default)
#: for its life: a frame's ~650 reads then cost three calls, not one.
_DEPTH = 256
_PREAD = 0  # IOCB_CMD_PREAD

#: ``struct iocb`` of linux/aio_abi.h (little-endian layout: both machines above are).
_IOCB = np.dtype([("data", "<u8"), ("key", "<u4"), ("rw_flags", "<i4"), ("opcode", "<u2"),
                  ("reqprio", "<i2"), ("fildes", "<u4"), ("buf", "<u8"), ("nbytes", "<u8"),
                  ("offset", "<i8"), ("reserved2", "<u8"), ("flags", "<u4"), ("resfd", "<u4")])
#: ``struct io_event``.
_EVENT = np.dtype([("data", "<u8"), ("obj", "<u8"), ("res", "<i8"), ("res2", "<i8")])

_lock = threading.Lock()
#: libc, numbers, ctx, pid of this process's context, its batch arrays; off: True once refused
_state: dict[str, object] = {}


class _Batch:
    """The arrays a batch of up to ``_DEPTH`` reads is submitted and reaped through, made once
    per process (under ``_lock``, so one batch at a time): the control blocks with the fields
    every read shares already set (the read's opcode, its place in the batch as its ``data``),
    the pointers to them that ``io_submit`` takes, and the completions. Made anew per batch
    they cost ~0.3 ms of numpy's a 100k home's warm frame, a tenth of its reads' time."""

    def __init__(self) -> None:
        self.blocks = np.zeros(_DEPTH, dtype=_IOCB)
        self.blocks["data"] = np.arange(_DEPTH, dtype=np.uint64)
        self.blocks["opcode"] = _PREAD
        self.pointers = self.blocks.ctypes.data + np.arange(_DEPTH, dtype=np.uint64) * _IOCB.itemsize
        self.events = np.zeros(_DEPTH, dtype=_EVENT)
        self.now = (ctypes.c_long * 2)(0, 0)  # struct timespec {0, 0}: do not wait


def _context() -> tuple | None:
    """(libc, syscall numbers, context) of this process, set up on first use; None where
    native AIO is not to be had. A forked child sets up its own (contexts are per process)."""
    if _state.get("off"):
        return None
    if _state.get("pid") == os.getpid():
        return _state["libc"], _state["numbers"], _state["ctx"]  # type: ignore[return-value]
    numbers = (_SYSCALLS.get(platform.machine())
               if sys.platform.startswith("linux") and sys.maxsize > 2**32 else None)
    if numbers is None:
        _state["off"] = True
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
    except (OSError, AttributeError):
        _state["off"] = True
        return None
    ctx = ctypes.c_ulong(0)
    if libc.syscall(ctypes.c_long(numbers[0]), ctypes.c_long(_DEPTH), ctypes.byref(ctx)) != 0:
        _state["off"] = True  # ENOSYS, EPERM (seccomp), EAGAIN (aio-max-nr): read one by one
        return None
    _state.update(libc=libc, numbers=numbers, ctx=ctx, pid=os.getpid(), batch=_Batch())
    return libc, numbers, ctx


def available() -> bool:
    """Whether batches are read with native AIO in this process."""
    with _lock:
        return _context() is not None


def read_scattered(fd: int, buffer: np.ndarray, offsets: np.ndarray, sizes: np.ndarray,
                   places: np.ndarray) -> bool | int:
    """Read ``sizes[i]`` bytes at file offset ``offsets[i]`` of ``fd`` into ``buffer`` (a
    C-contiguous array) at byte ``places[i]``, for every ``i``, in batches of one system call.
    Returns False when native AIO is not available or refused the batch (read them
    otherwise: some may have been read already, which reading again does not change), else
    the index of the first read that got fewer bytes than asked (the file ends before it),
    or ``len(offsets)`` when every read was whole.

    Raises OSError when the kernel fails a read (an I/O error)."""
    count = len(offsets)
    with _lock:
        setup = _context()
        if setup is None:
            return False
        libc, (_, submit_nr, getevents_nr), ctx = setup
        batch: _Batch = _state["batch"]  # type: ignore[assignment]
        _drain(libc, getevents_nr, ctx, batch)
        base = np.uint64(buffer.ctypes.data)
        blocks = batch.blocks
        blocks["fildes"] = fd
        for first in range(0, count, _DEPTH):
            part = slice(first, min(count, first + _DEPTH))
            n = part.stop - part.start
            blocks["buf"][:n] = np.asarray(places[part], dtype=np.uint64) + base
            blocks["nbytes"][:n] = sizes[part]
            blocks["offset"][:n] = offsets[part]
            events = batch.events[:n]
            submitted = 0
            while submitted < n:
                got = libc.syscall(ctypes.c_long(submit_nr), ctx, ctypes.c_long(n - submitted),
                                   ctypes.c_void_p(batch.pointers.ctypes.data + 8 * submitted))
                if got <= 0:  # refused (seccomp, no AIO) or out of resources: read otherwise
                    code = ctypes.get_errno()
                    _reap(libc, getevents_nr, ctx, events, submitted)
                    if code in (errno.ENOSYS, errno.EPERM, errno.EINVAL):
                        _state["off"] = True
                    return False
                submitted += got
            _reap(libc, getevents_nr, ctx, events, n)
            done = events["res"]
            order = events["data"].astype(np.int64)  # each read's place in this batch
            wanted = np.asarray(sizes[part], dtype=np.int64)[order]
            failed = done < 0
            if failed.any():
                code = int(-done[failed][0])
                raise OSError(code, os.strerror(code))
            short = done < wanted
            if short.any():
                return int(part.start + order[short].min())
        return count


def _reap(libc, getevents_nr: int, ctx, events: np.ndarray, count: int) -> None:
    """Wait for ``count`` completions into ``events`` (retrying after a signal)."""
    reaped = 0
    while reaped < count:
        got = libc.syscall(ctypes.c_long(getevents_nr), ctx, ctypes.c_long(count - reaped),
                           ctypes.c_long(count - reaped),
                           ctypes.c_void_p(events.ctypes.data + reaped * _EVENT.itemsize), None)
        if got < 0:
            code = ctypes.get_errno()
            if code == errno.EINTR:
                continue
            raise OSError(code, f"io_getevents: {os.strerror(code)}")
        reaped += got


def _drain(libc, getevents_nr: int, ctx, batch: _Batch) -> None:
    """Collect, without waiting, completions a call left behind (stopped by Ctrl-C between
    its submit and its reap): taken for this call's, they would misreport its reads. A
    buffered read is complete when io_submit returns, so they are all there to be taken."""
    while libc.syscall(ctypes.c_long(getevents_nr), ctx, ctypes.c_long(0), ctypes.c_long(_DEPTH),
                       ctypes.c_void_p(batch.events.ctypes.data), ctypes.byref(batch.now)) > 0:
        pass
