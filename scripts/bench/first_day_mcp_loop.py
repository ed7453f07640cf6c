"""Drive `atc mcp` over stdio by hand (JSON-RPC lines), as Claude Code would, for N turns.

Per turn: ``hydrate``, ``receipt`` of its id, ``remember`` (every 4th with the hydrate tool's
whole text pasted in front: only the note may be stored), ``show`` of the note; a secret
remembered at turn 20, forgotten at 30 and queried for every 10 turns after. Records each
call's latency, the server's RSS every 25 turns, its exit status once stdin closes.
BENCHMARKS.md, "An agent's first day" (round 32). HOME is a home already made (the figures:
a copy of the one ``first_day_api_loop.py HOME 30 ...`` leaves): on a home not made yet, a
``hydrate`` is a tool error naming ``remember``, which makes it.

    nice .venv/bin/python scripts/bench/first_day_mcp_loop.py .venv/bin/atc /tmp/fdm/home 200 /tmp/fdm.json
"""
import json
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ATC, HOME, TURNS, OUT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
SECRET = "hunter2-zebra-77QX31"
env = dict(os.environ, ATC_HOME=HOME)
p = subprocess.Popen([ATC, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=open(Path(OUT).with_suffix(".stderr"), "w"), env=env, text=True, bufsize=1)
next_id = 0
timings = defaultdict(list)
surprises = []


def note(msg):
    if msg not in surprises:
        surprises.append(msg)
        print("SURPRISE:", msg, flush=True)


def rpc(method, params=None, notify=False):
    global next_id
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    if not notify:
        next_id += 1
        msg["id"] = next_id
    p.stdin.write(json.dumps(msg) + "\n")
    p.stdin.flush()
    if notify:
        return None
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit(f"server closed stdout (rc {p.poll()})")
        ans = json.loads(line)
        if ans.get("id") == next_id:
            return ans
        print("other message:", line[:200])


def call(name, **arguments):
    t = time.perf_counter()
    ans = rpc("tools/call", {"name": name, "arguments": arguments})
    timings[name].append(time.perf_counter() - t)
    res = ans.get("result")
    if res is None:
        note(f"{name}: JSON-RPC error {ans.get('error')}")
        return None, None
    text = res["content"][0]["text"] if res.get("content") else ""
    if res.get("isError"):
        if "\n" in text.strip():
            note(f"{name}: tool error of several lines: {text[:300]!r}")
        return None, text
    return res.get("structuredContent"), text


def server_rss():
    for line in open(f"/proc/{p.pid}/status"):
        if line.startswith("VmRSS"):
            return round(int(line.split()[1]) / 1024, 1)


t0 = time.perf_counter()
init = rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "qa186", "version": "0"}})
print("init", round(time.perf_counter() - t0, 2), "s", init["result"]["serverInfo"])
rpc("notifications/initialized", notify=True)
tools = rpc("tools/list")["result"]["tools"]
print("tools", [t["name"] for t in tools])
rng = random.Random(3)
rss = [(0, server_rss())]
secret_handle = None
t_start = time.perf_counter()
for i in range(TURNS):
    goal = f"what did we decide about component {rng.randint(1, 40)}"
    sc, text = call("hydrate", goal=goal, budget=500)
    if sc is None:
        note(f"hydrate failed: {text}")
        continue
    rid = sc["receipt_id"]
    if text.count("<memory-frame") != 1:
        note(f"hydrate text holds {text.count('<memory-frame')} envelopes")
    if secret_handle and SECRET in json.dumps(sc):
        note(f"turn {i}: forgotten secret in a frame")
    r_sc, r_text = call("receipt", receipt_id=rid)
    if r_sc is None:
        note(f"receipt {rid} did not resolve: {r_text}")
    # remember with the frame pasted in (a model's output quoting its frame)
    note_text = f"component {i % 40} decision {i}: use backoff {rng.randint(1, 9)}"
    pasted = text + "\n" + note_text if i % 4 == 0 else note_text
    m_sc, m_text = call("remember", text=pasted, kind="decision")
    if m_sc is None:
        note(f"remember failed: {m_text}")
    else:
        h = m_sc.get("handle")
        s_sc, s_text = call("show", handle=h, level="L0")
        if s_sc is None:
            note(f"show of a remembered handle failed: {s_text}")
        elif "memory-frame" in json.dumps(s_sc) or "Receipt r_" in json.dumps(s_sc):
            note(f"remembered text kept the envelope/receipt line: {json.dumps(s_sc)[:300]}")
    if i == 20:
        s, _ = call("remember", text=f"the admin password is {SECRET}", kind="note")
        secret_handle = s["handle"]
    if i == 30:
        f_sc, f_text = call("forget", handle=secret_handle, reason="secret")
        if f_sc is None:
            note(f"forget failed: {f_text}")
    if secret_handle and i > 30 and i % 10 == 0:
        q_sc, q_text = call("query", goal=f'item_text(H, T), sub_string(T, _, _, _, "{SECRET}")')
        if q_sc and q_sc.get("rows"):
            note(f"turn {i}: forgotten secret back: {q_sc['rows']}")
    if i % 25 == 0:
        rss.append((i, server_rss()))
        print(i, rss[-1], {k: round(sum(v[-25:]) / len(v[-25:]), 3) for k, v in timings.items()}, flush=True)
elapsed = time.perf_counter() - t_start
rss.append((TURNS, server_rss()))
calls = sum(len(v) for v in timings.values())
p.stdin.close()
rc = p.wait(timeout=60)
out = {"turns": TURNS, "calls": calls, "elapsed_s": round(elapsed, 1), "calls_per_s": round(calls / elapsed, 2),
       "rss": rss, "rc": rc, "surprises": surprises,
       "timings": {k: {"n": len(v), "mean_ms": round(1000 * sum(v) / len(v), 1),
                       "p50_ms": round(1000 * sorted(v)[len(v) // 2], 1),
                       "max_ms": round(1000 * max(v), 1)} for k, v in timings.items()}}
Path(OUT).write_text(json.dumps(out, indent=1))
print(json.dumps(out, indent=1))
