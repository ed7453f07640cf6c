"""`atc mcp` answers a message nested deeper than Python's JSON decoder goes (~1,000 levels,
a line of a few kilobytes) with a JSON-RPC parse error, and serves the requests after it
(round 36, qa226). The SDK's own reader refuses it, the server's screen of the line decoded
it again to say why, and that decode's RecursionError ended the server: every later request
of the client went unanswered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ATC = str(Path(sys.executable).parent / "atc")
_INIT = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
         '"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n'
         '{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def test_a_message_nested_past_the_decoder_is_a_parse_error_and_the_server_goes_on(tmp_path):
    deep = ('{"jsonrpc":"2.0","id":2,"method":"ping","params":{"deep":'
            + "[" * 5000 + "]" * 5000 + "}}")
    done = subprocess.run([ATC, "mcp"], env={**os.environ, "ATC_HOME": str(tmp_path / "home")},
                          input=(_INIT + deep + '\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
                          .encode(), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["id"] for r in replies] == [1, None, 3]
    assert replies[1]["error"] == {"code": -32700, "message": "Parse error: JSON nested too deeply"}
    assert replies[2]["result"] == {}
