"""Outside policies over JSON lines on stdin/stdout (``--policy-cmd CMD``).

The evaluator starts ``CMD`` once and exchanges one JSON object per line. The policy runs in its
own process and only ever receives the scenario interface and the observations it asked for, so a
team can score its own agent — LLM-driven or not — without access to the evaluator.

Evaluator → policy::

    {"type": "hello", "protocol": "attention-bench/1"}
    {"type": "trial", "protocol": "attention-bench/1", "scenario": {...interface...}}
    {"type": "observation", "object_id": ..., "ok": ..., "reports": ..., "content": ...,
     "observed_at_s": ..., "budget_left": ...}              # after an adaptive inspect
    {"type": "observations", "results": [...]}               # after a static batch
    {"type": "error", "message": "..."}                      # a request was refused
    {"type": "end"}                                          # no more trials; exit

Policy → evaluator, after each ``trial``, ``observation(s)`` or ``error``::

    {"type": "inspect", "object_id": "obj-..."}              # one_at_a_time protocol
    {"type": "inspect", "object_ids": ["obj-...", ...]}      # batch protocol, once
    {"type": "decide", "decisions": {"goal-...": "opt-..."}} # ends the trial

Scenario fields are described by ``atc bench attention --print-schema``. A message naming an
unknown object, goal or option is invalid and answered with ``error``. A policy that sends
invalid messages three times in a trial, sends a line over MAX_LINE_CHARS, or stays silent past
the timeout, forfeits the trial (its undecided goals score their worst option); a silent process
is restarted for the next one.
"""
from __future__ import annotations

import json
import queue
import re
import shlex
import subprocess
import threading
from typing import Any

from ..errors import UsageError
from .session import PolicyContext, PolicyProtocolError, PolicyReport

PROTOCOL = "attention-bench/1"
MAX_INVALID = 3
#: The longest line a policy may send, in characters (its messages are a few hundred): a longer
#: one was held whole in memory, and one that never ended grew until the machine ran out.
MAX_LINE_CHARS = 1 << 20
#: How much of each of the last lines a policy wrote on stderr a note quotes.
STDERR_QUOTE_CHARS = 300
#: What the reader thread queues for a line over MAX_LINE_CHARS (read no further).
_TOO_LONG = "\x00too long\x00"
#: The lone surrogates surrogateescape decodes a byte that is not UTF-8 to.
_NOT_UTF8 = re.compile("[\udc80-\udcff]")


def _bounded_lines(stream: Any, limit: int) -> Any:
    """Yield ``(text, cut)`` per line of ``stream``: at most ``limit`` characters of it, and
    whether more followed (the rest of that line is read and dropped, never held)."""
    while True:
        line = stream.readline(limit)
        if not line:
            return
        if line.endswith("\n") or len(line) < limit:
            yield line, False
            continue
        yield line, True                 # at once: the line may never end
        while True:                      # drop the rest of it
            rest = stream.readline(limit)
            if not rest:
                return
            if rest.endswith("\n"):
                break


class ExternalPolicy:
    """A policy that lives in another process and speaks the JSON-lines protocol."""

    name = "external"
    description = "outside policy over JSON lines (--policy-cmd)"

    def __init__(self, command: str, *, timeout_s: float = 30.0) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise UsageError("--policy-cmd is empty")
        self.timeout_s = timeout_s
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr_tail: list[str] = []
        self._stderr_thread: threading.Thread | None = None

    # -- process management ---------------------------------------------------------------------
    def _start(self) -> None:
        try:
            # surrogateescape: a byte that is not UTF-8 killed the reader thread, and the trial
            # sat out the whole timeout; kept as a lone surrogate, it is named instead.
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, encoding="utf-8",
                                          errors="surrogateescape", bufsize=1)
        except OSError as exc:
            raise UsageError(f"cannot start --policy-cmd {self.argv[0]!r}: {exc.strerror or exc}") from exc
        # Each process's threads fill its own queue and stderr tail: a killed process's end of
        # file, read after the restart, reached the next process's queue ("the policy process
        # exited" for a trial it never saw).
        self._lines = queue.Queue()
        self._stderr_tail = []          # this process's stderr only, not a restarted one's
        proc = self._proc
        threading.Thread(target=self._pump, args=(proc, self._lines), daemon=True).start()
        self._stderr_thread = threading.Thread(target=self._drain_stderr,
                                               args=(proc, self._stderr_tail), daemon=True)
        self._stderr_thread.start()
        self._send({"type": "hello", "protocol": PROTOCOL})

    @staticmethod
    def _pump(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert proc.stdout is not None
        for line, cut in _bounded_lines(proc.stdout, MAX_LINE_CHARS):
            lines.put(_TOO_LONG if cut else line)
        lines.put(None)

    @staticmethod
    def _drain_stderr(proc: subprocess.Popen[str], tail: list[str]) -> None:
        assert proc.stderr is not None
        for line, cut in _bounded_lines(proc.stderr, STDERR_QUOTE_CHARS):
            line = line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            tail.append(line.rstrip() + (" [...]" if cut else ""))
            del tail[:-5]

    def _send(self, message: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(message) + "\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise PolicyProtocolError("the policy process is gone" + self._why()) from None

    def _receive(self) -> dict[str, Any]:
        try:
            line = self._lines.get(timeout=self.timeout_s)
        except queue.Empty:
            self._kill()
            raise PolicyProtocolError(f"no answer within {self.timeout_s:g} s") from None
        if line is None:
            self._kill()
            if self._stderr_thread is not None:   # its last words, before they are quoted
                self._stderr_thread.join(timeout=1.0)
            raise PolicyProtocolError("the policy process exited" + self._why())
        if line is _TOO_LONG:
            self._kill()                # it may still be writing; start afresh for the next trial
            raise PolicyProtocolError(f"a line longer than {MAX_LINE_CHARS} characters")
        if _NOT_UTF8.search(line):
            return {"type": "__invalid__", "why": "not UTF-8 text"}
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            return {"type": "__invalid__", "why": "not a JSON object"}
        if not isinstance(message, dict):
            return {"type": "__invalid__", "why": "not a JSON object"}
        return message

    def _why(self) -> str:
        return f" (stderr: {' | '.join(self._stderr_tail)})" if self._stderr_tail else ""

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def close(self) -> None:
        """Tell the policy there are no more trials and wait for it to exit."""
        if self._proc is None:
            return
        try:
            self._send({"type": "end"})
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=5)
        except (PolicyProtocolError, subprocess.TimeoutExpired, OSError):
            pass
        finally:
            self._kill()

    # -- one trial --------------------------------------------------------------------------------
    def run(self, ctx: PolicyContext) -> PolicyReport:
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        self._send({"type": "trial", "protocol": PROTOCOL, "scenario": ctx.interface})
        invalid = 0
        while True:
            message = self._receive()
            kind = message.get("type")
            try:
                if kind == "decide":
                    decisions = message.get("decisions")
                    if not isinstance(decisions, dict):
                        raise PolicyProtocolError("'decisions' must be an object of goal -> option")
                    ctx.decide(decisions)
                    return PolicyReport()
                if kind == "inspect" and "object_ids" in message:
                    results = ctx.inspect_batch(message["object_ids"])
                    self._send({"type": "observations", "results": results})
                    continue
                if kind == "inspect":
                    self._send({"type": "observation", **ctx.inspect(message.get("object_id"))})
                    continue
                raise PolicyProtocolError(message.get("why") or f"unknown message type {kind!r}")
            except PolicyProtocolError as exc:
                invalid += 1
                if invalid >= MAX_INVALID:
                    self._kill()        # it is mid-trial; start afresh for the next one
                    raise PolicyProtocolError(f"{invalid} invalid messages, last: {exc}") from None
                self._send({"type": "error", "message": str(exc)})
