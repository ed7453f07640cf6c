"""A Stop hook whose capture the file system refuses (a full disk, a quota, a file-size
limit), or whose capture process is killed, never breaks the agent, and never loses the turn
silently: the capture's mark (hooks/missed/) stays, the session's next Stop hook says so
in one line on stderr with status 1 (Claude Code's non-blocking error, which it shows the
user), ``atc doctor`` names it, and the next capture with room takes the missed turn in. Before, the hook exited 0 with nothing on
stderr, its hooks.log line was refused by the same full disk, and doctor passed.

The refusal is RLIMIT_FSIZE at 0 bytes (no file may grow: as a disk with no block left),
which the detached capture process inherits; scripts/bench/disk_faults.py does the same on
a full tmpfs."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ATC = str(Path(sys.executable).parent / "atc")
ENV = {**os.environ, "ATC_HOOK_SERVER": "off", "PYTHONDONTWRITEBYTECODE": "1"}


def _no_room() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))


def _stop(home: Path, transcript: Path, *, foreground: bool, full: bool = False,
          session: str = "s-full") -> subprocess.CompletedProcess:
    payload = {"session_id": session, "transcript_path": str(transcript),
               "cwd": "/home/dev/payments-service", "hook_event_name": "Stop"}
    return subprocess.run([ATC, "hook", "stop", *(["--foreground"] if foreground else []),
                           "--home", str(home)], input=json.dumps(payload), env=ENV,
                          capture_output=True, text=True, timeout=180,
                          preexec_fn=_no_room if full else None)


def _items(home: Path) -> int:
    from attention_cloud import Memory

    with Memory.open(home, create=False) as mem:
        return mem.stats()["items"]


def _doctor(home: Path) -> subprocess.CompletedProcess:
    return subprocess.run([ATC, "doctor", "--home", str(home)], capture_output=True, text=True,
                          timeout=120, env=ENV)


def _marks(home: Path) -> list[Path]:
    return sorted((home / "hooks" / "missed").glob("*.json"))


def _wait_for(predicate, seconds: float = 150.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return predicate()


def test_a_refused_foreground_capture_says_so_and_the_next_takes_the_turn_in(
        hash_home_and_session) -> None:
    home, transcript = hash_home_and_session
    refused = _stop(home, transcript, foreground=True, full=True)
    assert refused.returncode == 1 and refused.stdout == "", refused
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("atc: this turn's capture failed ("), lines
    assert "Traceback" not in refused.stderr
    assert len(_marks(home)) == 1
    doctor = _doctor(home)
    assert doctor.returncode == 1 and "hooks: NOT CAPTURED, " in doctor.stdout, doctor.stdout

    again = _stop(home, transcript, foreground=True)                  # room again
    assert again.returncode == 1 and again.stderr.startswith(
        "atc: the capture of an earlier turn of this session failed ("), again.stderr
    assert _items(home) > 10                                           # the missed turn is in
    assert _marks(home) == []
    assert _doctor(home).returncode == 0
    quiet = _stop(home, transcript, foreground=True)                   # said once it is done
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_a_refused_background_capture_is_said_by_the_next_stop(hash_home_and_session) -> None:
    """The real hook: it returns at once (exit 0, the agent goes on) and its detached process
    meets the full disk; the next Stop, while the disk is still full, says so (exit 1), and a
    Stop with room captures the missed turn and clears the mark."""
    home, transcript = hash_home_and_session
    first = _stop(home, transcript, foreground=False, full=True)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    assert _wait_for(lambda: len(_marks(home)) == 1), "the refused capture left no mark"
    marked = _marks(home)[0].stat().st_mtime_ns

    second = _stop(home, transcript, foreground=False, full=True)
    assert second.returncode == 1 and second.stdout == "", second
    assert len(second.stderr.strip().splitlines()) == 1
    assert second.stderr.startswith("atc: the capture of an earlier turn of this session failed")

    # the second's detached process, refused too, marks it again
    assert _wait_for(lambda: _marks(home)[0].stat().st_mtime_ns != marked)
    third = _stop(home, transcript, foreground=False)
    assert third.returncode == 1                      # the mark is still there when it starts
    assert _wait_for(lambda: _marks(home) == [] and _items(home) > 10), \
        (home / "hooks.log").read_text(encoding="utf-8")


def test_another_sessions_failed_capture_is_counted_and_a_busy_writer_is_no_failure(
        hash_home_and_session) -> None:
    import fcntl

    home, transcript = hash_home_and_session
    refused = _stop(home, transcript, foreground=True, full=True, session="ended")
    assert refused.returncode == 1
    other = _stop(home, transcript, foreground=True, session="another")
    assert other.returncode == 1
    assert other.stderr.strip() == ("atc: 1 other session's capture failed too (atc doctor "
                                    "names them)"), other.stderr
    with open(home / ".lock", "a") as lock:          # a writer at work: logged, caught up later
        fcntl.flock(lock, fcntl.LOCK_EX)
        busy = _stop(home, transcript, foreground=True, session="busy")
    assert "another process is writing" in (home / "hooks.log").read_text(encoding="utf-8")
    assert len(_marks(home)) == 1 and busy.stderr.startswith("atc: 1 other session")


def test_a_killed_capture_is_said_as_a_refused_one_is(hash_home_and_session) -> None:
    """A capture process killed mid-way (the OOM killer, a reboot) leaves its mark, naming its
    pid: once that process has ended, the next Stop says so and captures the turn."""
    import signal

    home, transcript = hash_home_and_session
    started = _stop(home, transcript, foreground=False)
    assert (started.returncode, started.stderr) == (0, "")
    assert _wait_for(lambda: len(list((home / "hooks" / "missed").glob("*.json"))) == 1, 60)
    mark = next((home / "hooks" / "missed").glob("*.json"))
    pid = json.loads(mark.read_text(encoding="utf-8"))["pid"]
    os.kill(pid, signal.SIGKILL)
    assert _wait_for(lambda: not _alive(pid), 30)
    doctor = _doctor(home)
    assert doctor.returncode == 1 and f"(pid {pid}) ended before it completed" in doctor.stdout
    again = _stop(home, transcript, foreground=True, session="s-full")
    assert again.returncode == 1 and "ended before it completed: killed, the machine stopped" in again.stderr
    assert _marks(home) == [] and _items(home) > 10


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_mark_the_full_disk_left_empty_is_said_all_the_same(tmp_path: Path) -> None:
    from attention_cloud.agents.missed_captures import doctor_lines, mark_path, stop_notice

    home = tmp_path / "home"
    mark = mark_path(home, "s1")
    mark.parent.mkdir(parents=True)
    mark.touch()                                     # what a disk refusing its bytes leaves
    assert stop_notice(home, "s1").startswith("atc: the capture of an earlier turn of this "
                                              "session failed (at ")
    lines = doctor_lines(home)
    assert len(lines) == 1 and lines[0].startswith("hooks: NOT CAPTURED, a session's capture "
                                                   "failed (at ")
    assert lines[0].endswith("; the disk refused the mark's details); its next turn captures "
                             "it; hooks.log may say which")
