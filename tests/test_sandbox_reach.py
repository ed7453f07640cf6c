"""Refused builtins stay refused wherever a goal could reach them.

A round let data that merely mentions a refused builtin's name through (`X = f(halt)`), checking
only the calls it could see: the goal, control constructs and declared meta-arguments. Then
`tabled_call(nb_getval(k, _))` ran (tabled_call/1 calls its argument and declares no
meta-argument; library(sandbox) follows its body and allows nb_getval/2, which the project
refuses because it reads the host's globals). Any mention of a refused name is refused again
(README "Security": the cost is that such names cannot be data in a query or a rule).
"""
from __future__ import annotations

import pytest

from attention_cloud.errors import AtcError
from granted_home import granted_memory


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("sandbox_reach"), "L2")
    memory.set_limits(time_limit=5)
    yield memory
    memory.set_limits(time_limit=30)  # limits are per process: later tests run under the default
    memory.close()


CALLS = [
    "a:b",
    "X = 1, lists:append([], [], X)",
    "halt",
    "findall(X, halt, L)",
    "forall(true, abort)",
    "\\+ assert(x)",
    "call(assert, x)",
    "call(atc_store:foo)",
    "maplist(assert, [x])",
    "maplist([X]>>assertz(X), [x])",
    "foldl(flag, [a], 0, _)",
    "aggregate_all(count, nb_getval(k, _), N)",
    "bagof(X, Y^nb_current(X, Y), L)",
    "format(\"~@\", [sleep(10)])",
    "with_output_to(string(_), sleep(10))",
    "catch(true, _, halt)",
    "once(b_setval(k, 1))",
    "phrase(([a], {halt}), [a])",
    "G = halt, call(G)",
    # reached through a predicate that calls its argument without declaring it
    "tabled_call(nb_getval(k, _))",
    "tabled_call(b_setval(k, 1))",
]


@pytest.mark.parametrize("goal", CALLS)
def test_the_same_names_in_call_positions_stay_refused(mem, goal):
    from attention_cloud.sharing import reader_query

    for call in (lambda: mem.query(goal), lambda: reader_query(mem, "bob", goal)):
        with pytest.raises(AtcError) as caught:
            call()
        assert "\n" not in str(caught.value)
    assert mem.query("item(H)", limit=1).rows


def test_a_rule_cannot_reach_a_refused_builtin_through_another_predicate(mem, tmp_path):
    bad = tmp_path / "bad.pl"
    for text in ("evil(X) :- lists:append([], [], X).\n",
                 "evil(X) :- findall(Y, halt, X).\n",
                 "evil(X) :- maplist(assertz, [X]).\n",
                 "evil(V) :- tabled_call(nb_getval(k, V)).\n",
                 "run(G) :- tabled_call(G).\nevil(V) :- run(nb_getval(k, V)).\n"):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(AtcError):
            mem.query("evil(X)", rules=bad)
    assert mem.rules_list() == []
