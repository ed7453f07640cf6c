"""The compiled-rules cache does not keep what killed compiles left behind."""
from __future__ import annotations

import os
import time

from attention_cloud.bridge import rules_cache


def test_a_killed_compiles_temporaries_are_removed_once_old_and_a_running_ones_kept(tmp_path):
    """A process killed while compiling the rules (a test's timeout, Ctrl-C at the first
    start) left its wrapper, its half-written `.qlf` and SWI-Prolog's own `..compile-*.qlf.PID`
    in the shared cache, ~300 KB each, and no later compile removed them (137 files in one
    developer's cache). A compile prunes those older than an hour now; a compile running
    beside it (files minutes old) keeps its own."""
    place = tmp_path / "rules"
    place.mkdir(mode=0o700)
    keep = place / "rules-aaaa-pyswip-9.0.4-0123456789abcdef0123.qlf"
    keep.write_bytes(b"compiled")
    names = (".compile-4n3vmlou.pl", ".compile-4n3vmlou.qlf", "..compile-itipn23d.qlf.8955",
             ".libraries-x1y2z3")
    now = time.time()
    for name in names:
        old, fresh = place / name, place / name.replace("-", "-fresh", 1)
        old.write_bytes(b"left behind")
        fresh.write_bytes(b"being written")
        hours = now - 2 * 3600
        os.utime(old, (hours, hours))
        os.utime(fresh, (now - 60, now - 60))
    rules_cache._prune(place, "rules-bbbb-pyswip-9.0.4-", keep=keep, now=now)
    left = sorted(p.name for p in place.iterdir())
    assert left == sorted([keep.name, *(n.replace("-", "-fresh", 1) for n in names)]), left
