"""``atc watch`` in a real subprocess for tests: its events read as they come, waited on by
condition with a deadline (never a fixed sleep); and any child's output lines, waited on so."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import threading
import time
from pathlib import Path

ATC = str(Path(__file__).resolve().parent.parent / ".venv" / "bin" / "atc")


class WatchProcess:
    """``atc watch ARGS --home HOME --format-output OUT`` (json events parsed, text lines kept)."""

    def __init__(self, home: Path, *args: str, out: str = "json", debounce: str = "0.2",
                 settle: str = "1.5", file_bytes: int | None = None) -> None:
        """``file_bytes``: a file-size limit (RLIMIT_FSIZE, soft) on the watcher, as a full disk
        refuses a write; :meth:`lift_file_limit` lifts it."""
        def limit() -> None:
            if file_bytes is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, resource.RLIM_INFINITY))

        self.proc = subprocess.Popen([ATC, "watch", *args, "--home", str(home),
                                      "--format-output", out, "--debounce", debounce,
                                      "--settle", settle],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     # a watcher that hangs shows where (SIGABRT in stop())
                                     env={**os.environ, "PYTHONFAULTHANDLER": "1",
                                          # a .pyc cut short at the limit would break every
                                          # later import of its module
                                          **({"PYTHONDONTWRITEBYTECODE": "1"}
                                             if file_bytes is not None else {})},
                                     preexec_fn=limit if file_bytes is not None else None)
        self.parse = json.loads if out == "json" else (lambda line: line)
        self.events: list = []
        self.cond = threading.Condition()
        self.stderr: list[str] = []    # drained as it comes: a full pipe would stall the watcher
        self.readers = [threading.Thread(target=self._read, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for reader in self.readers:
            reader.start()

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)

    def _read(self) -> None:
        for line in self.proc.stdout:
            with self.cond:
                self.events.append(self.parse(line))
                self.cond.notify_all()

    def wait_for(self, test, timeout: float = 60.0, since: int = 0):
        """The latest event passing ``test`` (among the events from number ``since`` on),
        waiting for one until ``timeout`` seconds; fails at once (with the events and the
        watcher's stderr) if the watcher has exited."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                found = [e for e in self.events[since:] if test(e)]
                if found:
                    return found[-1]
                left = deadline - time.monotonic()
                assert left > 0 and self.proc.poll() is None, (self.events, "".join(self.stderr))
                self.cond.wait(min(left, 0.5))

    def lift_file_limit(self) -> None:
        """The file system takes writes again (see ``file_bytes``)."""
        resource.prlimit(self.proc.pid, resource.RLIMIT_FSIZE,
                         (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    def batches_since(self, n: int) -> list[dict]:
        with self.cond:
            return [e for e in self.events[n:] if e["event"] == "batch"]

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Send ``sig`` and return the exit code. A watcher still running after 60 s fails
        the test with its events and every thread's stack (faulthandler, on SIGABRT)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)
            self.proc.wait(timeout=30)
            self.readers[1].join(timeout=10)   # the stderr reader takes the stacks in
            raise AssertionError(("the watcher did not stop", self.events,
                                  "".join(self.stderr))) from None
        for reader in self.readers:     # its last events read in: the pipes end with it
            reader.join(timeout=10)
        return code


class PipeLines:
    """The lines a child's pipe has given so far, read as they come by a thread of their own
    (which ends at the end of the pipe: a pipe left unread would stall the child once full).
    :meth:`wait_for` wakes on each line, not on a clock."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.reader.start()

    def _read(self, stream) -> None:
        for line in iter(stream.readline, ""):
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()

    def wait_for(self, test, proc: subprocess.Popen, what: str, timeout: float = 90.0) -> None:
        """Wait until ``test(lines)`` holds; fails (naming ``what``) once ``timeout`` seconds
        have passed or ``proc`` has ended without it."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not test(self.lines):
                assert proc.poll() is None, f"the process ended before {what}: {self.lines}"
                left = deadline - time.monotonic()
                assert left > 0, f"no {what} in {timeout:g} s: {self.lines}"
                self.cond.wait(min(left, 0.5))   # proc.poll() again at least that often

    def text(self, timeout: float = 30.0) -> str:
        """Everything the pipe gave, once it has ended (its process has exited)."""
        self.reader.join(timeout=timeout)
        return "".join(self.lines)


def drive(watcher, steps) -> list[str]:
    """Run ``watcher`` here while a thread takes ``steps`` in turn, each ``(until, then)``:
    wait until ``until()`` holds (a deadline of 30 s, never a fixed sleep: a loaded machine
    is slow), then call ``then()``; the watcher is stopped after the last step, or at the
    first missed deadline. Returns what was waited for in vain."""
    missed: list[str] = []

    def traffic():
        try:
            for until, then in steps:
                deadline = time.monotonic() + 30
                while not until():
                    if time.monotonic() > deadline:
                        missed.append(getattr(until, "__doc__", None) or repr(until))
                        return
                    time.sleep(0.02)
                then()
        finally:
            watcher.stop("test")

    threading.Thread(target=traffic, daemon=True).start()
    watcher.run()
    return missed
