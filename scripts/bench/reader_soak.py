#!/usr/bin/env python3
"""Long-running processes beside writers, with kills (sibling of ``write_kill_soak.py``).

Two soaks, each on a fresh home (``hash`` embedder), for ``--rounds`` rounds:

* **watch**: ``atc watch DIR`` follows a folder of transcripts while, each round, a turn is
  appended to a watched file and a CLI writer runs ``atc remember`` of a fresh secret then
  ``atc forget`` of it (each SIGKILLed after a random delay in a share of rounds, then run
  again to completion), and in a share of rounds the watcher itself is SIGKILLed and
  started again. Counted: writer refusals (exit 1 naming the other writer), writer runs that
  failed otherwise, watcher restarts and whether each took over, watcher output that is a
  traceback; at the end, appended turns missing from memory, forgotten secrets in any file
  of the home, ``atc doctor``.
* **serve+mcp**: ``atc serve`` (bob, a grantee of segment ``default``) and ``atc mcp``
  (stdio) answer beside each other while, each round, the MCP server remembers a fresh
  secret (its own write), bob's frame is asked for it, another process forgets it (``atc
  forget``, SIGKILLed in a share of rounds and run again), and then bob's frame (serve) and
  the MCP frame and query are asked again: any answer after the forget that holds the secret
  is a *leak*. In a share of rounds one server is SIGKILLed and started again. Counted:
  leaks, failed calls, restarts; at the end, forgotten secrets in any file, ``atc doctor``.

    nice .venv/bin/python scripts/bench/reader_soak.py [--rounds 20] [--kill-share 0.3]
        [--seed 1] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import ROOT, doctor_unclean, run_header  # noqa: E402

ATC = [sys.executable, "-m", "attention_cloud.cli"]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, ATC_HOME=str(home), PYTHONUNBUFFERED="1", **extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "host"), env.get("PYTHONPATH")) if p)
    return env


def _atc(home: Path, *args: str, wait: str = "30") -> subprocess.CompletedProcess:
    return subprocess.run(ATC + list(args), capture_output=True, text=True,
                          env=_env(home, ATC_LOCK_WAIT=wait), timeout=600)


def _killed(home: Path, args: list[str], delay: float) -> bool:
    """``atc ARGS`` SIGKILLed after ``delay`` seconds (it may end first); True if killed."""
    proc = subprocess.Popen(ATC + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=_env(home, ATC_LOCK_WAIT="30"))
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    return proc.returncode == -signal.SIGKILL


def _files_holding(home: Path, text: str) -> list[str]:
    needle = text.encode()
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.is_file() and needle in p.read_bytes())


def _secret(rng: random.Random, n: int) -> str:
    """A note whose part after "is" is the secret: goals ask for "vault code N" only, so an
    answer (or a stored receipt) holding the secret's digits got them from memory."""
    return f"vault code {n} is {rng.randrange(10**9):09d}-{rng.choice(['kiwi', 'lynx', 'oboe'])}"


def _hidden(secret: str) -> str:
    return secret.split(" is ", 1)[1]


def _turn(session: str, n: int, text: str) -> str:
    return json.dumps({"type": "user", "uuid": f"{session}-{n}", "sessionId": session,
                       "timestamp": f"2026-01-01T10:{n // 60:02d}:{n % 60:02d}Z",
                       "message": {"role": "user", "content": text}})


def _texts(home: Path) -> dict[str, str]:
    """Every live item's text, to its handle: the home opened in this process, beside the
    running writers, as a reading ``atc query`` opens it (a reader takes no lock). The
    soak's subjects are the watcher, the servers and the CLI writers; its own look-ups were
    an ``atc query`` process each before."""
    from attention_cloud import Memory

    with Memory.open(home, create=False) as mem:
        return {str(r["T"]): str(r["H"]) for r in mem.query("item_text(H, T)", limit=1_000_000).rows}


def _forget_cli(home: Path, handle: str, rng: random.Random, kill_share: float,
                figures: dict) -> bool:
    """``atc forget HANDLE`` by another process, killed first in a share of rounds; True when
    it is done (the item gone)."""
    if rng.random() < kill_share:
        figures["writer_kills"] += _killed(home, ["forget", handle, "--yes"], rng.uniform(0.2, 2.0))
    done = _atc(home, "forget", handle, "--yes")
    if done.returncode == 0 or "no such item" in done.stderr or "unknown" in done.stderr:
        return True
    figures["writer_failures"].append(("forget", done.stderr.strip()[-200:]))
    return False


def _handle_of(home: Path, text: str) -> str | None:
    return _texts(home).get(text)


# -- watch beside a CLI writer --------------------------------------------------------------------
class Watcher:
    def __init__(self, home: Path, folder: Path) -> None:
        self.home, self.folder, self.output = home, folder, []
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ATC + ["watch", str(self.folder), "--poll", "--interval", "0.3", "--settle", "1",
                   "--debounce", "0.2", "--max-delay", "2", "--format-output", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(self.home))
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            self.output.append(line.rstrip("\n"))

    def took_in(self, path: Path) -> bool:
        """Whether a batch this watcher (or one before it) reported took in all of ``path`` as it
        is now: a batch is logged once it is written to the journal."""
        size, where = path.stat().st_size, path.resolve()
        for line in list(self.output):
            try:
                event = json.loads(line)
            except ValueError:
                continue                # a note or a traceback, counted at the end
            if isinstance(event, dict) and event.get("event") == "batch" and any(
                    Path(f["path"]).resolve() == where and f["size"] == size and f["whole"]
                    for f in event.get("ingested", [])):
                return True
        return False

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()


def soak_watch(work: Path, rounds: int, kill_share: float, rng: random.Random) -> dict:
    home, folder = work / "watch-home", work / "watched"
    home.mkdir()
    folder.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    transcript = folder / "live.jsonl"
    transcript.write_text(_turn("W1", 0, "the watched session begins") + "\n", encoding="utf-8")
    figures: dict = {"rounds": rounds, "watcher_kills": 0, "took_over": 0, "writer_kills": 0,
                     "refusals": 0, "writer_failures": [], "tracebacks": 0, "missing_turns": [],
                     "leaks": [], "doctor": None}
    watcher = Watcher(home, folder)
    watcher.start()
    turns, forgotten = ["the watched session begins"], []
    for n in range(1, rounds + 1):
        turn = f"watched turn {n}: the deploy step {rng.randrange(10**6)} passed"
        with open(transcript, "a", encoding="utf-8") as fh:
            fh.write(_turn("W1", n, turn) + "\n")
        turns.append(turn)
        secret = _secret(rng, n)
        if rng.random() < kill_share:
            figures["writer_kills"] += _killed(home, ["remember", secret], rng.uniform(0.2, 1.5))
        done = _atc(home, "remember", secret)
        if done.returncode != 0:
            if "writing to this memory home" in done.stderr or "is writing" in done.stderr:
                figures["refusals"] += 1
            else:
                figures["writer_failures"].append(("remember", done.stderr.strip()[-200:]))
            continue
        handle = _handle_of(home, secret)
        if handle and _forget_cli(home, handle, rng, kill_share, figures):
            forgotten.append(secret)
        if rng.random() < kill_share:
            watcher.kill()
            figures["watcher_kills"] += 1
            watcher.start()
    # the last turns settle and the watcher takes them in: 6 s at most, as long as it needs
    # (a batch logged by a watcher killed later still counts; one killed before logging it
    # leaves the whole 6 s, and the missing turns are counted from memory below either way)
    waited = time.monotonic()
    while time.monotonic() < waited + 6 and not watcher.took_in(transcript):
        time.sleep(0.1)
    figures["settle_s"] = round(time.monotonic() - waited, 1)
    watcher.stop()
    out = "\n".join(watcher.output)
    figures["took_over"] = out.count('"took_over"')
    figures["tracebacks"] = out.count("Traceback")
    held = set(_texts(home))
    figures["missing_turns"] = [t for t in turns if t not in held]
    figures["leaks"] = [(s, _files_holding(home, _hidden(s))) for s in forgotten
                        if _files_holding(home, _hidden(s))]
    figures["doctor"] = doctor_unclean(home)
    return figures


# -- atc mcp beside atc serve ---------------------------------------------------------------------
class Mcp:
    """``atc mcp`` over stdio, spoken to line by line."""

    def __init__(self, home: Path) -> None:
        self.home, self.next_id = home, 1
        self.proc = subprocess.Popen(ATC + ["mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True,
                                     env=_env(home, ATC_LOCK_WAIT="60"))
        self._send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "soak", "version": "1"}}})
        self._reply(0)
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def _reply(self, wanted: int) -> dict:
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("atc mcp ended")
            reply = json.loads(line)
            if reply.get("id") == wanted:
                return reply

    def call(self, tool: str, **arguments) -> tuple[bool, str]:
        """(ok, text of the answer)."""
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments}})
        result = self._reply(self.next_id).get("result", {})
        text = "".join(c.get("text", "") for c in result.get("content", []))
        return not result.get("isError", True), text

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


class Serve:
    def __init__(self, home: Path) -> None:
        self.proc = subprocess.Popen(ATC + ["serve", "--port", "0"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, env=_env(home))
        line = self.proc.stdout.readline()
        if not line.startswith("serving on "):
            raise RuntimeError(f"atc serve did not start: {line!r}")
        self.url = line.split()[-1]

    def hydrate(self, token: str, goal: str) -> tuple[bool, str]:
        request = urllib.request.Request(
            self.url + "/v1/hydrate", data=json.dumps({"goal": goal, "budget": 600}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            method="POST")
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return True, answer.read().decode()
        except Exception as exc:  # noqa: BLE001 - counted and reported
            return False, f"{type(exc).__name__}: {exc}"

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()


def soak_servers(work: Path, rounds: int, kill_share: float, rng: random.Random) -> dict:
    home = work / "serve-home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    # the home and its grant through the Python API in this process (the servers are what is
    # soaked, not these commands; four ``atc`` processes did it before)
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    with Memory.open(home) as mem:
        mem.remember("the staging database is read-only on fridays")
        add_principal(mem, "alice", owner=True)
        token = add_principal(mem, "bob")
        add_grant(mem, "bob", segments=["default"], ceiling="L0")
    figures: dict = {"rounds": rounds, "leaks": [], "failed_calls": [], "restarts": 0,
                     "writer_kills": 0, "writer_failures": [], "seen_before_forget": 0,
                     "file_leaks": [], "doctor": None}
    mcp, serve = Mcp(home), Serve(home)
    forgotten = []
    for n in range(1, rounds + 1):
        secret = _secret(rng, n)
        ok, text = mcp.call("remember", text=secret)
        if not ok:
            figures["failed_calls"].append(("mcp remember", text[-200:]))
            continue
        handle = json.loads(text)["handle"]
        goal = secret.split(" is ")[0]
        ok, text = serve.hydrate(token, goal)
        figures["seen_before_forget"] += ok and _hidden(secret) in text
        if not _forget_cli(home, handle, rng, kill_share, figures):
            continue
        forgotten.append(secret)
        asked = (("serve hydrate", serve.hydrate(token, goal)),
                 ("mcp hydrate", mcp.call("hydrate", goal=goal, budget=600)),
                 ("mcp query", mcp.call("query", goal=f'item_text(H, T), sub_string(T, 0, _, _, "{goal} ")')))
        for name, (ok, text) in asked:
            if not ok:
                figures["failed_calls"].append((name, text[-200:]))
            elif _hidden(secret) in text or handle in text:
                figures["leaks"].append((name, n))
        if rng.random() < kill_share:
            figures["restarts"] += 1
            if rng.random() < 0.5:
                mcp.kill()
                mcp = Mcp(home)
            else:
                serve.kill()
                serve = Serve(home)
    mcp.stop()
    serve.stop()
    figures["file_leaks"] = [(s, _files_holding(home, _hidden(s))) for s in forgotten
                             if _files_holding(home, _hidden(s))]
    figures["doctor"] = doctor_unclean(home)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--kill-share", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=["watch", "servers"], default=None)
    ap.add_argument("--json", type=Path)
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    started = time.monotonic()
    figures = {}
    with tempfile.TemporaryDirectory(prefix="reader-soak-") as tmp:
        if opts.only in (None, "watch"):
            figures["watch"] = soak_watch(Path(tmp), opts.rounds, opts.kill_share, rng)
        if opts.only in (None, "servers"):
            figures["servers"] = soak_servers(Path(tmp), opts.rounds, opts.kill_share, rng)
    figures["seconds"] = round(time.monotonic() - started, 1)
    print(run_header("Readers beside writers, with kills: atc watch + CLI, atc mcp + atc serve"))
    print(json.dumps(figures, indent=2))
    if opts.json:
        opts.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
