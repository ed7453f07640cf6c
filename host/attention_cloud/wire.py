"""The batch wire format for journal items: one Prolog string per item, fields separated.

Building a Prolog term per item field by field costs ~30 C calls through ctypes; an ingest of
a million items spent most of its time there. Instead each item crosses the bridge as ONE
string: a separator character that occurs in none of the item's fields, then every field
preceded by that separator (after a leading NUL when some field holds one).
``atc_journal:journal_add_encoded/2`` cuts the fields out with one split_string/4 call, so nothing
is read as Prolog syntax: text stays data. The journal stores
the same string as the item's record (rules/store.pl, durable_record/2), so the item crosses
and is logged without being re-encoded.

Field order: handle, source, session, seq, kind, role, goal, time, segment, pointer, text, then
predicate and object of each relation (its subject is the item). The pointer is ``=Line`` when
it is ``Source:Line`` (the journal keeps just the line), otherwise ``|`` and the pointer.
"""
from __future__ import annotations

import re
from typing import Any, Iterator

_SURROGATE = re.compile("[\ud800-\udfff]")


def _separators() -> Iterator[str]:
    # Control characters no transcript text uses, then private-use characters: one of them is
    # missing from any finite text. rules/journal.pl (separator_/2) tries the same order.
    yield from ("\x1f", "\x1e", "\x1d", "\x1c")
    code = 0xE000
    while True:
        yield chr(code)
        code += 1


def encode_fields(fields: list[str]) -> str:
    """Fields as one wire string: a separator none of them holds, then each field after it."""
    probe = "".join(fields)
    if not probe.isascii() and _SURROGATE.search(probe):
        # A lone surrogate (from a JSON "\\ud800" escape) is not text: it cannot cross to Prolog.
        fields = [_SURROGATE.sub("\ufffd", f) for f in fields]
        probe = "".join(fields)
    # split_string/4 also splits at NUL: an item holding one is marked by a leading NUL, and
    # Prolog cuts it by searching for the separator instead (rare, and slower).
    mark = "\x00" if "\x00" in probe else ""
    for sep in _separators():
        if sep not in probe:
            return mark + sep + sep.join(fields)
    raise AssertionError("unreachable: the separators never run out")


def decode_fields(wire: str) -> list[str]:
    """The fields of a wire string (the inverse of :func:`encode_fields`)."""
    if wire.startswith("\x00"):
        wire = wire[1:]
    return wire[1:].split(wire[0]) if wire else []


def wire_handle(wire: str) -> str:
    """The handle of a wire string (its first field), without cutting out the others."""
    if wire.startswith("\x00"):
        wire = wire[1:]
    return wire[1:].split(wire[0], 1)[0] if wire else ""


def encode_pointer(pointer: str, source: str) -> str:
    """The pointer field: ``=Line`` for ``Source:Line`` exactly, else ``|`` and the pointer."""
    if pointer.startswith(source) and pointer[len(source):len(source) + 1] == ":":
        line = pointer[len(source) + 1:]
        if line.isascii() and line.isdigit() and (line == "0" or line[0] != "0"):
            return "=" + line
    return "|" + pointer


def encode_item(rec: Any, source: str, segment: str) -> str:
    """One item record (an ``ingest.ItemRecord``) as its wire string.

    Raises ValueError for a relation about another subject: the wire has no place for it.
    """
    parts = [rec.handle, source, rec.session, str(rec.seq), rec.kind, rec.role, rec.goal,
             rec.time, segment, encode_pointer(rec.pointer, source), rec.text]
    for subject, predicate, obj in rec.relations:
        if subject != rec.handle:
            raise ValueError(f"relation of {rec.handle} about {subject}: not the item itself")
        parts += (predicate, obj)
    return encode_fields(parts)
