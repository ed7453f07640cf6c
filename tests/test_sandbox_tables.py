"""User code makes no table: tables outlive the call that made them.

library(sandbox) allows tabled_call/1, and the table it makes stays in the process after the
query ends, shared by every later call and reader, and is never reclaimed. Through `atc serve`
a grantee's `tabled_call(between(N, 400000, X)), fail` grew the server by ~57 MB a request
(each under the per-call limits, whose heap count starts afresh every call), N by N, until the
process was out of memory. Now a mention of tabled_call/1 is refused before anything runs, as
the other builtins that leave state behind (global variables, the database, flags) are.

not_exists/1, which library(sandbox) allows as well, tables a goal that is not tabled through
tabled_call/1 itself: a grantee's `not_exists(between(N, 400000, X))` grew the process by
~57 MB a request (33 MB to 371 MB in six), N by N. It is refused by name too, with tnot/1.
"""
from __future__ import annotations

import pytest

from attention_cloud.errors import PrologError
from granted_home import granted_memory

REFUSED = "No permission to call sandboxed `tabled_call['/]"
NEGATION_REFUSED = "No permission to call sandboxed `(not_exists|tnot)['/]"
GOALS = ["tabled_call(between(1, 3, X))",
         "tabled_call(between(2, 400000, X)), fail",
         "G = tabled_call, call(G, between(1, 3, X))",
         "maplist(tabled_call, [between(1, 3, X)])"]
NEGATIONS = ["not_exists(between(1, 3, X))",
             "not_exists(between(2, 400000, X))",
             "G = not_exists, call(G, between(1, 3, X))",
             "maplist(not_exists, [between(1, 3, X)])",
             "tnot(item(_))"]
CASES = [(goal, REFUSED) for goal in GOALS] + [(goal, NEGATION_REFUSED) for goal in NEGATIONS]


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    mem = granted_memory(tmp_path_factory.mktemp("tables"), "L2")
    try:
        yield mem
    finally:
        mem.close()


@pytest.mark.parametrize("goal, refused", CASES)
def test_a_grantees_goal_makes_no_table(memory, goal, refused):
    from attention_cloud.sharing import reader_query

    with pytest.raises(PrologError, match=refused):
        reader_query(memory, "bob", goal, time_limit=5)


@pytest.mark.parametrize("goal, refused", CASES)
def test_the_owners_goal_makes_no_table(memory, goal, refused):
    with pytest.raises(PrologError, match=refused):
        memory.query(goal, time_limit=5)


def test_a_rule_that_tables_is_not_saved(memory):
    with pytest.raises(PrologError, match=REFUSED):
        memory.rules_add("upto(X) :- tabled_call(between(1, 3, X)).\n", "tabling")
    assert "tabling" not in {r["name"] for r in memory.rules_list()}


def test_plain_negation_still_works(memory):
    assert memory.query("\\+ between(1, 3, 4)").rows == [{}]
