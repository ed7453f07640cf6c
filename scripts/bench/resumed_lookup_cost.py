#!/usr/bin/env python3
"""What looking for a resumed Claude Code session's earlier file costs an ingest: the time of
``Memory.ingest`` of one new session file into a home that has read many sessions.

The home (``--root``, made on the first run and kept for the next, so that two trees can be
timed on the same one) holds ``--sessions`` files in ``--folders`` folders, copies of the three
small real sessions of ``../shared/data/claude-code-real`` with their ids made anew and each
moved in time by an hour per file (real sessions never share a moment). Each run writes one
more such session, at a random moment, into ``fresh/`` and times its ingest alone.

    nice .venv/bin/python scripts/bench/resumed_lookup_cost.py --root /tmp/lookup
    PYTHONPATH=<another tree>/host nice .venv/bin/python scripts/bench/resumed_lookup_cost.py \\
        --root /tmp/lookup
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data import CLAUDE_CODE_REAL  # noqa: E402

SMALL = ("short.jsonl", "tool_heavy.jsonl", "subagent.jsonl")


def write_session(folder: Path, records: list[dict], shift: dt.timedelta) -> Path:
    """``records`` as a session of its own in ``folder``: new session id and uuids, every
    ``timestamp`` moved by ``shift``."""
    session = str(uuid.UUID(int=random.getrandbits(128)))
    ids: dict[str, str] = {}
    lines = []
    for record in records:
        record = dict(record)
        if "sessionId" in record:
            record["sessionId"] = session
        for key in ("uuid", "parentUuid"):
            if isinstance(record.get(key), str):
                record[key] = ids.setdefault(record[key], str(uuid.UUID(int=random.getrandbits(128))))
        if isinstance(record.get("timestamp"), str):
            moment = dt.datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00")) + shift
            record["timestamp"] = moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.append(json.dumps(record))
    path = folder / f"{session}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def main() -> None:
    from attention_cloud import Memory

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--folders", type=int, default=20)
    args = parser.parse_args()
    sources = [[json.loads(line) for line in (CLAUDE_CODE_REAL / name).read_text().splitlines()
                if line.strip()] for name in SMALL]
    if not (args.root / "home").exists():
        random.seed(7)
        for n in range(args.sessions):
            folder = args.root / f"proj{n % args.folders}"
            folder.mkdir(parents=True, exist_ok=True)
            write_session(folder, sources[n % 3], dt.timedelta(hours=n))
        with Memory.open(args.root / "home") as mem:
            mem.ingest([str(args.root / f"proj{n}") for n in range(args.folders)])
    random.seed(time.time_ns())
    fresh = args.root / "fresh"
    fresh.mkdir(exist_ok=True)
    path = write_session(fresh, sources[0], dt.timedelta(seconds=random.randrange(10**8)))
    with Memory.open(args.root / "home") as mem:
        started = time.perf_counter()
        report = mem.ingest([str(path)])
        took = time.perf_counter() - started
    print(f"ingest of one new session into a home of {args.sessions}: {took:.3f} s "
          f"({report.new} new)")


if __name__ == "__main__":
    main()
