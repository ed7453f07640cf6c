"""Reading the ``ATC_*`` environment variables whose values have a form (a backend, a count, a
switch, a folder). A value that cannot be read is a UsageError naming the variable (exit 2),
never the default taken without a word: a typo (``ATC_READER_SET_LIMIT=abc``) or a variable a
script exported but never filled (``ATC_PROLOG=``) is a mistake to say, as an empty
``$ATC_HOME`` is (home.resolve_home)."""
from __future__ import annotations

import os
from typing import Mapping, TypeVar

from .errors import UsageError

T = TypeVar("T")

#: The words ``ATC_HOOK_SERVER`` takes, case aside, and whether each lets the server run.
SWITCH_WORDS: Mapping[str, bool] = {"on": True, "1": True, "yes": True, "true": True,
                                    "off": False, "0": False, "no": False, "false": False}


def setting(name: str) -> str | None:
    """``$name`` stripped, or None when it is unset; UsageError when it is set to nothing."""
    raw = os.environ.get(name)
    if raw is None:
        return None
    if not raw.strip():
        raise UsageError(f"{name} is set but empty: give it a value, or unset it for the default")
    return raw.strip()


def choice(name: str, words: Mapping[str, T]) -> T | None:
    """What ``$name`` (one of ``words``, case aside) stands for, or None when it is unset."""
    raw = setting(name)
    if raw is None:
        return None
    if raw.lower() not in words:
        listed = ", ".join(repr(w) for w in words)
        raise UsageError(f"{name} must be one of {listed}, not {raw!r}")
    return words[raw.lower()]


def count(name: str) -> int | None:
    """``$name`` as a whole number (0 or more), or None when it is unset."""
    raw = setting(name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()):
        raise UsageError(f"{name} must be a whole number (0 or more), not {raw!r}")
    return int(raw)


def absolute_folder(name: str) -> str | None:
    """``$name`` as an absolute path (``~`` expanded), or None when it is unset. A relative one
    is refused: it would name another folder from each directory a command starts in."""
    if setting(name) is None:
        return None
    raw = os.environ[name]
    path = os.path.expanduser(raw)
    if not os.path.isabs(path):
        raise UsageError(f"{name} must be an absolute path (a relative one names another "
                         f"folder from each directory a command starts in), not {raw!r}")
    return path
