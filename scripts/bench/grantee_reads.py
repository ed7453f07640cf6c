"""A grantee's own reads on a mostly hidden home: CPU seconds of each query and frame.

Makes alice the owner of HOME (an ingested home: ``gen_corpus.py --items 100000`` then ``atc
ingest``) and grants dave one session of it at L0 (the first run), then, as dave, times the
reads whose cost followed the whole home before his kept set served them: enumerating what he
sees, a time window's items, nearest/3, and frames whose goal names a time or asks a speaker's
newest turn. Each is run ``--rounds`` times after one warm-up; the median CPU time is printed.
Run it from two checkouts on the same home to compare them (PYTHONPATH=CHECKOUT/host):

    python scripts/bench/grantee_reads.py HOME SESSION_ID [--rounds 3]
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate, reader_query
from attention_cloud.sharing.policy import sharing_state

QUERIES = ["aggregate_all(count, item(H), N)",
           "aggregate_all(count, item_kind(H, K), N)",
           'items_between("2000-01-01T00:00:00Z", "2100-01-01T00:00:00Z", 50, Hs)',
           'nearest("database migration error", 10, Hs)']
FRAMES = ["what did we change in the cache last week",
          "what did the user ask last"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("session")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    mem = Memory.open(args.home, create=False)
    if not sharing_state(mem).owner:
        add_principal(mem, "alice", owner=True)
        add_principal(mem, "dave")
        add_grant(mem, "dave", sessions=[args.session], ceiling="L0")

    def timed(read) -> tuple[float, str]:
        cpu = time.process_time()
        try:
            shown = read()
        except Exception as exc:  # nearest/3 on a home not curated: no embeddings
            shown = f"error: {exc}"[:80]
        return time.process_time() - cpu, shown

    reads = [(q, lambda q=q: str(reader_query(mem, "dave", q).rows)[:60]) for q in QUERIES]
    reads += [(f"frame: {g}", lambda g=g: f"{len(reader_hydrate(mem, 'dave', g).facts)} facts")
              for g in FRAMES]
    for name, read in reads:
        first, shown = timed(read)
        rest = [timed(read)[0] for _ in range(args.rounds)]
        print(f"first {first:6.3f}s  median {statistics.median(rest):6.3f}s  {name}  -> {shown}")
    mem.close()


if __name__ == "__main__":
    main()
