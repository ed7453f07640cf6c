#!/usr/bin/env python3
"""Watch soak: hours of transcript traffic compressed into minutes against one ``atc watch``.

A simulator plays many agent sessions into a folder that a real ``atc watch`` process follows
(inotify events, or ``--poll``): appends of Claude Code, OpenAI-chat and speaker-line text
records, lines written in two pieces with a pause between (half-written lines, finished within
a third of the watcher's settle time, as a writer that is still writing does), new files (some
in new sub-folders), rotations (renamed away, a fresh file under the old name), truncations
(cut back to a line, or to nothing, then written on), rewrites of the same content (an editor's
save: a new inode), touches, and deletions. Every so often a second writer (``atc curate``)
needs the home's write lock. The watcher's resident memory (RSS) is sampled throughout.

Content is only destroyed (truncated, rotated away, deleted) once the watcher has reported the
file ingested whole at its current size; the version destroyed is kept in an archive. At the
end the simulator stops writing, waits until every file is caught up, sends SIGTERM and checks:

* the watcher exits 0 after logging ``stop``;
* nothing missed, nothing duplicated, nothing half: the watcher's journal holds exactly the
  items (handle, kind, session, goal, time, text) that a one-shot ``Memory.ingest`` of the
  final files plus the archived versions gives (a half-parsed line or turn would be an item the
  one-shot lacks);
* memory does not grow with batches: after the warm-up (``--warm``, a quarter of the run by
  default: sessions start and grow, content is destroyed as above) comes the *steady state*,
  in which the home's data stays (almost) the same size: files are cut back to a line and the
  same bytes written again (often the rest in two pieces: a half-written line), rewritten
  unchanged, touched, and only a trickle of new records arrives (``--steady-new``, the share of
  writes that add a record), so each batch re-reads files, upserts, curates the trickle, gives
  the lock back and reloads indexes without the data growing. The watcher's RSS is sampled
  after every batch (the watcher hands freed memory back after each) and a least-squares line
  fitted against the batch count; what the trickle of data itself costs is taken off, measured
  as the RSS of a fresh watcher (one small new file, so it loads and curates) opened on a copy
  of the home at the start and at the end of the steady state. The *leak* is the slope left,
  printed per 100 batches and per simulated day; it must be at most ``--leak-bound-mb`` per
  simulated day. The watcher's RSS at the end over the fresh watcher's is printed too (heap
  the warm-up's peaks left behind: bounded, not growing);
* other writers get in: a probe takes the home's write lock every 2 s (and holds it 0.3 s) and
  ``atc curate`` runs twice; their waits are printed.

    .venv/bin/python scripts/bench/watch_soak.py --minutes 14          # the long soak
    .venv/bin/python scripts/bench/watch_soak.py --minutes 10 --poll   # polling mode
    .venv/bin/python scripts/bench/watch_soak.py --minutes 0.3 --sessions 6   # as the test does
    .venv/bin/python scripts/bench/watch_soak.py --minutes 4 --inject-leak-kb 64  # must FAIL

One simulated hour is ``--hour-seconds`` of wall time (default 20): a session writes about one
record per simulated minute, bursts included.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Most the watcher's RSS may grow per simulated day of steady traffic, beyond what the new data
#: itself costs (a fresh watcher on the same home): a week's run stays within this times 7.
LEAK_BOUND_MB = 8.0

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
ATC = ROOT / ".venv" / "bin" / "atc"

WORDS = ("retry backoff processor timeout charge webhook idempotency ledger refund invoice "
         "migration schema index cache queue worker deploy rollback canary flag config test "
         "fixture lint commit branch review latency p95 error budget alert pager runbook").split()


def robust_slope(samples: list[tuple[int, float]]) -> float:
    """Theil-Sen: the median of the slopes between every two samples (batch, MB). A leak
    raises every one of them; a one-off step (a library loaded, pages the kernel took back and
    the watcher touched again: 28 MB once, on a loaded machine) raises only the pairs that
    straddle it, which a least-squares fit read as 62 MB per 100 batches."""
    import statistics

    slopes = [(m2 - m1) / (b2 - b1) for i, (b1, m1) in enumerate(samples)
              for b2, m2 in samples[i + 1:] if b2 != b1]
    return statistics.median(slopes) if slopes else 0.0


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident set size of a process in MB (0 when it is gone); ``field="RssAnon"``: its
    anonymous part, what a leak grows (file pages, the libraries' and the mapped logs', come
    and go with the page cache: two fresh watchers of the same home differed by 28 MB)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def anon_mb(pid: int) -> float:
    """Anonymous resident memory of a process in MB (0 when it is gone)."""
    return rss_mb(pid, "RssAnon")


# -- sessions ----------------------------------------------------------------------------------
@dataclass
class Session:
    """One transcript being written: its path, format and what is left of a half-written line."""

    path: Path
    fmt: str                      # claude-code | openai | text
    sid: str
    turns: int = 0
    parent: str | None = None
    pending: bytes = b""          # the rest of a line written in two pieces
    last_write: float = 0.0

    def record(self, rng: random.Random) -> bytes:
        """The next record as the bytes of one complete line (text: one turn)."""
        self.turns += 1
        user = self.turns % 3 == 1
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 28)))
        text = (f"{'Please look at' if user else 'I checked'} {words} "
                f"(step {self.turns} of {self.sid[:8]}; quotes \" and <tags> & ünïcode)")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_767_000_000 + self.turns * 61))
        if self.fmt == "claude-code":
            rid = str(uuid.UUID(int=rng.getrandbits(128)))
            rec = {"parentUuid": self.parent, "isSidechain": False, "type": "user" if user else "assistant",
                   "sessionId": self.sid, "uuid": rid, "timestamp": stamp + ".000Z", "cwd": "/srv/app",
                   "message": ({"role": "user", "content": text} if user else
                               {"role": "assistant", "content": [{"type": "text", "text": text}]})}
            self.parent = rid
            return (json.dumps(rec, ensure_ascii=False) + "\n").encode()
        if self.fmt == "openai":
            rec = {"role": "user" if user else "assistant", "content": text, "timestamp": stamp + "Z"}
            return (json.dumps(rec, ensure_ascii=False) + "\n").encode()
        return f"{'User' if user else 'Assistant'}: {text}\n".encode()


@dataclass
class Soak:
    """The simulator, the watcher process it feeds, and what it has seen of it."""

    root: Path
    seconds: float
    sessions_wanted: int
    hour_seconds: float
    poll: bool
    seed: int
    warm: float = 0.25            # share of the run that is warm-up (the data grows)
    inject_leak_kb: int = 0       # a check of the check: the watcher keeps this much per batch
    steady_new: float = 0.05      # in the steady state: share of writes that add a record
    min_steady_batches: int = 0   # the steady state runs on until this many batches, up to
    batch_wait: float = 0.0       # ... this many seconds past its time (at least 5x its length)
    min_warm_batches: int = 3     # the warm-up runs on (to 3x its time) until this many batches
    settle: float = 1.5
    watched: Path = field(init=False)
    archive: Path = field(init=False)
    home: Path = field(init=False)
    ops: dict[str, int] = field(default_factory=dict)
    reported: dict[str, tuple[int, bool]] = field(default_factory=dict)   # path -> size, whole
    events: list[dict[str, Any]] = field(default_factory=list)
    rss: list[tuple[float, float]] = field(default_factory=list)
    batch_rss: list[tuple[int, float, str]] = field(default_factory=list)  # batch, anon MB, phase
    phase: str = "warm-up"
    lock_waits: list[float] = field(default_factory=list)
    probe_waits: list[float] = field(default_factory=list)
    archived: int = 0

    def __post_init__(self) -> None:
        self.watched, self.archive, self.home = (self.root / n for n in ("watched", "archive", "home"))
        for folder in (self.watched, self.archive, self.home):
            folder.mkdir(parents=True)
        (self.home / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
        self.rng = random.Random(self.seed)
        self.sessions: list[Session] = []
        self.lock = threading.Lock()
        self.counter = 0

    # -- the watcher process -------------------------------------------------------------------
    def start(self) -> None:
        args = [str(ATC), "watch", str(self.watched), "--home", str(self.home),
                "--format-output", "json", "--debounce", "0.2", "--max-delay", "3",
                "--settle", str(self.settle), "--interval", "0.5", "--rescan", "30"]
        if self.poll:
            args.append("--poll")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if self.inject_leak_kb:
            env["PYTHONPATH"] = str(self._leaky(self.inject_leak_kb))
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
        threading.Thread(target=self._read_log, daemon=True).start()
        self.stderr: list[str] = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _leaky(self, kb: int) -> Path:
        """A folder whose ``sitecustomize`` makes the watcher keep ``kb`` KB after each batch:
        a leak planted to show that the steady-state figures find one."""
        folder = self.root / "leak"
        folder.mkdir()
        (folder / "sitecustomize.py").write_text(
            "from attention_cloud.watch import watcher\n"
            "_kept, _batch = [], watcher.Watcher._batch\n"
            "def _leaking(self, due):\n"
            f"    _kept.append(b'x' * {kb * 1024})\n"
            "    return _batch(self, due)\n"
            "watcher.Watcher._batch = _leaking\n", encoding="utf-8")
        return folder

    def _read_log(self) -> None:
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "batch":   # sampled as the watcher hands memory back
                self.batch_rss.append((len(self.batch_rss) + 1, anon_mb(self.proc.pid), self.phase))
            with self.lock:
                self.events.append({k: v for k, v in event.items() if k != "ingested"})
                for entry in event.get("ingested", []):
                    self.reported[entry["path"]] = (entry["size"], entry["whole"])

    def caught_up(self, path: Path) -> bool:
        """The watcher reported ``path`` read whole at its current size, and no write is half
        done."""
        try:
            size = path.stat().st_size
        except OSError:
            return True
        with self.lock:
            seen = self.reported.get(str(path))
        return seen == (size, True)

    # -- the traffic --------------------------------------------------------------------------
    def _count(self, op: str) -> None:
        self.ops[op] = self.ops.get(op, 0) + 1

    def new_session(self) -> Session:
        self.counter += 1
        fmt = self.rng.choices(["claude-code", "openai", "text"], [6, 2, 2])[0]
        suffix = {"claude-code": ".jsonl", "openai": ".jsonl", "text": self.rng.choice([".md", ".txt"])}[fmt]
        folder = self.watched if self.rng.random() < 0.7 else self.watched / f"project-{self.counter % 5}"
        folder.mkdir(exist_ok=True)
        s = Session(folder / f"s{self.counter:04d}{suffix}", fmt,
                    str(uuid.UUID(int=self.rng.getrandbits(128))))
        self.sessions.append(s)
        self._count("new file")
        return s

    def _write(self, s: Session, data: bytes) -> None:
        with open(s.path, "ab") as fh:
            fh.write(data)
        s.last_write = time.monotonic()

    def finish(self, s: Session) -> None:
        """Write the rest of a line written in two pieces."""
        if s.pending:
            self._write(s, s.pending)
            s.pending = b""
            self._count("line completed")

    def append(self, s: Session) -> None:
        self.finish(s)                      # the half-written line first
        for _ in range(self.rng.choice([1, 1, 1, 2, 3])):
            line = s.record(self.rng)
            if self.rng.random() < 0.15:    # half now, the rest on the next turn of this session
                cut = self.rng.randint(1, len(line) - 2)
                self._write(s, line[:cut])
                s.pending = line[cut:]
                self._count("half line")
                return
            self._write(s, line)
            self._count("append")

    def _keep(self, s: Session) -> None:
        """Archive what is about to be destroyed, under the same file name."""
        if s.path.exists() and s.path.stat().st_size:
            self.archived += 1
            target = self.archive / f"v{self.archived:05d}" / s.path.relative_to(self.watched)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(s.path, target)

    def destroy(self, s: Session) -> None:
        """Rotate, truncate, rewrite, touch or delete a caught-up file."""
        op = self.rng.choices(["rotate", "truncate", "truncate to nothing", "rewrite same",
                               "touch", "delete"], [3, 2, 1, 2, 2, 1])[0]
        self._count(op)
        if op == "touch":
            os.utime(s.path)
            return
        if op == "rewrite same":            # an editor's save: same bytes, another inode
            tmp = s.path.with_name(s.path.name + ".swp")
            shutil.copyfile(s.path, tmp)
            os.replace(tmp, s.path)
            return
        self._keep(s)
        if op == "rotate":
            self.counter += 1
            os.rename(s.path, s.path.with_name(f"{s.path.stem}-rot{self.counter}{s.path.suffix}"))
            s.path.touch()
        elif op == "delete":
            s.path.unlink()
            self.sessions.remove(s)
        else:
            data = s.path.read_bytes()
            lines = data.splitlines(keepends=True)
            keep = 0 if op == "truncate to nothing" else self.rng.randint(0, max(len(lines) - 1, 0))
            with open(s.path, "r+b") as fh:
                fh.truncate(sum(len(x) for x in lines[:keep]))

    def replay(self, s: Session) -> None:
        """Steady state: cut a file back to a line and write the same bytes again, the rest
        often in two pieces (a half-written line); the home gains nothing."""
        data = s.path.read_bytes()
        lines = data.splitlines(keepends=True)
        cut = sum(len(x) for x in lines[:self.rng.randint(0, max(len(lines) - 1, 0))])
        with open(s.path, "r+b") as fh:
            fh.truncate(cut)
        rest = data[cut:]
        self._count("cut back and rewritten")
        if len(rest) > 2 and self.rng.random() < 0.5:
            piece = self.rng.randint(1, len(rest) - 2)
            self._write(s, rest[:piece])
            s.pending = rest[piece:]
            self._count("half line")
        else:
            self._write(s, rest)

    def steady_op(self, s: Session) -> None:
        """One write of the steady state on a file with nothing half written."""
        op = self.rng.choices(["replay", "rewrite same", "touch"], [6, 2, 1])[0]
        if op == "replay":
            self.replay(s)
        elif op == "touch":
            self._count("touch")
            os.utime(s.path)
        else:
            self._count("rewrite same")
            tmp = s.path.with_name(s.path.name + ".swp")
            shutil.copyfile(s.path, tmp)
            os.replace(tmp, s.path)
            s.last_write = time.monotonic()

    def _other_writers(self, done: threading.Event) -> None:
        """Beside the traffic (in a thread, so the writers never stall): a lock probe every
        2 s and ``atc curate`` at a third and two thirds of the run."""
        curate_at = [self.seconds / 3, 2 * self.seconds / 3]
        started = time.monotonic()
        while not done.wait(2.0):
            self.probe_lock()
            if curate_at and time.monotonic() - started >= curate_at[0]:
                curate_at.pop(0)
                self.second_writer()

    def probe_lock(self) -> None:
        """How long another writer waits for the home's write lock (the flock every writer
        takes first), holding it 0.3 s once it has it, as a short write would."""
        import fcntl

        started = time.monotonic()
        with open(self.home / ".lock", "a+") as fh:
            while True:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    time.sleep(0.01)
            self.probe_waits.append(time.monotonic() - started)
            time.sleep(0.3)
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def second_writer(self) -> None:
        """``atc curate`` from another process: retried while the watcher holds the lock."""
        started = time.monotonic()
        while True:
            done = subprocess.run([str(ATC), "curate", "--home", str(self.home)],
                                  capture_output=True, text=True)
            if done.returncode == 0:
                break
            if "another process is writing" not in done.stderr:
                raise RuntimeError(f"atc curate failed: {done.stderr.strip()}")
            if time.monotonic() - started > 120:
                raise RuntimeError("atc curate could not get the write lock for 120 s")
            time.sleep(0.2)
        self.lock_waits.append(time.monotonic() - started)

    # -- the run ------------------------------------------------------------------------------
    def _traffic(self, until: float, steady: bool) -> None:
        """Write until ``until`` (monotonic): the warm-up's traffic, or the steady state's."""
        step = self.hour_seconds / 60 / max(self.sessions_wanted, 1)   # a record per simulated minute each
        next_rss = time.monotonic()
        while time.monotonic() < until:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the watcher exited early: {''.join(self.stderr)[-800:]}")
            now = time.monotonic()
            if now >= next_rss:
                self.rss.append((now - self.started, rss_mb(self.proc.pid)))
                next_rss = now + 0.5
            overdue = [x for x in self.sessions if x.pending and now - x.last_write > self.settle / 3]
            if overdue:  # a writer still writing: its line ends well within the settle time
                self.finish(overdue[0])
            elif steady:
                whole = [s for s in self.sessions if not s.pending and s.path.exists()]
                if self.rng.random() < self.steady_new or not whole:
                    self.append(self.rng.choice(self.sessions))
                else:
                    self.steady_op(self.rng.choice(whole))
            elif len(self.sessions) < self.sessions_wanted or self.rng.random() < 0.01:
                self.append(self.new_session())
            elif self.rng.random() < 0.06:
                quiet = [s for s in self.sessions if not s.pending and s.path.exists()
                         and now - s.last_write > self.settle and self.caught_up(s.path)]
                if quiet:
                    self.destroy(self.rng.choice(quiet))
            else:
                self.append(self.rng.choice(self.sessions))
            time.sleep(step * self.rng.uniform(0.2, 1.8))

    def _steady_batches(self, first: int) -> int:
        return sum(1 for b, _, phase in self.batch_rss if phase == "steady" and b >= first)

    def run(self) -> dict[str, Any]:
        self.start()
        self.started = started = time.monotonic()
        warm_until = started + self.seconds * self.warm
        done = threading.Event()
        others = threading.Thread(target=self._other_writers, args=(done,), daemon=True)
        others.start()
        self._traffic(warm_until, steady=False)
        # A loaded machine may not have run the watcher's first batches yet (its start, the
        # first ingest and curate): the steady state's slope would count them as growth.
        give_up = warm_until + 2 * (warm_until - started)
        while (sum(1 for _, _, phase in self.batch_rss if phase == "warm-up") < self.min_warm_batches
               and time.monotonic() < give_up):
            self._traffic(time.monotonic() + 1, steady=False)
        for s in self.sessions:   # the traffic pauses: no line may stay half written past settle
            self.finish(s)
        fresh_start = self.fresh_rss("steady-start")
        self.phase = "steady"
        first_steady = len(self.batch_rss) + 1
        steady_began = time.monotonic()
        steady_until = max(started + self.seconds, steady_began + 1)
        self._traffic(steady_until, steady=True)
        # A loaded machine runs fewer batches in the same seconds: the slope needs enough of
        # them, so the steady state is counted in batches, with a deadline only against a
        # watcher that makes none (under a load of 11-17 on two cores, six times its length
        # gave the suite's short soak 11-17 of its 20 batches).
        give_up = steady_until + max(5 * (steady_until - steady_began), self.batch_wait)
        while (self._steady_batches(first_steady) < self.min_steady_batches
               and time.monotonic() < give_up):
            self._traffic(time.monotonic() + 1, steady=True)
        steady_seconds = time.monotonic() - steady_began
        done.set()
        others.join()
        for s in self.sessions:           # finish every half-written line
            self.finish(s)
        wrote_last = time.monotonic()
        missing = self._wait_caught_up(timeout=max(60.0, self.seconds))
        self.rss.append((time.monotonic() - started, rss_mb(self.proc.pid)))
        rss_end = rss_mb(self.proc.pid)
        fresh_end = self.fresh_rss("end")
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=120)
        time.sleep(0.2)
        stop = [e for e in self.events if e.get("event") == "stop"]
        result = self._verify()
        result.update({
            "seconds": round(time.monotonic() - started, 1),
            "simulated_hours": round(self.seconds / self.hour_seconds, 1),
            "mode": "polling" if self.poll else "events",
            "ops": dict(sorted(self.ops.items())),
            "exit_code": code, "stopped_cleanly": bool(stop) and code == 0,
            "caught_up_s": round(time.monotonic() - wrote_last, 1), "not_caught_up": missing,
            "batches": stop[0]["batches"] if stop else None,
            "watcher_errors": stop[0]["errors"] if stop else None,
            "lock_held_max_s": stop[0]["lock_held_max_s"] if stop else None,
            "curate_runs_s": [round(w, 2) for w in self.lock_waits],
            "lock_probes": len(self.probe_waits),
            "lock_wait_p50_s": round(sorted(self.probe_waits)[len(self.probe_waits) // 2], 3)
            if self.probe_waits else None,
            "lock_wait_max_s": round(max(self.probe_waits), 3) if self.probe_waits else None,
            "rss_peak_mb": round(max((mb for _, mb in self.rss), default=0), 1),
            "rss_end_mb": round(rss_end, 1),
            "rss_fresh_watcher_mb": round(fresh_end, 1),
            "rss_over_fresh_end_mb": round(rss_end - fresh_end, 1),
        })
        result["steady"] = self._steady_figures(first_steady, steady_seconds, fresh_start,
                                                fresh_end)
        return result

    def _steady_figures(self, first: int, seconds: float, fresh_start: float,
                        fresh_end: float) -> dict[str, Any]:
        """Anonymous resident memory against batches in the steady state: the fitted slope, what the data that
        arrived costs (the fresh watchers), and the leak left, per 100 batches and per day."""
        samples = [(b, mb) for b, mb, phase in self.batch_rss if phase == "steady" and b >= first]
        out: dict[str, Any] = {"batches": len(samples), "simulated_hours": round(seconds / self.hour_seconds, 1),
                               "anon_first_mb": round(samples[0][1], 1) if samples else None,
                               "anon_last_mb": round(samples[-1][1], 1) if samples else None,
                               "anon_max_mb": round(max(mb for _, mb in samples), 1) if samples else None,
                               "fresh_watcher_start_mb": round(fresh_start, 1),
                               "fresh_watcher_end_mb": round(fresh_end, 1)}
        if len(samples) < 3 or samples[-1][0] == samples[0][0]:
            out["leak_mb_per_day"] = None
            return out
        slope = robust_slope(samples)
        span = samples[-1][0] - samples[0][0]
        data = (fresh_end - fresh_start) / span          # MB per batch the new data costs
        leak = slope - data
        per_day = len(samples) / (seconds / self.hour_seconds) * 24
        out.update({"batches_per_simulated_day": round(per_day),
                    "anon_slope_mb_per_100_batches": round(slope * 100, 3),
                    "data_mb_per_100_batches": round(data * 100, 3),
                    "leak_mb_per_100_batches": round(leak * 100, 3),
                    "leak_mb_per_day": round(leak * per_day, 2)})
        return out

    def fresh_rss(self, label: str) -> float:
        """RSS of a new watcher opened on a copy of the home (taken under the write lock) once
        its first batch is done: what the data costs, for comparison with the long-running
        one. It follows a folder with one small new file, so that it loads and curates."""
        import fcntl

        where = self.root / f"fresh-{label}"
        with open(self.home / ".lock", "a+") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                shutil.copytree(self.home, where / "home",
                                ignore=shutil.ignore_patterns(".lock", "watch.pid"))
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        (where / "probe").mkdir()
        (where / "probe" / "probe.txt").write_text(
            "User: is the ledger migration done?\nAssistant: yes, it ran last night\n",
            encoding="utf-8")
        proc = subprocess.Popen([str(ATC), "watch", str(where / "probe"), "--home",
                                 str(where / "home"), "--format-output", "json",
                                 "--debounce", "0.2", "--settle", "0.5"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            for line in proc.stdout:
                if json.loads(line).get("event") == "batch":
                    break
            # settled: what the first batch started (an index built in the background, a
            # snapshot) may still allocate for a while on a loaded machine
            last, deadline = anon_mb(proc.pid), time.monotonic() + 8.0
            while time.monotonic() < deadline:
                time.sleep(0.5)
                now = anon_mb(proc.pid)
                if abs(now - last) < 0.25:
                    break
                last = now
            return now
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
            shutil.rmtree(where, ignore_errors=True)

    def _wait_caught_up(self, timeout: float) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            behind = [str(p) for p in sorted(self.watched.rglob("*")) if p.is_file()
                      and not self.caught_up(p)]
            if not behind:
                return []
            time.sleep(0.25)
        return behind

    def _verify(self) -> dict[str, Any]:
        """The watcher's journal against a one-shot ingest of final files plus archives."""
        from attention_cloud import Memory

        goal = ("item(H), item_kind(H, K), item_session(H, S), item_goal(H, G), "
                "item_time(H, T), item_text(H, X)")

        def items(mem: Any) -> dict[str, tuple]:
            rows = mem.query(goal, limit=10**7, time_limit=600).rows
            return {r["H"]: (r["K"], r["S"], r["G"], r["T"], r["X"]) for r in rows}

        mem = Memory.open(self.home, create=False)
        try:
            watched = items(mem)
        finally:
            mem.close()
        oneshot_home = self.root / "oneshot"
        oneshot_home.mkdir()
        (oneshot_home / "config.json").write_text('{"embedder": "none"}\n', encoding="utf-8")
        mem = Memory.open(oneshot_home)
        try:
            sources = [p for p in (self.watched, self.archive) if any(p.rglob("*.*"))]
            mem.ingest(sources, strict=False)
            expected = items(mem)
        finally:
            mem.close()
        missed = sorted(set(expected) - set(watched))
        extra = sorted(set(watched) - set(expected))
        differ = sorted(h for h in set(expected) & set(watched) if expected[h] != watched[h])
        return {"items": len(watched), "expected_items": len(expected), "missed": missed[:20],
                "extra": extra[:20], "differ": differ[:20], "archived_versions": self.archived,
                "files_at_end": sum(1 for p in self.watched.rglob("*") if p.is_file())}


def run_soak(seconds: float, sessions: int = 12, hour_seconds: float = 20.0, poll: bool = False,
             seed: int = 7, root: Path | None = None, warm: float = 0.25,
             steady_new: float = 0.05, inject_leak_kb: int = 0,
             min_steady_batches: int = 0, batch_wait: float = 0.0) -> dict[str, Any]:
    """One soak run in ``root`` (a temporary folder by default); the figures as a dict.
    ``min_steady_batches``: the steady state goes on past ``seconds`` until the watcher has run
    that many batches in it, for at most ``batch_wait`` seconds more (at least five times the
    steady state's length)."""
    with tempfile.TemporaryDirectory(prefix="atc-watch-soak-") as tmp:
        soak = Soak(Path(root or tmp) / "soak", seconds, sessions, hour_seconds, poll, seed,
                    warm=warm, steady_new=steady_new, inject_leak_kb=inject_leak_kb,
                    min_steady_batches=min_steady_batches, batch_wait=batch_wait)
        try:
            return soak.run()
        finally:
            if soak.proc.poll() is None:
                soak.proc.kill()


def verdict(result: dict[str, Any], leak_bound_mb: float) -> list[str]:
    """What failed (empty when the run passes): correctness, and the leak bound."""
    failed = []
    if not result["stopped_cleanly"]:
        failed.append("the watcher did not stop cleanly")
    for what in ("missed", "extra", "differ", "not_caught_up"):
        if result[what]:
            failed.append(f"{what}: {len(result[what])}")
    leak = result["steady"].get("leak_mb_per_day")
    if leak is None:
        failed.append("too few steady-state batches to fit a slope")
    elif leak > leak_bound_mb:
        failed.append(f"memory grows {leak} MB per simulated day in the steady state "
                      f"(bound {leak_bound_mb})")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="wall time of the traffic")
    parser.add_argument("--sessions", type=int, default=12, help="sessions written at once")
    parser.add_argument("--hour-seconds", type=float, default=20.0,
                        help="wall seconds per simulated hour")
    parser.add_argument("--poll", action="store_true", help="the watcher polls")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--warm", type=float, default=0.25,
                        help="share of the run that is warm-up (the data grows)")
    parser.add_argument("--steady-new", type=float, default=0.05,
                        help="in the steady state, share of writes that add a record")
    parser.add_argument("--inject-leak-kb", type=int, default=0,
                        help="check the check: make the watcher keep this many KB per batch "
                             "(the run must then FAIL)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="run in this (new) folder and keep it, to look at afterwards")
    parser.add_argument("--leak-bound-mb", type=float, default=LEAK_BOUND_MB,
                        help="most the watcher's RSS may grow per simulated day in the steady "
                             "state, beyond what the new data costs")
    args = parser.parse_args()
    result = run_soak(args.minutes * 60, args.sessions, args.hour_seconds, args.poll, args.seed,
                      args.keep, args.warm, args.steady_new, args.inject_leak_kb)
    print(json.dumps(result, indent=2))
    failed = verdict(result, args.leak_bound_mb)
    st = result["steady"]
    print(f"steady state: {st['batches']} batches over {st['simulated_hours']} simulated hours; "
          f"anonymous RSS {st['anon_first_mb']} -> {st['anon_last_mb']} MB, slope "
          f"{st.get('anon_slope_mb_per_100_batches')} MB/100 batches, new data "
          f"{st.get('data_mb_per_100_batches')}, leak {st.get('leak_mb_per_100_batches')} MB/100 "
          f"batches = {st.get('leak_mb_per_day')} MB per simulated day "
          f"(bound {args.leak_bound_mb})", file=sys.stderr)
    print("PASS" if not failed else "FAIL: " + "; ".join(failed), file=sys.stderr)
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
