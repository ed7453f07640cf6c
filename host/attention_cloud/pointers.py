"""Resolve a stable source pointer back to the verbatim record it names.

Two forms: ``<path>:<line>`` (1-based line of a line-oriented file such as JSONL or text) and
``<path>#<JSON pointer>`` (RFC 6901, into a JSON document).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .errors import InputError

_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+)(?:-(?P<end>\d+))?$")


def resolve_pointer(pointer: str) -> str:
    """The verbatim text ``pointer`` addresses; InputError when it no longer resolves."""
    if "#" in pointer:
        path, _, fragment = pointer.partition("#")
        return _resolve_json(Path(path), fragment)
    match = _LINE.match(pointer)
    if not match:
        raise InputError(f"{pointer}: not a source pointer (expected path:line or path#/pointer)")
    path = Path(match["path"])
    first = int(match["line"])
    last = int(match["end"] or first)
    return _lines(path, first, last)


def _lines(path: Path, first: int, last: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            out = [line.rstrip("\n") for n, line in enumerate(fh, 1) if first <= n <= last]
    except OSError as exc:
        raise InputError(f"{path}: cannot read source ({exc.strerror or exc})") from exc
    if not out:
        raise InputError(f"{path}: has no line {first}")
    return "\n".join(out)


def _resolve_json(path: Path, fragment: str) -> str:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read JSON source ({exc})") from exc
    node = doc
    if fragment:
        if not fragment.startswith("/"):
            raise InputError(f"{path}#{fragment}: JSON pointer must start with '/'")
        for raw in fragment[1:].split("/"):
            token = raw.replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(token)] if isinstance(node, list) else node[token]
            except (KeyError, IndexError, ValueError, TypeError):
                raise InputError(f"{path}#{fragment}: JSON pointer does not resolve") from None
    return node if isinstance(node, str) else json.dumps(node, ensure_ascii=False, indent=2)
