"""What a grantee is told of where a record came from (README, Sharing).

Before, every grantee read the owner's absolute source paths, at any ceiling: the receipt's
``source`` of each fact and breadcrumb, ``atc show --as``, ``item_source/2`` and
``item_source_name/2``, and the owner's working directory through ``relation(H, cwd, D)``
(``/home/alice/projects/acme/...``: the owner's user and project names, which no grant gives).
Now a grantee who sees a record at L0 or L1 is told its file's name alone (``session.jsonl``:
the place in it would number the record among the owner's, tests/test_grantee_hidden_places.py),
never a directory; at L2 and L3 nothing (the handle is the pointer its owner can follow).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from granted_home import SESSION, granted_memory  # noqa: E402

GOAL = "what did we fix in the cache"
#: the fixture session's working directory, as its records name it
CWD = "/repo"


@pytest.fixture(scope="module")
def granted_home(tmp_path_factory):
    """A curated home shared with bob at L3 and dave at L0: (its Memory, dave's token)."""
    from attention_cloud.sharing import add_grant, add_principal

    memory = granted_memory(tmp_path_factory.mktemp("sources"), "L3")
    memory.curate()
    token = add_principal(memory, "dave")
    add_grant(memory, "dave", segments=["default"], ceiling="L0")
    yield memory, token
    memory.close()


@pytest.fixture
def granted(granted_home):
    """The home's Memory, opened again where a CLI run in this process closed it."""
    from attention_cloud import Memory

    memory, token = granted_home
    if memory._closed:
        memory = Memory.open(memory.home)
    return memory, token


def _owner_paths(memory) -> set[str]:
    """Every directory the home's sources and working directories name."""
    rows = memory.query("item_source(H, P)", limit=1000).rows
    rows += memory.query("relation(H, cwd, P)", limit=1000).rows
    return {str(Path(str(r["P"]).split(":")[0]).parent) for r in rows} - {"/", "."}


def _leaks(text: str, paths: set[str]) -> list[str]:
    return [p for p in paths if p in text]


def _frame(memory, reader):
    from attention_cloud.sharing import reader_hydrate

    return reader_hydrate(memory, reader, GOAL, budget=4000)


def test_the_owner_still_reads_the_whole_pointer(granted):
    memory, _ = granted
    frame = memory.hydrate(GOAL, budget=4000)
    sources = {f["source"] for f in frame.receipt["facts"] if not f["handle"].startswith("cell_")}
    assert sources and all(s.startswith(str(SESSION.parent)) for s in sources), sources


@pytest.mark.parametrize("reader", ["bob", "dave"])
def test_a_grantees_frame_names_no_directory_of_the_owner(granted, reader):
    memory, _ = granted
    frame = _frame(memory, reader)
    receipt = json.dumps(frame.receipt)
    assert frame.receipt["facts"]
    assert not _leaks(receipt, _owner_paths(memory))
    assert not _leaks(frame.text, _owner_paths(memory))


def test_at_l0_a_fact_says_its_file_and_at_l3_nothing(granted):
    memory, _ = granted
    dave = _frame(memory, "dave").receipt
    shown = [f["source"] for f in dave["facts"] + dave["beyond"] if not f["handle"].startswith("cell_")]
    assert shown and set(shown) == {SESSION.name}, shown
    bob = _frame(memory, "bob").receipt
    assert {f["source"] for f in bob["facts"] + bob["beyond"]
            if not f["handle"].startswith("cell_")} == {""}


def test_a_grantees_query_reads_file_names_at_l0_and_no_source_at_l3(granted):
    from attention_cloud.sharing import reader_query

    memory, _ = granted
    goal = "item_source(H, P), item_source_name(H, N)"
    dave = reader_query(memory, "dave", goal, limit=1000).rows
    assert dave and {r["N"] for r in dave} == {SESSION.name}
    assert {r["P"] for r in dave} == {SESSION.name}
    # bound in the form the grantee was shown, it answers the same record
    one = dave[0]
    again = reader_query(memory, "dave", f"item_source(H, \"{one['P']}\")", limit=1000).rows
    assert {r["H"] for r in again} == {r["H"] for r in dave}
    assert reader_query(memory, "bob", goal, limit=1000).rows == []
    assert reader_query(memory, "bob", "item_source(H, P)", limit=1000).rows == []
    # the owner's working directory: its last name at L0, nothing at L3
    cwd = reader_query(memory, "dave", "relation(H, cwd, D)", limit=1000).rows
    assert cwd and {r["D"] for r in cwd} == {Path(CWD).name}
    assert reader_query(memory, "bob", "relation(H, cwd, D)", limit=1000).rows == []
    assert reader_query(memory, "bob", "relation(H, P, D), P == cwd", limit=1000).rows == []
    every = reader_query(memory, "bob", "relation(H, P, D)", limit=10000).rows
    assert every and not any(r["D"] == CWD for r in every)


def test_show_as_a_grantee_names_no_directory(granted):
    memory, _ = granted
    handle = memory.query("item_source(H, _)", limit=1).rows[0]["H"]
    home, paths = str(memory.home), _owner_paths(memory)     # a CLI run closes memory
    for reader, expected in (("dave", re.compile(re.escape(SESSION.name))),
                             ("bob", None)):
        out = CliRunner().invoke(main, ["show", handle, "--as", reader, "--format", "json",
                                        "--home", home], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        record = json.loads(out.output)
        assert not _leaks(out.output, paths)
        if expected is None:
            assert not record.get("source")
        else:
            assert expected.fullmatch(record["source"]), record


def test_hydrate_as_and_serve_name_no_directory(granted):
    from attention_cloud.sharing.mounts import call_mount
    from test_sharing import Server

    memory, token = granted
    home, paths = str(memory.home), _owner_paths(memory)     # a CLI run closes memory
    out = CliRunner().invoke(main, ["hydrate", "--goal", GOAL, "--as", "dave", "--format",
                                    "json", "--home", home], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert not _leaks(out.output, paths)
    server = Server(memory.home)
    try:
        frame = call_mount(server.url, token, "/v1/hydrate", {"goal": GOAL})
        answered = call_mount(server.url, token, "/v1/query",
                              {"goal": "item_source(H, P)", "limit": 5})
    finally:
        server.stop()
    assert frame["facts"] and not _leaks(json.dumps(frame), paths)
    assert answered and not _leaks(json.dumps(answered), paths)


def test_an_empty_frame_says_nothing_of_hidden_items_not_curated_yet(tmp_path):
    """A grantee below L0 whose frame was empty was told "items not curated yet" whenever any
    item of the home was, hidden ones included: the owner ingesting a segment the grantee
    cannot see (and not curating it yet) showed in the grantee's next frame."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal, reader_hydrate

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with Memory.open(home) as memory:
        memory.ingest([SESSION], segment="work")
        memory.curate()
        add_principal(memory, "alice", owner=True)
        add_principal(memory, "bob")
        # a live grant that matches nothing yet: bob's frames are empty
        add_grant(memory, "bob", segments=["work"], since="2099-01-01T00:00:00Z", ceiling="L2")
        before = reader_hydrate(memory, "bob", GOAL).receipt
        memory.ingest([SESSION.parent / "2026-01-02-standup.md"], segment="private")
        after = reader_hydrate(memory, "bob", GOAL).receipt
    assert before["facts"] == [] and after["facts"] == []
    assert after["empty"] == before["empty"] == "nothing shared with bob answers this goal"


#: Saved rules as an owner might leave them by hand: one calls a predicate nothing defines,
#: one does not parse, one is not UTF-8. Each is the owner's to fix; a grantee's error names
#: the file by its place in the home, never the home's own directory.
_BROKEN_RULES = {
    "calls_nothing": "helper(X) :- no_such_thing(X).\n",
    "unreadable": "walk_all(S, H-0.5) :- member(H-_, S\n",
    "not_utf8": b"bad(\xff).\n",
}


@pytest.mark.parametrize("rule", sorted(_BROKEN_RULES))
def test_a_grantees_error_from_the_owners_saved_rules_names_no_directory(tmp_path, rule):
    from attention_cloud.errors import AtcError
    from attention_cloud.sharing import reader_hydrate, reader_query

    memory = granted_memory(tmp_path, "L0")
    try:
        memory.rules_dir.mkdir(parents=True, exist_ok=True)
        text = _BROKEN_RULES[rule]
        path = memory.rules_dir / f"{rule}.pl"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        home = str(memory.home)
        # a grantee's goal loads no saved rule (tests/test_grantee_owner_rules.py): helper/1
        # is unknown to it; their frame loads them, and its error names the file in the home
        for read, names_file in ((lambda: reader_query(memory, "bob", "helper(X)"), False),
                                 (lambda: reader_hydrate(memory, "bob", GOAL), True)):
            with pytest.raises(AtcError) as raised:
                read()
            message = str(raised.value)
            assert home not in message and str(tmp_path) not in message, message
            if names_file:
                assert f"rules/{rule}.pl" in message, message     # the owner can find it
            else:
                assert "Unknown procedure: helper/1" in message, message
        with pytest.raises(AtcError) as raised:                 # the owner is told the path
            memory.query("helper(X)")
        assert str(path) in str(raised.value)
    finally:
        memory.close()
