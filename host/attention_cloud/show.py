"""What ``atc show`` prints: one item or arc at a rung, or the verbatim record behind it."""
from __future__ import annotations

from typing import Any

from .bridge import Atom, Var, to_plain
from .errors import InputError
from .memory import Memory
from .pointers import resolve_pointer


def show_record(mem: Memory, handle: str, level: str, verbatim: bool) -> dict[str, Any]:
    """Fields of ``handle`` plus its text at ``level`` (and the verbatim source if asked)."""
    found = mem.pl.once("api:api_describe", Atom(handle), Atom(level), Var())
    if not found:
        raise InputError(f"{handle}: no such item or arc in this memory")
    record = to_plain(found[0])
    if verbatim:
        pointer = record.get("source") or ""
        if not pointer:
            raise InputError(f"{handle}: has no source pointer")
        record["verbatim"] = resolve_pointer(pointer)
    return record
