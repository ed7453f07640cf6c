#!/usr/bin/env python3
"""What the Claude Code ``Stop`` hook costs a turn as the session grows.

Claude Code runs ``atc hook stop`` after every turn of a session, each time a new process. For
each session length in ``--at`` (turns), a Claude Code transcript is built of that many turns (a
prompt, a Bash call, its result, a reply; every tenth turn launches a subagent, whose own
transcript is written to ``<session>/subagents/``, as Claude Code 2.1 does), captured once into
a fresh home, then ``--more`` turns are appended one at a time, each followed by
``atc hook stop --foreground`` (or, with ``--detached``, ``atc hook stop`` and a wait for the
capture's line in ``hooks.log``). A recall server runs for the home throughout, as the
``UserPromptSubmit`` hook starts one on a session's first prompt. Printed per length: the
median wall seconds and CPU seconds of a turn's capture (the hook process and its children,
plus what the recall server spent meanwhile), and a digest of every live item and rung, so two
versions of the code (``PYTHONPATH=<other checkout>/host``) can be compared on the same work.

    nice .venv/bin/python scripts/bench/stop_hook_turns.py --at 25 100 300 --more 5
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_turn_cost import live_digest, turn_records  # noqa: E402  (that bench's turns)

SESSION = "agent-session"


def subagent_turn(k: int, parent: str) -> tuple[list[dict], list[dict]]:
    """A turn that launches a subagent: the Task call, a progress record naming the agent, the
    call's result; and the subagent's own records (its prompt, a reply)."""
    agent = f"a{k:06x}"
    call = f"toolu_task{k:06d}"
    stamp = f"2026-06-{1 + k // 1440:02d}T{k // 60 % 24:02d}:{k % 60:02d}:0"
    goal = f"audit the retry policy of service {k % 13}"

    def uuid(n: int) -> str:
        return f"00000000-0000-4000-9000-{k:06d}{n:06d}"

    parent_records = [
        {"type": "user", "message": {"role": "user", "content": f"turn {k}: {goal}, please"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": call, "name": "Task",
             "input": {"description": goal, "prompt": f"Please {goal}.",
                       "subagent_type": "general-purpose"}}]}},
        {"type": "progress", "parentToolUseID": call,
         "data": {"type": "agent_progress", "agentId": agent}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call,
             "content": f"service {k % 13} retries 3 times with backoff {k % 5 + 1} s"}]}},
    ]
    for n, record in enumerate(parent_records):
        record.update({"parentUuid": parent, "isSidechain": False, "uuid": uuid(n),
                       "sessionId": SESSION, "cwd": "/work/app",
                       "timestamp": f"{stamp}{n}.000Z"})
        parent = record["uuid"]
    sub_records = []
    sub_parent = None
    for n, (role, text) in enumerate((("user", f"Please {goal}."),
                                      ("assistant", f"Service {k % 13} retries 3 times."))):
        sub_records.append({
            "parentUuid": sub_parent, "isSidechain": True, "agentId": agent, "type": role,
            "uuid": uuid(10 + n), "sessionId": SESSION, "cwd": "/work/app",
            "timestamp": f"{stamp}{n}.500Z", "message": {"role": role, "content": text}})
        sub_parent = sub_records[-1]["uuid"]
    return parent_records, sub_records


def append_turns(transcript: Path, turns: range, parent: str | None) -> str | None:
    """Append ``turns`` to ``transcript`` (a subagent's file beside it every tenth turn)."""
    with open(transcript, "a", encoding="utf-8") as out:
        for k in turns:
            if k % 10 == 9:
                records, sub = subagent_turn(k, parent)
                folder = transcript.with_suffix("") / "subagents"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"agent-{sub[0]['agentId']}.jsonl").write_text(
                    "".join(json.dumps(r) + "\n" for r in sub), encoding="utf-8")
            else:
                records = turn_records(k, parent)
            for record in records:
                out.write(json.dumps(record) + "\n")
                parent = record["uuid"]
    return parent


def atc(*argv: str) -> list[str]:
    return [sys.executable, "-c", "from attention_cloud.cli import run; run()", *argv]


def server_pid(home: Path) -> int | None:
    """The pid of the home's recall server that started last, from hooks.log."""
    log = home / "hooks.log"
    pids = re.findall(r"recall-server started pid=(\d+)", log.read_text()) if log.exists() else []
    return int(pids[-1]) if pids else None


def process_cpu(pid: int | None) -> float:
    """User + system CPU seconds of a running process (0 when it is not there)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def captures_logged(home: Path) -> int:
    log = home / "hooks.log"
    return log.read_text().count(" stop session=") if log.exists() else 0


def stop_hook(home: Path, transcript: Path, detached: bool) -> tuple[float, float]:
    """Run the Stop hook once; its wall and CPU seconds (hook, children, recall server)."""
    payload = json.dumps({"session_id": SESSION, "transcript_path": str(transcript),
                          "cwd": "/work/app", "hook_event_name": "Stop"})
    pid = server_pid(home)
    before_server = process_cpu(pid)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    logged = captures_logged(home)
    wall = time.perf_counter()
    subprocess.run(atc("hook", "stop", "--home", str(home),
                       *(() if detached else ("--foreground",))),
                   input=payload.encode(), check=True)
    while detached and captures_logged(home) == logged:
        time.sleep(0.01)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # the detached worker is no child of this process: its CPU is not counted (wall only)
    return wall, cpu + process_cpu(pid) - before_server


def start_server(home: Path) -> None:
    subprocess.Popen([sys.executable, "-m", "attention_cloud.agents.recall_server", str(home)],
                     start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (home / "hooks" / "recall.sock").exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def stop_server(home: Path) -> None:
    from attention_cloud.agents.recall_server import ask

    ask(home, {"stop": True})


def one_length(turns: int, more: int, detached: bool) -> dict:
    from attention_cloud import Memory

    root = Path(tempfile.mkdtemp(prefix="stop-hook-turns-"))
    transcript = root / "session.jsonl"
    home = root / "home"
    parent = append_turns(transcript, range(turns), None)
    Memory.open(home).close()                        # the home, with the default embedder
    start_server(home)
    stop_hook(home, transcript, detached=False)      # the session so far, captured once
    walls, cpus = [], []
    for k in range(turns, turns + more):
        parent = append_turns(transcript, range(k, k + 1), parent)
        wall, cpu = stop_hook(home, transcript, detached)
        walls.append(wall)
        cpus.append(cpu)
    stop_server(home)
    with Memory.open(home) as mem:
        items, digest = live_digest(mem)
    shutil.rmtree(root, ignore_errors=True)
    return {"turns": turns, "items": items, "digest": digest,
            "wall": round(statistics.median(walls), 3), "cpu": round(statistics.median(cpus), 3),
            "walls": [round(w, 2) for w in walls]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--at", type=int, nargs="+", default=[25, 100, 300],
                        help="session lengths (turns) measured")
    parser.add_argument("--more", type=int, default=5, help="turns measured at each length")
    parser.add_argument("--detached", action="store_true",
                        help="run the hook as Claude Code does (detached) and wait for its log")
    opts = parser.parse_args()
    import attention_cloud

    print(json.dumps({"code": str(Path(attention_cloud.__file__).parent.parent),
                      "detached": opts.detached}), flush=True)
    for turns in opts.at:
        print(json.dumps(one_length(turns, opts.more, opts.detached)), flush=True)


if __name__ == "__main__":
    main()
