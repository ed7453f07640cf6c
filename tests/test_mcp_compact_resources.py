"""The MCP server's text is compact JSON (every tool's result), but its two resources,
`receipt://ID` and `receipts://recent`, were indented: a receipt read by a model cost it
about a third more tokens for the same content. Both are compact now, and hold what
`atc receipt ID` prints."""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("mcp")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    from attention_cloud import Memory
    from attention_cloud.agents.mcp_server import build_server
    from attention_cloud.home import write_config

    home = tmp_path_factory.mktemp("mcp-res") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        mem.remember("the staging DB is read-only on Fridays")
        receipt_id = mem.hydrate("staging on Friday", budget=300).receipt_id
    server = build_server(home)
    yield server, receipt_id, home
    server.atc_close()


def _read(server, uri: str) -> str:
    contents = list(asyncio.run(server.read_resource(uri)))
    assert len(contents) == 1
    return contents[0].content


@pytest.mark.parametrize("uri", ["receipt://{rid}", "receipts://recent"])
def test_resources_are_compact_json(served, uri: str) -> None:
    server, receipt_id, home = served
    text = _read(server, uri.format(rid=receipt_id))
    value = json.loads(text)
    assert text == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_the_receipt_resource_holds_the_stored_receipt(served) -> None:
    from attention_cloud.hydration import load_receipt

    server, receipt_id, home = served
    assert json.loads(_read(server, f"receipt://{receipt_id}")) == load_receipt(home, receipt_id)
