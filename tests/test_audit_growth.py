"""A grantee's reads grow the owner's audit log by what is new, not by what they re-read.

Before, each read wrote every record it named on its line as ``{"handle", "level"}``: a goal
reading the text of 8,000 items (``aggregate_all(count, (item(H), item_text(H, T)), N)``)
added ~391 KB to ``audit.jsonl`` for ~0.26 s of a grantee's CPU, at every call, so a grantee
within their share of the server's time could fill the owner's disk (~50 GB a day). Now a
reader's records are written to the log once and each read names them by number; ``atc
audit`` still lists every record each read named, at its level.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

TURNS = 120
GOAL = "aggregate_all(count, (item(H), item_text(H, T)), N)"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A chat of 120 turns in segment `team`, bob granted it at L0 (verbatim text). Yields (home, handles)."""
    from attention_cloud.sharing import add_grant, add_principal
    from granted_home import chat_memory

    lines = [f"Dana: note {i} about the harbour crane number {i}." for i in range(TURNS)]
    with chat_memory(tmp_path_factory.mktemp("audit_growth"),
                     {"chat.txt": "\n".join(lines) + "\n"}) as memory:
        add_principal(memory, "bob")
        add_grant(memory, "bob", segments=["team"], ceiling="L0")
        handles = {r["H"] for r in memory.query("item(H)", limit=1000).rows}
        yield memory.home, handles


def _grown_by_query(home: Path, goal: str) -> int:
    from attention_cloud import Memory
    from attention_cloud.sharing import reader_query

    log = home / "audit.jsonl"
    before = log.stat().st_size if log.exists() else 0
    with Memory.open(home) as memory:
        reader_query(memory, "bob", goal)
    return log.stat().st_size - before


def _audited_reads(home: Path) -> list[dict]:
    from granted_home import run_atc

    done = run_atc(home, "audit", "--reader", "bob", "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    events = document["events"] if isinstance(document, dict) else document
    return [e for e in events if e.get("event") == "read"]


def test_re_reading_the_same_records_costs_a_line_not_a_listing(home):
    path, handles = home
    assert len(handles) == TURNS
    first = _grown_by_query(path, GOAL)
    again = [_grown_by_query(path, GOAL) for _ in range(3)]
    # the first read lists the 120 records once (~50 bytes each); each read after it is one
    # short line whatever the number of records (the goal and a few dozen bytes of bits)
    assert first > TURNS * 40, first
    assert all(grown < 400 for grown in again), (first, again)

    reads = _audited_reads(path)[-4:]
    for read in reads:
        assert read["goal"] == GOAL
        named = {f["handle"]: f["level"] for f in read["facts"]}
        assert set(named) >= handles and all(named[h] == "L0" for h in handles), read


def test_a_read_of_some_records_names_exactly_those(home):
    path, handles = home
    some = sorted(handles)[::3]
    goal = f"member(H, {json.dumps(some)}), item_text(H, T)".replace('"', "'")
    grown = _grown_by_query(path, goal)
    # every one already in bob's index: the goal (which lists them) and their numbers
    assert grown < len(goal) + 400, (grown, len(goal))
    (read,) = _audited_reads(path)[-1:]
    assert read["goal"] == goal
    assert {f["handle"] for f in read["facts"]} == set(some)


def test_a_read_after_a_torn_last_line_is_still_audited(home):
    path, handles = home
    with (path / "audit.jsonl").open("ab") as log:
        log.write(b'{"time": "2026-05-01T00:00:00Z", "event": "read", "reader": "bo')  # a crash
    _grown_by_query(path, GOAL)
    (read,) = _audited_reads(path)[-1:]
    assert read["goal"] == GOAL and {f["handle"] for f in read["facts"]} >= handles


def test_an_erasure_keeps_every_read_named(home):
    from attention_cloud import Memory

    path, handles = home
    gone = sorted(handles)[0]
    with Memory.open(path) as memory:
        memory.forget([gone], reason="test")
    reads = [r for r in _audited_reads(path) if r["goal"] == GOAL]
    assert reads
    for read in reads:
        named = {f["handle"]: f for f in read["facts"]}
        assert set(named) >= handles, read
        assert named[gone].get("forgotten") is True and named[gone]["level"] == "L0"


def test_a_one_record_read_after_a_torn_last_line_is_still_audited(home):
    from attention_cloud import Memory
    from attention_cloud.sharing import reader_show

    path, handles = home
    one = sorted(handles)[-1]
    with (path / "audit.jsonl").open("ab") as log:
        log.write(b'{"time": "2026-05-01T00:00:00Z", "event": "read", "reader": "bo')  # a crash
    with Memory.open(path) as memory:
        reader_show(memory, "bob", one)
    (read,) = _audited_reads(path)[-1:]
    assert read["op"] == "show" and read["facts"] == [{"handle": one, "level": "L0"}]


def test_every_fact_a_read_names_comes_back_whole(tmp_path):
    """A frame's facts and the records it left beyond its budget (``beyond: true``) at their
    levels, the same record in both forms, come back from the log as they were given."""
    from attention_cloud.audit import append_event, read_events

    facts = [{"handle": f"it_{n:016x}", "level": "L1"} for n in range(40)]
    beyond = [{"handle": f"it_{n:016x}", "level": "L2", "beyond": True} for n in range(30, 50)]
    for named in (facts + beyond, beyond + facts[:5], facts):
        append_event(tmp_path, {"event": "read", "reader": "bob", "op": "hydrate",
                                "goal": "g", "facts": named, "via": "serve"})
    key = lambda f: json.dumps(f, sort_keys=True)  # noqa: E731
    reads = list(read_events(tmp_path, reader="bob"))
    assert [sorted(map(key, r["facts"])) for r in reads] == \
        [sorted(map(key, named)) for named in (facts + beyond, beyond + facts[:5], facts)]
    assert all(set(r) == {"time", "event", "reader", "op", "goal", "facts", "via"}
               for r in reads)
