"""Data that merely mentions a module-qualified term or a builtin's name is not a call.

The sandbox refused `X = a:b`, `member(X, [k:v])`, `X = f(halt)`, `P == halt` and text naming
`flag` as if each were called ("No permission to call sandboxed `a:b'"). Only goals in call
positions are checked: the goal itself, control constructs, the meta-arguments of what it
calls (findall/3, forall/2, \\+, call/N, maplist/N, foldl/N, aggregate_all/3, lambdas) and the
bodies of rules; the same names in those positions stay refused.
"""
from __future__ import annotations

import subprocess
import sys
import os

import pytest

from attention_cloud.errors import AtcError
from granted_home import granted_memory

@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    memory = granted_memory(tmp_path_factory.mktemp("data_terms"), "L2")
    memory.set_limits(time_limit=5)
    yield memory
    memory.close()


DATA_GOALS = [
    ("X = a:b", {"X": "a:b"}),
    ("member(X, [k:v])", {"X": "k:v"}),
    ("X = f(halt)", {"X": "f(halt)"}),
    ("P = halt, P == halt", {"P": "halt"}),
    ("T = 'a flag here', sub_atom(T, _, _, _, flag)", {"T": "a flag here"}),
    ("X = assert(x), functor(X, N, A)", {"X": "assert(x)", "N": "assert", "A": 1}),
    ("findall(K-V, member(K:V, [a:1, b:2]), L)", {"L": [["a", 1], ["b", 2]]}),
    ("forall(member(X, [halt, abort]), atom(X))", {}),
    ("maplist([X, Y]>>(Y = X:done), [a], L)", {"L": ["a:done"]}),
    ("aggregate_all(count, member(_, [shell, halt]), N)", {"N": 2}),
    ("X = \"G@M\", Y = @(a, b)", {"X": "G@M"}),
]


@pytest.mark.parametrize("goal,expected", DATA_GOALS)
def test_a_goal_may_mention_a_qualified_term_or_a_builtins_name_as_data(mem, goal, expected):
    from attention_cloud.sharing import reader_query

    for result in (mem.query(goal), reader_query(mem, "bob", goal)):
        assert result.rows, goal
        row = result.rows[0]
        for name, value in expected.items():
            assert row[name] == value, (goal, row)


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
]


@pytest.mark.parametrize("goal", CALLS)
def test_the_same_names_in_call_positions_stay_refused(mem, goal):
    from attention_cloud.sharing import reader_query

    for call in (lambda: mem.query(goal), lambda: reader_query(mem, "bob", goal)):
        with pytest.raises(AtcError) as caught:
            call()
        assert "\n" not in str(caught.value)
    assert mem.query("item(H)", limit=1).rows


def test_a_rule_may_hold_qualified_data_but_not_call_it(mem, tmp_path):
    ok = tmp_path / "data.pl"
    ok.write_text("pair(k:v).\nstopword(halt).\n"
                  "tagged(H, K:V) :- item(H), pair(K:V).\n"
                  "quiet(X) :- stopword(X), X \\== flag.\n", encoding="utf-8")
    rows = mem.query("tagged(H, T), quiet(Q)", rules=ok, limit=1).rows
    assert rows and rows[0]["T"] == "k:v" and rows[0]["Q"] == "halt"
    bad = tmp_path / "bad.pl"
    for body in ("lists:append([], [], X)", "findall(Y, halt, X)", "maplist(assertz, [X])"):
        bad.write_text(f"evil(X) :- {body}.\n", encoding="utf-8")
        with pytest.raises(AtcError):
            mem.query("evil(X)", rules=bad)
    assert mem.rules_list() == []


def test_real_atc_query_answers_a_goal_with_qualified_data(mem, tmp_path):
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query", "X = a:b",
                          "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120,
                         env={**os.environ, "ATC_HOME": str(mem.home)})
    assert out.returncode == 0, out.stderr
    assert "a:b" in out.stdout
