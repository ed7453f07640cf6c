"""The batch wire format for journal items: one Prolog string per item, fields separated.

Building a Prolog term per item field by field costs ~30 C calls through ctypes; an ingest of
a million items spent most of its time there. Instead each item crosses the bridge as ONE
string: a separator character that occurs in none of the item's fields, then every field
preceded by that separator. ``journal:journal_add_encoded/2`` cuts the fields out with one
split_string/4 call, so nothing is read as Prolog syntax: text stays data. The journal stores
the same string as the item's record (rules/store.pl, durable_record/2), so the item crosses
and is logged without being re-encoded.

Field order: handle, source, session, seq, kind, role, goal, time, segment, pointer, text, then
subject, predicate, object for each relation.
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
    for sep in _separators():
        if sep not in probe:
            return sep + sep.join(fields)
    raise AssertionError("unreachable: the separators never run out")


def encode_item(rec: Any, source: str, segment: str) -> str:
    """One item record (an ``ingest.ItemRecord``) as its wire string."""
    parts = [rec.handle, source, rec.session, str(rec.seq), rec.kind, rec.role, rec.goal,
             rec.time, segment, rec.pointer, rec.text]
    for relation in rec.relations:
        parts.extend(relation)
    return encode_fields(parts)
