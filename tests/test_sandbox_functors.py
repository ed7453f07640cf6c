"""User code's new functors are counted per principal for the life of the process.

SWI-Prolog never frees a functor (a name and arity of a compound term) nor the atom it names.
A grantee's goal making compound terms of fresh names (`between(N, M, I), atom_concat(fx, I,
A), functor(T, A, 1), fail`) stayed under every per-call limit, yet each request left ~30-60 MB
per 400,000 functors in `atc serve` for good (114 MB to 565 MB in eight requests), until it ran
out of memory. Now each principal's calls (the owner's as one) may make at most
`functor_limit` new functors in a process (1,000,000 by default): a call that passes it is
stopped, and that principal's later calls are refused in one line while the others go on.
"""
from __future__ import annotations

import pytest

from attention_cloud.errors import PrologError
from granted_home import granted_memory

BUDGET = 20000
MAKE = "between({0}, {1}, I), atom_concat(fx, I, A), functor(_, A, 1), fail ; true"


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    from attention_cloud.sharing import add_grant, add_principal

    mem = granted_memory(tmp_path_factory.mktemp("functors"), "L2")
    add_principal(mem, "carol")
    add_grant(mem, "carol", segments=["default"], ceiling="L2")
    mem.set_limits(functor_limit=BUDGET)
    try:
        yield mem
    finally:
        mem.set_limits(functor_limit=1_000_000)
        mem.close()


def test_a_grantee_past_their_functor_budget_is_stopped_and_then_refused(memory):
    from attention_cloud.sharing import reader_query

    assert reader_query(memory, "bob", MAKE.format(1, 1000)).rows == [{"I": "_A", "A": "_B"}]
    with pytest.raises(PrologError, match="new functors") as caught:
        reader_query(memory, "bob", MAKE.format(2000, 2000 + 50 * BUDGET), time_limit=20)
    assert "\n" not in str(caught.value)
    # refused from now on, even a goal that would make one functor
    with pytest.raises(PrologError, match="new functors"):
        reader_query(memory, "bob", MAKE.format(9_000_000, 9_000_001))
    # carol's budget is her own; and so is the owner's
    assert reader_query(memory, "carol", MAKE.format(5_000_000, 5_000_100)).rows
    assert memory.query(MAKE.format(6_000_000, 6_000_100)).rows


def test_a_goal_that_makes_no_new_functor_is_not_counted(memory):
    from attention_cloud.sharing import reader_query

    # 3 x 100,000 compound terms of one functor, past a budget of 20,000: nothing counted
    # (the list is made and dropped inside \+ \+, not sent back: converting it took seconds)
    made = "\\+ \\+ (findall(f(X), between(1, 100000, X), L), length(L, 100000)) -> Ok = yes ; Ok = no"
    for _ in range(3):
        assert reader_query(memory, "carol", made).rows[0]["Ok"] == "yes"
