"""The Stop hook's capture done by the home's warm recall server.

Each Stop hook is a new process, which read the whole transcript again (where a reading was
left is kept in a process's memory only: ingest.resume), loaded the rules, the journal and the
embedder, upserted every item and curated: a turn cost the whole session. The recall server
(which the prompt hook keeps up) now captures: it keeps where it left each transcript, so a
turn parses what the turn appended. What it holds after every turn is what a whole reading
gives, whatever happens to the file or the server between turns (appends cut mid-line, a file
cut back, rewritten, replaced; the server gone; an erasure here or in another process), and no
kept reading holds a forgotten item's text. When it cannot write at once, or dies, the hook's
own process captures, as before.
"""
from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.agents.hooks import _ingest_session, capture_warm, project_segment
from attention_cloud.agents.memory_host import MemoryHost

from test_ingest_resume import decoded, live, synthetic_session  # noqa: F401 (a fixture)

ATC = str(Path(sys.executable).parent / "atc")
CWD = "/work/app"


def new_home(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    return path


def request(transcript: Path, session: str = "S1") -> dict:
    return {"event": "stop", "session_id": session, "transcript_path": str(transcript),
            "cwd": CWD}


def log_lines(home: Path) -> list[str]:
    path = home / "hooks.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


# -- what happens to the transcript and the server between turns ----------------------------
def plan_steps(rng: random.Random, data: bytes, steps: int) -> list[tuple[str, bytes | None]]:
    """Steps of a session's life: ("write", the transcript's bytes now) — grown by a random
    piece (cut mid-line now and then), cut back to an earlier line, a byte changed before the
    end, replaced by another session —, ("server gone", None) and ("forget", None)."""
    out: list[tuple[str, bytes | None]] = []
    now = 0
    current = b""
    other = synthetic_session(random.Random(rng.random()), 40)
    for _ in range(steps):
        roll = rng.random()
        if roll < 0.55 or not current:
            now = min(len(data), now + rng.randint(40, 2500))
            current = current + data[len(current):now] if data.startswith(current) else \
                current + data[now - rng.randint(1, 200):now]
        elif roll < 0.65:
            cut = current.rfind(b"\n", 0, max(1, len(current) // 2))
            current = current[:cut + 1]
            now = len(current) if data.startswith(current) else now
        elif roll < 0.72:
            at = rng.randrange(len(current))
            current = current[:at] + (b"X" if current[at:at + 1] != b"X" else b"Y") + \
                current[at + 1:] + data[now:now + 300]
        elif roll < 0.78:
            current, now = other, 0
        elif roll < 0.9:
            out.append(("server gone", None))
            continue
        else:
            out.append(("forget", None))
            continue
        out.append(("write", current))
    return out


def forgettable(mem: Memory, step: int) -> str | None:
    """A live item to forget at ``step`` (the same one on both sides: the one with the
    ``step``-th handle in order)."""
    handles = sorted(r["H"] for r in mem.query("item(H)", limit=10_000).rows)
    return handles[step % len(handles)] if handles else None


def run_steps(home: Path, transcript: Path, steps: list, warm: bool) -> list[list[tuple]]:
    """Live items after each step: captured by a warm host kept across steps (``warm``) or by
    a new process's reading each time (a Memory opened for the capture, as the cold hook)."""
    held: list[list[tuple]] = []
    host = MemoryHost(home) if warm else None
    transcript.unlink(missing_ok=True)
    try:
        for number, (kind, data) in enumerate(steps):
            if kind == "server gone":
                if host is not None:
                    host.close()
                    host = MemoryHost(home)
                continue
            if kind == "forget":
                mem = host.memory() if host else Memory.open(home)
                try:
                    handle = forgettable(mem, number)
                    if handle:
                        text = mem.query(f"item_text('{handle}', T)").rows[0]["T"]
                        mem.forget([handle])
                        # no kept reading holds the forgotten text
                        assert len(mem.read_points) == 0
                        assert not [p for p in mem.read_points._points.values()
                                    if text.encode() in p.state]
                finally:
                    if host:
                        host.wrote()
                    else:
                        mem.close()
                continue
            transcript.write_bytes(data)
            if host is not None:
                assert capture_warm(request(transcript), home, host) == {"captured": True}
                held.append(live(host.memory()))
            else:
                _ingest_session(home, "stop", "S1", str(transcript), CWD)
                with Memory.open(home) as mem:
                    held.append(live(mem))
    finally:
        if host is not None:
            host.close()
    return held


@pytest.mark.parametrize("seed", range(3))
def test_warm_captures_hold_what_whole_readings_hold(tmp_path, decoded, seed):
    rng = random.Random(seed)
    data = synthetic_session(rng, 160)
    steps = plan_steps(rng, data, 16)
    transcript = tmp_path / "project" / "s.jsonl"
    transcript.parent.mkdir()
    decoded.clear()
    warm = run_steps(new_home(tmp_path / "warm"), transcript, steps, warm=True)
    warm_lines = len(decoded)
    decoded.clear()
    cold = run_steps(new_home(tmp_path / "cold"), transcript, steps, warm=False)
    assert warm == cold
    assert warm_lines <= len(decoded)


def test_a_warm_capture_parses_only_what_the_turn_appended(tmp_path, decoded):
    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    data = synthetic_session(random.Random(7), 200)
    lines = data.split(b"\n")
    transcript.write_bytes(b"\n".join(lines[:150]) + b"\n")
    host = MemoryHost(home)
    try:
        for turn in range(3):
            capture_warm(request(transcript), home, host)
            with transcript.open("ab") as fh:
                fh.write(b"\n".join(lines[150 + 10 * turn:160 + 10 * turn]) + b"\n")
        decoded.clear()
        assert capture_warm(request(transcript), home, host) == {"captured": True}
        assert decoded[-10:] == [l.decode() for l in lines[170:180]], decoded
        assert decoded[:-10] == [lines[0].decode()], decoded[:-10]
        assert "via=server" in log_lines(home)[-1]
    finally:
        host.close()


def test_a_busy_writer_is_not_waited_for_and_nothing_is_written(tmp_path):
    """The server never waits for the write lock (a prompt may wait behind the capture): it
    answers that it did not capture, and the hook's process captures, waiting as usual."""
    import fcntl

    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(synthetic_session(random.Random(1), 30))
    host = MemoryHost(home)
    try:
        host.memory(create=True)
        with open(home / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            started = time.monotonic()
            answer = capture_warm(request(transcript), home, host)
            assert time.monotonic() - started < 5
        assert answer["captured"] is False and "write" in answer["why"]
        assert host.memory().stats()["items"] == 0
        assert capture_warm(request(transcript), home, host) == {"captured": True}
    finally:
        host.close()


def test_an_erasure_in_another_process_drops_the_servers_kept_readings(tmp_path):
    """The server's memory follows an erasure elsewhere (`atc forget`): it reads the home
    afresh, and what it kept of the transcript it read, which held the forgotten text, is
    dropped; the forgotten item does not come back."""
    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    line = {"type": "user", "sessionId": "S1", "cwd": CWD,
            "timestamp": "2026-03-02T10:00:00Z"}
    transcript.write_text(json.dumps({**line, "uuid": "u1", "message": {
        "role": "user", "content": "deploy with the token S3CRET-TOKEN-42"}}) + "\n")
    host = MemoryHost(home)
    try:
        capture_warm(request(transcript), home, host)
        with transcript.open("a") as fh:
            fh.write(json.dumps({**line, "uuid": "u2", "message": {
                "role": "user", "content": "then tag the release"}}) + "\n")
        capture_warm(request(transcript), home, host)
        before = host.memory()
        assert len(before.read_points) == 1
        (secret,) = [r["H"] for r in before.query("item_text(H, T)").rows
                     if "S3CRET" in r["T"]]
        subprocess.run([ATC, "forget", secret, "--yes", "--home", str(home)], check=True,
                       capture_output=True, timeout=120)
        with transcript.open("a") as fh:
            fh.write(json.dumps({**line, "uuid": "u3", "message": {
                "role": "user", "content": "and the changelog"}}) + "\n")
        assert capture_warm(request(transcript), home, host) == {"captured": True}
        assert len(before.read_points) == 0
        after = host.memory()
        assert not [p for p in after.read_points._points.values() if b"S3CRET" in p.state]
        assert not [r for r in after.query("item_text(H, T)").rows if "S3CRET" in r["T"]]
        assert [r for r in after.query("item_text(H, T)").rows if "changelog" in r["T"]]
    finally:
        host.close()


def test_acquire_after_an_erasure_elsewhere_forgets_what_was_read(tmp_path):
    """A Memory that waits for the write lock while another process erases, then takes it,
    catches up with the compacted journal; what it kept of the files it read before (which
    holds the forgotten text) was kept too, and the next ingest read on from it."""
    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    line = {"type": "user", "sessionId": "S1", "timestamp": "2026-03-02T10:00:00Z"}
    transcript.write_text(json.dumps({**line, "uuid": "u1", "message": {
        "role": "user", "content": "the token is S3CRET-TOKEN-42"}}) + "\n")
    ready = tmp_path / "ready"
    with Memory.open(home) as mem:
        mem.ingest([transcript])
        with transcript.open("a") as fh:
            fh.write(json.dumps({**line, "uuid": "u2", "message": {
                "role": "user", "content": "then tag the release"}}) + "\n")
        mem.ingest([transcript])
        assert len(mem.read_points) == 1
        (secret,) = [r["H"] for r in mem.query("item_text(H, T)").rows if "S3CRET" in r["T"]]
        mem.release()
        # the eraser holds the lock before this Memory asks for it, and erases while it waits:
        # once this process has the lock file open (it waits on it), not after a fixed 2 s
        eraser = subprocess.Popen([sys.executable, "-c", f"""
import os, time
from pathlib import Path
from attention_cloud import Memory

def waiting(pid, lock):
    fds = Path(f"/proc/{{pid}}/fd")
    return any(os.readlink(fd) == lock for fd in fds.iterdir())

with Memory.open({str(home)!r}) as mem:
    mem.acquire()
    Path({str(ready)!r}).touch()
    deadline = time.monotonic() + 120
    while not waiting({os.getpid()}, {str((home / ".lock").resolve())!r}):
        assert time.monotonic() < deadline, "the reader never asked for the lock"
        time.sleep(0.02)
    mem.forget([{secret!r}])
"""])
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert eraser.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        mem.acquire(wait=120)          # given once the erasure is done
        assert eraser.wait(timeout=120) == 0
        try:
            assert len(mem.read_points) == 0
        finally:
            mem.release()


def fake_server(home: Path, answer: bytes | None) -> None:
    """A recall server on ``home``'s socket that takes one request and answers ``answer``
    (None: closes without one, as a server that died), then is gone."""
    from attention_cloud.agents.recall_server import socket_path

    (home / "hooks").mkdir()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(socket_path(home)))
    listener.listen(1)

    def serve_once() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        if answer is not None:
            conn.sendall(answer)
        conn.close()
        listener.close()

    threading.Thread(target=serve_once, daemon=True).start()


def test_a_server_that_dies_mid_capture_leaves_the_turn_to_the_hook(tmp_path):
    """A server that takes the request and dies without an answer: the hook's own process
    captures the turn (and starts a server for the next)."""
    from attention_cloud.agents.recall_server import ask

    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(synthetic_session(random.Random(2), 40))
    fake_server(home, None)                     # no answer: the process died
    payload = json.dumps({"session_id": "S1", "transcript_path": str(transcript), "cwd": CWD,
                          "hook_event_name": "Stop"})
    try:
        run = subprocess.run([ATC, "hook", "stop", "--foreground", "--home", str(home)],
                             input=payload, text=True, capture_output=True, timeout=120,
                             env={**os.environ, "ATC_HOOK_SERVER": "on"})
        assert (run.returncode, run.stdout) == (0, "")
        captured = [line for line in log_lines(home) if " stop session=S1" in line]
        assert captured and "via=process" in captured[-1] and " new=" in captured[-1]
        with Memory.open(home) as mem:
            assert mem.stats()["segments"] == {project_segment(CWD): mem.stats()["items"]}
        deadline = time.monotonic() + 60     # and a server for the next turn
        while not any("recall-server started" in line for line in log_lines(home)):
            assert time.monotonic() < deadline, log_lines(home)
            time.sleep(0.2)
    finally:
        ask(home, {"stop": True})


def test_the_stop_hook_is_captured_by_the_running_server(tmp_path):
    """With a recall server up, `atc hook stop` is captured by it, turn after turn, and the
    home holds what a cold capture of the same transcript holds."""
    from attention_cloud.agents.recall_server import ask, socket_path, start

    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    data = synthetic_session(random.Random(4), 60)
    lines = data.split(b"\n")
    env = {**os.environ, "ATC_HOOK_SERVER": "on"}
    payload = json.dumps({"session_id": "S1", "transcript_path": str(transcript), "cwd": CWD,
                          "hook_event_name": "Stop"})
    Memory.open(home).close()
    start(home)
    try:
        deadline = time.monotonic() + 60
        while not socket_path(home).exists():
            assert time.monotonic() < deadline
            time.sleep(0.1)
        for turn in range(2):
            transcript.write_bytes(b"\n".join(lines[:30 + 15 * turn]) + b"\n")
            run = subprocess.run([ATC, "hook", "stop", "--foreground", "--home", str(home)],
                                 input=payload, text=True, capture_output=True, timeout=120,
                                 env=env)
            assert (run.returncode, run.stdout) == (0, "")
            assert "via=server" in [l for l in log_lines(home) if " stop " in l][-1]
    finally:
        assert ask(home, {"stop": True}) == {"stopped": True}
    cold = new_home(tmp_path / "cold")
    with Memory.open(home) as mem:
        warm_items = live(mem)
    _ingest_session(cold, "stop", "S1", str(transcript), CWD)
    with Memory.open(cold) as mem:
        assert live(mem) == warm_items


@pytest.mark.parametrize("switch, said", [("off", None),
                                          ("of", "captured without the server")])
def test_a_server_turned_off_or_a_switch_misread_still_captures_the_turn(tmp_path, monkeypatch,
                                                                        switch, said):
    """`ATC_HOOK_SERVER=off` captures in the hook's process and starts no server; a value that
    cannot be read (`of`) is logged, and the turn is captured all the same, never lost."""
    from attention_cloud.agents.hooks import capture
    from attention_cloud.agents.recall_server import socket_path

    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(synthetic_session(random.Random(2), 40))
    monkeypatch.setenv("ATC_HOOK_SERVER", switch)
    payload = json.dumps({"session_id": "S1", "transcript_path": str(transcript), "cwd": CWD,
                          "hook_event_name": "Stop"})
    capture(payload, home, event="stop", foreground=True)
    captured = [line for line in log_lines(home) if " stop session=S1" in line]
    assert captured and "via=process" in captured[-1] and " new=" in captured[-1], log_lines(home)
    if said:
        assert any(said in line for line in log_lines(home)), log_lines(home)
    assert not socket_path(home).exists()
    new = int(captured[-1].split(" new=")[1].split()[0])
    with Memory.open(home) as mem:
        assert new > 0 and mem.stats()["live"] == new, mem.stats()


def test_a_transcript_the_hook_cannot_read_is_named_in_its_log(tmp_path, monkeypatch):
    """A transcript no format reads (its first line not JSON) was logged as `new=0
    unchanged=0`, as if the turn had said nothing: the log line names the file and why."""
    from attention_cloud.agents.hooks import capture

    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(b"not json at all\n" + synthetic_session(random.Random(2), 10))
    monkeypatch.setenv("ATC_HOOK_SERVER", "off")
    payload = json.dumps({"session_id": "S1", "transcript_path": str(transcript), "cwd": CWD,
                          "hook_event_name": "Stop"})
    capture(payload, home, event="stop", foreground=True)
    captured = [line for line in log_lines(home) if " stop session=S1" in line]
    assert captured and captured[-1].endswith("; s.jsonl not read (cannot detect format)"), \
        log_lines(home)


@pytest.mark.parametrize("bad, said", [
    ([1], "capture request is not a JSON object"),
    ({"event": "prompt", "transcript_path": "/x.jsonl"}, "capture request names no hook event"),
])
def test_a_capture_request_the_server_cannot_read_is_answered_with_why(tmp_path, bad, said):
    """A malformed capture request (another client on the socket, an older hook) is answered
    with an error naming it and logged; nothing is written and the server goes on."""
    from attention_cloud.agents.recall_server import _captured

    home = new_home(tmp_path / "home")
    host = MemoryHost(home)
    try:
        answer = _captured(bad, home, host)
    finally:
        host.close()
    assert said in answer.get("error", ""), answer
    assert any("capture not done" in line and said in line for line in log_lines(home))
    assert not (home / "journal.pl").exists() or (home / "journal.pl").stat().st_size == 0


def test_a_server_that_answers_an_error_leaves_the_turn_to_the_hook(tmp_path, monkeypatch):
    """A server that answers the capture with an error (it could not read the transcript,
    a bug): the hook's own process captures the turn cold, never loses it."""
    from attention_cloud.agents.hooks import capture

    home = new_home(tmp_path / "home")
    transcript = tmp_path / "s.jsonl"
    transcript.write_bytes(synthetic_session(random.Random(2), 40))
    fake_server(home, b'{"error": "capture not done: a bug"}')
    monkeypatch.setenv("ATC_HOOK_SERVER", "on")
    payload = json.dumps({"session_id": "S1", "transcript_path": str(transcript), "cwd": CWD,
                          "hook_event_name": "Stop"})
    capture(payload, home, event="stop", foreground=True)
    captured = [line for line in log_lines(home) if " stop session=S1" in line]
    assert captured and "via=process" in captured[-1], log_lines(home)
    new = int(captured[-1].split(" new=")[1].split()[0])
    with Memory.open(home) as mem:
        assert new > 0 and mem.stats()["live"] == new, mem.stats()
