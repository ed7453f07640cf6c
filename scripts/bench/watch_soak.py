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
* memory: the watcher's RSS at the end is within ``--rss-bound-mb`` of a fresh watcher's on
  the same home (what the data itself costs; a leak grows with batches, not with data); the
  growth after the warm-up (the first quarter) is printed too;
* other writers get in: a probe takes the home's write lock every 2 s (and holds it 0.3 s) and
  ``atc curate`` runs three times; their waits are printed.

    .venv/bin/python scripts/bench/watch_soak.py --minutes 10          # the long soak
    .venv/bin/python scripts/bench/watch_soak.py --minutes 10 --poll   # polling mode
    .venv/bin/python scripts/bench/watch_soak.py --minutes 0.6 --sessions 6   # as the test does

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

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
ATC = ROOT / ".venv" / "bin" / "atc"

WORDS = ("retry backoff processor timeout charge webhook idempotency ledger refund invoice "
         "migration schema index cache queue worker deploy rollback canary flag config test "
         "fixture lint commit branch review latency p95 error budget alert pager runbook").split()


def rss_mb(pid: int) -> float:
    """Resident set size of a process in MB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


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
    settle: float = 1.5
    watched: Path = field(init=False)
    archive: Path = field(init=False)
    home: Path = field(init=False)
    ops: dict[str, int] = field(default_factory=dict)
    reported: dict[str, tuple[int, bool]] = field(default_factory=dict)   # path -> size, whole
    events: list[dict[str, Any]] = field(default_factory=list)
    rss: list[tuple[float, float]] = field(default_factory=list)
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
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        threading.Thread(target=self._read_log, daemon=True).start()
        self.stderr: list[str] = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def _read_log(self) -> None:
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
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

    def append(self, s: Session) -> None:
        if s.pending:                       # finish the half-written line first
            self._write(s, s.pending)
            s.pending = b""
            self._count("line completed")
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
    def run(self) -> dict[str, Any]:
        self.start()
        started = time.monotonic()
        warm_until = started + self.seconds / 4
        step = self.hour_seconds / 60 / max(self.sessions_wanted, 1)   # a record per simulated minute each
        next_rss = started
        done = threading.Event()
        others = threading.Thread(target=self._other_writers, args=(done,), daemon=True)
        others.start()
        while time.monotonic() - started < self.seconds:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the watcher exited early: {''.join(self.stderr)[-800:]}")
            now = time.monotonic()
            if now >= next_rss:
                self.rss.append((now - started, rss_mb(self.proc.pid)))
                next_rss = now + 0.5
            overdue = [x for x in self.sessions if x.pending and now - x.last_write > self.settle / 3]
            if overdue:  # a writer still writing: its line ends well within the settle time
                self.append(overdue[0])
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
        done.set()
        others.join()
        for s in self.sessions:           # finish every half-written line
            if s.pending:
                self._write(s, s.pending)
                s.pending = b""
        wrote_last = time.monotonic()
        missing = self._wait_caught_up(timeout=max(60.0, self.seconds))
        self.rss.append((time.monotonic() - started, rss_mb(self.proc.pid)))
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=120)
        time.sleep(0.2)
        stop = [e for e in self.events if e.get("event") == "stop"]
        result = self._verify()
        result["rss_fresh_watcher_mb"] = round(self.fresh_rss(), 1)
        post = [mb for t, mb in self.rss if t >= warm_until - started]
        base = post[0] if post else 0.0
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
            "rss_warm_mb": round(base, 1), "rss_max_after_warm_mb": round(max(post, default=0), 1),
            "rss_end_mb": round(post[-1] if post else 0, 1),
            "rss_growth_after_warm_mb": round(max(post, default=0) - base, 1),
        })
        return result

    def fresh_rss(self) -> float:
        """RSS of a new watcher on the same home and folder once it has caught up: what the
        data costs, for comparison with the long-running one."""
        proc = subprocess.Popen([str(ATC), "watch", str(self.watched), "--home", str(self.home),
                                 "--format-output", "json", "--debounce", "0.2"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            for line in proc.stdout:
                if json.loads(line).get("event") == "batch":
                    break
            time.sleep(1.0)
            return rss_mb(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)

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
             seed: int = 7, root: Path | None = None) -> dict[str, Any]:
    """One soak run in ``root`` (a temporary folder by default); the figures as a dict."""
    with tempfile.TemporaryDirectory(prefix="atc-watch-soak-") as tmp:
        soak = Soak(Path(root or tmp) / "soak", seconds, sessions, hour_seconds, poll, seed)
        try:
            return soak.run()
        finally:
            if soak.proc.poll() is None:
                soak.proc.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="wall time of the traffic")
    parser.add_argument("--sessions", type=int, default=12, help="sessions written at once")
    parser.add_argument("--hour-seconds", type=float, default=20.0,
                        help="wall seconds per simulated hour")
    parser.add_argument("--poll", action="store_true", help="the watcher polls")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, default=None,
                        help="run in this (new) folder and keep it, to look at afterwards")
    parser.add_argument("--rss-bound-mb", type=float, default=24.0,
                        help="most the watcher's RSS may exceed a fresh watcher's at the end")
    args = parser.parse_args()
    result = run_soak(args.minutes * 60, args.sessions, args.hour_seconds, args.poll, args.seed,
                      args.keep)
    print(json.dumps(result, indent=2))
    ok = (result["stopped_cleanly"] and not result["missed"] and not result["extra"]
          and not result["differ"] and not result["not_caught_up"]
          and result["rss_end_mb"] - result["rss_fresh_watcher_mb"] <= args.rss_bound_mb)
    print("PASS" if ok else "FAIL", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
