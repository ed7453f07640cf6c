"""A grantee's search scores are the same whether records hidden from them exist or not.

BM25 weighs a word by how many records hold it and a record by its length against the mean:
computed over the whole home, the score `lexical/4` gave a grantee for a record they see
moved with the records of segments they cannot read (on the README's worked example, 2.92
without the `security` segment and 3.95 with it), so comparing scores told them how many
hidden records held a word. A grantee's searches are now weighed by the segments they read.
"""
from __future__ import annotations

from pathlib import Path

import pytest

SHARED = "".join(f"Ann: the nightly retry job number {i} ran with a budget of {i * 3} minutes "
                 f"and {'failed' if i % 3 else 'passed'}\n" for i in range(10))
HIDDEN = "".join(f"Zed: retry retry the secret migration {i} and its budget\n"
                 for i in range(60))


def _home(root: Path, with_hidden: bool):
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal

    home = root / "home"
    home.mkdir(parents=True)
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    shared = root / "shared.txt"
    shared.write_text(SHARED, encoding="utf-8")
    memory = Memory.open(home)
    memory.ingest([shared], format="text", segment="payments")
    if with_hidden:
        hidden = root / "hidden.txt"
        hidden.write_text(HIDDEN, encoding="utf-8")
        memory.ingest([hidden], format="text", segment="security")
    add_principal(memory, "alice", owner=True)
    add_principal(memory, "bob")
    add_grant(memory, "bob", segments=["payments"], ceiling="L0")
    return memory


@pytest.fixture(scope="module")
def bob_scores(tmp_path_factory) -> dict[bool, dict]:
    """What bob's searches and frame answer on the same shared records, with and without a
    hidden segment beside them (one home open at a time: one Memory per process)."""
    from attention_cloud.sharing import reader_hydrate, reader_query

    out = {}
    for with_hidden in (False, True):
        memory = _home(tmp_path_factory.mktemp(f"hidden-{with_hidden}"), with_hidden)
        try:
            text_of = {r["H"]: r["T"] for r in memory.query("item_text(H, T)", limit=500).rows}
            seen = {}
            for goal in ('lexical("retry budget", 5, [], H)', 'lexical("nightly", 3, [], H)',
                         'lexical("retry", 4, [segment(payments)], H)'):
                hits = reader_query(memory, "bob", goal).rows[0]["H"]
                seen[goal] = [(text_of[h], round(s, 9)) for h, s in hits]
            frame = reader_hydrate(memory, "bob", "which retry job failed and its budget",
                                   budget=600)
            seen["frame"] = sorted((text_of.get(f["handle"], f["handle"]), f["score"])
                                   for f in frame.receipt["facts"] if f["handle"] in text_of)
            owner = memory.query('lexical("retry budget", 5, [segment(payments)], H)').rows
            seen["owner"] = [(text_of[h], round(s, 9)) for h, s in owner[0]["H"]]
            out[with_hidden] = seen
        finally:
            memory.close()
    return out


@pytest.mark.parametrize("search", ['lexical("retry budget", 5, [], H)',
                                    'lexical("nightly", 3, [], H)',
                                    'lexical("retry", 4, [segment(payments)], H)', "frame"])
def test_a_grantees_scores_do_not_move_with_records_hidden_from_them(bob_scores, search):
    assert bob_scores[False][search], bob_scores[False]
    assert bob_scores[True][search] == bob_scores[False][search]


def test_the_owners_scores_still_weigh_the_whole_home(bob_scores):
    """The owner reads every segment: their scores are the whole index's, as before."""
    assert bob_scores[True]["owner"] != bob_scores[False]["owner"]


def test_a_grantee_cannot_ask_for_the_statistics_of_a_segment_they_do_not_read(tmp_path):
    from attention_cloud.sharing import reader_query

    memory = _home(tmp_path, True)
    try:
        plain = reader_query(memory, "bob", 'lexical("retry budget", 5, [], H)').rows
        asked = reader_query(memory, "bob", 'lexical("retry budget", 5, '
                                            '[stats_segments([payments, security])], H)').rows
    finally:
        memory.close()
    assert asked == plain


#: Dated, tagged shared records and older hidden ones holding the same words: grants by a
#: tag, an entity or a time alone match the first and none of the second.
DATED = "".join(f"[2024-03-0{1 + i % 9} 09:00] Ann: the nightly retry job number {i} in "
                f"jobs/nightly.py ran with a budget of {i * 3} minutes\n" for i in range(10))
DATED_HIDDEN = "".join(f"[2023-01-0{1 + i % 9} 10:00] Zed: retry retry the secret migration "
                       f"{i} and its budget\n" for i in range(60))
#: grantee -> the one filter of their grant (no segment, no session)
NARROW = {"tagged": {"tags": ["nightly"]}, "named": {"entities": ["jobs/nightly.py"]},
          "recent": {"since": "2024-01-01"}}
#: grantees whose grant matches the hidden records too, which a `private` label hides
LABELLED = {"segment": {"segments": ["payments"]}, "everything": {}}


@pytest.fixture(scope="module")
def narrow_scores(tmp_path_factory) -> dict[bool, dict]:
    """What each grantee of NARROW and LABELLED is answered, with and without the hidden
    records (labelled private)."""
    from attention_cloud import Memory
    from attention_cloud.sharing import add_grant, add_principal, label, reader_query

    out = {}
    for with_hidden in (False, True):
        root = tmp_path_factory.mktemp(f"narrow-{with_hidden}")
        home = root / "home"
        home.mkdir()
        (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
        (root / "shared.txt").write_text(DATED, encoding="utf-8")
        memory = Memory.open(home)
        try:
            memory.ingest([root / "shared.txt"], format="text", segment="payments")
            if with_hidden:
                (root / "hidden.txt").write_text(DATED_HIDDEN, encoding="utf-8")
                memory.ingest([root / "hidden.txt"], format="text", segment="payments")
            memory.curate()
            add_principal(memory, "alice", owner=True)
            text_of = {r["H"]: r["T"] for r in memory.query("item_text(H, T)", limit=500).rows}
            if with_hidden:
                label(memory, [h for h, t in text_of.items() if "secret" in t],
                      restrictions=["private"])
            seen = {}
            for grantee, narrow in {**NARROW, **LABELLED}.items():
                add_principal(memory, grantee)
                add_grant(memory, grantee, ceiling="L0", **narrow)
                hits = reader_query(memory, grantee, 'lexical("retry budget", 4, [], H)')
                seen[grantee] = [(text_of[h], round(s, 9)) for h, s in hits.rows[0]["H"]]
                items = reader_query(memory, grantee, "item(H)", limit=500).rows
                seen[grantee, "items"] = sorted(text_of[r["H"]] for r in items)
            out[with_hidden] = seen
        finally:
            memory.close()
    return out


@pytest.mark.parametrize("grantee", sorted(NARROW))
def test_a_grant_by_tag_entity_or_time_alone_scores_by_what_it_sees(narrow_scores, grantee):
    """Weighed by the whole home, the score of a record such a grantee sees fell from one home
    to the other: the 60 hidden records holding `retry` and `budget` were counted."""
    assert narrow_scores[False][grantee], narrow_scores[False]
    assert all("Ann:" in text or "nightly" in text for text, _ in narrow_scores[True][grantee])
    assert narrow_scores[True][grantee] == narrow_scores[False][grantee]


@pytest.mark.parametrize("grantee", sorted(NARROW))
def test_a_grant_by_tag_entity_or_time_alone_reads_every_record_it_matches(narrow_scores,
                                                                           grantee):
    """Each of the ten shared records is tagged `nightly`, names jobs/nightly.py and is of
    2024: the grantee enumerates all ten, and no hidden record, with or without them."""
    for with_hidden in (False, True):
        texts = narrow_scores[with_hidden][grantee, "items"]
        assert len(texts) == 10 and all("nightly" in t for t in texts), texts


@pytest.mark.parametrize("grantee", sorted(LABELLED))
def test_records_a_label_hides_do_not_move_a_grantees_scores(narrow_scores, grantee):
    """A grant of a whole segment, or of the whole home, whose records a `private` label
    partly hides: weighed by the segment's (the home's) statistics, the labelled records
    moved the score of every record the grantee saw, so it told how many of them held a
    word; a pool's members, who read the whole pool under its labels, were told the same."""
    assert narrow_scores[False][grantee], narrow_scores[False]
    assert narrow_scores[True][grantee] == narrow_scores[False][grantee]
    for with_hidden in (False, True):
        assert len(narrow_scores[with_hidden][grantee, "items"]) == 10
