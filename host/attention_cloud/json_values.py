"""Values as strict JSON holds them, for every place that prints or serves JSON.

JSON has no infinity and no NaN, and Prolog arithmetic gives both (``X is inf``): written as
Python writes them by default (bare ``Infinity``/``NaN``) they make a document strict parsers
(``JSON.parse``, Go, jq) refuse, and a serializer that maps them to ``null`` loses the value.
So the CLI's ``--format json``, the MCP tools and ``atc serve`` all write them as the strings
``"inf"``, ``"-inf"`` and ``"nan"`` (README, ``atc query --format json``).
"""
from __future__ import annotations

from typing import Any


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
