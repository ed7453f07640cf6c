"""A search of a long text for a long part may not hold the process past the time limit.

SWI-Prolog 9.0 searches a text for a part (sub_atom/5, sub_string/5, sub_atom_icasechk/3,
atomic_list_concat/3 splitting) in one C call taking the text's length times the part's: a
grantee's goal built an atom of 262,144 `a` and searched it for 131,072 `a` then a `b`, and
`--time-limit 1` ran 11 s of CPU (4,000,000 by 2,000,000 would run most of an hour). Now a
search that long is made a place at a time, so the limit stops it.

split_string/4 looks for each character of its text among the separator characters, and for
each field's ends among the pad characters, in one C call: a grantee's text of 1,048,576 `a`
split at 400,000 distinct characters (or 524,288 fields padded by them) held `atc query --as bob --time-limit 1` past the
test's 60 s. Now such a split is made a character at a time, with the builtin's fields.
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


MANY = "numlist(65536, 465535, Cs), string_codes(Many, Cs)"     # 400,000 distinct characters


@pytest.mark.parametrize("text, split", [
    ('"a"', 'split_string(T, Many, "", Parts)'),         # each character among the separators
    ('"a,"', 'split_string(T, ",", Many, Parts)'),       # each field's ends among the pad
], ids=["separators", "pad"])
def test_a_split_at_many_characters_stops_at_the_time_limit(home, text, split):
    build = f"length(L, 20), foldl([_, A0, A]>>string_concat(A0, A0, A), L, {text}, T), {MANY}"
    out = _query(home, f"{build}, {split}")
    assert out.returncode == 2, (out.stdout, out.stderr[-2000:])
    assert out.stderr == "atc: stopped: ran past its time limit of 1 s\n"


def test_a_split_at_many_characters_has_the_builtins_fields(home):
    # 30,000 characters split at 6,000 distinct ones plus `,`, padded by 4,000 and ` `:
    # past the limit, so made a character at a time; the fields are split_string/4's.
    goal = ('numlist(65536, 71535, S0), string_codes(Sep0, S0), string_concat(Sep0, ",", Sep), '
            'numlist(80000, 83999, P0), string_codes(Pad0, P0), string_concat(Pad0, " ", Pad), '
            'length(F, 6000), maplist(=(" ab "), F), atomic_list_concat(F, ",", T0), '
            'atom_string(T0, T), split_string(T, Sep, Pad, Parts), length(Parts, N), '
            'Parts = [First|_], last(Parts, Last)')
    out = run_atc(home, "query", "--as", "bob", "--format", "json", goal)
    assert out.returncode == 0, out.stderr
    assert '"N": 6000' in out.stdout
    assert '"First": "ab"' in out.stdout and '"Last": "ab"' in out.stdout


def test_short_searches_answer_as_before(home):
    out = _query(home, "findall(B, sub_atom(hello_world, B, _, _, o), Bs), "
                       "atomic_list_concat(Ps, '_', a_b_c), sub_atom_icasechk('xxHello', S, hello)")
    assert out.returncode == 0, out.stderr
    assert "[4, 7]" in out.stdout and '["a", "b", "c"]' in out.stdout
