"""A grantee's searches run within the records they see, kept between frames until anything
visibility depends on changes (README, Sharing).

Before, a grantee's every search fetched eight-fold more raw hits (up to 200,000) until
enough of them were visible, and checked each: on a home where they see one session of many,
their frame cost 60-100 times the owner's. The kept set must follow every change: a grant
added, revoked or expiring, an item written or forgotten, in a long-lived Memory and between
processes alike.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.sharing import add_grant, add_principal, reader_hydrate, revoke_grant

SHARED = ("Dana: the noodle lunch on Friday is at noon near the station.\n"
          "Omar: I will book the noodle place for four.\n"
          "Dana: great, bring the receipts.\n"
          "Omar: sure.\n")
OTHER = ("Priya: the quarterly noodle budget review moved to Tuesday.\n"
         "Omar: I will tell finance about the noodle budget.\n"
         "Priya: thanks, and the slides too.\n"
         "Omar: will do.\n")
# many turns sharing the goal's words, in the same segment as what dave sees: the raw hits
# of his searches are nearly all hidden from him
CROWD = "".join(f"{('Zed', 'Ann')[i % 2]}: noodle lunch plan number {i} stays between us.\n"
                for i in range(300))
GOAL = "noodle lunch budget"


def _home(root: Path, chats: dict[str, str]) -> tuple[Memory, dict[str, str]]:
    """A home (hash embedder, owner alice, principal dave) holding each chat as a session of
    segment default; returns the memory and each chat's session."""
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    memory = Memory.open(home)
    sessions = {}
    for name, text in chats.items():
        path = root / f"{name}.txt"
        path.write_text(text, encoding="utf-8")
        before = {r["S"] for r in memory.query("item_session(_, S)", limit=100000).rows}
        memory.ingest([path], format="text")
        after = {r["S"] for r in memory.query("item_session(_, S)", limit=100000).rows}
        (sessions[name],) = after - before
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "dave")
    return memory, sessions


def _sessions_seen(memory: Memory, reader: str, goal: str = GOAL) -> set[str]:
    """The sessions of the facts of reader's frame for goal."""
    frame = reader_hydrate(memory, reader, goal, budget=800)
    handles = [f["handle"] for f in frame.receipt["facts"]]
    seen = set()
    for handle in handles:
        rows = memory.query(f"item_session({handle}, S)").rows
        seen.update(r["S"] for r in rows)
    return seen


@pytest.fixture(scope="module")
def crowded(tmp_path_factory):
    memory, sessions = _home(tmp_path_factory.mktemp("crowded"),
                             {"shared": SHARED, "crowd": CROWD})
    add_grant(memory, "dave", sessions=[sessions["shared"]], ceiling="L0")
    yield memory, sessions
    memory.close()


def test_a_grantees_searches_ask_for_what_they_see_not_for_more(crowded):
    memory, sessions = crowded
    asked = []
    search = memory.jump.lexical_hits

    def counting(query, k, options):
        asked.append((k, "within" in options))
        return search(query, k, options)

    memory.jump.lexical_hits = counting
    try:
        assert _sessions_seen(memory, "dave") == {sessions["shared"]}
    finally:
        del memory.jump.lexical_hits
    # before: 208 raw hits, then 1552 (all 300 hidden turns), since 4 visible of 208 were
    # too few; now one search within dave's records
    assert asked and all(within for _, within in asked), asked
    assert max(k for k, _ in asked) < 300, asked


def test_a_grantee_cannot_choose_which_records_score_their_search(crowded):
    from attention_cloud.sharing.reads import reader_query

    memory, sessions = crowded
    hidden = memory.query(f'item_session(H, "{sessions["crowd"]}")', limit=3).rows
    assert hidden
    names = "\\n".join(r["H"] for r in hidden)
    plain = reader_query(memory, "dave", 'lexical("noodle lunch", 10, [], H)').rows
    steered = reader_query(memory, "dave",
                           f'lexical("noodle lunch", 10, [within("{names}")], H)').rows
    # scored by what dave sees, whatever records he names: a score over hidden ones would
    # tell him which of them hold the words
    assert plain == steered and plain[0]["H"]


def test_a_grantees_frame_is_the_same_without_the_hidden_crowd(crowded, tmp_path):
    # last of the tests on `crowded`: opening another home closes it
    memory, sessions = crowded
    with_crowd = reader_hydrate(memory, "dave", GOAL, budget=800).receipt["facts"]
    alone, alone_sessions = _home(tmp_path, {"shared": SHARED})
    try:
        add_grant(alone, "dave", sessions=[alone_sessions["shared"]], ceiling="L0")
        without = reader_hydrate(alone, "dave", GOAL, budget=800).receipt["facts"]
    finally:
        alone.close()
    assert [(f["handle"], f["level"], f["score"]) for f in with_crowd] == \
           [(f["handle"], f["level"], f["score"]) for f in without]


def _frame_before_an_expiry(memory: Memory, reader: str,
                            session: str) -> tuple[datetime, set[str]]:
    """Grant ``reader`` ``session`` until a whole second a few seconds away, and make their
    frame before it passes: (the expiry, the sessions of that frame). A frame that ended after
    the expiry (a loaded machine) says nothing of the grant before it, so the grant is given
    again with twice the time: a fixed two seconds, cut to the whole second of the expiry,
    left as little as one for the grant and the frame, and CI overran it."""
    for seconds in (2, 4, 8, 16, 32):
        soon = (datetime.now(timezone.utc) + timedelta(seconds=seconds)).replace(microsecond=0)
        add_grant(memory, reader, sessions=[session], ceiling="L0",
                  expires=soon.strftime("%Y-%m-%dT%H:%M:%SZ"))
        seen = _sessions_seen(memory, reader)
        if datetime.now(timezone.utc) < soon:
            return soon, seen
    raise AssertionError("no frame ended within 32 s of its grant")


def test_the_kept_set_follows_grants_writes_and_erasure_in_one_memory(tmp_path):
    memory, sessions = _home(tmp_path, {"shared": SHARED, "other": OTHER, "crowd": CROWD})
    try:
        add_grant(memory, "dave", sessions=[sessions["shared"]], ceiling="L0")
        assert _sessions_seen(memory, "dave") == {sessions["shared"]}
        # a grant added between two frames
        extra = add_grant(memory, "dave", sessions=[sessions["other"]], ceiling="L0")
        assert _sessions_seen(memory, "dave") == {sessions["shared"], sessions["other"]}
        # and revoked
        revoke_grant(memory, extra)
        assert _sessions_seen(memory, "dave") == {sessions["shared"]}
        # a grant that expires between two frames
        soon, seen = _frame_before_an_expiry(memory, "dave", sessions["other"])
        assert seen == {sessions["shared"], sessions["other"]}
        time.sleep(max(0.0, (soon - datetime.now(timezone.utc)).total_seconds()) + 1.1)
        assert _sessions_seen(memory, "dave") == {sessions["shared"]}
        # an item written into a granted session, then forgotten
        add_grant(memory, "dave", sessions=["remembered"], ceiling="L0")
        note = memory.remember("The noodle lunch budget is forty euros a head.", curate=False)
        handle = str(getattr(note, "handle", note))
        assert "remembered" in _sessions_seen(memory, "dave")
        memory.forget([handle])
        assert "remembered" not in _sessions_seen(memory, "dave")
    finally:
        memory.close()


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, ATC_HOME=str(home))
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args], env=env,
                          capture_output=True, text=True, timeout=120)


def test_a_fresh_process_sees_a_grant_revoked_by_another(tmp_path):
    memory, sessions = _home(tmp_path, {"shared": SHARED, "other": OTHER})
    try:
        add_grant(memory, "dave", sessions=[sessions["shared"]], ceiling="L0")
        extra = add_grant(memory, "dave", sessions=[sessions["other"]], ceiling="L0")
        handles = {r["H"]: r["S"] for r in memory.query("item_session(H, S)").rows}
    finally:
        memory.close()
    home = tmp_path / "home"

    def frame_sessions() -> set[str]:
        done = _atc(home, "hydrate", "--goal", GOAL, "--as", "dave", "--budget", "800",
                    "--format", "json")
        assert done.returncode == 0, done.stderr
        return {handles[f["handle"]] for f in json.loads(done.stdout)["receipt"]["facts"]
                if f["handle"] in handles}

    assert frame_sessions() == {sessions["shared"], sessions["other"]}
    done = _atc(home, "grant", "revoke", extra)
    assert done.returncode == 0, done.stderr
    assert frame_sessions() == {sessions["shared"]}



def test_a_grantees_recency_frame_reads_the_newest_of_what_they_see(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "none", "index_at_ingest": false}',
                                      encoding="utf-8")
    memory = Memory.open(home)
    try:
        for name, text in (("shared", SHARED), ("crowd", CROWD)):
            (tmp_path / f"{name}.txt").write_text(text, encoding="utf-8")
            memory.ingest([tmp_path / f"{name}.txt"], format="text")
        shared = {r["H"] for r in memory.query('item_session(H, "shared")').rows} or \
                 {r["H"] for r in memory.query("item_session(H, shared)").rows}
        add_principal(memory, "alice", owner=True)
        add_principal(memory, "dave")
        assert len(shared) == 4
        add_grant(memory, "dave", sessions=["shared"], ceiling="L0")
        receipt = reader_hydrate(memory, "dave", GOAL, budget=800).receipt
        assert receipt["path"] == "recency"
        assert {f["handle"] for f in receipt["facts"]} == shared
    finally:
        memory.close()
