"""Values as strict JSON holds them, for every place that prints or serves JSON.

JSON has no infinity and no NaN, and Prolog arithmetic gives both (``X is inf``): written as
Python writes them by default (bare ``Infinity``/``NaN``) they make a document strict parsers
(``JSON.parse``, Go, jq) refuse, and a serializer that maps them to ``null`` loses the value.
So the CLI's ``--format json``, the MCP tools and ``atc serve`` all write them as the strings
``"inf"``, ``"-inf"`` and ``"nan"`` (README, ``atc query --format json``).
"""
from __future__ import annotations

import json
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def strict_json(value: Any) -> Any:
    """``value`` with every float JSON cannot hold, at any depth of dicts, lists and tuples,
    as the string ``"inf"``, ``"-inf"`` or ``"nan"`` (tuples become lists)."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return "nan" if value != value else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v) for v in value]
    return value


def json_text(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON text, non-ASCII characters as they are and a lone surrogate (what a
    ``"\\ud800"`` escape in a transcript decodes to, no character and not encodable as
    UTF-8) written back as its escape, as the file wrote it: text any output can print."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
