"""A small agent loop over Attention Cloud's Python API, as an agent builder would write it.

Per turn: hydrate a frame for the user's prompt, inject its envelope into the prompt, "answer"
(a scripted model that sometimes quotes the frame), append the turn to the agent's own Claude
Code-style transcript, ingest + curate it, and sometimes remember a decision (sometimes with the
frame pasted in). A secret said at turn SECRET_AT is forgotten at FORGET_AT and must never come
back. A 'shared' segment is granted to bob at L2 and read through reader_hydrate.

Checked as it goes (each failure printed as a SURPRISE line and listed in OUT_JSON): no item
holds an envelope or a frame heading, every receipt resolves, every fact's source resolves,
the forgotten secret is in no frame, item or query, bob sees only his segment at L2 at most.
Recorded: each call's latency by kind, RSS every 25 turns. BENCHMARKS.md, "An agent's first
day" (round 32). HOME must not exist yet; the transcript is written beside it.

    nice .venv/bin/python scripts/bench/first_day_api_loop.py /tmp/fd/home 300 /tmp/fd.json
"""
import json
import random
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

from attention_cloud import Memory
from attention_cloud import sharing
from attention_cloud.show import show_record

HOME, TURNS, OUT = sys.argv[1], int(sys.argv[2]), sys.argv[3]
SECRET = "sk-live-Q7ZP4M2X9K8B3N6T"
SECRET_AT, FORGET_AT = 40, 60
TRANSCRIPT = Path(HOME).parent / "agent-transcript" / "session-1.jsonl"
TRANSCRIPT.parent.mkdir(parents=True, exist_ok=True)

TOPICS = ["the payments retry policy", "the flaky test_checkout test", "the staging database migration",
          "the nginx timeout on /api/upload", "the redis cache eviction", "the CI pipeline cache",
          "the docker image size", "the login rate limiter", "the S3 bucket lifecycle rule",
          "the webhook signature check"]
ACTIONS = ["ran pytest and saw {n} failures", "raised the timeout to {n} seconds",
           "bumped the pool size to {n}", "rolled back release v1.{n}", "added a retry with {n} attempts",
           "found {n} stale keys", "cut the image by {n} MB"]

timings = defaultdict(list)
surprises = []
rss = []


def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024


def timed(name, fn, *a, **kw):
    t = time.perf_counter()
    r = fn(*a, **kw)
    timings[name].append(time.perf_counter() - t)
    return r


def note(msg):
    if msg not in surprises:
        surprises.append(msg)
        print("SURPRISE:", msg, flush=True)


parent = None
ts0 = 1_780_000_000


def append(role, content, i):
    global parent
    u = str(uuid.uuid4())
    rec = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/work/app",
           "sessionId": "agent-session-1", "version": "2.1.38", "type": role, "uuid": u,
           "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ts0 + i * 60 + (role == "assistant"))),
           "message": {"role": role, "content": content if role == "user" else [{"type": "text", "text": content}]}}
    if role == "assistant":
        rec["message"].update({"model": "claude-x", "id": "msg_" + u[:8], "type": "message"})
    with open(TRANSCRIPT, "a") as f:
        f.write(json.dumps(rec) + "\n")
    parent = u


rng = random.Random(7)
mem = Memory.open(HOME)
sharing.add_principal(mem, "alice", owner=True)
bob_token = sharing.add_principal(mem, "bob")
grant = sharing.add_grant(mem, "bob", segments="shared", ceiling="L2")
forgotten_handles = []
t_start = time.perf_counter()
for i in range(TURNS):
    topic = rng.choice(TOPICS)
    n = rng.randint(2, 90)
    prompt = f"turn {i}: what do we know about {topic}, and what should I try next?"
    if i == SECRET_AT:
        prompt = f"use the deploy key {SECRET} to push {topic} fix to staging"
    frame = timed("hydrate", mem.hydrate, prompt, budget=600)
    env = frame.envelope
    if env.count("<memory-frame") != 1:
        note(f"turn {i}: envelope holds {env.count('<memory-frame')} opening tags")
    if i > FORGET_AT and SECRET in env:
        note(f"turn {i}: forgotten secret in a frame")
    # receipt resolves, and every fact's pointer resolves to a record
    rec = timed("receipt", mem.receipt, frame.receipt_id)
    if rec.get("facts") != frame.receipt.get("facts"):
        note("stored receipt's facts differ from frame.receipt's")
    for fact in frame.facts[:3]:
        if fact.handle.startswith("it_"):
            try:
                shown = timed("show_source", show_record, mem, fact.handle, "L0", True)
            except Exception as e:  # noqa
                note(f"show --source of a frame fact failed: {type(e).__name__}: {e}")
    # the model's turn: sees envelope + prompt
    append("user", env + "\n\n" + prompt, i)
    action = rng.choice(ACTIONS).format(n=n)
    answer = f"For {topic} I {action}."
    if i % 7 == 3 and frame.facts:
        answer += " Memory said: " + frame.facts[0].text[:200]
    if i % 11 == 5:
        answer += "\n\nHere is what I recalled:\n" + env  # the model pastes its frame
    append("assistant", answer, i)
    timed("ingest", mem.ingest, [TRANSCRIPT], segment="default")
    timed("curate", mem.curate)
    if i % 5 == 0:
        text = f"decision at turn {i}: for {topic} we {action}"
        if i % 10 == 0:
            text = env + "\n" + text  # capture of its own output with the frame in it
        timed("remember", mem.remember, text, kind="decision",
              segment="shared" if i % 3 == 0 else "default")
    if i == SECRET_AT:
        timed("remember", mem.remember, f"the deploy key is {SECRET}", kind="note")
    if i == FORGET_AT:
        rows = mem.query(f'item_text(H, T), sub_string(T, _, _, _, "{SECRET}")').rows
        forgotten_handles = sorted({r["H"] for r in rows})
        print("forgetting", forgotten_handles, flush=True)
        rep = timed("forget", mem.forget, forgotten_handles, reason="secret")
    if i > FORGET_AT and i % 10 == 0:
        rows = mem.query(f'item_text(H, T), sub_string(T, _, _, _, "{SECRET}")').rows
        if rows:
            note(f"turn {i}: forgotten secret back in items {[r['H'] for r in rows]}")
        for h in forgotten_handles:
            if mem.item(h) is not None:
                note(f"turn {i}: forgotten item {h} back")
    if i % 10 == 0:
        rows = timed("query", mem.query,
                     'item_text(H, T), sub_string(T, _, _, _, "memory-frame")').rows
        if rows:
            note(f"turn {i}: {len(rows)} items hold 'memory-frame': {rows[0]['H']}: {rows[0]['T'][:120]!r}")
        rows = mem.query('item_text(H, T), sub_string(T, _, _, _, "memory frame for:")').rows
        if rows:
            note(f"turn {i}: {len(rows)} items hold a frame heading: {rows[0]['T'][:160]!r}")
        bf = timed("reader_hydrate", sharing.reader_hydrate, mem, "bob", f"what was decided about {topic}",
                   budget=400)
        for fact in bf.facts:
            if not fact.segment == "shared":
                note(f"bob sees segment {fact.segment}")
            if fact.level in ("l0", "l1", "L0", "L1"):
                note(f"bob sees level {fact.level} above ceiling L2")
    if i % 25 == 0:
        rss.append((i, round(rss_mb(), 1)))
        print(i, rss[-1], {k: round(sum(v[-25:]) / len(v[-25:]), 3) for k, v in timings.items()}, flush=True)
    mem.release()
elapsed = time.perf_counter() - t_start
rss.append((TURNS, round(rss_mb(), 1)))
# the transcript still holds the secret; re-ingesting must not bring it back
rep = mem.ingest([TRANSCRIPT])
rows = mem.query(f'item_text(H, T), sub_string(T, _, _, _, "{SECRET}")').rows
if rows:
    note(f"after final re-ingest: secret back in {[r['H'] for r in rows]}")
out = {"turns": TURNS, "elapsed_s": round(elapsed, 1), "turns_per_s": round(TURNS / elapsed, 2),
       "rss": rss, "surprises": surprises, "stats": mem.stats(),
       "timings": {k: {"n": len(v), "mean_ms": round(1000 * sum(v) / len(v), 1),
                       "p50_ms": round(1000 * sorted(v)[len(v) // 2], 1),
                       "max_ms": round(1000 * max(v), 1)} for k, v in timings.items()}}
Path(OUT).write_text(json.dumps(out, indent=1, default=str))
print(json.dumps({k: out[k] for k in ("turns", "elapsed_s", "turns_per_s", "rss", "surprises", "timings")}, indent=1))
