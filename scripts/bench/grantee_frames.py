"""A grantee's warm frame against the owner's on one home (CPU seconds a frame).

Copies ``--home`` (a curated home: the cached 100k hash home of ``hydrate.py`` by default) to
a temporary folder, makes an owner and two grantees of segment ``default`` (one at L0, one at
L2), opens the copy once and hydrates the same goals as the owner (``Memory.hydrate``) and as
each grantee (``sharing.reader_hydrate``), printing per reader the first frame's CPU time and
the median of the rest, and the ratio to the owner's median:

    python scripts/bench/grantee_frames.py [--home DIR] [--rounds 2]
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))

from attention_cloud import Memory  # noqa: E402
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate  # noqa: E402

GOALS = ["fix the failing tests in payments", "why did the retry policy time out",
         "database migration error", "refactor the cache layer",
         "what did we decide about logging"]
DEFAULT_HOME = ROOT / ".local/bench-cache/home-100000-s1-hash-curated-l2v/home"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=DEFAULT_HOME, help="a curated home (copied)")
    parser.add_argument("--rounds", type=int, default=2, help="times each goal is asked")
    args = parser.parse_args()
    if not (args.home / "journal.pl").exists():
        sys.exit(f"grantee_frames: {args.home} is not a memory home (build it with hydrate.py)")
    with tempfile.TemporaryDirectory(prefix="atc-grantee-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(args.home, home, symlinks=True)
        mem = Memory.open(home, create=False)
        add_principal(mem, "alice", owner=True)
        for name, ceiling in (("carl", "L0"), ("bob", "L2")):
            add_principal(mem, name)
            add_grant(mem, name, segments=["default"], ceiling=ceiling)
        owner_median = None
        print("| reader | first frame s | median s | × owner |\n|---|---|---|---|")
        for reader in ("owner", "carl", "bob"):
            times = []
            for goal in GOALS * args.rounds:
                started = time.process_time()
                if reader == "owner":
                    mem.hydrate(goal, budget=2000)
                else:
                    reader_hydrate(mem, reader, goal, budget=2000)
                times.append(time.process_time() - started)
            median = statistics.median(times[1:])
            owner_median = owner_median or median
            print(f"| {reader} | {times[0]:.3f} | {median:.3f} | {median / owner_median:.1f} |",
                  flush=True)
        mem.close()


if __name__ == "__main__":
    main()
