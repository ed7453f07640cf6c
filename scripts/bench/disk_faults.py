"""Full disks under the writing commands, with real processes on a real file system.

Each trial copies a prepared home onto a small tmpfs of its own (needs root: ``mount``), fills
the file system until only ``LEAVE`` bytes are free, runs one command there, then frees the
space and checks what a user relies on:

* the command either completes (exit 0) or says why in one ``atc: …`` line, exit non-zero,
  no Python traceback;
* the home opens, and every item it held before is still there (an ``atc forget`` that
  exited 0 has taken its item, and no file of the home holds that item's text);
* the same command run again, with room, completes, and ``atc doctor`` passes.

Commands: ``curate`` (vector log, BM25, cells, snapshot), ``ingest`` (a large folder),
``forget`` (the erasure's plan and rewrite), ``cells`` (``atc cells rebuild``), ``grant``
(``atc grant add``) and ``hook`` (``atc hook stop --foreground``, the hooks' capture).
For each command the free space left sweeps from a few pages to past what an unhindered run
writes, so the refusal lands at each of its steps in turn.

Without root, ``--fault fsize`` runs each trial on the ordinary disk instead, the command
under a file-size limit (``RLIMIT_FSIZE``, which a quota's refusal resembles: ``EFBIG``) at
the home's largest file plus the free space left: the same checks, a refusal the kernel
gives any user (tests/test_disk_faults_smoke.py runs it briefly).

Usage:
    scripts/bench/disk_faults.py [--commands curate,ingest,...] [--points N] [--seed S]
        [--leaves BYTES,...] [--work DIR] [--fault disk|fsize] [--data DIR]

Prints one line per check and exits 1 when any fails.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ATC = str(Path(sys.executable).parent / "atc")
DATA = Path("/work/shared/data/claude-code-real")
SMALL = ("short.jsonl", "tool_heavy.jsonl")
HOOKED = "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"


class Corpus:
    """The transcripts the trials use, from ``--data``: the homes are prepared from
    :data:`SMALL` (else every transcript but the last), ``atc ingest`` reads the folder, and
    the hook captures :data:`HOOKED` (else the last transcript)."""

    def __init__(self, folder: Path) -> None:
        names = sorted(p.name for p in folder.glob("*.jsonl"))
        if len(names) < 2:
            raise SystemExit(f"{folder}: two Claude Code transcripts (*.jsonl) at least")
        self.folder = folder
        self.small = [n for n in SMALL if n in names] or names[:-1]
        self.hooked = folder / (HOOKED if HOOKED in names else names[-1])
        self.session = _session_of(self.hooked)
        self.items = 600     # what `atc ingest` of the folder leaves at least (measured anew)


def _session_of(transcript: Path) -> str:
    with open(transcript, encoding="utf-8") as lines:
        for line in lines:
            session = json.loads(line).get("sessionId") if line.strip() else None
            if session:
                return session
    raise SystemExit(f"{transcript}: no sessionId")


CORPUS: Corpus   # set by main()
FORGET_TEXT = "the vault passphrase is plum-orchid-4471 for the staging cluster"
FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        FAILURES.append(what)


def atc(*args: str, home: Path, stdin: str | None = None, timeout: float = 900,
        env: dict | None = None, limit: Any = None) -> subprocess.CompletedProcess:
    """Run ``atc ARGS --home HOME``; ``limit``: run in the child before it starts."""
    return subprocess.run([ATC, *args, "--home", str(home)], capture_output=True, text=True,
                          input=stdin, timeout=timeout, env=env, preexec_fn=limit)


def handles(home: Path) -> list[str] | str:
    """Every live item's handle, or the error line when the home does not open."""
    done = atc("query", "item(H)", "--limit", "10000000", "--format", "json", home=home)
    if done.returncode != 0:
        return done.stderr.strip() or f"exit {done.returncode}"
    return sorted(row["H"] for row in json.loads(done.stdout))


def home_bytes_hold(home: Path, text: str) -> list[str]:
    needle = text.encode()
    return [str(p.relative_to(home)) for p in home.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


# ---------------------------------------------------------------- the prepared homes

def prepare(work: Path) -> dict[str, Path]:
    """Homes each command starts from, built once on the ordinary disk."""
    data = work / "data"
    data.mkdir()
    for name in CORPUS.small:
        shutil.copy(CORPUS.folder / name, data / name)
    bases = {}
    ingested = new_home(work / "ingested")
    run_ok(atc("ingest", str(data), home=ingested), "prepare: ingest")
    bases["ingested"] = ingested
    curated = work / "curated"
    shutil.copytree(ingested, curated)
    run_ok(atc("remember", FORGET_TEXT, "--no-curate", home=curated), "prepare: remember")
    run_ok(atc("curate", home=curated), "prepare: curate")
    run_ok(atc("principal", "add", "me", "--owner", home=curated), "prepare: owner")
    run_ok(atc("principal", "add", "bob", home=curated), "prepare: principal")
    bases["curated"] = curated
    bases["empty"] = new_home(work / "empty")
    return bases


def new_home(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    return folder


def run_ok(done: subprocess.CompletedProcess, what: str) -> None:
    if done.returncode != 0:
        raise SystemExit(f"{what} failed: {done.stderr.strip()}")


def forgotten_handle(home: Path) -> str:
    done = atc("query", f'item_text(H, T), sub_string(T, _, _, _, "plum-orchid-4471")',
               "--format", "json", home=home)
    run_ok(done, "find the note")
    return json.loads(done.stdout)[0]["H"]


# ---------------------------------------------------------------- commands

def command_line(name: str, home: Path, work: Path, target: str) -> tuple[list[str], str | None]:
    """The arguments of the trial's command and its stdin."""
    if name == "curate":
        return ["curate"], None
    if name == "ingest":
        return ["ingest", str(CORPUS.folder)], None
    if name == "forget":
        return ["forget", target, "--yes", "--reason", "probe"], None
    if name == "cells":
        return ["cells", "rebuild"], None
    if name == "grant":
        return ["grant", "add", "bob", "--segment", "default"], None
    if name == "hook":
        payload = {"session_id": "probe", "cwd": "/work/app", "hook_event_name": "Stop",
                   "transcript_path": str(CORPUS.hooked)}
        return ["hook", "stop", "--foreground"], json.dumps(payload)
    raise SystemExit(f"unknown command {name}")


def _count(home: Path, goal: str) -> int:
    done = atc("query", f"aggregate_all(count, ({goal}), N)", "--format", "json", home=home)
    return json.loads(done.stdout)[0]["N"] if done.returncode == 0 else -1


def _uncurated(home: Path, target: str) -> str:
    n = _count(home, "item(H), \\+ curated(H, _)")
    return "" if n == 0 else f"({n} items uncurated)"


def _one_grant(home: Path, target: str) -> str:
    done = atc("grant", "list", "--format", "json", home=home)
    grants = json.loads(done.stdout) if done.returncode == 0 else None
    n = len(grants.get("grants", grants)) if isinstance(grants, dict) else \
        (len(grants) if grants is not None else -1)
    return "" if n == 1 else f"({n} grants: {done.stdout[:100]} {done.stderr[:100]})"


def _cells(home: Path, target: str) -> str:
    n = _count(home, "cell(C)")
    return "" if n > 0 else f"({n} cells)"


def _ingested(home: Path, target: str) -> str:
    n = _count(home, "item(H)")
    return "" if n >= CORPUS.items else f"({n} items)"


def _hooked(home: Path, target: str) -> str:
    n = _count(home, f"item(H), item_session(H, S), sub_atom(S, _, _, _, '{CORPUS.session}')")
    return "" if n > 0 else f"({n} items of the captured session)"


def _gone(home: Path, target: str) -> str:
    n = _count(home, f"item({target})")
    return "" if n == 0 else "(the item is still there)"


FINISHED = {"curate": _uncurated, "ingest": _ingested, "forget": _gone, "cells": _cells,
            "grant": _one_grant, "hook": _hooked}
CHECKED = {"curate": "every item is curated", "ingest": "the folder's items are in",
           "forget": "the item is gone", "cells": "cells exist",
           "grant": "exactly one grant", "hook": "the session is captured"}


BASE_OF = {"curate": "ingested", "ingest": "empty", "forget": "curated", "cells": "curated",
           "grant": "curated", "hook": "curated"}


# ---------------------------------------------------------------- a small disk

class SmallDisk:
    """A tmpfs of ``size`` bytes mounted at ``mount`` for one trial."""

    def __init__(self, mount: Path, size: int) -> None:
        self.mount, self.size = mount, size

    def __enter__(self) -> "SmallDisk":
        self.mount.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size}", "tmpfs",
                        str(self.mount)], check=True)
        return self

    def __exit__(self, *exc) -> None:
        subprocess.run(["umount", "-l", str(self.mount)], check=False)

    def free(self) -> int:
        st = os.statvfs(self.mount)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int) -> None:
        room = self.free() - leave
        if room > 0:
            with open(self.mount / "filler", "wb") as out:
                os.posix_fallocate(out.fileno(), 0, room)

    def free_up(self) -> None:
        (self.mount / "filler").unlink(missing_ok=True)

    limit = None   # the command runs as it is: the file system refuses


class FileSizeLimit:
    """No root needed: the trial's home on the ordinary disk, in ``folder``, and its command run
    with a file-size limit at the home's largest file plus ``leave`` bytes (``EFBIG``: no
    file grows past it; Python ignores SIGXFSZ, so the write fails rather than the process)."""

    def __init__(self, folder: Path) -> None:
        self.mount, self.cap = folder, resource.RLIM_INFINITY

    def __enter__(self) -> "FileSizeLimit":
        self.mount.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.mount, ignore_errors=True)

    def fill(self, leave: int) -> None:
        self.cap = max(p.stat().st_size for p in self.mount.rglob("*") if p.is_file()) + leave

    def free_up(self) -> None:
        self.cap = resource.RLIM_INFINITY

    def limit(self) -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.cap, self.cap))


def used_by(name: str, bases: dict[str, Path], work: Path, target: str) -> int:
    """Bytes an unhindered run of ``name`` adds to its home (its peak is not known: the sweep
    goes past this)."""
    home = work / f"measure-{name}"
    shutil.copytree(bases[BASE_OF[name]], home)
    before = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    args, stdin = command_line(name, home, work, target)
    run_ok(atc(*args, home=home, stdin=stdin, env=hook_env()), f"measure {name}")
    if name == "ingest":
        CORPUS.items = _count(home, "item(H)")
    after = sum(p.stat().st_size for p in home.rglob("*") if p.is_file())
    shutil.rmtree(home)
    return max(after - before, 4096)


def hook_env() -> dict:
    return {**os.environ, "ATC_HOOK_SERVER": "off"}


def small_disk(fault: str, base: Path, work: Path) -> Any:
    """Where a trial's home lies, and how its room is taken: a tmpfs filled up (``disk``,
    root) or a file-size limit on the command (``fsize``)."""
    if fault == "fsize":
        return FileSizeLimit(work / "limited")
    base_size = sum(p.stat().st_size for p in base.rglob("*") if p.is_file())
    return SmallDisk(work / "mnt", base_size * 3 + 64 * 2**20)


def hook_said(done: subprocess.CompletedProcess, home: Path, label: str) -> None:
    """A capture that completed is silent (exit 0); one refused says so in one line on stderr
    with status 1 (Claude Code's non-blocking error, shown to the user) and leaves the mark
    ``atc doctor`` names until a capture completes."""
    err = done.stderr.strip().splitlines()
    if done.returncode == 0:
        check(done.stdout == "" and not err, f"{label}: hook completed silently")
        return
    check(done.returncode == 1 and done.stdout == "" and len(err) == 1
          and err[0].startswith("atc: this turn's capture failed"),
          f"{label}: hook refused says so in one line, exit 1 (exit {done.returncode}: "
          f"{err[-1][:110] if err else ''})")
    doctor = atc("doctor", home=home)
    check(doctor.returncode == 1 and "NOT CAPTURED" in doctor.stdout,
          f"{label}: atc doctor names the capture that failed")


def trial(name: str, leave: int, bases: dict[str, Path], work: Path, target: str,
          before: dict[str, list[str]], fault: str = "disk") -> None:
    base = bases[BASE_OF[name]]
    with small_disk(fault, base, work) as disk:
        home = disk.mount / "home"
        shutil.copytree(base, home)
        disk.fill(leave)
        args, stdin = command_line(name, home, work, target)
        label = f"{name} leave={leave}"
        done = atc(*args, home=home, stdin=stdin, env=hook_env(), limit=disk.limit)
        err = done.stderr.strip().splitlines()
        disk.free_up()
        if name == "hook":
            hook_said(done, home, label)
        elif done.returncode != 0:
            check("Traceback" not in done.stderr and bool(err) and err[-1].startswith("atc: "),
                  f"{label}: refused in one line (exit {done.returncode}: "
                  f"{err[-1][:110] if err else ''})")
        else:
            print(f"     {label}: completed", flush=True)
        now = handles(home)
        if isinstance(now, str):
            check(False, f"{label}: the home opens afterwards ({now[:160]})")
            return
        kept = set(before[BASE_OF[name]])
        if name == "forget":
            # refused after its plan was written, the erasure is finished by the next call
            kept.discard(target)
            if done.returncode == 0:
                check(target not in now, f"{label}: the forgotten item is gone")
        missing = kept - set(now)
        check(not missing, f"{label}: every item held before is there ({len(missing)} missing)")
        again = atc(*args, home=home, stdin=stdin, env=hook_env())
        gone_already = (name == "forget" and again.returncode == 2
                        and "no such item" in again.stderr)
        # a capture again, after one refused: it says that one failed (exit 1) and takes it in
        retold = (name == "hook" and done.returncode != 0 and again.returncode == 1
                  and again.stderr.startswith("atc: the capture of an earlier turn"))
        check(again.returncode == 0 or gone_already or retold,
              f"{label}: the same command with room completes "
              f"(exit {again.returncode} {again.stderr.strip()[-140:]})")
        finished = FINISHED[name](home, target)
        check(finished == "", f"{label}: afterwards {CHECKED[name]} {finished}")
        if name == "forget":
            holders = home_bytes_hold(home, "plum-orchid-4471")
            check(not holders, f"{label}: no file holds the forgotten text {holders}")
        doctor = atc("doctor", home=home)
        said = (doctor.stdout + doctor.stderr).strip().splitlines()
        check(doctor.returncode == 0, f"{label}: atc doctor passes "
              f"({said[-2:] if doctor.returncode else ''})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", default="curate,ingest,forget,cells,grant,hook")
    parser.add_argument("--points", type=int, default=5,
                        help="free-space amounts tried per command")
    parser.add_argument("--leaves", default="",
                        help="free bytes to leave, comma-separated, instead of the sweep")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--data", type=Path, default=DATA,
                        help="a folder of Claude Code transcripts (see Corpus)")
    parser.add_argument("--fault", choices=("disk", "fsize"), default="disk",
                        help="disk: a full tmpfs (root); fsize: a file-size limit (any user)")
    options = parser.parse_args()
    if options.fault == "disk" and os.geteuid() != 0:
        raise SystemExit("disk_faults.py mounts a tmpfs per trial: run it as root, or with "
                         "--fault fsize")
    global CORPUS
    CORPUS = Corpus(options.data)
    rng = random.Random(options.seed)
    work = options.work or Path(tempfile.mkdtemp(prefix="disk-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    bases = prepare(work)
    target = forgotten_handle(bases["curated"])
    before = {key: handles(home) for key, home in bases.items()}
    for name in options.commands.split(","):
        wrote = used_by(name, bases, work, target)
        print(f"     {name}: an unhindered run adds {wrote} bytes", flush=True)
        # none, then random whole pages (tmpfs's unit) up to 1.5x what a run adds
        pages = int(wrote * 1.5) // 4096 + 2
        leaves = sorted({0} | {4096 * rng.randrange(1, pages) for _ in range(options.points - 1)})
        if options.leaves:
            leaves = [int(n) for n in options.leaves.split(",")]
        for leave in leaves:
            trial(name, leave, bases, work, target, before, options.fault)
    print(f"{len(FAILURES)} checks failed" if FAILURES else "all checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
