"""Where no set of what a grantee sees is kept, their enumerations read the segments their
grants name, not the whole home.

erin reads the whole of segment `team` (no label in the home: no set is kept for her). Before,
a goal enumerating records (`aggregate_all(count, item(H), N)`, `rung(H, l2, T)` with T bound
to a text she is shown) walked every record of the home and asked the policy about each: on
20,716 items of which she reads 716, ~270 ms of CPU against the owner's ~25 ms, growing with
the records of segments she cannot read (how long a goal took told how many there were). Now
such a goal reads the items of `team` and what was derived from them: the work it does (counted
in Prolog inferences, which do not vary with the machine's load) no longer grows with the
hidden segment. The answers are the same.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

TEAM = "".join(f"Ann: the crane {i} on pier /home/ann/docks/pier{i}.txt was serviced.\n"
               for i in range(12))


def _vault(first: int, count: int) -> str:
    return "".join(f"Zed: vault ledger entry {i} moved to cold storage.\n"
                   for i in range(first, first + count))


GOALS = ("aggregate_all(count, item(H), N)",
         "aggregate_all(count, (item(H), item_time(H, T)), N)",
         "aggregate_all(count, rung(H, l2, T), N)")


def _inferences(memory, goal: str) -> tuple[int, list]:
    """Prolog inferences of erin's goal (answered once before, so caches are warm), and its
    rows."""
    from attention_cloud.bridge import Atom, Var
    from attention_cloud.sharing import reader_query

    reader_query(memory, "erin", goal)
    (before,) = memory.pl.once("statistics", Atom("inferences"), Var())
    rows = reader_query(memory, "erin", goal).rows
    (after,) = memory.pl.once("statistics", Atom("inferences"), Var())
    return int(after) - int(before), rows


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    """erin's goals (GOALS, and rung/3 with a bound text she is shown) beside a hidden segment
    `vault` of 40 items, then of 640: the inferences each took and its rows."""
    from attention_cloud.sharing import add_grant, add_principal, reader_query
    from granted_home import chat_memory

    root = tmp_path_factory.mktemp("scope-reads")
    (root / "vault1.txt").write_text(_vault(0, 40), encoding="utf-8")
    (root / "vault2.txt").write_text(_vault(40, 600), encoding="utf-8")
    out: dict[str, list] = {}
    with chat_memory(root, {"team.txt": TEAM}) as memory:
        memory.ingest([root / "vault1.txt"], format="text", segment="vault")
        memory.curate()
        add_principal(memory, "erin")
        add_grant(memory, "erin", segments=["team"], ceiling="L2")
        shown = reader_query(memory, "erin", "item(H), rung(H, l2, T)", limit=1).rows[0]["T"]
        bound = 'rung(H, l2, "' + shown.replace("\\", "\\\\").replace('"', '\\"') + '")'
        for step in ("small", "large"):
            if step == "large":
                memory.ingest([root / "vault2.txt"], format="text", segment="vault")
                memory.curate()
            for goal in GOALS + (bound,):
                out.setdefault(goal, []).append(_inferences(memory, goal))
    return out


@pytest.mark.parametrize("which", range(len(GOALS) + 1))
def test_a_grantees_enumeration_does_not_grow_with_a_segment_they_cannot_read(counted, which):
    goal = list(counted)[which]
    (small, rows_small), (large, rows_large) = counted[goal]
    assert rows_small == rows_large and rows_small, goal
    # 600 hidden items more: before, each cost the policy check (tens of inferences)
    assert large < small * 1.2 + 2000, (goal, small, large)
