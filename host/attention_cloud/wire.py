"""The batch wire format for journal items: one Prolog string per item, fields length-prefixed.

Building a Prolog term per item field by field costs ~30 C calls through ctypes; an ingest of
a million items spent most of its time there. Instead each item crosses the bridge as ONE
string: every field is its length in code points as 9 decimal digits followed by the field.
``journal:journal_add_encoded/2`` cuts the fields out with sub_string/5 by those lengths, so
no field is ever scanned for delimiters and nothing is read as Prolog syntax: text stays data.

Field order: handle, source, session, seq, kind, role, goal, time, segment, pointer, text, then
the relations as a count followed by subject, predicate, object for each.
"""
from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def _field(value: str) -> str:
    if not value.isascii() and _SURROGATE.search(value):
        # A lone surrogate (from a JSON "\\ud800" escape) is not text; both sides must count it alike.
        value = _SURROGATE.sub("\ufffd", value)
    return f"{len(value):09d}{value}"


def encode_item(rec: Any, source: str, segment: str) -> str:
    """One item record (an ``ingest.ItemRecord``) as its wire string."""
    parts = [rec.handle, source, rec.session, str(rec.seq), rec.kind, rec.role, rec.goal,
             rec.time, segment, rec.pointer, rec.text, str(len(rec.relations))]
    for subject, predicate, obj in rec.relations:
        parts += (subject, predicate, obj)
    return "".join(_field(p) for p in parts)
