"""Python values that stand for Prolog terms the plain Python types cannot express.

The conversion contract (both backends):

=================  ==========================
Python             Prolog
=================  ==========================
``str``            string
``Atom("x")``      atom ``x``
``int``/``float``  integer / float
``True/False``     atoms ``true`` / ``false``
``None``           atom ``null``
``list``/``tuple`` list
``Term(f, args)``  compound ``f(Args...)``
``dict``           SWI-Prolog dict (tag unbound)
``Var()``          a fresh variable (the same ``Var`` object twice is the same variable)
=================  ==========================
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: How many levels of lists, compounds and dicts inside each other a value crossing the bridge
#: may hold, either way. The conversion is recursive: past this, a clear error is raised rather
#: than Python's RecursionError (a belief value nested 5000 lists deep gave a traceback).
#: Answers to `atc query` stop at 100 levels (rules/api.pl), a why-tree at 32 beliefs.
MAX_NESTING = 200


class Atom(str):
    """A Prolog atom. A ``str`` subclass, so it compares equal to plain text."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Atom({str.__repr__(self)})"


@dataclass(frozen=True)
class Term:
    """A compound term ``name(args...)``; ``Term("-", [k, v])`` is the pair ``k-v``."""

    name: str
    args: tuple[Any, ...] = field(default_factory=tuple)

    def __init__(self, name: str, args: Any = ()) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "args", tuple(args))

    @property
    def arity(self) -> int:
        """Number of arguments."""
        return len(self.args)

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(map(repr, self.args))})"


class Var:
    """A fresh Prolog variable; in results an unbound variable comes back as a ``Var``."""

    __slots__ = ("name",)

    def __init__(self, name: str | None = None) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Var({self.name!r})" if self.name else "Var()"


def pair(key: Any, value: Any) -> Term:
    """The Prolog pair ``Key-Value``."""
    return Term("-", (key, value))


#: A lone surrogate: a code point Prolog text may hold (a goal's `atom_codes(A, [0xD800])`)
#: that UTF-8, and so JSON on the wire and a terminal, cannot.
_SURROGATE = re.compile("[\ud800-\udfff]")


def to_plain(value: Any) -> Any:
    """Turn a converted Prolog value into JSON-ready Python (atoms to str, pairs and terms to text).

    Lists stay lists and dicts stay dicts; compounds render in Prolog-like syntax so a user sees them.
    A lone surrogate code point in text becomes U+FFFD, as ingest stores one: written as it is,
    it ended `atc query` in a traceback.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", str(value))
    if isinstance(value, (int, float)) or value is None:
        return value
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, dict):
        return {to_plain(str(k)): to_plain(v) for k, v in value.items()}
    if isinstance(value, Term):
        if value.name == "-" and value.arity == 2:
            return [to_plain(value.args[0]), to_plain(value.args[1])]
        return to_plain(f"{value.name}({', '.join(_text(a) for a in value.args)})")
    if isinstance(value, Var):
        return "_"
    return to_plain(str(value))


def _text(value: Any) -> str:
    plain = to_plain(value)
    return plain if isinstance(plain, str) else repr(plain)
