"""The records a grantee's reads name, written once per reader and named by number after.

A read naming many records wrote each as ``{"handle": ..., "level": ...}`` on its line: a goal
reading 8,000 items wrote ~391 KB for ~0.26 s of a grantee's CPU, each time it was asked, so
one grantee within their share of the server's time could fill the owner's disk. A read naming
more than :data:`PLAIN_FACTS_MAX` records is now written as

* an ``{"event": "read_index", "reader": R, "first": I, "facts": [...]}`` line listing the
  (handle, level) pairs this reader had not read before, numbered from ``I`` in order (each
  pair is written once in the log's lifetime: the reader's index), and
* the read's own line with ``fact_count`` and ``fact_bits``: the set of the pairs it read as
  a bit per index number, zlib-compressed and base64-encoded (8,000 records read whole:
  ~30 bytes; any 8,000 of them: at most ~1.4 KB).

:func:`expand_events` turns such lines back into reads with ``facts`` (what ``atc audit``
prints), so no fact that a record was read is lost. An erasure's redaction keeps each index
entry in place (handle and level stay), so the numbers still hold after it.
"""
from __future__ import annotations

import base64
import json
import os
import zlib
from operator import itemgetter
from pathlib import Path
from typing import Any, Iterable, Iterator

#: Reads naming at most this many records list them on their line as they always have.
PLAIN_FACTS_MAX = 32

#: A fact's key in a reader's index: (handle, level), and its other keys (``beyond``) as JSON.
Pair = tuple[Any, ...]


class ReaderIndexes:
    """Each reader's numbered (handle, level) pairs as read from one audit log; updated from
    the bytes appended since it last read them (``offset``), so an append costs what is new."""

    def __init__(self) -> None:
        self.inode: int | None = None
        self.offset = 0
        self.numbers: dict[str, dict[Pair, int]] = {}
        self.entries: dict[str, dict[int, dict[str, Any]]] = {}

    def catch_up(self, path: Path) -> None:
        """Read what ``path`` gained since the last call (all of it when it was rewritten)."""
        stat = os.stat(path)
        if stat.st_ino != self.inode or stat.st_size < self.offset:
            self.__init__()
            self.inode = stat.st_ino
        with path.open("rb") as fh:
            fh.seek(self.offset)
            for line in fh:
                if not line.endswith(b"\n"):
                    break  # torn (a crash mid-write): appends start a line after it
                self.offset += len(line)
                if b'"read_index"' in line:
                    self.learn(_parsed(line))

    def learn(self, event: dict[str, Any] | None) -> None:
        """Take in one ``read_index`` event (anything else is ignored)."""
        if not event or event.get("event") != "read_index":
            return
        table = self.numbers.setdefault(str(event.get("reader")), {})
        entries = self.entries.setdefault(str(event.get("reader")), {})
        first = event.get("first")
        if not isinstance(first, int):
            return
        for number, fact in enumerate(event.get("facts") or [], start=first):
            if isinstance(fact, dict):
                table.setdefault(_pair(fact), number)
                entries[number] = fact  # as written, or as an erasure redacted it
                # (two redacted entries can share a key: numbers go on from the entries)

    def lines_for(self, event: dict[str, Any], facts: list[dict[str, Any]]) -> bytes:
        """The line(s) that record ``event`` (a read) naming ``facts`` compactly, the index
        entries it adds first; the index is updated as if they were written."""
        reader = str(event.get("reader"))
        table = self.numbers.setdefault(reader, {})
        pairs = _pairs(facts)
        new = sorted(set(pairs).difference(table), key=lambda p: tuple(map(str, p)))
        out = b""
        if new:
            written = dict(zip(pairs, facts))
            index = {"time": event["time"], "event": "read_index", "reader": reader,
                     "first": max(self.entries.get(reader, {}), default=-1) + 1,
                     "facts": [written[p] for p in new]}
            out += _line(index)
            self.learn(index)
        numbers = set(map(table.__getitem__, pairs))
        out += _line({**event, "fact_count": len(numbers), "fact_bits": _bits(numbers)})
        return out


def expand_events(events: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """``events`` as read from the log, oldest first, with ``read_index`` lines taken in and
    left out and each compact read given its ``facts`` back (in handle order, as written)."""
    indexes = ReaderIndexes()
    for event in events:
        if event.get("event") == "read_index":
            indexes.learn(event)
            continue
        if "fact_bits" not in event:
            yield event
            continue
        entries = indexes.entries.get(str(event.get("reader")), {})
        facts = [entries.get(n) or _UNNAMED for n in _numbers(event["fact_bits"])]
        facts.sort(key=lambda f: (str(f.get("handle")), str(f.get("level"))))
        yield {k: v for k, v in event.items() if k not in ("fact_bits", "fact_count")} | \
            {"facts": facts}


def _pairs(facts: list[dict[str, Any]]) -> list[Pair]:
    """Each fact's key; in C when every fact is just a handle and a level (a query's)."""
    if set(map(len, facts)) == {2}:
        try:
            return list(map(_HANDLE_LEVEL, facts))
        except KeyError:
            pass
    return list(map(_pair, facts))


def _pair(fact: dict[str, Any]) -> Pair:
    if len(fact) == 2:
        try:
            return _HANDLE_LEVEL(fact)
        except KeyError:
            pass
    rest = {k: v for k, v in fact.items() if k not in ("handle", "level")}
    return (fact.get("handle"), fact.get("level"), json.dumps(rest, sort_keys=True))


_HANDLE_LEVEL = itemgetter("handle", "level")


#: A number the index lacks (its line lost): the read stays counted, its record unnamed.
_UNNAMED = {"handle": None, "level": None}


def _bits(numbers: set[int]) -> str:
    bits = sum(1 << n for n in numbers) if len(numbers) < 64 else \
        int("".join("1" if n in numbers else "0" for n in range(max(numbers), -1, -1)), 2)
    bitmap = bits.to_bytes((bits.bit_length() + 7) // 8, "little")
    return base64.b64encode(zlib.compress(bitmap, 6)).decode("ascii")


def _numbers(bits: Any) -> list[int]:
    try:
        bitmap = zlib.decompress(base64.b64decode(str(bits), validate=True))
    except (ValueError, zlib.error):
        return []
    return [i * 8 + b for i, byte in enumerate(bitmap) if byte for b in range(8)
            if byte >> b & 1]


def _line(event: dict[str, Any]) -> bytes:
    return (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8")


def _parsed(line: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
