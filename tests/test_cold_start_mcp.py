"""`atc mcp` over stdio builds only the MCP SDK's pydantic models its session uses.

The SDK's types (`mcp_types`) define some 500 pydantic models: each protocol construct once in
the version-free form and once per protocol version's wire shape. pydantic built each one's
validator and serializer as it was defined, ~0.35 s of the CPU `atc mcp` spent before it
answered `initialize`, for sampling, elicitation, tasks and a protocol version no session of
this server uses. `mcp_sdk.import_for_stdio` has them built at first use; what each answers is
checked byte for byte against a server with the SDK imported whole in
`tests/test_mcp_stdio_start.py`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("mcp")

#: `atc mcp`, as the `atc` script runs it, saying at its exit on stderr which of the SDK's
#: models have built their validators, and whether models made after the SDK's import are
#: still deferred (they must not be: the server's own tools' argument models).
SERVER = [sys.executable, "-c",
          "import atexit, json, sys\n"
          "def report():\n"
          "    import pydantic, mcp_types, mcp_types._v2025_11_25 as wire\n"
          "    def built(module):\n"
          "        return sorted(n for n, v in vars(module).items() if isinstance(v, type)\n"
          "                      and issubclass(v, pydantic.BaseModel)\n"
          "                      and v.__module__ == module.__name__ and v.__pydantic_complete__)\n"
          "    later = pydantic.create_model('Later', x=(int, 1))\n"
          "    print(json.dumps({'types': built(sys.modules['mcp_types._types']),\n"
          "                      'wire': built(wire),\n"
          "                      'later': later.__pydantic_complete__,\n"
          "                      'config': 'defer_build' in pydantic.BaseModel.model_config}),\n"
          "          file=sys.stderr)\n"
          "atexit.register(report)\n"
          "from attention_cloud.cli import run; run()", "mcp"]


def _session(home) -> tuple[list[dict], dict]:
    """A session of handshake, tool listing and a query; its answers and the server's report."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "cold-start", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "query", "arguments": {"goal": "item_kind(H, K)", "limit": 1}}},
    ]
    server = subprocess.Popen(SERVER, env={**os.environ, "ATC_HOME": str(home)},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    answers = []
    try:
        for request in requests:
            server.stdin.write(json.dumps(request).encode() + b"\n")
            server.stdin.flush()
            if "id" in request:
                answers.append(json.loads(server.stdout.readline()))
    finally:
        server.stdin.close()
        err = server.stderr.read().decode("utf-8", "replace")
        server.wait(timeout=60)
    return answers, json.loads(err.splitlines()[-1])


def test_a_stdio_session_builds_only_the_models_it_uses(curated_samples_home) -> None:
    answers, report = _session(curated_samples_home)
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert answers[0]["result"]["serverInfo"]["name"] == "attention-cloud"
    assert {tool["name"] for tool in answers[1]["result"]["tools"]} >= {"hydrate", "query"}
    assert answers[2]["result"]["isError"] is False
    assert answers[2]["result"]["structuredContent"]["rows"]
    # what the session used is built; what no session of this server uses is not
    assert "InitializeResult" in report["types"] and "CallToolResult" in report["types"]
    for unused in ("CreateMessageRequest", "ElicitRequest", "CancelTaskRequest",
                   "ListRootsResult"):
        assert unused not in report["types"], unused
        assert unused not in report["wire"], unused
    assert "InitializeRequest" in report["wire"]
    # most of them are never built (on main every one of them was)
    assert len(report["wire"]) < 30, report["wire"]
    # the models made after the SDK's import are built as pydantic builds them by default
    assert report["later"] is True and report["config"] is False
