#!/usr/bin/env python3
"""What `atc mcp`'s tools/list hands a client: the bytes of the whole listing, of each tool's
input and output schema, and what each output schema was while it carried the whole tool
document (every other tool's result schema beside its own, as qa116 first bundled them)::

    .venv/bin/python scripts/bench/mcp_listing.py

A client that puts tool definitions in a model's context pays for these bytes on every turn.
"""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from attention_cloud import schemas
from attention_cloud.agents.mcp_server import listed_tools
from attention_cloud.home import write_config


def size(document: object) -> int:
    """Bytes of ``document`` as JSON, compact as a client receives it."""
    return len(json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode())


def whole_document_bundle(name: str) -> dict:
    """A tool's output schema as qa116 first published it: a `$ref` into the whole tool
    document, embedded beside the schema files the tool's own result refers to."""
    document = schemas.schema("mcp")
    described = json.dumps(document["$defs"][name])
    embedded = {f"_{other}": schemas.schema(other)
                for other in schemas._referred("mcp", described)}
    return {"$ref": f"{document['$id']}#/$defs/{name}", "$defs": embedded}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        write_config(home, {"embedder": "hash"})
        tools = listed_tools(home)
    listing = {"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True)
                         for t in tools]}
    print("| tool | input schema bytes | output schema bytes | carrying the whole tool document |")
    print("|---|---|---|---|")
    outputs = whole = 0
    for tool in tools:
        out, before = size(tool.output_schema or {}), size(whole_document_bundle(tool.name))
        outputs, whole = outputs + out, whole + before
        print(f"| {tool.name} | {size(tool.input_schema)} | {out} | {before} |")
    print(f"| all ({len(tools)} tools) | | {outputs} | {whole} |")
    print(f"\ntools/list: {size(listing)} bytes")


if __name__ == "__main__":
    main()
