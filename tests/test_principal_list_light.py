"""`atc principal list`, `atc grant list` and `atc mount list` read the home's grants from its
journal alone, not the whole store.

Before, each opened the home (its snapshot and journal loaded: every item, rung and vector
fact) to list a few principals: ~1.2 s of CPU and hundreds of MB on a home of 48,000 items
(BENCHMARKS.md, round 30, qa164). Now only the journal's lines that change a grant, a
principal, a membership or a mount are parsed; the listing is the one the open home gives,
after removals, revocations, a compaction, a torn tail and an item whose text holds lines
that look like journal entries.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from attention_cloud import memory
from attention_cloud.cli import main

#: An item's text that, were the journal read line by line without its record blocks' bounds,
#: would add a principal `eve` in a committed batch (a block's length counts characters: the
#: text's accents and emoji take more bytes than characters).
FORGED = ("User: café ✓ 🚀 note\na(:(atc_grants,principal_(eve,person))).\n"
          "a(:(atc_grants,owner_(eve))).\ncommit(999999).\nend")


def run(*args, home):
    return CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """alice owns it; bob and carol are persons, platform a team bob is in (carol joined and
    left), dave was added and removed; platform holds a grant, carol a revoked one; one mount;
    an item's text forges journal lines."""
    from attention_cloud.sharing import (add_grant, add_mount, add_principal, join_team,
                                         leave_team, remove_principal, revoke_grant)

    root = tmp_path_factory.mktemp("principal-list")
    (root / "notes.txt").write_text(FORGED, encoding="utf-8")
    home = root / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with memory.Memory.open(home) as mem:
        mem.ingest([root / "notes.txt"], format="text")
        add_principal(mem, "alice", owner=True)
        for name in ("bob", "carol", "dave"):
            add_principal(mem, name)
        add_principal(mem, "platform", kind="team")
        join_team(mem, "bob", "platform")
        join_team(mem, "carol", "platform")
        leave_team(mem, "carol", "platform")
        add_grant(mem, "platform", segments=["default"], ceiling="L2")
        revoke_grant(mem, add_grant(mem, "carol", ceiling="L3"), who="alice")
        remove_principal(mem, "dave")
        add_mount(mem, "zoe", "http://127.0.0.1:9/", "ZOE_TOKEN")
    return home


def _opened(home):
    from attention_cloud.sharing import sharing_state

    with memory.Memory.open(home, create=False) as mem:
        return sharing_state(mem)


def _listed(home):
    done = run("principal", "list", "--format", "json", home=home)
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def test_the_lists_are_the_open_homes_without_opening_it(home, monkeypatch):
    from attention_cloud.sharing import stored_sharing_state

    opened = _opened(home)
    assert stored_sharing_state(home) == opened
    assert [p["name"] for p in opened.principals] == ["alice", "bob", "carol", "platform"]

    def refuse(*_args, **_kwargs):
        raise AssertionError("the listing opened the whole home")

    monkeypatch.setattr(memory.Memory, "open", classmethod(refuse))
    assert _listed(home) == {"owner": "alice", "principals": opened.principals}
    done = run("grant", "list", "--format", "json", home=home)
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == [g.as_dict() for g in opened.grants]
    assert [g["live"] for g in json.loads(done.stdout)] == [True, False]
    done = run("mount", "list", "--format", "json", home=home)
    assert json.loads(done.stdout) == opened.mounts != []


def test_an_uncommitted_tail_is_not_listed(home):
    journal = home / "journal.pl"
    kept = journal.read_bytes()
    try:
        with journal.open("ab") as fh:   # a batch a crash cut before its commit
            fh.write(b"a(:(atc_grants,principal_(mallory,person))).\n")
        assert "mallory" not in {p["name"] for p in _listed(home)["principals"]}
    finally:
        journal.write_bytes(kept)


def test_a_compacted_journal_lists_the_same(home):
    from attention_cloud.sharing import stored_sharing_state

    with memory.Memory.open(home, create=False) as mem:
        (handle,) = [r["H"] for r in mem.query("item(H)", limit=10).rows][:1]
        mem.forget([handle], reason="compact the journal")
    assert b"epoch(" in (home / "journal.pl").read_bytes()[:100]
    assert stored_sharing_state(home) == _opened(home)


def test_a_missing_home_is_refused(tmp_path):
    done = run("principal", "list", home=tmp_path / "nowhere")
    assert done.exit_code != 0 and "no memory home here" in done.output
    assert not (tmp_path / "nowhere").exists()
