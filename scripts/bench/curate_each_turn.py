#!/usr/bin/env python3
"""What a curate costs an agent that curates after every turn of one long session.

Builds a home of one Claude Code session of ``--turns`` turns (a user prompt and an assistant
reply each), ingested and curated at once, then runs ``--more`` turns in one process: append
the turn to the transcript, ``Memory.ingest``, ``Memory.curate``. Prints the median wall and
CPU seconds of those curates and a digest of every rung stored, so two versions of the code
(``PYTHONPATH=<other checkout>/host``) can be compared on the same work, their records equal.

    nice .venv/bin/python scripts/bench/curate_each_turn.py --turns 300 --more 6
"""
from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path


def turn_records(k: int, parent: str | None) -> list[dict]:
    """A user prompt and the assistant's reply, chained as Claude Code writes them."""
    records = []
    for role in ("user", "assistant"):
        uuid = f"00000000-0000-4000-8000-{k:06d}{role == 'user':06d}"
        text = (f"turn {k}: how is the consumer lag on partition {k % 17}, and what next?"
                if role == "user" else
                f"I restarted consumer {k % 17} and lag fell to {k * 7 % 991} messages.")
        records.append({
            "parentUuid": parent, "isSidechain": False, "type": role, "uuid": uuid,
            "sessionId": "agent-session", "cwd": "/work/app",
            "timestamp": f"2026-06-{1 + k // 1440:02d}T{k // 60 % 24:02d}:{k % 60:02d}:0"
                         f"{role == 'assistant':d}.000Z",
            "message": {"role": role, "content": text if role == "user"
                        else [{"type": "text", "text": text}]}})
        parent = uuid
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300, help="turns in the home first")
    parser.add_argument("--more", type=int, default=6, help="turns then curated one by one")
    opts = parser.parse_args()
    import attention_cloud
    from attention_cloud import Memory

    root = Path(tempfile.mkdtemp(prefix="curate-each-turn-"))
    transcript = root / "session.jsonl"
    parent = None
    with open(transcript, "w", encoding="utf-8") as out:
        for k in range(opts.turns):
            for record in turn_records(k, parent):
                out.write(json.dumps(record) + "\n")
                parent = record["uuid"]
    mem = Memory.open(root / "home")
    mem.ingest([transcript])
    mem.curate()
    walls, cpus = [], []
    for k in range(opts.turns, opts.turns + opts.more):
        with open(transcript, "a", encoding="utf-8") as out:
            for record in turn_records(k, parent):
                out.write(json.dumps(record) + "\n")
                parent = record["uuid"]
        mem.ingest([transcript])
        wall, cpu = time.perf_counter(), time.process_time()
        mem.curate()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    rows = mem.query("rung(H, L, T)", limit=1_000_000).rows
    digest = hashlib.sha256(json.dumps(sorted((r["H"], r["L"], r["T"]) for r in rows))
                            .encode()).hexdigest()[:16]
    print(json.dumps({"code": str(Path(attention_cloud.__file__).parent.parent),
                      "items": mem.stats()["items"], "curate_wall_median_s":
                      round(statistics.median(walls), 3), "curate_cpu_median_s":
                      round(statistics.median(cpus), 3), "rungs": len(rows),
                      "rungs_digest": digest}))
    mem.close()


if __name__ == "__main__":
    main()
