"""Marks of the hooks' captures that failed, so that a lost turn is never lost silently.

A Stop or SessionEnd capture runs in a detached process (:func:`.hooks.capture`): when it
fails (a full disk, a quota, a read-only home, a bug), nobody sees it, and its line in
``hooks.log`` may be refused by the same full disk. So the failing process leaves a mark,
``home/hooks/missed/<session key>.json`` (the session, its transcript, when, why), until a
later capture of that session completes:

* the session's next Stop hook says so in one line on stderr and exits 1, which Claude Code
  shows the user as a non-blocking hook error (the turn goes on; only status 2 blocks), and
  its capture reads the transcript again, which takes the missed turn in (items already in
  memory are left as they are);
* ``atc doctor`` lists every mark (:func:`doctor_lines`), with the command that captures a
  session that will have no next turn.

The mark is written plainly, not replaced atomically: on a disk too full for its few bytes,
the empty file its opening made is the mark all the same.
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
    """Where the mark of ``session_id``'s failed capture lies."""
    return home / MISSED_DIR / f"{session_key(session_id)}.json"


def make_room_for_marks(home: Path) -> None:
    """Make the marks' folder while the disk has room (every capture hook calls it, a stat
    when it exists): on a file system that needs a free block for a new folder (ext4), a
    full disk would refuse it at the failure, and with it the mark."""
    try:
        if home.is_dir():
            (home / MISSED_DIR).mkdir(parents=True, exist_ok=True)
    except OSError:
        pass


def mark_missed(home: Path, *, event: str, session_id: str, transcript: str, cwd: str,
                why: str) -> None:
    """Leave the mark of a capture that failed (never raises: the capture's own error is
    what matters, and a full disk may refuse the mark's bytes too)."""
    path = mark_path(home, session_id)
    record = {"session_id": session_id, "transcript_path": transcript, "cwd": cwd,
              "event": event, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "why": why}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:   # the file exists before its bytes
            out.write(json.dumps(record))
    except OSError:
        try:   # the bytes were refused: the file is the mark, empty
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            pass


def clear_mark(home: Path, session_id: str) -> None:
    """Take the session's mark away (its capture has completed)."""
    try:
        mark_path(home, session_id).unlink(missing_ok=True)
    except OSError:
        pass


def _read_mark(path: Path) -> dict[str, Any]:
    """A mark's record; {} for one whose bytes a full disk refused (or that is garbled)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def missed_marks(home: Path) -> list[dict[str, Any]]:
    """Every mark in ``home``, oldest first, each its record (what a full disk left of it)."""
    try:
        paths = sorted((home / MISSED_DIR).glob("*.json"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return []
    return [_read_mark(path) for path in paths]


def _said(record: dict[str, Any]) -> str:
    """When and why a marked capture failed, as far as its mark holds them."""
    if not record:
        return "its mark holds no detail: the disk refused even that"
    return f"at {record.get('at', '?')}: {record.get('why', '?')}"


def stop_notice(home: Path, session_id: str) -> str:
    """The line the session's next capture hook prints when an earlier capture of it failed
    (and how many other sessions' did), or "" when none did."""
    own = mark_path(home, session_id)
    others = len(missed_marks(home)) - (1 if own.exists() else 0)
    whose = "1 other session's capture" if others == 1 else f"{others} other sessions' captures"
    more = f"; {whose} failed too (atc doctor names them)" if others > 0 else ""
    if own.exists():
        return (f"atc: the capture of an earlier turn of this session failed ({_said(_read_mark(own))}); "
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
