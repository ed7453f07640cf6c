"""A fact's exact price by arithmetic: curation stores each rung's UTF-8 bytes and words.

The receipt reports a fact's text as the frame writes it ("Name: " + rung + date note) counted
whole, and the fit prices the facts it places so. The estimate is a function of a text's bytes
and words, so with each rung's sizes stored beside its tokens a fact is priced by sums in
Prolog, not by a call to the host per frame. These tests hold the stored sizes to a recount,
the owner's facts at a rung to no host count at all, and a home curated before the sizes (no
sizes stored) to the same frames and receipts.
"""
from __future__ import annotations

from collections import Counter

import pytest

from attention_cloud import Memory
from attention_cloud.bridge import Atom, Term, Var
from attention_cloud.curate import estimate_tokens
from attention_cloud.curate.tokens import register_for_prolog, unpack_texts
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir

# named speakers, days named relatively (date notes), Unicode spaces, CJK and emoji
CHAT = """\
[2023-05-01 09:12] Priya: I signed up for a pottery class at the Clayhouse studio, first session is on Thursday.
[2023-05-01 09:14] Tomás: Nice! Is that the one near the river? I took a glazing workshop there in 2021.
[2023-05-04 19:40] Priya: The pottery class was great yesterday, we made bowls. Bring an apron next time.
[2023-05-10 08:05] Tomás: I'm flying to Lisbon on May 20 for the Halvorsen & Kim job interview.
[2023-05-22 21:30] Tomás: The interview went well last week, they offered me the job.
[2023-05-23 07:02] Priya: Congratulations!\u00a0日本語のテキストも 🙂 the\u2003retry note from two days ago\u3000stands.
"""
GOALS = ["When did Priya start the pottery class?", "what did Tomás say about Lisbon last week",
         "why did charges fail when the processor timed out", "retry note 日本語"]
BUDGETS = [300, 1200, 4000]


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    root = tmp_path_factory.mktemp("exact-prices")
    (root / "friends.txt").write_text(CHAT, encoding="utf-8")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    memory = Memory.open(home)
    memory.ingest([samples_dir()], segment="work")
    memory.ingest([root / "friends.txt"], segment="chats")
    memory.curate()
    yield memory
    memory.close()


def _unsized(mem) -> list:
    """The rungs of curated records whose sizes are not stored, or not their text's."""
    rows = mem.query("rung(Id, L, T), rung_tokens(Id, L, _)", limit=100_000).rows
    assert {row["L"] for row in rows} == {"l0", "l1", "l2", "l3"}
    assert mem.query("rung(C, l1, _), cell(C)", limit=1).rows      # cells' rungs are sized too
    bad = []
    for row in rows:
        found = mem.pl.once("atc_ladder:rung_size", Atom(row["Id"]), Atom(row["L"]), Var(), Var())
        text = row["T"]
        if found is None or tuple(found) != (len(text.encode("utf-8")), len(text.split())):
            bad.append((row["Id"], row["L"], found, text))
    return bad


def test_every_rung_of_a_curated_record_has_its_sizes_stored(mem):
    assert _unsized(mem) == []


SIZES = Term(":", [Atom("atc_ladder"), Term("rung_sizes_", [Var() for _ in range(5)])])


def _forget_sizes(mem) -> None:
    """Memory as a home curated before the sizes holds it: no rung_sizes_/5 fact (the form
    before), no sizes in a record_/11's tail (the form now), the L0 tokens kept."""
    mem.pl.once("retractall", SIZES)
    args = [Var() for _ in range(10)]
    l0 = Var()
    sized = Term("sized", [l0] + [Var() for _ in range(4)])
    record = Term(":", [Atom("atc_ladder"), Term("record_", args + [sized])])
    bare = Term(":", [Atom("atc_ladder"), Term("record_", args + [l0])])
    mem.pl.once("forall", Term("retract", [record]), Term("assertz", [bare]))
KEPT = Term(":", [Atom("atc_hydrate"), Term("exact_known_", [Var() for _ in range(4)])])


def _counted(mem) -> tuple[list, Counter]:
    """Each goal's receipt facts, and the texts the host counted, each frame's prices kept from
    the frames before dropped (every placed fact is new to it)."""
    sent: Counter = Counter()

    def counting(texts):
        sent.update(texts)
        return [estimate_tokens(t) for t in texts]

    if mem.pl.backend == "pyswip":  # the texts cross packed there (tokens.register_for_prolog)
        mem.pl.register("host_estimate_tokens_packed", 2,
                        lambda packed: " ".join(map(str, counting(unpack_texts(packed)))),
                        module="atc_hydrate")
    else:
        mem.pl.register("host_estimate_tokens_all", 2, counting, module="atc_hydrate")
    try:
        receipts = []
        for goal, budget in [(g, b) for g in GOALS for b in BUDGETS]:
            mem.pl.once("retractall", KEPT)
            frame = mem.hydrate(goal, budget=budget)
            receipts.append(frame.receipt["facts"])
            shown = {f.handle: f.text for f in frame.facts}
            for f in frame.receipt["facts"]:   # each fact's tokens: its text as written, counted
                assert f["tokens"] == estimate_tokens(shown[f["handle"]]), f
    finally:
        register_for_prolog(mem.pl)
    return receipts, sent


def test_the_fit_prices_the_owners_facts_without_counting_their_texts(mem):
    """The fit prices every rung of each fact it places as written ("Name: " + rung + date
    note); with the sizes stored it sums them, and the texts go to the host's counter only to
    be written; a home without them (curated before them) gets the same frames, counted."""
    mem.hydrate(GOALS[0], budget=1200)          # names and notes sized once in a process
    receipts, sent = _counted(mem)
    _forget_sizes(mem)                          # as a home curated before the sizes
    try:
        receipts_unsized, sent_unsized = _counted(mem)
    finally:
        from attention_cloud.curation import fill_rung_sizes  # (here: a tree without it fails the test, not the module)

        fill_rung_sizes(mem)
    assert receipts == receipts_unsized
    assert not sent - sent_unsized
    spared = sent_unsized - sent                # the fit's counts of the placed facts' rungs
    assert sum(spared.values()) > sum(len(r) for r in receipts)
    assert all(t.startswith(("Priya: ", "Tomás: ", "user: ", "assistant: ")) or "] " in t or " [" in t
               for t in spared), spared


def test_curating_a_home_curated_before_the_sizes_stores_them(mem):
    _forget_sizes(mem)
    assert mem.pl.once("atc_ladder:rung_sizes_", Var(), Var(), Var(), Var(), Var()) is None
    assert _unsized(mem) != []
    mem.curate()
    assert _unsized(mem) == []
    mem.curate()                                # nothing left to fill: a run writes no sizes
    (left,) = mem.pl.once("atc_ladder:ladder_unsized", 10, Var())
    assert left == []
