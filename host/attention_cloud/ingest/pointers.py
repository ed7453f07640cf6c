"""Following an item's pointer back to the verbatim record it came from.

Pointers have four shapes: ``<path>:<line>`` (1-based line of a JSONL or text file),
``<path>:<first>-<last>`` (a turn of a text transcript written over several lines, first to
last, as one text), ``<path>#<JSON pointer>`` (RFC 6901, into a JSON document) and
``<path>:<line>#<JSON pointer>`` (into the JSON value held on one line). The JSON pointer may be
empty (``<path>#``: the whole document, as RFC 6901's ``""`` is; ``<path>:<line>#``: the line's
value, decoded). Homes written before line ranges hold ``<path>:<first>`` for such a turn: it
still reads its first line, and ``atc show --source`` finds the whole turn by parsing again.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from .source import as_utf8

_LINE_SUFFIX = re.compile(r":(\d+)(?:-(\d+))?\Z")


@dataclass(frozen=True)
class Pointer:
    """A parsed pointer: the file, the 1-based line (or None), the JSON pointer (or ""), and
    the last line of a line range (``<path>:<first>-<last>``; None for one line)."""

    path: str
    line: int | None
    json_pointer: str
    last_line: int | None = None

    @property
    def start(self) -> tuple[str, int | None, str]:
        """Where the record starts: a turn's pointer of an older home (its first line alone)
        and its line range now start at the same place."""
        return self.path, self.line, self.json_pointer


def line_pointer(base: str, first: int, last: int) -> str:
    """The pointer of lines ``first`` to ``last`` of ``base``: ``base:first`` for one line,
    ``base:first-last`` for several."""
    return f"{base}:{first}" if last <= first else f"{base}:{first}-{last}"


def parse_pointer(pointer: str) -> Pointer:
    """Split a pointer into its parts (see the module docstring).

    A path may hold ``#/`` itself (a folder named ``C#``), so the JSON pointer may start at
    any ``#/`` of the pointer, or nowhere. Where it could start at more than one place, the
    reading whose path is an existing file wins; for a file gone, the one whose path ends as
    a transcript's name does (``.jsonl``, ``.txt`` ...); else the JSON pointer starts at the
    last ``#/``.
    """
    readings = [r for r in (_split(pointer, at) for at in _json_starts(pointer)) if r]
    if not readings:
        _split(pointer, _json_starts(pointer)[0], strict=True)  # raises, saying why
    if len(readings) > 1:
        from .source import TRANSCRIPT_SUFFIXES

        for fits in (os.path.isfile, lambda path: path.lower().endswith(TRANSCRIPT_SUFFIXES)):
            found = next((r for r in readings if fits(r.path)), None)
            if found is not None:
                return found
    return readings[0]


def _json_starts(pointer: str) -> list[int]:
    """Where the JSON pointer may start (the index of its ``#``, -1 for none), likeliest
    first: the last ``#/`` (or a final ``#``: the whole value), then no JSON pointer, then
    each earlier ``#/``."""
    marks = [at for at in range(len(pointer) - 1) if pointer.startswith("#/", at)]
    if pointer.endswith("#"):
        marks.append(len(pointer) - 1)
    return list(dict.fromkeys([*marks[-1:], -1, *reversed(marks[:-1])]))


def _split(pointer: str, hash_at: int, strict: bool = False) -> Pointer | None:
    """The pointer read with its JSON pointer starting at ``hash_at`` (-1: none); None (with
    ``strict``, an InputError) when it is not a pointer read so."""
    location, json_pointer = (
        (pointer, "") if hash_at < 0 else (pointer[:hash_at], pointer[hash_at + 1 :])
    )
    match = _LINE_SUFFIX.search(location)
    if match and (match.group(2) is None or (not json_pointer and hash_at < 0)):
        first = int(match.group(1))
        last = None if match.group(2) is None else int(match.group(2))
        if last is not None and last < first:
            if strict:
                raise InputError(f"{pointer}: not a pointer (the line range ends before it "
                                 "starts)")
            return None
        return Pointer(location[: match.start()], first, json_pointer, last)
    if not json_pointer and hash_at < 0:
        if strict:
            raise InputError(f"{pointer}: not a pointer (expected PATH:LINE or "
                             "PATH#/JSON/POINTER)")
        return None
    return Pointer(location, None, json_pointer)


def read_pointer(pointer: str) -> Any:
    """The verbatim record ``pointer`` addresses: a line of text, or a decoded JSON value.

    Raises:
        InputError: the file cannot be read, or the line or JSON pointer does not exist in it.
    """
    target = parse_pointer(pointer)
    try:
        with open(target.path, "rb") as handle:
            data = as_utf8(handle.read(), target.path)  # the bytes as ingest read them
        if target.line is None:
            value: Any = json.loads(data.decode("utf-8-sig"))  # a BOM dropped, as ingest does
        else:
            value = _lines(data, target.line, target.last_line or target.line, pointer)
    except OSError as error:
        raise InputError(f"{target.path}: cannot read ({error.strerror or error})") from None
    except (ValueError, RecursionError) as error:
        raise InputError(f"{pointer}: not readable as UTF-8 JSON ({error})") from None
    if not target.json_pointer and not pointer.endswith("#"):
        return value
    if target.line is not None:
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as error:
            raise InputError(f"{pointer}: line is not JSON ({error})") from None
    return resolve_json_pointer(value, target.json_pointer, pointer)


def _lines(data: bytes, first: int, last: int, pointer: str) -> str:
    """Lines ``first`` to ``last`` of the file, joined by newlines (each without its ``\\r``).

    Split on ``b"\\n"`` only, as the parser splits, and only the lines wanted are decoded:
    other lines of a JSONL file may be invalid UTF-8 (the parser skipped them)."""
    found: list[str] = []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()  # the empty piece after the last newline is no line
    for current, raw in enumerate(lines, 1):
        if current >= first:
            line = raw.decode("utf-8")
            line = line[:-1] if line.endswith("\r") else line
            found.append(line[1:] if current == 1 and line.startswith("\ufeff") else line)
            if current == last:
                return "\n".join(found)
    raise InputError(f"{pointer}: the file has fewer than {last} lines")


def resolve_json_pointer(document: Any, json_pointer: str, pointer: str = "") -> Any:
    """The value at an RFC 6901 ``json_pointer`` (``/messages/3``) inside ``document``."""
    value = document
    for token in json_pointer.split("/")[1:]:
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        elif isinstance(value, dict) and key in value:
            value = value[key]
        else:
            raise InputError(f"{pointer or json_pointer}: no {key!r} in the JSON value")
    return value
