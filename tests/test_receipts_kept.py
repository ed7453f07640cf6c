"""Receipts are kept up to a cap per reader, the oldest pruned first (README, Configuration).

Before, every frame saved a receipt (2-16 KB) that nothing ever removed: a grantee asking
within their server share, or an agent's hooks, grew ``receipts/`` without bound. Now each
reader (every grantee, and the owner) keeps their newest ``receipts_kept`` receipts (1000 by
default); one reader's frames never push out another's; the audit log keeps every read's line
(with its receipt id) when the receipt file is pruned, and ``atc receipt`` says why an old one
is gone.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from granted_home import granted_memory  # noqa: E402

GOALS = [f"what did we fix in the cache, question {n}" for n in range(5)]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A home keeping 3 receipts a reader, after 5 frames of the owner's and 5 of bob's:
    (the home, the owner's receipt ids, bob's, in the order made)."""
    from attention_cloud import Memory
    from attention_cloud.sharing import reader_hydrate

    from attention_cloud.sharing import add_principal

    memory = granted_memory(tmp_path_factory.mktemp("kept"), "L2")
    try:
        token = add_principal(memory, "erin")
        from attention_cloud.sharing import add_grant
        add_grant(memory, "erin", segments=["default"], ceiling="L2")
        config = json.loads((memory.home / "config.json").read_text(encoding="utf-8"))
        (memory.home / "config.json").write_text(json.dumps({**config, "receipts_kept": 3}),
                                                 encoding="utf-8")
    finally:
        memory.close()
    with Memory.open(memory.home) as memory:
        owner = [memory.hydrate(goal, budget=600).receipt_id for goal in GOALS]
        bob = [reader_hydrate(memory, "bob", goal, budget=600).receipt_id for goal in GOALS]
    return memory.home, owner, bob, token


def _stored(home: Path) -> set[str]:
    return {p.stem for p in (home / "receipts").glob("*.json")}


def test_each_reader_keeps_their_newest_receipts(home):
    folder, owner, bob, _ = home
    assert len(set(owner)) == len(set(bob)) == 5
    assert _stored(folder) == set(owner[-3:]) | set(bob[-3:])


def test_a_grantee_through_the_server_keeps_theirs_and_no_more(home):
    """Asked through `atc serve`, a grantee's frames prune their own oldest receipts, not
    the owner's or another grantee's; their oldest is gone for them too."""
    from attention_cloud.sharing.mounts import MountError, call_mount
    from test_sharing import Server

    folder, owner, bob, token = home
    before = _stored(folder)
    server = Server(folder)
    try:
        made = [call_mount(server.url, token, "/v1/hydrate", {"goal": goal, "budget": 600})
                ["receipt_id"] for goal in GOALS]
        kept = call_mount(server.url, token, f"/v1/receipt/{made[-1]}")
        with pytest.raises(MountError, match="no such receipt"):
            call_mount(server.url, token, f"/v1/receipt/{made[0]}")
    finally:
        server.stop()
    assert kept["id"] == made[-1]
    assert _stored(folder) == before | set(made[-3:])


def test_the_audit_log_still_lists_every_read(home):
    folder, _, bob, _ = home
    lines = [json.loads(line) for line in
             (folder / "audit.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["receipt"] for e in lines if e.get("reader") == "bob"] == bob


def test_a_pruned_receipt_says_why_it_is_gone(home):
    from attention_cloud.cli import main

    folder, owner, _, _ = home
    result = CliRunner().invoke(main, ["receipt", owner[0], "--home", str(folder)])
    assert result.exit_code != 0
    assert "receipts_kept" in result.output, result.output
    kept = CliRunner().invoke(main, ["receipt", owner[-1], "--home", str(folder)])
    assert kept.exit_code == 0, kept.output


@pytest.mark.parametrize("value", [0, -1, "many", 2.5, True])
def test_a_bad_cap_is_refused_naming_the_key(value):
    from attention_cloud.errors import HomeError
    from attention_cloud.home import check_config

    with pytest.raises(HomeError, match="receipts_kept"):
        check_config({"receipts_kept": value})
    check_config({"receipts_kept": None})  # null: keep them all
