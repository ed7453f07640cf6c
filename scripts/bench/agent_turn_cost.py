#!/usr/bin/env python3
"""What one turn of an agent's loop costs as its session grows: ``ingest`` + ``curate``.

An agent re-ingests its own Claude Code transcript after every turn and curates. For each
session length in ``--at`` (turns), a home is built of that many turns (one ingest and curate
of the transcript), then ``--more`` turns are run in one process, each appended to the
transcript (a prompt, a tool call, its result, a reply), ingested and curated; the median
wall and process CPU seconds of those ingests and curates are printed per length, with a
digest of every live item and rung so that two versions of the code
(``PYTHONPATH=<other checkout>/host``) can be compared on the same work, their records equal.

    nice .venv/bin/python scripts/bench/agent_turn_cost.py --at 25 100 300 --more 5
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
    """A user prompt, a Bash call, its result and the assistant's reply, chained as Claude
    Code writes them (the call's result is in the next record, as in a real session)."""
    def uuid(n: int) -> str:
        return f"00000000-0000-4000-8000-{k:06d}{n:06d}"

    stamp = f"2026-06-{1 + k // 1440:02d}T{k // 60 % 24:02d}:{k % 60:02d}:0"
    contents = [
        ("user", f"turn {k}: how is the consumer lag on partition {k % 17}, and what next?"),
        ("assistant", [{"type": "tool_use", "id": f"toolu_{k:06d}", "name": "Bash",
                        "input": {"command": f"kafka-lag --partition {k % 17}"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": f"toolu_{k:06d}",
                   "content": f"partition {k % 17}: lag {k * 7 % 991} messages"}]),
        ("assistant", [{"type": "text", "text": f"I restarted consumer {k % 17} and lag fell "
                                                f"to {k * 7 % 991} messages."}]),
    ]
    records = []
    for n, (role, content) in enumerate(contents):
        records.append({
            "parentUuid": parent, "isSidechain": False, "type": role, "uuid": uuid(n),
            "sessionId": "agent-session", "cwd": "/work/app", "timestamp": f"{stamp}{n}.000Z",
            "message": {"role": role, "content": content}})
        parent = uuid(n)
    return records


def append_turns(transcript: Path, turns: range, parent: str | None) -> str | None:
    with open(transcript, "a", encoding="utf-8") as out:
        for k in turns:
            for record in turn_records(k, parent):
                out.write(json.dumps(record) + "\n")
                parent = record["uuid"]
    return parent


def one_length(turns: int, more: int) -> dict:
    from attention_cloud import Memory

    with tempfile.TemporaryDirectory(prefix="agent-turn-cost-") as scratch:
        root = Path(scratch)
        transcript = root / "session.jsonl"
        parent = append_turns(transcript, range(turns), None)
        mem = Memory.open(root / "home")
        mem.ingest([transcript])
        mem.curate()
        cost: dict[str, list[float]] = {"ingest_wall": [], "ingest_cpu": [], "curate_wall": [],
                                        "curate_cpu": []}
        for k in range(turns, turns + more):
            parent = append_turns(transcript, range(k, k + 1), parent)
            for step, call in (("ingest", lambda: mem.ingest([transcript])), ("curate", mem.curate)):
                wall, cpu = time.perf_counter(), time.process_time()
                call()
                cost[f"{step}_wall"].append(time.perf_counter() - wall)
                cost[f"{step}_cpu"].append(time.process_time() - cpu)
        items, digest = live_digest(mem)
        mem.close()
        return {"turns": turns, "items": items, "digest": digest,
                **{k: round(statistics.median(v), 4) for k, v in cost.items()}}


def live_digest(mem) -> tuple[int, str]:
    """How many live items memory holds, and a digest of them (handle, text, seq, goal) and of
    every rung: equal digests, the same records."""
    items = mem.query("item(H), item_text(H, T), item_seq(H, N), item_goal(H, G)",
                      limit=1_000_000).rows
    rungs = mem.query("rung(H, L, T)", limit=1_000_000).rows
    digest = hashlib.sha256(json.dumps([
        sorted((r["H"], r["T"], r["N"], r["G"]) for r in items),
        sorted((r["H"], r["L"], r["T"]) for r in rungs)]).encode()).hexdigest()[:16]
    return len(items), digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", type=int, nargs="+", default=[25, 100, 300],
                        help="session lengths (turns) measured")
    parser.add_argument("--more", type=int, default=5, help="turns measured at each length")
    opts = parser.parse_args()
    import attention_cloud

    print(json.dumps({"code": str(Path(attention_cloud.__file__).parent.parent)}), flush=True)
    for turns in opts.at:
        print(json.dumps(one_length(turns, opts.more)), flush=True)


if __name__ == "__main__":
    main()
