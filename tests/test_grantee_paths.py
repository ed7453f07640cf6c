"""What a grantee reads of the owner's paths through content (README, Sharing: "Where a record
came from").

Before, a file a turn touched outside its working directory kept its absolute path, and every
grantee read it at any ceiling: ``relation(H, touches_file, '/home/marco/.cache/...')`` at L3,
the L3 skeleton itself (``s.jsonl:11 #error ... | /home/marco/.cache/spotter/src/app/cache.py``,
its ``file:line`` pointer too, though README promised "at L2 and L3 nothing"), L2 rungs and
distillations (``read /home/marco/...``), cells' top entities, frames, receipts, ``atc show
--as`` and ``/v1/*``. Now, where the grantee's view is rendered (the owner's memory unchanged):
at L2 and L3 a path is its file's name, no tag names the owner's home folder, no L3 starts with
the pointer; a relation's path at an L0 or L1 ceiling has the home folder as ``~``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))
from granted_home import SESSION  # noqa: E402

GOAL = "what did we fix in the cache"
#: the working directory and the files outside it the session's records name
CWD = "/home/marco/projects/spotter"
OUTSIDE = "/home/marco/.cache/spotter/src/app/cache.py"
TASK = "/tmp/claude-1000/-home-marco-projects-spotter/tasks/x.output"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A curated home of one session whose files lie outside its working directory, shared
    with bob at L3, carl at L2 and dave at L0: (the home, bob's token)."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    root = tmp_path_factory.mktemp("paths")
    text = SESSION.read_text(encoding="utf-8")
    text = (text.replace("/repo/src/app/cache.py", OUTSIDE)
                .replace("/repo/.git/hooks/pre-commit", TASK)
                .replace("/repo", CWD))
    session = root / "s.jsonl"
    session.write_text(text, encoding="utf-8")
    (root / "home").mkdir()
    (root / "home" / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with Memory.open(root / "home") as memory:
        memory.ingest([session])
        memory.curate()
        add_principal(memory, "alice", owner=True)
        token = add_principal(memory, "bob")
        add_principal(memory, "carl")
        add_principal(memory, "dave")
        add_grant(memory, "bob", segments=["default"], ceiling="L3")
        add_grant(memory, "carl", segments=["default"], ceiling="L2")
        add_grant(memory, "dave", segments=["default"], ceiling="L0")
    return root / "home", token


@pytest.fixture(scope="module")
def memory(home):
    from attention_cloud import Memory

    with Memory.open(home[0]) as mem:
        yield mem


def _rows(memory, reader, goal):
    from attention_cloud.sharing import reader_query

    return reader_query(memory, reader, goal, limit=1000).rows


def _owner_dirs(text: str) -> list[str]:
    """What of the owner's machine ``text`` names: home folder, user, working directory."""
    return [w for w in ("/home/", "marco", "/tmp/claude", "s.jsonl:") if w in text]


def test_the_owner_still_reads_every_path_as_it_was(memory):
    objects = {r["O"] for r in memory.query("relation(H, touches_file, O)", limit=1000).rows}
    assert OUTSIDE in objects
    skeletons = [r["T"] for r in memory.query("item(H), rung(H, l3, T)", limit=1000).rows]
    assert any(s.startswith("s.jsonl:") for s in skeletons)
    assert any(OUTSIDE in s for s in skeletons)


@pytest.mark.parametrize("reader", ["bob", "carl"])
def test_below_l1_a_path_is_its_files_name(memory, reader):
    rows = _rows(memory, reader, "relation(H, P, O), memberchk(P, [touches_file, mentions_file])")
    objects = {str(r["O"]) for r in rows}
    assert "cache.py" in objects and not any(o.startswith(("/", "~")) for o in objects), objects
    texts = [r["T"] for r in _rows(memory, reader, "rung(H, L, T), member(L, [l2, l3])")]
    texts += [r["V"] for r in _rows(memory, reader, "distilled(H, F, V)")]
    texts += [json.dumps(r["V"]) for r in _rows(memory, reader, "cell_info(C, K, V)")]
    assert texts
    leaks = [t for t in texts if _owner_dirs(t) or "#home" in t]
    assert leaks == []


def test_at_l0_a_path_names_no_home_folder(memory):
    objects = {str(r["O"]) for r in _rows(memory, "dave", "relation(H, touches_file, O)")}
    assert "~/.cache/spotter/src/app/cache.py" in objects, objects
    assert not any("/home/" in o for o in objects)


def test_a_path_cannot_be_confirmed_by_naming_it(memory):
    assert _rows(memory, "bob", f"relation(H, touches_file, '{OUTSIDE}')") == []


@pytest.mark.parametrize("reader", ["bob", "carl"])
def test_a_grantees_frame_and_receipt_name_no_directory_of_the_owner(memory, reader):
    from attention_cloud.sharing import reader_hydrate

    frame = reader_hydrate(memory, reader, GOAL, budget=4000)
    assert frame.receipt["facts"]
    assert _owner_dirs(frame.text) == []
    assert _owner_dirs(json.dumps(frame.receipt)) == []


def test_atc_show_and_query_as_a_grantee(home):
    from attention_cloud import Memory
    from attention_cloud.cli import main

    with Memory.open(home[0]) as memory:
        handles = [r["H"] for r in memory.query(f"relation(H, touches_file, '{OUTSIDE}')",
                                                 limit=10).rows]
    assert handles
    runner = CliRunner()
    for handle in handles:
        shown = runner.invoke(main, ["show", handle, "--as", "carl", "--home", str(home[0])])
        assert shown.exit_code == 0, shown.output
        assert _owner_dirs(shown.output) == [], shown.output
    queried = runner.invoke(main, ["query", "rung(H, l3, T)", "--as", "bob", "--format", "json",
                                   "--home", str(home[0])])
    assert queried.exit_code == 0, queried.output
    assert "cache.py" in queried.output and _owner_dirs(queried.output) == []


def test_the_server_shows_a_grantee_no_directory_of_the_owner(home):
    from attention_cloud.sharing.mounts import call_mount
    from test_sharing import Server

    server = Server(home[0])
    try:
        frame = call_mount(server.url, home[1], "/v1/hydrate", {"goal": GOAL, "budget": 4000})
        query = call_mount(server.url, home[1], "/v1/query",
                           {"goal": "relation(H, P, O) ; rung(H, L, O)"})
        handle = frame["receipt"]["facts"][0]["handle"]
        shown = call_mount(server.url, home[1], f"/v1/show/{handle}")
    finally:
        server.stop()
    for answer in (frame, query, shown):
        assert _owner_dirs(json.dumps(answer)) == [], answer
