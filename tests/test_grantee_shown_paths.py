"""A grantee's view of a record whose paths are shown as file names answers for what it shows.

Below L1 a path of the owner's machine is shown to a grantee as its file's name
(rules/path_disclosure.pl). Two things still followed the owner's longer text: a goal naming
what the grantee was shown (`rung(H, l2, "… cache.py …")`, `relation(H, touches_file,
'cache.py')`) found nothing, as it was looked up in the owner's words; and the tokens a
grantee was told (`rung_tokens/3`, a receipt's facts) were the owner's rung's, so they grew
with the owner's directories the grantee may not read.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from granted_home import SESSION  # noqa: E402

GOAL = "what did we fix in the cache"
#: the file the session's records name, under a short and a long directory of the owner's
OUTSIDE = {"short": "/home/marco/.c/src/cache.py",
           "long": "/home/marco/.cache/spotter-worktrees/feature-branch-with-a-long-name/"
                   "deeply/nested/source/tree/src/app/cache.py"}


@pytest.fixture(scope="module")
def views(tmp_path_factory) -> dict[str, dict]:
    """For each of OUTSIDE: what carl (L2) and bob (L3) are told, keyed by each record's
    place in the session (the owner's pointer), which both homes share."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal, reader_hydrate, reader_query

    out = {}
    for name, outside in OUTSIDE.items():
        root = tmp_path_factory.mktemp(name)
        text = SESSION.read_text(encoding="utf-8").replace("/repo/src/app/cache.py", outside)
        (root / "s.jsonl").write_text(text, encoding="utf-8")
        (root / "home").mkdir()
        (root / "home" / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
        with Memory.open(root / "home") as memory:
            memory.ingest([root / "s.jsonl"])
            memory.curate()
            add_principal(memory, "alice", owner=True)
            add_principal(memory, "bob")
            add_principal(memory, "carl")
            add_grant(memory, "bob", segments=["default"], ceiling="L3")
            add_grant(memory, "carl", segments=["default"], ceiling="L2")
            place = {r["H"]: Path(r["S"]).name for r in memory.query("item_source(H, S)", limit=1000).rows}
            seen = {"place": place}
            for reader in ("bob", "carl"):
                def rows(goal, reader=reader):
                    return reader_query(memory, reader, goal, limit=1000).rows
                rungs = rows("item(H), rung(H, L, T), member(L, [l2, l3])")
                seen[reader, "rungs"] = rungs
                seen[reader, "bound rungs"] = [_bound(memory, reader, "rung", r["H"], r["L"],
                                                      r["T"]) for r in rungs]
                seen[reader, "files"] = rows("relation(H, touches_file, O)")
                seen[reader, "named file"] = rows("relation(H, touches_file, 'cache.py')")
                seen[reader, "named file, any link"] = rows("relation(H, P, 'cache.py')")
                seen[reader, "tokens"] = {
                    (place[r["H"]], r["L"]): r["N"]
                    for r in rows("item(H), rung_tokens(H, L, N), member(L, [l2, l3])")}
                frame = reader_hydrate(memory, reader, GOAL, budget=4000)
                seen[reader, "facts"] = {(place[f["handle"]], f["level"].lower()): f["tokens"]
                                         for f in frame.receipt["facts"]
                                         if f["handle"] in place}
            carl_fields = reader_query(memory, "carl", "distilled(H, F, V)", limit=1000).rows
            seen["carl", "bound fields"] = [
                _bound(memory, "carl", "distilled", r["H"], r["F"], r["V"]) for r in carl_fields]
            out[name] = seen
    return out


def _bound(memory, reader, name, handle, key, text) -> bool:
    """Whether the goal naming all three of what `name(H, K, T)` answered finds it again."""
    from attention_cloud.sharing import reader_query

    quoted = text.replace("\\", "\\\\").replace('"', '\\"')
    goal = f'{name}({handle}, {key}, "{quoted}")'
    return bool(reader_query(memory, reader, goal).rows)


@pytest.mark.parametrize("reader", ["bob", "carl"])
def test_a_goal_naming_the_rung_a_grantee_was_shown_finds_it(views, reader):
    for name in OUTSIDE:
        rungs = views[name][reader, "rungs"]
        assert any("cache.py" in r["T"] for r in rungs), rungs
        assert all(views[name][reader, "bound rungs"])


def test_a_goal_naming_the_distillation_a_grantee_was_shown_finds_it(views):
    for name in OUTSIDE:
        assert views[name]["carl", "bound fields"]
        assert all(views[name]["carl", "bound fields"])


@pytest.mark.parametrize("reader", ["bob", "carl"])
def test_a_goal_naming_the_file_a_grantee_was_shown_finds_it(views, reader):
    for name in OUTSIDE:
        shown = sorted(r["H"] for r in views[name][reader, "files"] if r["O"] == "cache.py")
        assert shown
        assert sorted(r["H"] for r in views[name][reader, "named file"]) == shown
        assert shown == sorted({r["H"] for r in views[name][reader, "named file, any link"]
                                if r["P"] == "touches_file"})


@pytest.mark.parametrize("reader", ["bob", "carl"])
def test_a_grantees_token_counts_are_those_of_what_they_are_shown(views, reader):
    """Where a record reads the same to the grantee in both homes (the owner's directory
    shorter or longer), they are told the same tokens for it: rung_tokens/3, and each
    receipt fact's; and rung_tokens/3 is the estimate of the rung they read."""
    from attention_cloud.curate.tokens import estimate_tokens

    short, long = views["short"], views["long"]
    shown = {name: {(views[name]["place"][r["H"]], r["L"]): r["T"]
                    for r in views[name][reader, "rungs"]} for name in OUTSIDE}
    same = {k for k, text in shown["short"].items() if shown["long"].get(k) == text}
    assert any("cache.py" in shown["short"][k] for k in same)
    for name in OUTSIDE:
        told = views[name][reader, "tokens"]
        assert {k: told[k] for k in shown[name]} == \
            {k: estimate_tokens(t) for k, t in shown[name].items()}
    assert {k: short[reader, "tokens"][k] for k in same} == \
        {k: long[reader, "tokens"][k] for k in same}
    both = same & set(short[reader, "facts"]) & set(long[reader, "facts"])
    assert both
    assert {k: short[reader, "facts"][k] for k in both} == \
        {k: long[reader, "facts"][k] for k in both}
