"""A grantee's format_time/3 cannot end the process or outrun the limits in one C call
(rules/time_format_guard.pl; README "Security")."""
from __future__ import annotations

import pytest

from granted_home import granted_home, run_atc


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("time_format"), "L0")


def test_a_fraction_of_many_digits_is_refused_not_a_crash(home):
    # Before: SWI-Prolog 9.0.4 writes `%Nf` into a 256-byte buffer on the C stack, and
    # this 31-character goal ended the process with SIGABRT (`*** stack smashing detected
    # ***`): under `atc serve`, the server of every principal.
    done = run_atc(home, "query", "format_time(atom(A), '%999f', 0.5)", "--as", "bob")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.strip() == ("atc: format_time/3: a directive asks for 999 digits, "
                                   "more than 64")


def test_a_date_of_long_seconds_is_refused_not_a_crash(home):
    # Before: a date/9's seconds are written whole into the same buffer, and 10^250 with
    # `%f` ended the process with SIGABRT.
    goal = "format_time(atom(A), '%f', date(2000, 1, 1, 0, 0, 1.0e250, 0, -, -))"
    done = run_atc(home, "query", goal, "--as", "bob")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.strip() == ("atc: format_time/3: a date's seconds of more than 100 digits: "
                                   "too long to write")


def test_a_long_format_is_refused_before_the_one_c_call(home):
    # Before: 2^24 `%c`, doubled in milliseconds, held `--time-limit 2` for 66 s and grew the
    # process to 2.6 GB (24 characters a directive), past the 1 GB memory limit.
    goal = ("length(L, 24), foldl([_, A0, A]>>atom_concat(A0, A0, A), L, '%c', F), "
            "format_time(atom(X), F, 0, posix)")
    done = run_atc(home, "query", goal, "--as", "bob", "--time-limit", "20")
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.strip() == ("atc: format_time/4: a format of 33,554,432 characters "
                                   "is too long to write (at most 65,536)")


def test_a_grantee_still_formats_times(home):
    done = run_atc(home, "query", "format_time(atom(A), '%FT%T.%3f', 0.25, posix)",
                   "--as", "bob", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "1970-01-01T00:00:00.250" in done.stdout
