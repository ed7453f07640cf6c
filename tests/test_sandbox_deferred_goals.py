"""Goals user code defers to later run within its call's limits, or not at all.

Two ways a goal of a user's ran after the watchdog had let go of the call, so that nothing
stopped it (`atc query --time-limit 2` held until killed; `atc serve`, answering one request at
a time, would have held every caller):

- undo/1, which library(sandbox) allows, runs its goal when backtracking or an exception
  unwinds past it, at a call port of whatever runs next: `undo((repeat, fail)), throw(x)`
  looped past the limits. Its name is refused now, as setup_call_cleanup/3's is.
- A frozen goal (freeze/2, when/2, dif/2) on a variable of a thrown error woke when the host
  formatted the error's message: `freeze(X, (repeat, fail)), throw(error(type_error(X, a),
  _))`. What user code throws is now copied without attributes before it leaves the limits.

Each runs in an `atc` process of its own, so a loop that escapes fails the test by its timeout
rather than hanging the suite.
"""
from __future__ import annotations

import pytest

from granted_home import granted_home, run_atc

DEFERRED = [
    "undo((repeat, fail)), throw(x)",
    "catch((undo((repeat, fail)), throw(x)), x, throw(y))",
    "freeze(X, (repeat, fail)), throw(error(type_error(X, a), _))",
    "when(nonvar(X), (repeat, fail)), throw(error(existence_error(procedure, X/1), _))",
    "freeze(X, (repeat, fail)), throw(error(domain_error(positive_integer, f(X)), _))",
]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return granted_home(tmp_path_factory.mktemp("deferred"), "L0")


@pytest.mark.parametrize("reader", [(), ("--as", "bob")], ids=["owner", "grantee"])
@pytest.mark.parametrize("goal", DEFERRED)
def test_a_deferred_goal_does_not_outlive_the_limits(home, goal, reader):
    done = run_atc(home, "query", goal, *reader, "--time-limit", "1", timeout=40)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("atc: "), done.stderr


def test_undo_is_refused_by_name(home):
    done = run_atc(home, "query", "X = undo(true)", "--time-limit", "1", timeout=40)
    assert done.returncode == 2
    assert "No permission to call sandboxed `undo/1'" in done.stderr


def test_a_frozen_goal_still_runs_within_the_call(home):
    done = run_atc(home, "query", "freeze(X, Y = woke), X = 1", "--format", "json", timeout=40)
    assert done.returncode == 0, done.stderr
    assert '"Y": "woke"' in done.stdout
