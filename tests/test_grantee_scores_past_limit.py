"""Past the size where no set of what a grantee sees is kept, hidden records still move none
of their BM25 scores.

A grantee's searches are weighed by the statistics of the records they see: their kept set,
or, where none is kept (more than 20,000 candidate items; ``ATC_READER_SET_LIMIT`` lowers the
size for this test), the segments their grants name. Before, there every record of those
segments weighed in, the ones a label hid from the grantee included: bob's score for a record
he sees moved when private notes holding the word were added beside it (the round-25 leak's
shape: comparing scores told how many hidden records held a word). Now the records a label
hides from a grantee of whole segments are left out of the statistics too, through
``Memory``, a frame and ``atc serve``.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SHARED = "".join(f"Ann: the nightly retry job number {i} ran with a budget of {i * 3} minutes "
                 f"and {'failed' if i % 3 else 'passed'}\n" for i in range(10))
PRIVATE = "".join(f"Zed: retry retry the secret migration {i} and its budget\n"
                  for i in range(30))
LIMIT = "5"                             # 10 shared items: no set kept for bob
GOALS = ('lexical("retry budget", 5, [], H)', 'lexical("nightly", 3, [], H)',
         'lexical("retry", 4, [segment(payments)], H)')
FRAME_GOAL = "which retry job failed and its budget"


def _home(root: Path, with_private: bool):
    """Segment `payments`: ten shared turns, and (with_private) thirty more labelled private;
    bob reads the whole segment at L0. Returns (memory, bob's token)."""
    from attention_cloud.sharing import add_grant, add_principal, label
    from granted_home import chat_memory

    chats = {"shared.txt": SHARED, **({"private.txt": PRIVATE} if with_private else {})}
    memory = chat_memory(root, chats, segment="payments")
    token = add_principal(memory, "bob")
    add_grant(memory, "bob", segments=["payments"], ceiling="L0")
    if with_private:
        hidden = [r["H"] for r in memory.query(
            'item_text(H, T), sub_string(T, _, _, _, "secret migration")', limit=500).rows]
        assert len(hidden) == 30
        label(memory, hidden, restrictions=["private"])
    return memory, token


@pytest.fixture(scope="module")
def bob_scores(tmp_path_factory) -> dict[bool, dict]:
    """What bob's searches, frame and served searches answer on the same shared records, with
    and without private notes beside them, no set kept for him."""
    from attention_cloud.bridge import Atom, Var
    from attention_cloud.sharing import reader_hydrate, reader_query
    from attention_cloud.sharing.mounts import call_mount
    from test_sharing import Server

    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATC_READER_SET_LIMIT", LIMIT)
        for with_private in (False, True):
            memory, token = _home(tmp_path_factory.mktemp(f"private-{with_private}"),
                                  with_private)
            try:
                (items,) = memory.pl.once("atc_grants:reader_items", Atom("bob"), Var())
                assert str(items) == "unbounded"        # no set kept: the case under test
                text_of = {r["H"]: r["T"] for r in memory.query("item_text(H, T)",
                                                                limit=500).rows}
                seen = {}
                for goal in GOALS:
                    hits = reader_query(memory, "bob", goal).rows[0]["H"]
                    seen[goal] = [(text_of[h], round(s, 9)) for h, s in hits]
                # a `without` of his own is dropped, as `within` and `stats_segments` are
                first = reader_query(memory, "bob", GOALS[0]).rows[0]["H"][0][0]
                own = GOALS[0].replace("[]", f'[without("{first}")]')
                seen["own without"] = [(text_of[h], round(s, 9))
                                       for h, s in reader_query(memory, "bob", own).rows[0]["H"]]
                # the entity walk: whether a home has cells to walk at all follows how many
                # items it holds, hidden ones included (curation's, not the searches')
                frame = reader_hydrate(memory, "bob", FRAME_GOAL, budget=600, cells=False)
                seen["frame"] = sorted((text_of.get(f["handle"], f["handle"]), f["score"])
                                       for f in frame.receipt["facts"]
                                       if f["handle"] in text_of)
                home = memory.home
            finally:
                memory.close()
            server = Server(home)
            try:
                served = call_mount(server.url, token, "/v1/query", {"goal": GOALS[0]})
            finally:
                server.stop()
            seen["served"] = [(text_of[h], round(s, 9)) for h, s in served["rows"][0]["H"]]
            out[with_private] = seen
    return out


@pytest.mark.parametrize("goal", GOALS)
def test_a_grantees_bm25_scores_do_not_count_private_notes(bob_scores, goal):
    assert bob_scores[True][goal] and all("secret" not in t for t, _ in bob_scores[True][goal])
    assert bob_scores[True][goal] == bob_scores[False][goal]


def test_a_grantees_frame_scores_do_not_count_private_notes(bob_scores):
    assert bob_scores[True]["frame"] == bob_scores[False]["frame"]


def test_served_scores_do_not_count_private_notes(bob_scores):
    assert bob_scores[True]["served"] == bob_scores[False]["served"]


def test_a_grantees_own_without_option_is_dropped(bob_scores):
    """Leaving records of his choice out of the statistics would let him read from the
    scores what they hold (as a `within` or `stats_segments` of his own would)."""
    for with_private in (False, True):
        assert bob_scores[with_private]["own without"] == bob_scores[with_private][GOALS[0]]
