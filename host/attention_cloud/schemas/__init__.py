"""The JSON Schemas (draft 2020-12) of what scripts read: the receipt, the frame as JSON, the
ingest report, the statistics, the curate report, the watcher's events and query rows.

The schema files ship in this package (``receipt.schema.json``, ``frame.schema.json``,
``ingest.schema.json``, ``stats.schema.json``, ``curate.schema.json``,
``watch.schema.json``, ``query.schema.json``); a script may load them with
:func:`receipt_schema`, :func:`frame_schema`, :func:`ingest_schema`, :func:`stats_schema`,
:func:`curate_schema`, :func:`watch_schema`, :func:`query_schema` (or print them: ``atc
receipt --schema [frame]``, ``atc ingest --schema``, ``atc stats --schema``, ``atc curate
--schema``, ``atc watch --schema``, ``atc query --schema``) and validate with any JSON Schema
library. Objects allow fields the schema does
not name: releases add fields, never rename or remove one.
"""
from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

#: The schema files by the name a ``$ref`` uses.
_FILES = {"receipt": "receipt.schema.json", "frame": "frame.schema.json",
          "ingest": "ingest.schema.json", "stats": "stats.schema.json",
          "curate": "curate.schema.json", "watch": "watch.schema.json",
          "query": "query.schema.json"}


@cache
def _load(name: str) -> str:
    return resources.files(__name__).joinpath(_FILES[name]).read_text(encoding="utf-8")


def receipt_schema() -> dict[str, Any]:
    """The receipt's JSON Schema (a fresh dict each call)."""
    return json.loads(_load("receipt"))


def frame_schema() -> dict[str, Any]:
    """The JSON Schema of ``atc hydrate --format json`` (``Frame.as_json()``); its
    ``receipt`` refers to :func:`receipt_schema` by ``$ref``, which is embedded (under
    ``$defs``, with its own ``$id``) so that the document validates alone: a library given
    this one schema has nothing to fetch."""
    schema = json.loads(_load("frame"))
    schema.setdefault("$defs", {})["receipt"] = receipt_schema()
    return schema


def ingest_schema() -> dict[str, Any]:
    """The JSON Schema of ``atc ingest --format-output json`` (``IngestReport.as_dict()``)."""
    return json.loads(_load("ingest"))


def stats_schema() -> dict[str, Any]:
    """The JSON Schema of ``atc stats --format json`` (``Memory.stats()``)."""
    return json.loads(_load("stats"))


def curate_schema() -> dict[str, Any]:
    """The JSON Schema of ``atc curate --format json`` (``CurateReport.as_dict()``), also of
    the value of each ``{"curate": ...}`` line of ``atc ingest --watch --curate``."""
    return json.loads(_load("curate"))


def query_schema() -> dict[str, Any]:
    """The JSON Schema of ``atc query --format json``: a list of rows, each variable's value
    (``Memory.query().rows``, the rows of ``POST /v1/query`` and of the MCP ``query`` tool)."""
    return json.loads(_load("query"))


def watch_schema() -> dict[str, Any]:
    """The JSON Schema of one line (one event) of ``atc watch --format-output json``."""
    return json.loads(_load("watch"))


@cache
def stamp_pattern() -> re.Pattern[str]:
    """The receipt schema's pattern of a time (ISO 8601), compiled once: a mounted frame
    checks every fact's ``time`` against it."""
    return re.compile(receipt_schema()["$defs"]["stamp"]["pattern"])


def schema_problems(document: Any, schema: str = "receipt") -> list[str]:
    """Every way ``document`` departs from the schema named (``receipt``, ``frame``,
    ``ingest``, ``stats``, ``curate``, ``watch`` or ``query``), one line each (``facts/0/level: 'L7' is not one of [...]``);
    empty when it conforms. UsageError for a schema of another name.

    Needs the ``jsonschema`` package (a dependency of attention-cloud)."""
    if schema not in _FILES:
        from ..errors import UsageError

        raise UsageError(f"schema must be one of {', '.join(_FILES)}, not {schema!r}")
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
            for e in sorted(_validator(schema).iter_errors(document),
                            key=lambda e: list(e.absolute_path).__repr__())]


@cache
def _validator(schema: str) -> Any:
    """The validator of one schema, its ``$ref`` to the other resolved (built once)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = {name: json.loads(_load(name)) for name in _FILES}
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values())
    return Draft202012Validator(schemas[schema], registry=registry)
