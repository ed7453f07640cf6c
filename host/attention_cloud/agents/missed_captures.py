"""Marks of the hooks' captures that did not complete, so that a lost turn is never lost
silently.

A Stop or SessionEnd capture runs in a detached process (:func:`.hooks.capture`): when it
fails (a full disk, a quota, a read-only home, a bug) or is killed, nobody sees it, and its
line in ``hooks.log`` may be refused by the same full disk. So each capture first writes its
mark, ``home/hooks/missed/<session key>.json`` (the session, its transcript, when, its pid),
while the disk most likely has room, and takes it away once it completes; one that fails
writes why over it (where the disk refuses those bytes, the mark stays as it was and its time
is set). A mark that names why, or is empty, or whose process has ended, is a capture that
did not complete:

* the session's next capture hook says so in one line on stderr and exits 1, which Claude
  Code shows the user as a non-blocking hook error (the turn goes on; only status 2 blocks),
  and its capture reads the transcript again, which takes the missed turn in (items already
  in memory are left as they are);
* ``atc doctor`` lists every such mark (:func:`doctor_lines`), with the command that captures
  a session that will have no next turn.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import time
from pathlib import Path
from typing import Any

#: The folder of the marks, in the home.
MISSED_DIR = Path("hooks") / "missed"


def session_key(session_id: str) -> str:
    """The file name stem of a session's hook files (its id may hold any character)."""
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def mark_path(home: Path, session_id: str) -> Path:
    """Where the mark of ``session_id``'s capture lies."""
    return home / MISSED_DIR / f"{session_key(session_id)}.json"


def _now(seconds: float | None = None) -> str:
    """``seconds`` since the epoch (else now) as UTC, as hooks.log writes its times."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _write_mark(path: Path, record: dict[str, Any]) -> bool:
    """Replace the mark at ``path`` with ``record`` whole (written beside it, then renamed:
    a refused write leaves the mark there was); whether it was written."""
    spare = path.with_suffix(".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        spare.write_text(json.dumps(record), encoding="utf-8")
        os.replace(spare, path)
        return True
    except OSError:
        try:
            spare.unlink(missing_ok=True)
        except OSError:
            pass
        return False


def mark_capturing(home: Path, *, event: str, session_id: str, transcript: str,
                   cwd: str) -> None:
    """Before a capture, while the disk most likely has room: its mark, naming this process,
    taken away when the capture completes. A capture that never completes (refused, killed,
    the machine stopped) leaves it, with the session and the transcript it was reading. A
    failure already marked is left as it is: this capture will take it away if it completes."""
    path = mark_path(home, session_id)
    if not home.is_dir() or (path.exists() and _failed(_read_mark(path))):
        return
    _write_mark(path, {"session_id": session_id, "transcript_path": transcript, "cwd": cwd,
                       "event": event, "at": _now(), "pid": os.getpid()})


def mark_missed(home: Path, *, event: str, session_id: str, transcript: str, cwd: str,
                why: str) -> None:
    """Mark the capture as failed, and why (never raises: the capture's own error is what
    matters). Where a full disk refuses the record, the mark there is (the one
    :func:`mark_capturing` wrote, else an empty file) is kept and its time set to now."""
    path = mark_path(home, session_id)
    if not home.is_dir():
        return                            # no home: nothing was captured, nor lost
    if _write_mark(path, {"session_id": session_id, "transcript_path": transcript, "cwd": cwd,
                          "event": event, "at": _now(), "why": why}):
        return
    try:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))   # no block needed
        os.utime(path)
    except OSError:
        pass


def clear_mark(home: Path, session_id: str, *, completed: bool = True) -> None:
    """After a capture: take the session's mark away when it ``completed`` (it read the whole
    transcript, so it took in whatever an earlier failure missed), unless another capture of
    the session is under way; when it did not run (a busy writer), take its own mark only."""
    path = mark_path(home, session_id)
    record = _read_mark(path)
    own = record.get("pid") == os.getpid() and "why" not in record
    if own or (completed and _failed(record)):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            pass


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True        # another user's process: alive
    return True


def _failed(record: dict[str, Any]) -> bool:
    """Whether a mark says a failure: it names why, or it is empty (a full disk refused its
    bytes), or the capture process it names has ended without taking it away."""
    return not record or "why" in record or not _alive(record.get("pid"))


def _read_mark(path: Path) -> dict[str, Any]:
    """A mark's record; {} for one whose bytes a full disk refused (or that is garbled)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _mark_said(path: Path) -> dict[str, Any] | None:
    """The record of the failure ``path`` marks (an empty mark's with its time), else None."""
    record = _read_mark(path)
    if not _failed(record):
        return None                       # a capture under way
    if not record:
        try:
            return {"at": _now(path.stat().st_mtime)}
        except OSError:
            return None
    return record


def missed_marks(home: Path) -> list[dict[str, Any]]:
    """Every failed capture marked in ``home``, oldest first, each its record (what a full
    disk left of it); captures under way are not failures."""
    dated = []
    for path in (home / MISSED_DIR).glob("*.json"):
        try:
            dated.append((path.stat().st_mtime, path))
        except OSError:
            pass                          # taken away meanwhile: that capture completed
    said = (_mark_said(path) for _, path in sorted(dated))
    return [record for record in said if record is not None]


def _said(record: dict[str, Any]) -> str:
    """When and why a marked capture failed, as far as its mark holds them."""
    at = record.get("at", "?")
    if "why" in record:
        return f"at {at}: {record['why']}"
    if "pid" in record:
        return (f"started at {at}, its process (pid {record['pid']}) ended before it "
                "completed: killed, the machine stopped, or a full disk refused the reason")
    return f"at {at}; the disk refused the mark's details"


def stop_notice(home: Path, session_id: str) -> str:
    """The line the session's next capture hook prints when an earlier capture of it failed
    (and how many other sessions' did), or "" when none did."""
    own = _mark_said(mark_path(home, session_id))
    others = len(missed_marks(home)) - (1 if own is not None else 0)
    whose = "1 other session's capture" if others == 1 else f"{others} other sessions' captures"
    more = f"; {whose} failed too (atc doctor names them)" if others > 0 else ""
    if own is not None:
        return (f"atc: the capture of an earlier turn of this session failed ({_said(own)}); "
                f"this turn's capture reads the transcript again{more}")
    if others > 0:
        return f"atc: {more[2:]}"
    return ""


def doctor_lines(home: Path) -> list[str]:
    """A line for each session whose capture failed and has not completed since."""
    lines = []
    for record in missed_marks(home):
        transcript = record.get("transcript_path")
        if transcript:
            lines.append(f"hooks: NOT CAPTURED, session {record.get('session_id')} "
                         f"({_said(record)}); its next turn captures it, or: atc ingest "
                         f"{shlex.quote(transcript)} --segment "
                         f"{shlex.quote(_segment_of(record))} && atc curate")
        else:
            lines.append(f"hooks: NOT CAPTURED, a session's capture failed ({_said(record)}); "
                         "its next turn captures it; hooks.log may say which")
    return lines


def _segment_of(record: dict[str, Any]) -> str:
    from .hooks import project_segment

    cwd = record.get("cwd") or str(Path(str(record.get("transcript_path", ""))).parent)
    return project_segment(cwd)
