"""`atc mcp --http` stopped as a service manager or a terminal stops it: SIGTERM or Ctrl-C
ends it with exit 0 and no traceback, serving or still starting. uvicorn (inside the MCP SDK)
raises the signal again once it has stopped, which ended the process by SIGTERM itself
(exit -15) or as `atc: interrupted` (exit 130)."""
from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from test_agents_mcp import ATC, _free_port, _wait_listening


def _start(home: Path) -> tuple[subprocess.Popen, int]:
    port = _free_port()
    env = {**os.environ, "ATC_HOME": str(home)}
    env.pop("ATC_MCP_TOKEN", None)
    server = subprocess.Popen([ATC, "mcp", "--http", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return server, port


def _stopped(server: subprocess.Popen, sig: int) -> tuple[int, str]:
    server.send_signal(sig)
    try:
        code = server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        raise
    return code, server.stderr.read()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_of_a_serving_mcp_http_server_exits_0(tmp_path, sig):
    server, port = _start(tmp_path / "home")
    _wait_listening(port, server)
    code, stderr = _stopped(server, sig)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "interrupted" not in stderr, stderr


def test_a_stop_as_soon_as_the_serving_line_is_printed_exits_0(tmp_path):
    """The serving line comes before uvicorn takes the signals over: a script that stops the
    server on seeing it found the process killed by the signal."""
    server, _ = _start(tmp_path / "home")
    assert server.stderr.readline().startswith("atc mcp: serving http://127.0.0.1:")
    code, stderr = _stopped(server, signal.SIGTERM)
    assert code == 0, stderr
    assert "Traceback" not in stderr, stderr
