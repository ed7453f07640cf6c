"""unify_with_occurs_check/2 of big terms may not hold the process past the time limit.

It checks each variable it binds against what it is bound to, in one C call: a grantee's goal
unifying f(A1, ..., A40000) with f(g(L), ..., g(L)), L one shared list of 1,000,000 numbers,
ran for minutes under `--time-limit 1`. Now big terms are unified a binding at a time, each
checked by a call of its own, and the limit stops it.
"""
from __future__ import annotations

import subprocess

import pytest

from granted_home import granted_home, run_atc

BIG = ("length(As, 40000), numlist(1, 1000000, L), length(Gs, 40000), maplist(=(g(L)), Gs), "
       "X =.. [f|As], Y =.. [f|Gs]")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("occurs"))


def _query(home, goal: str) -> subprocess.CompletedProcess:
    return run_atc(home, "query", "--as", "bob", "--time-limit", "1", goal)


def test_a_big_occurs_check_stops_at_the_time_limit(home):
    out = _query(home, f"{BIG}, unify_with_occurs_check(X, Y)")
    assert out.returncode == 2, (out.stdout, out.stderr[-2000:])
    assert out.stderr == "atc: stopped: ran past its time limit of 1 s\n"


def test_small_occurs_checks_answer_as_before(home):
    out = _query(home, "unify_with_occurs_check(f(X, b), f(a, Y)), "
                       "( unify_with_occurs_check(Z, f(Z)) -> C = cycle ; C = none )")
    assert out.returncode == 0, out.stderr
    assert "none" in out.stdout and "a" in out.stdout
