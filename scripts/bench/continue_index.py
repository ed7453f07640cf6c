#!/usr/bin/env python3
"""Reading a folder of Continue sessions beside their ``sessions.json``: the index decoded once
for the folder (the reader as it is) against decoded again for every session (as it was before
round 26: each session file read and decoded the whole index to find its one entry), the two
alternated round by round in one process, wall time of parsing every session file::

    .venv/bin/python scripts/bench/continue_index.py --sessions 1000 --rounds 3

Both ways must give every session the same time; the script says so or fails.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from attention_cloud.ingest import parse_path
from attention_cloud.ingest import continue_sessions
from attention_cloud.ingest.continue_sessions import INDEX, ContinueParser


def make_folder(folder: Path, sessions: int) -> list[Path]:
    """``sessions`` session files of two messages each, all listed in one index."""
    index = []
    for n in range(sessions):
        session_id = f"00000000-0000-4000-8000-{n:012d}"
        (folder / f"{session_id}.json").write_text(json.dumps({
            "sessionId": session_id, "title": f"session {n}", "history": [
                {"message": {"role": "user", "content": f"question {n} about the export job"}},
                {"message": {"role": "assistant", "content": f"answer {n}: stream the rows"}}]}))
        index.append({"sessionId": session_id, "title": f"session {n}",
                      "dateCreated": str(1683554163000 + n * 1000),
                      "workspaceDirectory": "file:///home/priya/src/exporter"})
    (folder / INDEX).write_text(json.dumps(index))
    return sorted(folder.glob("0*.json"))


def per_session(self: ContinueParser, source: Any, session_id: str) -> str:
    """The index read and decoded again for this one session (the reader before round 26)."""
    entries = json.loads((Path(source.pointer_base).parent / INDEX).read_text(encoding="utf-8"))
    for entry in entries:
        if isinstance(entry, dict) and entry.get("sessionId") == session_id:
            return self.collector.time(0, int(entry["dateCreated"]))
    return ""


def timed(files: list[Path]) -> tuple[float, list[str]]:
    started = time.perf_counter()
    times = [parse_path(f).items[0].time for f in files]
    return time.perf_counter() - started, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    once = ContinueParser._date_created
    seconds: dict[str, list[float]] = {"once": [], "per session": []}
    answers: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = make_folder(Path(tmp), args.sessions)
        for _ in range(args.rounds):
            for name, reader in (("per session", per_session), ("once", once)):
                ContinueParser._date_created = reader  # type: ignore[method-assign]
                continue_sessions._last_index = None
                took, answers[name] = timed(files)
                seconds[name].append(took)
        ContinueParser._date_created = once  # type: ignore[method-assign]
    assert answers["once"] == answers["per session"], "the two readers disagree on a time"
    before, after = (statistics.median(seconds[k]) for k in ("per session", "once"))
    print(f"{args.sessions} sessions, median of {args.rounds}: index per session {before:.2f} s, "
          f"index once {after:.2f} s, ratio {before / after:.1f}x (same times: yes)")


if __name__ == "__main__":
    main()
