"""What ``atc show`` prints: one item or arc at a rung, or the verbatim record behind it."""
from __future__ import annotations

import json
from typing import Any

from .bridge import Atom, Var, to_plain
from .errors import InputError
from .memory import Memory
from .ingest.pointers import read_pointer


def show_record(mem: Memory, handle: str, level: str, verbatim: bool) -> dict[str, Any]:
    """Fields of ``handle`` plus its text at ``level`` (and the verbatim source if asked)."""
    found = mem.pl.once("atc_api:api_describe", Atom(handle), Atom(level), Var())
    if not found:
        raise InputError(f"{handle}: no such item or arc in this memory")
    record = to_plain(found[0])
    if verbatim:
        pointer = record.get("source") or ""
        if not pointer:
            raise InputError(f"{handle}: has no source pointer")
        found = read_pointer(pointer)
        record["verbatim"] = found if isinstance(found, str) else json.dumps(
            found, ensure_ascii=False, indent=2)
    return record
