"""What a real `atc mcp` answers on stdio when its client ends or errs.

A client that closes stdin while a call runs still reads the call's true answer, and the
server then ends.

The MCP specification's stdio shutdown has a client close the server's stdin and wait for it
to exit. A `remember` still running then was answered `-32000 Connection closed` (the SDK's
session ended at the end of stdin and cancelled the call) while memory's worker thread went
on and stored the item: the agent was told the write failed and it had not.

A request whose params its method's types refuse (a tools/call without a name), or one sent
before the handshake, was answered `-32602 Invalid request parameters` with no word of why."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

ATC = str(Path(sys.executable).parent / "atc")

_INIT = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
         '"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n'
         '{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def _call(ident: int, tool: str, arguments: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                       "params": {"name": tool, "arguments": arguments}}) + "\n"


def _send_then_close(home: Path, lines: str, handshake: bool = True) -> tuple[list[dict], int]:
    """LINES written to a fresh `atc mcp` after the handshake, stdin closed at once (the
    server has not opened memory yet, so each call is still running): every reply it wrote
    before it ended, and its exit status."""
    server = subprocess.Popen([ATC, "mcp"], env={**os.environ, "ATC_HOME": str(home)},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    out, _ = server.communicate(((_INIT if handshake else "") + lines).encode(), timeout=120)
    return [json.loads(line) for line in out.splitlines() if line.strip()], server.returncode


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    return home


def test_a_remember_running_when_stdin_closes_gets_its_true_answer(home: Path) -> None:
    text = "the staging database is read-only on Fridays"
    replies, status = _send_then_close(home, _call(2, "remember", {"text": text}))
    (answer,) = [r for r in replies if r.get("id") == 2]
    assert "error" not in answer, answer
    result = answer["result"]
    assert not result.get("isError"), result
    assert result["structuredContent"]["new"] is True
    assert status == 0
    # what the answer says is what the home holds: the item was stored
    again, _ = _send_then_close(home, _call(3, "remember", {"text": text}))
    (second,) = [r for r in again if r.get("id") == 3]
    assert second["result"]["structuredContent"]["new"] is False


def test_every_request_sent_before_stdin_closed_is_answered_in_full(home: Path) -> None:
    """Two calls and a ping in flight at the end of stdin: three answers, none of them the
    shutdown's `Connection closed`; a cancelled request is not waited for."""
    lines = (_call(2, "remember", {"text": "first note", "kind": "decision"})
             + _call(3, "query", {"goal": "item_kind(H, decision)"})
             + '{"jsonrpc":"2.0","id":4,"method":"ping"}\n'
             + _call(5, "query", {"goal": "repeat, fail", "time_limit": 2})
             + '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}\n')
    replies, status = _send_then_close(home, lines)
    by_id = {r.get("id"): r for r in replies}
    assert {2, 3, 4} <= set(by_id), replies
    assert all("error" not in by_id[i] for i in (2, 3, 4)), replies
    assert by_id[3]["result"]["structuredContent"]["rows"], by_id[3]
    assert status == 0


def test_params_a_method_cannot_read_are_named_in_one_line(home: Path) -> None:
    lines = "".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
                    + "\n" for i, method, params in (
                        (2, "tools/call", {"arguments": {}}),
                        (3, "tools/call", {"name": "query", "arguments": 5}),
                        (4, "resources/read", {}),
                        (5, "tools/call", {"name": "query", "arguments": {"goal": "true"}})))
    replies, _ = _send_then_close(home, lines)
    by_id = {r.get("id"): r for r in replies}
    assert by_id[2]["error"] == {"code": -32602, "message": "Invalid params: name: Field required"}
    assert by_id[3]["error"]["message"] == \
        "Invalid params: arguments: Input should be a valid dictionary"
    assert by_id[4]["error"]["message"] == "Invalid params: uri: Field required"
    assert by_id[5]["result"]["structuredContent"]["rows"] == [{}]


def test_a_request_before_the_handshake_says_so(home: Path) -> None:
    replies, _ = _send_then_close(home, _call(2, "query", {"goal": "true"}), handshake=False)
    (answer,) = replies
    assert answer["error"] == {
        "code": -32602, "message": "tools/call came before the session was initialized: send "
                                   "initialize, then notifications/initialized, first"}


def test_an_initialize_whose_params_do_not_read_names_them_not_the_handshake(home: Path) -> None:
    """The initialize request is the handshake: its refusal names the params it lacks (it
    was answered "initialize came before the session was initialized")."""
    replies, _ = _send_then_close(
        home, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n', handshake=False)
    (answer,) = replies
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"].startswith("Invalid params: protocolVersion: Field required")


def test_a_failed_call_is_one_line_on_stderr(home: Path) -> None:
    """The SDK's rich logger wrapped `Tool 'remember' failed: …` over several lines of a
    client's log (stderr is a pipe: 80 columns); it is one line, as the CLI's errors."""
    server = subprocess.Popen([ATC, "mcp"], env={**os.environ, "ATC_HOME": str(home)},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    calls = (_call(2, "remember", {"text": "   "})
             + _call(3, "show", {"handle": "it_" + "no-such-handle-" * 8}))
    out, err = server.communicate((_INIT + calls).encode(), timeout=120)
    replies = {r.get("id"): r for r in map(json.loads, out.splitlines()) if r}
    assert replies[2]["result"]["isError"] and replies[3]["result"]["isError"]
    lines = sorted(err.decode().splitlines())
    assert len(lines) == 2, lines
    assert lines[0].startswith("atc mcp: Tool 'remember' failed: ") \
        and lines[0].endswith("nothing to remember: the text is empty'"), lines
    assert lines[1].startswith("atc mcp: Tool 'show' failed: ") \
        and lines[1].endswith("no such item, arc, rollup or cell in this memory'"), lines
