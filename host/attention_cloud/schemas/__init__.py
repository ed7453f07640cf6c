"""The JSON Schemas (draft 2020-12) of what scripts read: the receipt, the frame as JSON, and
every other JSON output of the CLI, the API, ``atc serve`` and the MCP tools.

The schema files ship in this package, one per output (``NAME.schema.json``, NAME one of
:data:`SCHEMA_NAMES`); a script may load one with :func:`schema` (or :func:`receipt_schema`,
:func:`frame_schema`, ... for the first seven), print it with the command's ``--schema`` (``atc
show --schema``, ``atc belief list --schema``; ``atc receipt --schema [frame]``) and validate
with any JSON Schema library; :func:`schema_problems` does it here. :data:`COMMANDS` says which
command prints which. Objects allow fields the schema does not name: releases add fields,
never rename or remove one.
"""
from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

#: The JSON output each schema describes, by the schema's name (its file is NAME.schema.json).
COMMANDS = {
    "receipt": "atc receipt RID (and each frame's `receipt`)",
    "frame": "atc hydrate --format json",
    "ingest": "atc ingest --format-output json",
    "stats": "atc stats --format json",
    "curate": "atc curate --format json",
    "watch": "one line of atc watch --format-output json",
    "query": "atc query --format json",
    "show": "atc show HANDLE --format json (also --as, the MCP show tool, GET /v1/show)",
    "forget": "atc forget ... --format json (also --dry-run, the MCP forget tool)",
    "remember": "atc remember TEXT --format json (also the MCP remember tool)",
    "rules": "atc rules list --format json",
    "cells": "atc cells list --format json",
    "cell": "atc cells show CELL --format json",
    "hot_cells": "atc cells hot --format json",
    "cells_rebuild": "atc cells rebuild --format json",
    "principals": "atc principal list --format json",
    "grants": "atc grant list --format json",
    "mounts": "atc mount list --format json",
    "audit": "atc audit --format json",
    "labels": "atc label HANDLE... --format json (with --show or after setting labels)",
    "belief": "atc belief show ID --format json",
    "beliefs": "atc belief list --format json",
    "why": "atc belief why ID --format json",
    "attend": "atc attend --format json (also the MCP attend tool)",
    "inspect": "atc inspect ID --format json",
    "claim": "atc claim TEXT --format json (also the MCP claim tool)",
    "trace": "atc trace --format json",
    "mcp": "the structured result of each MCP tool, by tool ($defs; each tool's outputSchema)",
    "serve": "the body of each answer of atc serve, by endpoint ($defs), and of its refusals",
}
#: Every schema's name.
SCHEMA_NAMES = tuple(COMMANDS)
#: The schema files by the name a ``$ref`` uses.
_FILES = {name: f"{name}.schema.json" for name in SCHEMA_NAMES}


@cache
def _load(name: str) -> str:
    return resources.files(__name__).joinpath(_FILES[name]).read_text(encoding="utf-8")


def schema(name: str) -> dict[str, Any]:
    """The JSON Schema named ``name`` (one of :data:`SCHEMA_NAMES`; a fresh dict each call).
    UsageError for another name."""
    _known(name)
    return json.loads(_load(name))


def _known(name: str) -> None:
    if name not in _FILES:
        from ..errors import UsageError

        raise UsageError(f"schema must be one of {', '.join(_FILES)}, not {name!r}")


def receipt_schema() -> dict[str, Any]:
    """The receipt's JSON Schema (a fresh dict each call)."""
    return json.loads(_load("receipt"))


def frame_schema() -> dict[str, Any]:
    """The JSON Schema of ``atc hydrate --format json`` (``Frame.as_json()``); its
    ``receipt`` refers to :func:`receipt_schema` by ``$ref``, which is embedded (under
    ``$defs``, with its own ``$id``) so that the document validates alone: a library given
    this one schema has nothing to fetch."""
    return standalone("frame")


def standalone(name: str) -> dict[str, Any]:
    """The schema ``name`` as a document that validates alone: every schema it refers to,
    directly or not, embedded under its ``$defs`` (by name, each keeping its own ``$id``), so a
    JSON Schema library given this one document has nothing to fetch (what each command's
    ``--schema`` prints)."""
    document = json.loads(_load(name))
    for other in _referred(name, json.dumps(document))[1:]:
        embedded = json.loads(_load(other))
        embedded.pop("$schema", None)
        document.setdefault("$defs", {})[other] = embedded
    return document


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


def schema_problems(document: Any, schema: str = "receipt",
                    definition: str | None = None) -> list[str]:
    """Every way ``document`` departs from the schema named (one of :data:`SCHEMA_NAMES`), or
    from its ``$defs`` entry ``definition`` (``"serve", "hydrate"``: the schemas of several
    answers, ``mcp`` and ``serve``, hold one entry each), one line each (``facts/0/level: 'L7'
    is not one of [...]``); empty when it conforms. UsageError for a schema or entry of another
    name.

    Needs the ``jsonschema`` package (a dependency of attention-cloud)."""
    _known(schema)
    if definition is not None and definition not in json.loads(_load(schema)).get("$defs", {}):
        from ..errors import UsageError

        raise UsageError(f"the {schema} schema has no entry {definition!r}")
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(top)'}: {e.message}"
            for e in sorted(_validator(schema, definition).iter_errors(document),
                            key=lambda e: list(e.absolute_path).__repr__())]


@cache
def _validator(schema: str, definition: str | None = None) -> Any:
    """The validator of one schema (or of one of its ``$defs``), its ``$ref`` to the others
    resolved (built once)."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schemas = {name: json.loads(_load(name)) for name in _FILES}
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas.values())
    target = schemas[schema] if definition is None else \
        {"$ref": f"{schemas[schema]['$id']}#/$defs/{definition}"}
    return Draft202012Validator(target, registry=registry)


def bundled(name: str, definition: str | None = None) -> dict[str, Any]:
    """The schema ``name`` (or its ``$defs`` entry ``definition``) as one self-contained
    document: the schemas it refers to, directly or not, are embedded under ``$defs`` by their
    ``$id`` (only those: an MCP client receives every tool's in one listing), so a
    validator resolves each ``$ref`` without fetching anything (what an MCP tool publishes as
    its outputSchema: clients resolve a ``$ref`` only within the document)."""
    _known(name)
    document = json.loads(_load(name))
    described = document["$defs"][definition] if definition else document
    target = document["$id"] + (f"#/$defs/{definition}" if definition else "")
    text = json.dumps(described)
    # A definition that refers to no sibling under its own file's $defs is bundled alone:
    # every MCP tool's outputSchema would otherwise carry every other tool's too.
    alone = definition is not None and '"#/$defs/' not in text
    others = _referred(name, text)[1:] if alone else _referred(name, text)
    embedded = {f"_{other}": json.loads(_load(other)) for other in others}
    for each in embedded.values():
        each.pop("$schema", None)
    bundle: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    if alone:   # its relative $refs resolve beside its own file, as they did inside it
        base = document["$id"].rsplit("/", 1)[0]
        return {**bundle, "$id": f"{base}/{name}-{definition}.schema.json", **described,
                "$defs": {**described.get("$defs", {}), **embedded}}
    if "type" in described:     # MCP before 2026-07-28 wants `type: object` at the root
        bundle["type"] = described["type"]
    return {**bundle, "$ref": target, "$defs": embedded}


def _referred(name: str, start: str) -> list[str]:
    """``name`` and every schema the schema text ``start`` (a part of it) refers to by
    ``$ref``, directly or through another, by name (a ``$ref`` to another file names it:
    ``receipt.schema.json#/$defs/fact``)."""
    found, texts = [name], [start]
    for text in texts:
        for other in re.findall(r'"\$ref":\s*"([a-z_]+)\.schema\.json', text):
            if other not in found:
                found.append(other)
                texts.append(_load(other))
    return found
