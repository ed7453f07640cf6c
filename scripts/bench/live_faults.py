"""Fault injection on the processes that stay up: `atc watch` and `atc mcp` (real subprocesses).

Four probes, each compared with an uninterrupted run on the same data:

``kill``      A feeder appends two real transcripts to a watched folder in chunks of random size
              (half-written lines included), renames one away and back, truncates and rewrites
              another; `atc watch` is SIGKILLed at random moments and started again. Once the
              feeder is done and the watcher idle, its home's items must be exactly those of a
              one-shot `atc ingest` of the final files: none lost, none twice.
``full``      `atc watch` starts under a file-size limit (RLIMIT_FSIZE, soft; the kernel's
              refusal a full disk gives as ENOSPC is EFBIG here) that its journal reaches
              mid-ingest; the limit is lifted once the watcher has said its error; then the
              same comparison.
``index``     `atc watch` (curating) whose BM25 and vector indexes' writes are refused (ENOSPC,
              injected into ``LexicalIndex.flush`` and ``VectorStore.flush`` while a flag file
              exists: on a disk that fills, Python's index write may come before the journal's);
              it must say so, stay up, and once the flag is gone hold the same items, each
              with its BM25 entry, and pass `atc doctor`.
``remember``  `atc mcp` (stdio) is SIGKILLed at a random moment of a `remember` call; the home
              must open, hold the item whole or not at all, and the same call again must
              answer it (new, or already remembered), its record line written once.

Usage:
    scripts/bench/live_faults.py [--probe kill|full|index|remember|all] [--kills N] [--seed S]
        [--work DIR]

Prints one line per check and exits 1 when any fails.
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
import time
from pathlib import Path

ATC = str(Path(sys.executable).parent / "atc")
DATA = Path("/work/shared/data/claude-code-real")
TRANSCRIPTS = ("fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl",
               "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl")
FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        FAILURES.append(what)


def new_home(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    return folder


def atc(*args: str, home: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([ATC, *args, "--home", str(home)], capture_output=True, text=True,
                          timeout=timeout)


def handles(home: Path) -> list[str]:
    """Every live item's handle (a list: a doubled item would show twice)."""
    done = atc("query", "item(H)", "--limit", "10000000", "--format", "json", home=home)
    if done.returncode != 0:
        raise SystemExit(f"atc query failed on {home}: {done.stderr.strip()}")
    return sorted(row["H"] for row in json.loads(done.stdout))


#: ``atc watch`` whose index flushes are refused while the file named by $ATC_PROBE_FULL exists.
_REFUSING_INDEXES = """
import errno, os, sys
from attention_cloud.embed import VectorStore
from attention_cloud.embed.lexical import LexicalIndex
from attention_cloud.cli import main

def refusing(flush):
    def refused(self, *args, **kwargs):
        if os.path.exists(os.environ["ATC_PROBE_FULL"]):
            raise OSError(errno.ENOSPC, "No space left on device", type(self).__name__)
        return flush(self, *args, **kwargs)
    return refused

LexicalIndex.flush = refusing(LexicalIndex.flush)
VectorStore.flush = refusing(VectorStore.flush)
sys.argv[0] = "atc"
main()
"""


def start_watch(paths: list[Path], home: Path, log: Path, *, fsize: int | None = None,
                no_curate: bool = False, full_while: Path | None = None) -> subprocess.Popen:
    command = [ATC, "watch", *map(str, paths), "--home", str(home), "--format-output", "json",
               "--debounce", "0.2", "--settle", "2"]
    env = None
    if full_while is not None:
        command[0:1] = [sys.executable, "-c", _REFUSING_INDEXES]
        env = {**os.environ, "ATC_PROBE_FULL": str(full_while)}
    if no_curate:
        command.append("--no-curate")
    if fsize is not None:
        command = ["prlimit", f"--fsize={fsize}:unlimited", "--", *command]
    return subprocess.Popen(command, stdout=open(log, "a"), stderr=subprocess.STDOUT, env=env)


def events(log: Path) -> list[dict]:
    out = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            out.append(event)
    return out


def settle(watcher: subprocess.Popen, log: Path, quiet: float = 12.0, limit: float = 900) -> None:
    """Wait until this watcher has logged a batch and its log has not grown for ``quiet``
    seconds since (it has read all: a first batch of a backlog may run longer than ``quiet``)."""
    end = time.monotonic() + limit
    size, since = -1, time.monotonic()
    while time.monotonic() < end and watcher.poll() is None:
        now = log.stat().st_size
        if now != size:
            size, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet and _batch_since_start(log):
            return
        time.sleep(0.5)


def _batch_since_start(log: Path) -> bool:
    kinds = [e.get("event") for e in events(log)]
    last_start = max((i for i, k in enumerate(kinds) if k == "start"), default=-1)
    return "batch" in kinds[last_start + 1:]


def stop(watcher: subprocess.Popen) -> int:
    watcher.send_signal(signal.SIGTERM)
    try:
        return watcher.wait(timeout=120)
    except subprocess.TimeoutExpired:
        watcher.kill()
        return watcher.wait()


def feed(folder: Path, rng: random.Random, *, pause: float) -> None:
    """Play the transcripts into ``folder``: appended in random chunks (a chunk may end
    mid-line), one renamed away and back mid-way, a third file written, truncated, rewritten
    and deleted."""
    sources = [(DATA / name).read_bytes() for name in TRANSCRIPTS]
    positions = [0] * len(sources)
    targets = [folder / name for name in TRANSCRIPTS]
    scratch = folder / "scratch.jsonl"
    step = 0
    while any(p < len(s) for p, s in zip(positions, sources)):
        i = rng.randrange(len(sources))
        if positions[i] >= len(sources[i]):
            continue
        size = rng.randint(2_000, 40_000)
        with open(targets[i], "ab") as out:
            out.write(sources[i][positions[i]:positions[i] + size])
        positions[i] += size
        step += 1
        if step == 6:   # rotated: renamed away and back (the watcher sees a delete, a create)
            aside = targets[0].with_suffix(".moved")
            targets[0].rename(aside)
            time.sleep(pause)
            aside.rename(targets[0])
        if step == 4:   # a file written, truncated mid-read, rewritten, then deleted
            scratch.write_bytes((DATA / "tool_heavy.jsonl").read_bytes())
        if step == 12:
            scratch.write_bytes(b"")
        if step == 16:
            scratch.write_bytes((DATA / "short.jsonl").read_bytes())
        if step == 24:
            scratch.unlink()
        time.sleep(pause)


def reference(folder: Path, work: Path, extra: list[bytes], name: str) -> list[str]:
    """One-shot ingest of the final files, and of the versions in ``extra`` (destroyed on
    the way: a watcher may or may not have read them)."""
    home = new_home(work / name)
    paths = [str(folder)]
    if extra:
        versions = work / f"{name}-versions"
        versions.mkdir()
        for n, data in enumerate(extra):
            (versions / f"scratch-{n}.jsonl").write_bytes(data)
        paths.append(str(versions))
    done = atc("ingest", *paths, home=home)
    if done.returncode != 0:
        raise SystemExit(f"reference ingest failed: {done.stderr.strip()}")
    return handles(home)


def probe_kill(work: Path, rng: random.Random, kills: int) -> None:
    folder = work / "watched"
    folder.mkdir()
    home = new_home(work / "home")
    log = work / "watch.log"
    feeder = subprocess.Popen([sys.executable, __file__, "--feed", str(folder),
                               "--seed", str(rng.randrange(1 << 30))])
    watcher = start_watch([folder], home, log)
    killed = 0
    while feeder.poll() is None or killed < kills:   # all through the feed, at least kills
        time.sleep(rng.uniform(2.0, 25.0))  # some batches end between kills, some do not
        watcher.send_signal(signal.SIGKILL)
        watcher.wait()
        killed += 1
        watcher = start_watch([folder], home, log)
    feeder.wait()
    settle(watcher, log)
    status = stop(watcher)
    check(status == 0, f"kill: the last watcher stopped by SIGTERM exits 0 (got {status})")
    errors = [e for e in events(log) if e.get("event") == "error"]
    check(not errors, f"kill: no error event over {killed} SIGKILLs ({errors[:2]})")
    got = handles(home)
    final = set(reference(folder, work, [], "reference"))
    every = set(reference(folder, work, [(DATA / "tool_heavy.jsonl").read_bytes(),
                                         (DATA / "short.jsonl").read_bytes()], "reference-all"))
    check(len(got) == len(set(got)), f"kill: no handle twice ({len(got)} items)")
    check(final <= set(got) <= every,
          f"kill: the items are those of a one-shot ingest of the final files, with what it "
          f"read of the deleted one ({len(final - set(got))} missing, "
          f"{len(set(got) - every)} extra; {len(final)} final, "
          f"{len(set(got) - final)} of the deleted file's {len(every - final)})")
    doctor = atc("doctor", home=home)
    check(doctor.returncode == 0, f"kill: atc doctor passes ({doctor.stdout.strip()[-200:]})")


def _watched_transcripts(work: Path) -> tuple[Path, Path, Path]:
    """The two transcripts in a watched folder, a new home and the watcher's log."""
    folder = work / "watched"
    folder.mkdir()
    for name in TRANSCRIPTS:
        shutil.copy(DATA / name, folder / name)
    return folder, new_home(work / "home"), work / "watch.log"


def _until_errors(watcher: subprocess.Popen, log: Path, count: int) -> list[dict]:
    """Wait (up to 600 s, or until it exits) for ``count`` error events of ``watcher``."""
    end = time.monotonic() + 600
    while time.monotonic() < end and watcher.poll() is None:
        if sum(e.get("event") == "error" for e in events(log)) >= count:
            break
        time.sleep(0.5)
    return [e for e in events(log) if e.get("event") == "error"]


def _once_writes_go_through(probe: str, watcher: subprocess.Popen, work: Path, folder: Path,
                            home: Path, log: Path) -> None:
    """The checks once the file system takes writes again: the watcher catches up and stops
    cleanly, and its home holds the items of a one-shot ingest, none twice."""
    settle(watcher, log, quiet=20, limit=900)
    status = stop(watcher)
    check(status == 0, f"{probe}: stopped by SIGTERM, exits 0 (got {status})")
    got = handles(home)
    want = reference(folder, work, [], "reference")
    check(len(got) == len(set(got)), f"{probe}: no handle twice ({len(got)} items)")
    check(set(got) == set(want), f"{probe}: once writes go through, the items are those of a "
                                 f"one-shot ingest ({len(set(want) - set(got))} missing, "
                                 f"{len(set(got) - set(want))} extra, of {len(want)})")


def probe_full(work: Path, rng: random.Random) -> None:
    folder, home, log = _watched_transcripts(work)
    limit = 400_000  # bytes: the journal of the two transcripts is several MB
    watcher = start_watch([folder], home, log, fsize=limit)
    said = _until_errors(watcher, log, 1)
    check(bool(said), f"full: the watcher says the refused write "
                      f"({said[0].get('message', '')[:160] if said else 'no error event'})")
    check(watcher.poll() is None, "full: the watcher keeps running after the refused write")
    subprocess.run(["prlimit", "--pid", str(watcher.pid), "--fsize=unlimited:unlimited"],
                   check=True)
    _once_writes_go_through("full", watcher, work, folder, home, log)


def probe_index(work: Path, rng: random.Random) -> None:
    folder, home, log = _watched_transcripts(work)
    full = work / "disk-is-full"
    full.touch()
    watcher = start_watch([folder], home, log, full_while=full)
    said = _until_errors(watcher, log, 2)  # refused, and refused again on the retry
    check(len(said) >= 2, f"index: the watcher says the refused index write, and again on the "
                          f"retry ({said[0].get('message', '')[:160] if said else 'no error event'})")
    check(watcher.poll() is None, "index: the watcher keeps running after the refused writes")
    full.unlink()
    _once_writes_go_through("index", watcher, work, folder, home, log)
    found = subprocess.run([sys.executable, "-c", _LEXICAL_MISSING, str(home)],
                           capture_output=True, text=True, timeout=900)
    check(found.returncode == 0 and found.stdout.strip() == "0",
          f"index: every item has its BM25 entry ({found.stdout.strip() or found.stderr[-200:]} "
          f"without)")
    doctor = atc("doctor", home=home)
    check(doctor.returncode == 0, f"index: atc doctor passes ({doctor.stdout.strip()[-200:]})")


#: Prints how many live items of the home in argv[1] lack a BM25 entry.
_LEXICAL_MISSING = """
import sys
from attention_cloud import Memory
with Memory.open(sys.argv[1], create=False) as mem:
    lexical = mem.jump.lexical
    print(sum(not lexical.has(str(r["H"])) for r in mem.query("item(H)", limit=10**7).rows))
"""


_INIT = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
         '"capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}\n'
         '{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def _remember_call(ident: int, text: str) -> bytes:
    return (json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                        "params": {"name": "remember", "arguments": {"text": text}}}) + "\n").encode()


def probe_remember(work: Path, rng: random.Random, kills: int) -> None:
    home = new_home(work / "home")
    env = {**os.environ, "ATC_HOME": str(home)}
    texts = [f"probe note: an uninterrupted call, timed"]
    server = subprocess.Popen([ATC, "mcp"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    server.stdin.write(_INIT.encode())
    server.stdin.flush()
    server.stdout.readline()
    began = time.monotonic()
    server.stdin.write(_remember_call(2, texts[0]))
    server.stdin.flush()
    server.stdout.readline()
    took = time.monotonic() - began  # a call on a fresh server: open, commit, curate
    server.stdin.close()
    server.wait()
    print(f"     remember: an uninterrupted call took {took:.1f} s; kills fall within it",
          flush=True)
    for n in range(kills):
        text = f"probe note {n}: the deploy window for service {rng.randrange(10**6)} is 16:00"
        texts.append(text)
        server = subprocess.Popen([ATC, "mcp"], env=env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        server.stdin.write(_INIT.encode())
        server.stdin.flush()
        answered = server.stdout.readline().decode(errors="replace")  # initialized
        server.stdin.write(_remember_call(2, text))
        server.stdin.flush()
        time.sleep(rng.uniform(0.0, took))
        server.kill()
        server.wait()
        server.stdin.close()
        answered += server.stdout.read().decode(errors="replace")
        server.stdout.close()
        said_new = '"new":true' in answered.replace(" ", "")
        again = atc("remember", text, "--format", "json", home=home)
        ok = again.returncode == 0
        reply = json.loads(again.stdout) if ok else {}
        check(ok and (not said_new or reply.get("new") is False),
              f"remember {n}: after SIGKILL the same call answers "
              f"({'killed call had answered new; ' if said_new else ''}again: "
              f"{'new' if reply.get('new') else 'already remembered'}"
              f"{'' if ok else ' FAILED ' + again.stderr.strip()})")
    records = (home / "remembered.jsonl").read_text(encoding="utf-8").splitlines()
    lines = [json.loads(r)["text"] for r in records if r.strip()]
    check(sorted(lines) == sorted(texts), f"remember: remembered.jsonl holds each text once "
                                          f"({len(lines)} lines for {len(texts)} texts)")
    stored = handles(home)
    check(len(stored) == len(texts), f"remember: {len(stored)} items for {len(texts)} texts")
    doctor = atc("doctor", home=home)
    check(doctor.returncode == 0, f"remember: atc doctor passes ({doctor.stdout.strip()[-200:]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--probe", choices=("kill", "full", "index", "remember", "all"),
                        default="all")
    parser.add_argument("--kills", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--feed", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    if args.feed:
        feed(args.feed, rng, pause=0.4)
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="live-faults-"))
    for name in (("kill", "full", "index", "remember") if args.probe == "all" else (args.probe,)):
        started = time.monotonic()
        folder = work / name
        folder.mkdir(parents=True)
        if name == "kill":
            probe_kill(folder, rng, args.kills)
        elif name == "full":
            probe_full(folder, rng)
        elif name == "index":
            probe_index(folder, rng)
        else:
            probe_remember(folder, rng, args.kills)
        print(f"     {name}: {time.monotonic() - started:.0f} s ({folder})", flush=True)
    sys.exit(1 if FAILURES else 0)


if __name__ == "__main__":
    main()
