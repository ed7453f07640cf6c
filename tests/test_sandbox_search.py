"""A search of a long text for a long part may not hold the process past the time limit.

SWI-Prolog 9.0 searches a text for a part (sub_atom/5, sub_string/5, sub_atom_icasechk/3,
atomic_list_concat/3 splitting) in one C call taking the text's length times the part's: a
grantee's goal built an atom of 262,144 `a` and searched it for 131,072 `a` then a `b`, and
`--time-limit 1` ran 11 s of CPU (4,000,000 by 2,000,000 would run most of an hour). Now a
search that long is made a place at a time, so the limit stops it.
"""
from __future__ import annotations

import subprocess

import pytest

from granted_home import granted_home, run_atc

BUILD = ("length(L, 20), foldl([_, A0, A]>>atom_concat(A0, A0, A), L, a, T), "
         "sub_atom(T, 0, 524288, _, P0), atom_concat(P0, b, P)")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("search"))


def _query(home, goal: str) -> subprocess.CompletedProcess:
    return run_atc(home, "query", "--as", "bob", "--time-limit", "1", goal)


@pytest.mark.parametrize("search", ["sub_atom(T, B, _, _, P)",
                                    "atom_string(T, S), atom_string(P, Q), sub_string(S, B, _, _, Q)",
                                    "sub_atom_icasechk(T, B, P)",
                                    "atomic_list_concat(Parts, P, T)"])
def test_a_long_search_stops_at_the_time_limit(home, search):
    out = _query(home, f"{BUILD}, {search}")
    assert out.returncode == 2, (out.stdout, out.stderr[-2000:])
    assert out.stderr == "atc: stopped: ran past its time limit of 1 s\n"


def test_short_searches_answer_as_before(home):
    out = _query(home, "findall(B, sub_atom(hello_world, B, _, _, o), Bs), "
                       "atomic_list_concat(Ps, '_', a_b_c), sub_atom_icasechk('xxHello', S, hello)")
    assert out.returncode == 0, out.stderr
    assert "[4, 7]" in out.stdout and '["a", "b", "c"]' in out.stdout
