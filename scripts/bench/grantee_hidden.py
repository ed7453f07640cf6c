"""A grantee reading a mostly hidden home: CPU, wall and peak RSS of frames and searches.

Makes alice the owner of HOME (an ingested home: ``gen_corpus.py --items 100000`` then ``atc
ingest``) and grants dave one session of it at L0, then hydrates four goals as the owner and
as dave, twice, and runs two of dave's lexical/4 searches:

    python scripts/bench/grantee_hidden.py HOME SESSION_ID
"""
import resource, sys, time, json
from pathlib import Path
from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate, reader_query
from attention_cloud.sharing.policy import sharing_state

home = Path(sys.argv[1]); session = sys.argv[2]
mem = Memory.open(home, create=False)
st = sharing_state(mem)
if not st.owner:
    add_principal(mem, "alice", owner=True)
    add_principal(mem, "dave")
    add_grant(mem, "dave", sessions=[session], ceiling="L0")
def rss(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
GOALS = ["fix the failing tests in payments", "why did the retry policy time out",
         "database migration error", "refactor the cache layer"]
print("rss after open MB", rss())
for who in ("owner", "dave", "owner", "dave"):
    for g in GOALS:
        c, w = time.process_time(), time.monotonic()
        if who == "owner":
            f = mem.hydrate(g, budget=2000)
        else:
            f = reader_hydrate(mem, "dave", g, budget=2000)
        print(f"{who:5} frame cpu {time.process_time()-c:6.2f}s wall {time.monotonic()-w:6.2f}s facts {len(f.facts):3} maxrss {rss()} MB  {g}")
for goal in ['lexical("error", 10, [], H)', 'lexical("test", 10, [], H)']:
    c = time.process_time()
    r = reader_query(mem, "dave", goal)
    print(f"dave query cpu {time.process_time()-c:6.2f}s rows {len(r.rows[0]['H']) if r.rows else 0} maxrss {rss()} MB {goal}")
