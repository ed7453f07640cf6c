"""CPU ms of a grantee's item_seq/2, item_goal/2 and relation/3 reads beside the owner's.

The real Claude Code sessions (--data, default /work/shared/data/claude-code-real) in a new
home (hash embedder); bob reads segment `default` at L0 (no kept set), carl too but every
seventh item is labelled for bob alone (carl has a kept set and hidden items in the middle of
each session). Each goal: median CPU ms of 5 runs after one warm-up, the owner's first.
Run it from the branch and with rules/ as on main (`git checkout main -- rules`, then back)
to compare:

    nice .venv/bin/python scripts/bench/grantee_numbering.py
"""
import statistics, sys, tempfile, time
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal, label, reader_query
data = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/claude-code-real")
home = Path(tempfile.mkdtemp()) / "home"; home.mkdir()
(home / "config.json").write_text('{"embedder": "hash"}')
m = Memory.open(home)
m.ingest(sorted(data.glob("*.jsonl")))
add_principal(m, "alice", owner=True); add_principal(m, "bob"); add_principal(m, "carl")
add_grant(m, "bob", segments=["default"], ceiling="L0")          # no kept set
add_grant(m, "carl", segments=["default"], ceiling="L0")
hs = [r["H"] for r in m.query("item_seq(H, N), N mod 7 =:= 3", limit=100000).rows]
label(m, hs, readers=["bob"])                                      # carl: a kept set, 1/7 hidden
n = len(m.query("item(H)", limit=100000).rows)
def cpu(fn, rounds=5):
    fn(); out = []
    for _ in range(rounds):
        t = time.process_time(); fn(); out.append(time.process_time() - t)
    return statistics.median(out) * 1000
for goal in ("aggregate_all(count, (item(H), item_seq(H, N)), C)",
             "aggregate_all(count, (item(H), item_goal(H, G)), C)",
             "aggregate_all(count, (item(H), relation(H, P, O)), C)"):
    own = cpu(lambda: m.query(goal, limit=5))
    print(f"{n} items | {goal}: owner {own:.1f} ms | " + " | ".join(
        f"{who} {cpu(lambda: reader_query(m, who, goal, limit=5)):.1f} ms" for who in ("bob", "carl")))
