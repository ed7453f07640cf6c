"""A value nested hundreds of levels deep, passed to Prolog or coming back from it, is a
one-line error naming the problem, never Python's RecursionError; the engine stays usable."""
from __future__ import annotations

import pytest

from attention_cloud.attention import Controller
from attention_cloud.bridge import Atom, Term, Var
from attention_cloud.errors import PrologError, UsageError

NOW = 1_000_000.0


def nested(levels: int, leaf: object = "x") -> object:
    value = leaf
    for _ in range(levels):
        value = [value]
    return value


@pytest.fixture(scope="module")
def ctl(pl):
    controller = Controller(pl, "bench-deep-terms")
    controller.add_source("registry", claim_type="dependency_version", kind="package_registry")
    controller.add_belief("ver", claim_type="dependency_version", subject="libfoo", value="4.1",
                          confidence=0.9, observed_at=NOW - 3600, volatility="package_release",
                          source="registry")
    controller.add_goal("deploy", depends_on="ver", loss_if_wrong=1.0, now=NOW)
    yield controller
    controller.drop()


@pytest.mark.parametrize("value", [nested(5000), nested(600), ["4.1"], {"v": "4.1"},
                                   nested(5000, leaf={"k": "v"})])
def test_a_belief_value_that_is_not_a_scalar_is_a_usage_error(ctl, value):
    # Before: a value nested 5000 lists deep raised RecursionError out of the controller
    # (a traceback through the CLI's callers); 600 deep, RecursionError while reading the
    # Prolog error back; a flat list, Prolog's type error printing the whole value.
    with pytest.raises(UsageError, match=r"^a belief's value must be text, a number or "
                                         r"true/false, not a (list|dict)$"):
        ctl.add_belief("deep", claim_type="dependency_version", subject="libfoo", value=value,
                       confidence=0.5, observed_at=NOW, volatility="package_release")
    with pytest.raises(PrologError, match="belief `deep' does not exist"):
        ctl.belief("deep", now=NOW)


def test_an_inspection_result_nested_deep_is_a_usage_error(ctl):
    cand = ctl.attend("deploy", budget=3, now=NOW).ranked[0].candidate_id
    with pytest.raises(UsageError, match=r"^an inspection's result must be text, a number or "
                                         r"true/false, not a list$"):
        ctl.inspect(cand, result=nested(5000), now=NOW)
    assert ctl.belief("ver", now=NOW)["value"] == "4.1"


def test_an_argument_nested_too_deep_for_the_bridge_is_one_error(pl):
    # Before: RecursionError (or ctypes.ArgumentError wrapping one) out of the bridge.
    with pytest.raises(UsageError, match=r"^a value nests lists or terms more than 200 levels "
                                         r"deep: too deep to pass to Prolog$"):
        pl.once("system:is_list", nested(5000))
    assert pl.once("system:is_list", nested(50)) == ()


def test_an_answer_nested_too_deep_for_the_bridge_is_one_error(pl):
    text = "f(" * 5000 + "x" + ")" * 5000
    with pytest.raises(UsageError, match=r"^an answer nests lists or terms more than 200 "
                                         r"levels deep: too deep to return from Prolog$"):
        pl.once("system:term_to_atom", Var(), text)
    assert pl.once("system:term_to_atom", Var(), "f(f(x))")[0].name == "f"


def test_a_prolog_error_carrying_a_deep_term_keeps_its_message(pl):
    # Before: the error term (type_error(atomic, [[[...]]])) was converted recursively and
    # the caller got RecursionError in place of the PrologError.
    deep = Var()
    made = Term("term_to_atom", (deep, "f(" * 700 + "x" + ")" * 700))
    check = Term("must_be", (Atom("atomic"), deep))
    with pytest.raises(PrologError, match="atomic") as raised:
        pl.once("system:call", Term(",", (made, check)))
    assert raised.value.term is None    # too deep to carry; the message says what happened
    assert pl.once("system:atom_length", "abc", Var()) == (3,)
