"""`atc mcp` over stdio starts without the MCP SDK's HTTP stack, and answers as before.

The SDK imports its HTTP transport (starlette, sse_starlette, uvicorn), its HTTP client
(httpx2) and its own client at the tops of the modules every server loads: about a quarter of
the CPU the server spent before it answered `initialize`, paid by every agent session, for
code stdio never runs. `mcp_sdk.import_for_stdio` defers those modules while the stdio server
imports the SDK (each name imported at its first use); the answers of a whole session, every
tool and resource, are the same bytes as a server importing the SDK whole.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parent.parent

#: A server process running `atc mcp`: as the `atc` script does, saying at its exit on stderr
#: which modules it had imported; or with the SDK imported whole first (as before
#: `import_for_stdio`, which then leaves it as it is).
STDIO = [sys.executable, "-c",
         "import atexit, json, sys\n"
         "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
         "from attention_cloud.cli import run; run()", "mcp"]
WHOLE = [sys.executable, "-c", "import mcp; from attention_cloud.cli import run; run()", "mcp"]

#: What a stdio server never runs; none of it may be imported while it serves a session.
HTTP_ONLY = ("starlette", "sse_starlette", "uvicorn", "httpx2", "mcp.client",
             "mcp.server.streamable_http", "mcp.server.sse", "mcp.server.auth.routes")


def _session(argv: list[str], home: Path) -> tuple[list[bytes], str]:
    """One stdio session of the server ``argv`` on ``home``, a request at a time: the
    handshake, the listings, every tool (one of them refused), every resource. Each answer's
    bytes, and what the server wrote on stderr."""
    server = subprocess.Popen(argv, env={**os.environ, "ATC_HOME": str(home)},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    answers: list[bytes] = []

    def ask(method: str, params: dict | None = None) -> dict:
        message = {"jsonrpc": "2.0", "id": len(answers) + 1, "method": method,
                   **({} if params is None else {"params": params})}
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        answers.append(server.stdout.readline())
        return json.loads(answers[-1])

    def call(tool: str, **arguments) -> dict:
        return ask("tools/call", {"name": tool, "arguments": arguments})["result"]

    try:
        ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "start", "version": "1"}})
        server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        ask("tools/list")
        ask("resources/list")
        ask("resources/templates/list")
        frame = call("hydrate", goal="why did the tests fail", budget=400,
                     now="2026-01-20T00:00:00Z")
        receipt = frame["structuredContent"]["receipt_id"]
        call("receipt", receipt_id=receipt)
        ask("resources/read", {"uri": f"receipt://{receipt}"})
        ask("resources/read", {"uri": "receipts://recent"})
        rows = call("query", goal="item_kind(H, K)", limit=3)["structuredContent"]["rows"]
        call("show", handle=rows[0]["H"], level="L1", source=True)
        kept = call("remember", text="the deploy switches blue-green", kind="decision")
        call("forget", handle=kept["structuredContent"]["handle"])
        call("attend", goal_id="deploy", depends_on=["no-such-belief"])
        call("claim", text="libfoo is at 4.1", claim_type="dependency_version")
        call("query", goal="shell(ls)")
    finally:
        server.stdin.close()
        err = server.stderr.read().decode("utf-8", "replace")
        server.wait(timeout=60)
    return answers, err


def _same_home_each_time(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of ``built`` at one path (answers name the home's files)."""
    home = tmp_path / "home"
    shutil.rmtree(home, ignore_errors=True)
    return Path(shutil.copytree(built, home))


def _normalised(answer: bytes, receipts: dict[str, str]) -> bytes:
    """An answer with what differs from run to run put in order: receipt ids (random) by
    first appearance, a receipt's creation time, and the journal's size around a forget (its
    records hold the time they were written)."""
    def receipt(found: re.Match) -> str:
        return receipts.setdefault(found.group(0), f"r_{len(receipts):016d}")

    text = re.sub(r"r_[0-9a-f]{16}", receipt, answer.decode("utf-8"))
    text = re.sub(r'(\\?"created\\?":\\?")[0-9T:Z-]+', r"\1CREATED", text)
    return re.sub(r'(journal_bytes\\?":\{\\?"before\\?":)\d+(,\\?"after\\?":)\d+',
                  r"\1B\2A", text).encode()


@pytest.fixture(scope="module")
def sessions(tmp_path_factory, built_home):
    """The same session with `atc mcp` as it starts and with the SDK imported whole, each on
    a fresh copy of the curated samples at one path."""
    from conftest import _curate_the_samples

    tmp = tmp_path_factory.mktemp("start")
    built = built_home("samples-hash-curated", _curate_the_samples, tmp / "built")
    return {name: _session(argv, _same_home_each_time(built, tmp))
            for name, argv in (("stdio", STDIO), ("whole", WHOLE))}


def test_a_stdio_session_imports_no_http_stack(sessions) -> None:
    answers, err = sessions["stdio"]
    imported = json.loads(err.splitlines()[-1])
    assert "mcp.server.mcpserver.server" in imported and "mcp_types" in imported
    loaded = sorted(name for name in imported
                    if any(name == top or name.startswith(top + ".") for top in HTTP_ONLY))
    assert loaded == [], loaded
    # every answer came: the tools' refusals (an unknown belief, a sandboxed goal) alone
    refused = [json.loads(answer)["id"] for answer in answers if b'"isError":true' in answer]
    assert len(answers) == 15 and refused == [13, 15], answers


def test_a_stdio_session_answers_the_same_bytes_as_with_the_sdk_whole(sessions) -> None:
    stdio, whole = sessions["stdio"][0], sessions["whole"][0]
    assert len(stdio) == len(whole) == 15
    ids: tuple[dict, dict] = ({}, {})
    assert [_normalised(a, ids[0]) for a in stdio] == [_normalised(a, ids[1]) for a in whole]


_FAKE_SDK = {
    # stands for an HTTP package: what it makes says it ran
    "fakehttp/__init__.py": "RAN = []\n",
    "fakehttp/app.py": ("import fakehttp\nfakehttp.RAN.append('app')\n"
                        "LIMIT = 4\nclass App:\n    kind = 'real'\n"
                        "def make():\n    return App()\n"),
    # stands for the SDK: binds the HTTP package's names, uses one only if told to
    "fakesdk/__init__.py": ("import os\nfrom fakehttp.app import LIMIT, App, make\n"
                            "if os.environ.get('FAKESDK_SUBCLASS'):\n"
                            "    class Mine(App):\n        pass\n"
                            "def answer(x: App | None = None):\n    return 'answered'\n"),
}


def _fake_run(tmp_path: Path, program: str, **env: str) -> list:
    """``program`` run in a fresh interpreter after ``import_for_stdio`` took the fake SDK
    (fakesdk, its HTTP package fakehttp deferred); what it prints, read as JSON."""
    for name, text in _FAKE_SDK.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    prelude = ("import json, sys\nfrom attention_cloud.agents import mcp_sdk\n"
               "mcp_sdk.DEFERRED = ('fakehttp',)\nmcp_sdk.STDIO_MODULES = ('fakesdk',)\n"
               "mcp_sdk.import_for_stdio()\nimport fakesdk, fakehttp\n")
    out = subprocess.run([sys.executable, "-c", prelude + program],
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(
                             [str(tmp_path), str(ROOT / "host")]), **env},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_deferred_name_is_imported_at_its_first_use(tmp_path: Path) -> None:
    seen = _fake_run(tmp_path, (
        "before = (list(fakehttp.RAN), fakesdk.answer(), list(mcp_sdk.resolved))\n"
        "made = fakesdk.make()\n"
        "limit = [fakesdk.LIMIT > 3, len(range(fakesdk.LIMIT))]\n"
        "print(json.dumps([before, fakehttp.RAN, made.kind, isinstance(made, fakesdk.App),\n"
        "                  limit, mcp_sdk.resolved, type(sys.modules['fakehttp']).__name__]))\n"))
    before, ran, kind, is_app, limit, resolved, module_type = seen
    assert before == [[], "answered", []]         # bound, even in an annotation: not run
    assert ran == ["app"] and kind == "real" and is_app
    assert limit == [True, 4]                     # a constant compared, counted
    assert resolved == ["fakehttp.app.make", "fakehttp.app.LIMIT", "fakehttp.app.App"]
    assert module_type == "module"                # a later import gets the real package


def test_an_sdk_that_uses_a_deferred_name_as_it_is_imported_is_imported_whole(
        tmp_path: Path) -> None:
    """A release of the SDK that subclassed an HTTP class at import would get nothing of the
    deferral: the attempt is discarded and the SDK imported whole, as without it."""
    seen = _fake_run(tmp_path, (
        "print(json.dumps([fakehttp.RAN, fakesdk.Mine.__mro__[1] is sys.modules['fakehttp.app'].App,\n"
        "                  fakesdk.Mine().kind, mcp_sdk.resolved]))\n"), FAKESDK_SUBCLASS="1")
    assert seen == [["app"], True, "real", []]
