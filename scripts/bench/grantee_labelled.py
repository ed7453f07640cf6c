"""A grant by a tag alone, and a segment grant whose records a label partly hides: CPU of each
grantee's frames and searches (qa92). Changes HOME (principals, grants, labels): run it on a
copy, once per version compared:

    python scripts/bench/grantee_labelled.py HOME
"""
import sys, time
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal, label, reader_hydrate, reader_query
home = Path(sys.argv[1])
mem = Memory.open(home, create=False)
add_principal(mem, "alice", owner=True)
for p in ("tg", "sg"):
    add_principal(mem, p)
add_grant(mem, "tg", tags=["retry"], ceiling="L0")
add_grant(mem, "sg", segments=["default"], ceiling="L0")
hidden = [r["H"] for r in mem.query('item_kind(H, error), item_seq(H, N), N mod 7 =:= 0', limit=300).rows]
label(mem, hidden, restrictions=["private"])
GOALS = ["why did the retry policy time out", "fix the failing tests in payments",
         "database migration error", "refactor the cache layer"]
for who in ("tg", "sg"):
    for rnd in (1, 2):
        for g in GOALS:
            c = time.process_time()
            f = reader_hydrate(mem, who, g, budget=2000)
            print(f"{who} round {rnd} frame cpu {time.process_time()-c:6.3f}s facts {len(f.facts):3} {g}")
    for goal in ['lexical("retry timeout", 3, [], H)', 'aggregate_all(count, item(H), N)']:
        c = time.process_time()
        r = reader_query(mem, who, goal)
        print(f"{who} query cpu {time.process_time()-c:6.3f}s {str(r.rows[0])[:120]} {goal}")
mem.close()
