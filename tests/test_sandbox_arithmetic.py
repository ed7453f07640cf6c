"""A step of arithmetic may not hold the process past the time limit.

SWI-Prolog evaluates a big-integer step in one GMP call that no signal interrupts, and 9.0 has
no flag bounding an integer: `X is powm(3, 2^100000, 2^100000 + 7)` ran past 100 s under a
5 s limit, and an expression can be built at run time and handed to a library predicate that
evaluates it (`sum_list/2`), so no check of the goal's text caught it. Now every step that
would make an integer of more than 1,000,000 bits, or a modular power past 50,000,000
exponent-by-modulus bits, is refused in one line before it runs, from any caller.
"""
from __future__ import annotations

import subprocess

import pytest

from granted_home import granted_home, run_atc

POWM = "powm(3, 2^100000, 2^100000 + 7)"
POWM_REFUSED = ("atc: powm/3: its exponent's and modulus's bits multiply past 50,000,000: "
                "too long to compute\n")
BITS_REFUSED = "atc: arithmetic would make an integer of more than 1,000,000 bits: too large to compute\n"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("arith"))


def _query(home, *args: str) -> subprocess.CompletedProcess:
    return run_atc(home, "query", *args)


@pytest.mark.parametrize("who", [[], ["--as", "bob"]], ids=["owner", "grantee"])
@pytest.mark.parametrize("goal", [f"X is {POWM}", f"sum_list([{POWM}], S)",
                                  f"E = {POWM}, foldl([T, A0, A]>>(A is A0 + T), [E], 0, S)"])
def test_a_long_modular_power_is_refused_in_one_line(home, who, goal):
    out = _query(home, *who, "--time-limit", "1", goal)
    assert out.returncode == 2, (out.stdout, out.stderr[-2000:])
    assert out.stderr == POWM_REFUSED


def test_a_power_past_a_million_bits_is_refused(home):
    out = _query(home, "--as", "bob", "X = 3 ** (10 ** 8), max_list([1, X], M)")
    assert out.returncode == 2, out.stdout
    assert out.stderr == BITS_REFUSED


def test_ordinary_arithmetic_answers_as_before(home):
    out = _query(home, "--as", "bob", "X is 2 ** 64 + powm(3, 1000, 1009), Y is 7 * 6, Y > 1")
    assert out.returncode == 0, out.stderr
    assert "184467440737095" in out.stdout and "42" in out.stdout


def test_library_arithmetic_is_checked_when_the_rules_load_compiled(home, tmp_path, monkeypatch):
    # The first process compiles the rules into the cache, the second loads that file. Loaded
    # so, the optimise flag of a rules file once stayed set for the libraries loaded after it
    # (aggregate, json, sandbox, ...): their arithmetic was compiled past the guard, and the
    # second run computed 3 ** 10 ** 8 until the time limit stopped it.
    monkeypatch.setenv("ATC_CACHE", str(tmp_path / "cache"))
    goal = "aggregate_all(sum(X), X = 3 ** (10 ** 8), S)"
    for _ in ("compiling", "compiled"):
        out = _query(home, "--as", "bob", "--time-limit", "5", goal)
        assert out.returncode == 2, out.stdout
        assert out.stderr == BITS_REFUSED
    assert list((tmp_path / "cache" / "rules").glob("rules-*.qlf"))
