"""A grantee's `nearest/4` with options searches what they see (README, Sharing: Goals).

With options (`[segment(S)]`, `[kinds([...])]`, `[record(item)]`) the search fetched raw hits
from the whole index, eight-fold each time, until K were visible or 200,000 were read, even
for a grantee whose set of records is kept: how long it took told them how many hidden
records the option matched (a segment they do not read ran to the end of its records), and
its cost followed the home rather than what they see. Now such a search scores the kept set
the options select, as `nearest/3` does, and answers what the fetch answered.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_grantee_kept_set import CROWD, SHARED, _home  # noqa: E402

SECRET = "".join(f"Zed: the noodle vendor contract clause {i} is confidential.\n"
                 for i in range(120))
SEARCHES = ['nearest("noodle lunch", 3, [segment(default)], H)',
            'nearest("noodle lunch", 3, [kinds([turn, user_goal, conclusion])], H)',
            'nearest("noodle lunch", 3, [record(item)], H)',
            'nearest("noodle lunch", 3, [segment(vault)], H)',
            'nearest("noodle lunch", 3, [segment(nowhere)], H)']


def _counted_nearest(memory, reader: str, goal: str) -> tuple[list, list]:
    """The hits `reader` gets for a nearest/3,4 goal, and the k of every search of the vector
    index it made (how many records it asked for)."""
    from attention_cloud.sharing import reader_query

    search = memory.jump.semantic
    asked: list = []

    def counting(query, k, options):
        asked.append(k)
        return search(query, k, options)

    memory.jump.semantic = counting
    try:
        hits = reader_query(memory, reader, goal).rows[0]["H"]
    finally:
        del memory.jump.semantic
    return [(h, round(s, 6)) for h, s in hits], asked


@pytest.fixture(scope="module")

def searched(tmp_path_factory):
    """dave (one session of `default`) runs SEARCHES; what each answered, and the raw hits
    each asked the index for."""
    from attention_cloud.sharing import add_grant, reader_query

    root = tmp_path_factory.mktemp("nearest-options")
    memory, sessions = _home(root, {"shared": SHARED, "crowd": CROWD})
    try:
        (root / "vault.txt").write_text(SECRET, encoding="utf-8")
        memory.ingest([root / "vault.txt"], format="text", segment="vault")
        memory.curate()
        add_grant(memory, "dave", sessions=[sessions["shared"]], ceiling="L0")
        out = {goal: _counted_nearest(memory, "dave", goal)
               for goal in SEARCHES + ['nearest("noodle lunch", 3, H)',
                                       'nearest("noodle lunch", 10, H)']}
        shared = {r["H"] for r in memory.query(
            f'item_session(H, "{sessions["shared"]}")', limit=100).rows}
        kinds = {r["K"] for r in memory.query("item_kind(_, K)", limit=1000).rows}
    finally:
        memory.close()
    return out, shared, kinds


def test_the_fixture_kinds_are_those_searched(searched):
    _, _, kinds = searched
    assert kinds <= {"turn", "user_goal", "conclusion"}, kinds


@pytest.mark.parametrize("goal", SEARCHES)
def test_a_grantees_search_with_options_reads_no_hidden_hit(searched, goal):
    out, _, _ = searched
    assert out[goal][1] == [], out[goal]


@pytest.mark.parametrize("goal", SEARCHES[:3])
def test_a_grantees_search_with_options_answers_the_best_they_see(searched, goal):
    """A segment they read holds all they see; a kind or `record(item)` leaves arcs out."""
    out, shared, _ = searched
    plain = out['nearest("noodle lunch", 3, H)'][0]
    assert plain and {h for h, _ in plain if h.startswith("it_")} <= shared
    items = [(h, s) for h, s in out['nearest("noodle lunch", 10, H)'][0] if h in shared][:3]
    assert out[goal][0] == (plain if "segment" in goal else items)


@pytest.mark.parametrize("goal", SEARCHES[3:])
def test_a_segment_a_grantee_does_not_read_answers_nothing(searched, goal):
    out, _, _ = searched
    assert out[goal][0] == []


@pytest.fixture(scope="module")
def whole_segment(tmp_path_factory):
    """erin reads the whole of segment `default` (no set is kept for her); a segment she does
    not read holds many records closer to the query than hers. Her answers and the raw hits
    each search asked for, for her nearest/3 and nearest/4 (and the owner's best of
    `default`, what she should be answered)."""
    from attention_cloud.sharing import add_grant, add_principal, reader_query

    root = tmp_path_factory.mktemp("whole-segment")
    memory, _ = _home(root, {"shared": SHARED})
    try:
        (root / "vault.txt").write_text(CROWD, encoding="utf-8")
        memory.ingest([root / "vault.txt"], format="text", segment="vault")
        memory.curate()
        add_principal(memory, "erin")
        add_grant(memory, "erin", segments=["default"], ceiling="L0")
        out = {goal: _counted_nearest(memory, "erin", goal)
               for goal in ('nearest("noodle lunch plan", 3, H)',
                            'nearest("noodle lunch plan", 3, [record(item)], H)',
                            'nearest("noodle lunch plan", 3, [segment(vault)], H)')}
        owner = memory.query('nearest("noodle lunch plan", 3, [segment(default)], H)').rows
        out["owner"] = [(h, round(s, 6)) for h, s in owner[0]["H"]]
        owner = memory.query('nearest("noodle lunch plan", 3, [segment(default), '
                             'record(item)], H)').rows
        out["owner items"] = [(h, round(s, 6)) for h, s in owner[0]["H"]]
    finally:
        memory.close()
    return out


def test_a_whole_segment_grantees_search_reads_only_their_segments(whole_segment):
    """Before, 300 closer records of `vault` came first: the search asked for 78, then 512
    raw hits, and how long it took told how many hidden records were like the query."""
    for goal in [g for g in whole_segment if g.startswith("nearest")]:
        asked = whole_segment[goal][1]
        assert max(asked, default=0) < 100, (goal, asked)


def test_a_whole_segment_grantees_search_answers_the_best_they_see(whole_segment):
    assert whole_segment['nearest("noodle lunch plan", 3, H)'][0] == whole_segment["owner"]
    assert whole_segment['nearest("noodle lunch plan", 3, [record(item)], H)'][0] == \
        whole_segment["owner items"]
    assert whole_segment['nearest("noodle lunch plan", 3, [segment(vault)], H)'][0] == []


LEVELS = ['nearest("noodle lunch", 3, [level(l0)], H)',
          'nearest("noodle lunch", 3, [level(l1)], H)',
          'nearest("noodle lunch", 3, [level(l2)], H)',
          'nearest("noodle lunch", 3, [level(l2), segment(default)], H)']


@pytest.fixture(scope="module")
def leveled(tmp_path_factory):
    """dave (one session of `default`, a kept set) runs LEVELS beside a crowd of hidden
    records: what each answered and the raw hits it asked the index for, and the owner's
    best of each level among the records dave sees (what he should be answered)."""
    from attention_cloud.sharing import add_grant, reader_query

    root = tmp_path_factory.mktemp("nearest-levels")
    memory, sessions = _home(root, {"shared": SHARED, "crowd": CROWD})
    try:
        memory.curate()                 # arcs (level l1) and distillation vectors (l2)
        add_grant(memory, "dave", sessions=[sessions["shared"]], ceiling="L0")
        out = {goal: _counted_nearest(memory, "dave", goal) for goal in LEVELS}
        seen = {r["H"] for r in reader_query(memory, "dave", "item(H) ; arc(H)",
                                             limit=1000).rows}
        for goal in LEVELS:
            wide = goal.replace(", 3, ", ", 1000, ")
            hits = memory.query(wide).rows[0]["H"]
            out["owner " + goal] = [(h, round(s, 6)) for h, s in hits if h in seen][:3]
    finally:
        memory.close()
    return out


@pytest.mark.parametrize("goal", LEVELS)
def test_a_grantees_search_at_a_level_scores_what_they_see(leveled, goal):
    """Before, `level(L)` fetched from the whole index, eight-fold until 3 were visible (how
    long it took told how many hidden records were like the query); now it scores the
    vectors of that level of the records in dave's kept set, and answers what the owner's
    search at that level answers among them."""
    hits, asked = leveled[goal]
    assert asked == [], (goal, asked)
    assert hits, goal
    assert [h for h, _ in hits] == [h for h, _ in leveled["owner " + goal]]
    assert [s for _, s in hits] == pytest.approx([s for _, s in leveled["owner " + goal]],
                                                 abs=1e-4)
