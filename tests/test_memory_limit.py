"""A call's memory limit stops a goal that grows memory, on the default backend too, and a
text one C call would make past what the limit leaves is refused before it is made
(rules/memory_meter.pl, rules/text_size_guard.pl; README "Security", "Limits that hold")."""
from __future__ import annotations

import pytest

from attention_cloud.errors import PrologError
from attention_cloud.sharing.reads import reader_query
from granted_home import granted_memory

LIMIT_MB = 48
# an atom of 2^k characters, doubled from one: k = 20 is 1 MB
DOUBLED = "length(_L, {k}), foldl([_, A0, A]>>atom_concat(A0, A0, A), _L, x, _B)"


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("memory_limit"), "L0")
    memory.set_limits(memory_limit=LIMIT_MB * 2**20)
    yield memory
    memory.set_limits(memory_limit=2**30)  # the default again: limits are per process
    memory.close()


def bob(mem, goal: str, time_limit: float = 20):
    return reader_query(mem, "bob", goal, time_limit=time_limit).rows


def test_a_goal_growing_atoms_past_the_limit_is_stopped_by_it(mem):
    # Before: statistics(heapused) is 0 in a Python process (tcmalloc never sees glibc's
    # allocations), so the limit never passed: the 128 MB atom was made and answered
    # (N = 134217728), and a grantee's goal could grow `atc serve` until the kernel killed it.
    with pytest.raises(PrologError, match=rf"^stopped: grew memory by more than {LIMIT_MB} MB$"):
        bob(mem, DOUBLED.format(k=27) + ", atom_length(_B, N)")


def test_a_findall_without_end_is_stopped_by_the_memory_limit(mem):
    # findall/3 gathers its solutions outside Prolog's stacks; before, only the time limit
    # stopped it (here 20 s, the bag growing all the while)
    with pytest.raises(PrologError, match=r"^stopped: grew memory by more than"):
        bob(mem, "findall(X, between(1, inf, X), L)")


@pytest.mark.parametrize(("goal", "builtin"), [
    ("atomic_list_concat(_Bs, _S)", "atomic_list_concat/2"),
    ("atomic_list_concat(_Bs, -, _S)", "atomic_list_concat/3"),
    ("format(atom(_S), \"{}\", _Bs)".format("~a" * 200), "format/3"),
])
def test_one_call_copying_a_text_many_times_is_refused_before_it_runs(mem, goal, builtin):
    # Before: 200 references to one 1 MB atom were joined (200 MB) in one C call that no
    # limit reaches; 2,000 of a 4 MB atom ran 180 s past a 20 s limit and grew the process
    # by 8 GB, 1,500 `~a` of a 1 MB atom ran format/3 300 s.
    refs = DOUBLED.format(k=20) + ", findall(_B, between(1, 200, _), _Bs), "
    with pytest.raises(PrologError, match=rf"^{builtin}: the text would hold 20\d,\d+,\d+ "
                                          rf"characters, more than the call's memory limit "
                                          rf"leaves \(\d+ MB\): too large to make$"):
        bob(mem, refs + goal)


def test_joins_within_the_limit_answer_as_the_builtins(mem):
    assert bob(mem, "atomic_list_concat([a, \"b\", 1, 2.5], X)") == [{"X": "ab12.5"}]
    assert bob(mem, "atomic_list_concat(L, -, 'a-b-c')") == [{"L": ["a", "b", "c"]}]
    eight = DOUBLED.format(k=20) + ", findall(_B, between(1, 8, _), _Bs), atomic_list_concat(_Bs, _S)"
    assert bob(mem, f"findall(N0, ({eight}, atom_length(_S, N0)), [N])")[0]["N"] == 8 * 2**20
    with pytest.raises(PrologError, match=r"Type error: `text' expected, found `f\(x\)'"):
        bob(mem, "atomic_list_concat([a, f(x)], X)")
    assert mem.query("format(atom(A), '~a-~s', [x, \"yz\"])").rows[0]["A"] == "x-yz"


def test_a_format_whose_arguments_the_goal_builds_first_runs_on_every_backend(mem):
    """`findall(B, ..., Bs), format(atom(S), "~a~a~a", Bs)`, the arguments unbound when the
    sandbox checks the goal, was refused on SWI-Prolog 9.2 (janus) alone: its library(sandbox)
    read an unbound list as one argument, `not enough arguments (found 1, need 3)`. A `~@`
    whose goal is not known when the goal is checked is still refused."""
    goal = 'findall(B, member(B, [a, b, c]), Bs), format(atom(S), "~a~a~a", Bs)'
    assert bob(mem, goal)[0]["S"] == "abc"
    assert mem.query(goal).rows[0]["S"] == "abc"
    assert bob(mem, 'Bs = [x, 1], sformat(S, "~w-~w", Bs)')[0]["S"] == "x-1"
    with pytest.raises(PrologError):
        bob(mem, 'G = [halt], format(atom(_S), "~@", G)')
