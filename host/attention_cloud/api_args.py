"""Checks of the public API's arguments, before anything runs.

A program that passes the wrong type (``budget="500"`` read from a query string, ``None`` from
an unset option) gets a :class:`~attention_cloud.errors.UsageError` naming the argument and
what it must be, instead of a ``TypeError`` or ``AttributeError`` from deep inside, or a
Prolog type error about an atom ``'None'``. Each helper returns the value to use.
"""
from __future__ import annotations

import math
import os
from typing import Any, Iterable

from .errors import UsageError

# The largest token budget a frame takes (hydrate, its segments, the prompt hook, MCP): a
# frame over 50,000 tokens frames what 50,000 does (rules/hydrate.pl), so a larger budget only
# misstated the frame's room, and one past ~10**308 overflowed the planner's float arithmetic
# (an internal error, no frame). Ten million is above any model's context window.
MAX_BUDGET = 10_000_000


def text(name: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` when it is a string of Unicode text (or None, with ``optional``)."""
    if isinstance(value, str):
        return unicode(name, value)
    if optional and value is None:
        return value
    raise UsageError(f"{name} must be a string, not {_shown(value)}")


def unicode(name: str, value: str) -> str:
    """``value`` unless it holds a lone surrogate, which is how Python decodes a byte of a
    command line that is not UTF-8 (and what a JSON ``"\\ud800"`` escape gives): no text can
    hold one, and Prolog refused it deep inside with an error about something else."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(f"{name} is not valid text: {exc.reason} at character {exc.start} "
                         "(a byte that is not UTF-8?)") from None
    return value


def whole(name: str, value: Any, *, minimum: int = 0, maximum: int | None = None,
          optional: bool = False) -> Any:
    """``value`` when it is an int of at least ``minimum`` and, given one, at most ``maximum``
    (or None, with ``optional``); True and False are not numbers here."""
    if optional and value is None:
        return value
    if (isinstance(value, int) and not isinstance(value, bool) and value >= minimum
            and (maximum is None or value <= maximum)):
        return value
    bounds = f"of at least {minimum}" if maximum is None else f"from {minimum} to {maximum:,}"
    raise UsageError(f"{name} must be a whole number {bounds}, not {_shown(value)}")


def flag(name: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` when it is True or False (or None, with ``optional``): ``"false"`` read from
    a query string, or ``0``, would otherwise be taken for its truth value, and ``"no"`` is
    true."""
    if isinstance(value, bool) or (optional and value is None):
        return value
    allowed = "True, False or None" if optional else "True or False"
    raise UsageError(f"{name} must be {allowed}, not {_shown(value)}")


def callable_(name: str, value: Any) -> Any:
    """``value`` when it can be called (or None): a progress callback."""
    if value is None or callable(value):
        return value
    raise UsageError(f"{name} must be a function (or None), not {_shown(value)}")


def seconds(name: str, value: Any, *, optional: bool = False, zero: bool = False) -> Any:
    """``value`` as a float when it is a finite number of seconds above 0 (or at least 0 with
    ``zero``; None with ``optional``)."""
    if optional and value is None:
        return value
    if (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and (value >= 0 if zero else value > 0)):
        return float(value)
    least = "0 or more" if zero else "more than 0"
    raise UsageError(f"{name} must be a number of seconds, {least}, not {_shown(value)}")


def path(name: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` when it is a path (str or os.PathLike; or None, with ``optional``)."""
    if isinstance(value, (str, os.PathLike)) or (optional and value is None):
        return value
    raise UsageError(f"{name} must be a path (str or os.PathLike), not {_shown(value)}")


def not_blank(name: str, value: Any) -> Any:
    """``value`` unless it is a blank string: a name given empty (a walk, a rules file) is
    refused, never read as no value (None leaves the argument out), as the CLI refuses
    ``--walk ""``; ``walk=""`` ran the plane's own walk, ``rules=""`` looked for a file '.'."""
    if isinstance(value, str) and not value.strip():
        raise UsageError(f"{name} must not be empty (None leaves it out)")
    return value


def paths(name: str, value: Any) -> list[Any]:
    """The paths ``value`` names: one path, or an iterable of them."""
    if isinstance(value, (str, os.PathLike)):
        return [value]
    if value is None or isinstance(value, (bytes, dict)) or not isinstance(value, Iterable):
        raise UsageError(f"{name} must be a path or a list of paths, not {_shown(value)}")
    return [path(f"each of {name}", p) for p in value]


def texts(name: str, value: Any) -> list[str]:
    """The strings ``value`` names: one string, or an iterable of them."""
    if isinstance(value, str):
        return [value]
    if value is None or isinstance(value, (bytes, dict)) or not isinstance(value, Iterable):
        raise UsageError(f"{name} must be a string or a list of strings, not {_shown(value)}")
    return [text(f"each of {name}", v) for v in value]


def _shown(value: Any) -> str:
    try:
        shown = repr(value)
    except ValueError:  # an int past Python's 4,300 digits has no repr
        shown = f"<{value.bit_length()} bits>"
    shown = shown if len(shown) <= 60 else shown[:59] + "…"
    return f"{shown} ({type(value).__name__})"
