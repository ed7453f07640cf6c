"""`atc mcp --http` stopped as a service manager or a terminal stops it: SIGTERM or Ctrl-C
ends it with exit 0 and no traceback, serving or still starting. uvicorn (inside the MCP SDK)
raises the signal again once it has stopped, which ended the process by SIGTERM itself
(exit -15) or as `atc: interrupted` (exit 130)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from test_agents_mcp import ATC, start_http


def _start(home: Path) -> tuple[subprocess.Popen, int]:
    """A server started on a free port; it listens once this returns (its serving line read)."""
    env = {**os.environ, "ATC_HOME": str(home)}
    env.pop("ATC_MCP_TOKEN", None)
    server, port, _line = start_http([ATC, "mcp", "--http", "--port", "0"], env)
    return server, port


def _wait_answering(port: int) -> None:
    """Until the server answers a request (a 401: no token), not only accepts connections."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert sock.recv(64).startswith(b"HTTP/1.1 401"), "the server never answered"


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
    _wait_answering(port)       # uvicorn has taken the signals over
    code, stderr = _stopped(server, sig)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "interrupted" not in stderr, stderr


def test_a_stop_as_soon_as_the_serving_line_is_printed_exits_0(tmp_path):
    """The serving line comes before uvicorn takes the signals over: a script that stops the
    server on seeing it found the process killed by the signal."""
    server, _ = _start(tmp_path / "home")     # returns on the serving line
    code, stderr = _stopped(server, signal.SIGTERM)
    assert code == 0, stderr
    assert "Traceback" not in stderr, stderr
