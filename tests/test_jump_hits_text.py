"""The host's search hits cross back to Prolog as texts (keys and scores, jump.py ``_pairs``,
rules/jump.pl ``host_pairs_/2``): every score must arrive as the very float the host computed."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from attention_cloud.bridge import Atom, Var
from attention_cloud.jump import _pairs

KEY = st.from_regex(r"(it|arc|cell)_[0-9a-f]{1,16}", fullmatch=True)
SCORE = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=300, deadline=None)
@given(hits=st.lists(st.tuples(KEY, SCORE), max_size=40))
def test_every_score_arrives_as_the_same_float(pl, hits):
    (pairs,) = pl.once("atc_jump:host_pairs_", _pairs(hits), Var())
    assert [p.args[0] for p in pairs] == [Atom(k) for k, _ in hits]
    got = [p.args[1] for p in pairs]
    assert all(type(s) is float for s in got)
    # repr tells -0.0 from 0.0 and NaN from NaN
    assert [repr(s) for s in got] == [repr(float(s)) for _, s in hits]


def test_finite_scores_cross_as_one_text():
    hits = [("it_1", 0.1), ("it_2", 1e-05), ("it_3", -0.0), ("it_4", 5e-324)]
    term = _pairs(hits)
    assert term.args[1] == "0.1\n1e-05\n-0.0\n5e-324"
    assert _pairs([]).args == ("", "")
