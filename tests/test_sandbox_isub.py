"""isub/4 of library(isub), vouched for, may not hold the process past the time limit.

Its C code takes time growing as the cube of its texts' length (1,000 characters: 0.07 s;
4,000: 7 s), in one call no limit interrupts: a grantee's `isub/4` of two texts of 12,000
characters, built by the goal itself, ran for minutes under `--time-limit 1`. Now texts
whose lengths multiply past 1,000,000 are refused in one line.
"""
from __future__ import annotations

import subprocess

import pytest

from granted_home import granted_home, run_atc

TEXT = ("numlist(1, {n}, Ns{v}), maplist([I, C]>>(C is 0'a + ((I*I*{k} + I*3) mod 7) mod 3), Ns{v},"
        " Cs{v}), atom_codes({v}, Cs{v})")


def _texts(n: int) -> str:
    return f"{TEXT.format(n=n, k=7, v='A')}, {TEXT.format(n=n, k=11, v='B')}"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("isub"))


def _query(home, goal: str) -> subprocess.CompletedProcess:
    # wall-clock seconds: the refusal takes milliseconds, but 1 s was met first on a machine at
    # load 18; before the guard isub/4 ran for minutes, past this limit too
    return run_atc(home, "query", "--as", "bob", "--time-limit", "10", goal)


def test_isub_of_long_texts_is_refused_in_one_line(home):
    out = _query(home, f"{_texts(12000)}, isub(A, B, D, [])")
    assert out.returncode == 2, (out.stdout, out.stderr[-2000:])
    assert out.stderr == ("atc: isub/4: texts of 12,000 and 12,000 characters are too long to "
                          "compare (their lengths may multiply to 1,000,000 at most: its time "
                          "grows as their cube)\n")


def test_isub_of_short_texts_answers_as_before(home):
    out = _query(home, f"{_texts(300)}, isub(A, B, D, []), isub(hello, hello, true, E)")
    assert out.returncode == 0, out.stderr
    assert "1.0" in out.stdout
