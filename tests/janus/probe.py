"""Print, one JSON line per case, what the bridge returns for a fixed set of goals.

Run once per backend (``ATC_PROLOG=pyswip|janus``); tests/test_bridge_backends.py compares the
lines, so every value, error term and message must come back the same from both.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Callable

from attention_cloud.bridge import Atom, Term, Var, get_prolog
from attention_cloud.errors import PrologError


def shape(value: Any) -> Any:
    """A JSON-ready description that keeps the Python types apart (Atom vs str, Term, Var)."""
    if isinstance(value, Atom):
        return {"atom": str(value)}
    if isinstance(value, bool) or value is None:
        return {"py": repr(value)}
    if isinstance(value, (str, int)):
        return value if not isinstance(value, int) or abs(value) < 2**53 else {"int": str(value)}
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, Var):
        return {"var": True}
    if isinstance(value, Term):
        return {"term": value.name, "args": [shape(a) for a in value.args]}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [shape(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {k: shape(v) for k, v in sorted(value.items())}}
    return {"other": type(value).__name__}


def cases(pl) -> list[tuple[str, Callable[[], Any]]]:
    """Each case: a name and a call into the bridge."""
    x = Var()
    pl.register("probe_echo", 2, lambda v: v)
    pl.register("probe_kinds", 2, lambda v: [type(v).__name__, v])
    pl.register("probe_many", 2, lambda n: [Atom("a"), "s", None, True, Term("g", [1]), {"k": []}],
                nondet=True)
    pl.register("probe_fail", 2, lambda v: (_ for _ in ()).throw(KeyError(v)))
    pl.register("probe_silent", 2, lambda v: (_ for _ in ()).throw(RuntimeError()))
    sent = [Atom("x"), "x", 7, -2**70, 1.5, True, False, None, [], [Atom("[]")], (1, 2),
            Term("f", []), Term("-", [1, 2]), Term("[|]", [1, []]), {"a": 1, "b": Atom("c")},
            {}, Term("f", [Var(), "t"]), "", "\u0000", Atom(""), Atom("hello world"),
            # shapes that look like janus's own conventions or the codec's wire tags
            Term("-", ["a", "x"]), Term("-", [Atom("v")]), Term("-", ["t", "f", []]),
            Term("@", [Atom("none")]), Term("@", [Atom("true")]), Term("#", ["x"]),
            Term("py", [Term("{}", [1])]), Term("prolog", [1]), Term("eval", [1]),
            Atom("none"), "none", Atom("true"), {"a": {"b": Term("f", [1])}, "n": None},
            "héllo — 日本語 🚀 \u0000 nul\n\ttab", -0.0, 2**63, -(2**63) - 1,
            Atom("日本語 🚀"), Term("ƒ→", [Atom("ü")]), {"clé": "ключ"},
            # lone surrogates (JSON "\\ud800" escapes make them) in every kind of text
            "a\ud800b", Atom("\udfff"), Term("f\ud800", ["\udc00"]), {"k\ud800": "v\udfff"}]
    return [
        ("round trip", lambda: pl.once("user:=", Var(), sent)),
        ("string literal", lambda: pl.once("user:atom_string", Atom("abc"), Var())),
        ("atom from codes", lambda: pl.once("user:atom_codes", Var(), [104, 105])),
        ("wide atom from codes", lambda: pl.once("user:atom_codes", Var(), [26085, 128640])),
        ("surrogate from codes", lambda: pl.once("user:string_codes", Var(), [97, 0xD800])),
        ("unbound and shared vars", lambda: pl.once("user:=", Var(), Term("f", [x, x, Var()]))),
        ("copy keeps sharing", lambda: pl.once("user:copy_term", Term("f", [x, x]), Var())),
        ("partial list", lambda: pl.once("user:length", Var(), 2)),
        ("partial list tail", lambda: pl.once("user:=", Var(), Term("[|]", [1, Var()]))),
        ("rational", lambda: pl.once("user:is", Var(), Term("rdiv", [1, 3]))),
        ("big and negative ints", lambda: pl.once("user:is", Var(), Term("-", [Term("**", [2, 90])]))),
        ("float", lambda: pl.once("user:is", Var(), Term("/", [1, 3]))),
        ("dict from pairs", lambda: pl.once("user:dict_pairs", Var(), Atom("tag"),
                                            [Term("-", [Atom("k"), 1]), Term("-", [2, "v"])])),
        ("dict keys", lambda: pl.once("user:dict_pairs", {"z": 1, "a": [2]}, Var(), Var())),
        ("empty list vs '[]'", lambda: pl.once("user:=", Var(), [[], Atom("[]")])),
        ("zero-arity compound", lambda: pl.once("user:compound_name_arguments", Var(),
                                                Atom("f"), [])),
        ("curly and operators", lambda: pl.once("user:term_to_atom", Var(), Atom("{a,b}-(c:d)"))),
        ("all solutions", lambda: pl.solutions("lists:member", Var(), [Atom("a"), "b", 3])),
        ("limited solutions", lambda: pl.solutions("user:between", 1, 1000, Var(), limit=3)),
        ("no solutions", lambda: pl.solutions("lists:member", Var(), [])),
        ("failure", lambda: pl.once("user:fail")),
        ("instantiation error", lambda: pl.once("user:atom_length", Var(), Var())),
        ("type error", lambda: pl.once("user:atom_length", 1.5, Atom("x"))),
        ("unknown procedure", lambda: pl.once("user:no_such_predicate_here", 1)),
        ("thrown term", lambda: pl.once("user:throw", Term("my_ball", ["data", Atom("a")]))),
        ("error after solutions", lambda: pl.solutions(
            "user:member", Var(), [1, 2, Term("oops", [])])),
        ("callback echoes", lambda: pl.once("user:probe_echo", sent, Var())),
        ("callback sees kinds", lambda: pl.solutions("user:member", Var(), [1]) and [
            pl.once("user:probe_kinds", v, Var()) for v in
            (Atom("a"), "s", 1, 2.5, [1], Term("f", [1]), {"k": 1}, Var(), True, None)]),
        ("nondet callback", lambda: pl.solutions("user:probe_many", 0, Var())),
        ("callback error caught", lambda: pl.once("user:catch", Term("probe_fail", [Atom("k"), Var()]),
                                                 Var(), Atom("true"))),
        ("callback error raised", lambda: pl.once("user:probe_fail", "k", Var())),
        ("callback error without text", lambda: pl.once("user:probe_silent", 1, Var())),
        ("callback error with a surrogate", lambda: pl.once("user:probe_fail", "\udc00", Var())),
        ("callback echoes surrogates", lambda: pl.once("user:probe_echo", ["\ud800", Atom("\ud800")],
                                                      Var())),
    ]


def main() -> int:
    pl = get_prolog()
    for name, call in cases(pl):
        try:
            result: Any = shape(call())
        except PrologError as exc:
            result = {"PrologError": str(exc), "term": shape(exc.term)}
        except Exception as exc:  # noqa: BLE001 - a difference in what is raised is a finding too
            result = {"raised": type(exc).__name__, "text": str(exc)}
        print(json.dumps({"case": name, "result": result}, sort_keys=True))
    print(json.dumps({"backend": pl.backend}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
