"""`atc mcp --http` bounds its connections as `atc serve` does.

Any process of any user of the machine can reach its loopback port, with no token: a
connection that sent nothing, or a request line and never the end of its headers, was held
open for ever (still open after 210 s), so such callers could hold every file descriptor of the
server and leave the owner's agent without memory. Now each request's headers have
HEADERS_TIMEOUT seconds to arrive, a connection that comes when MAX_CONNECTIONS are open closes
the one waiting longest for its headers, and past MAX_CONNECTIONS each holding a request a caller
is answered 503 at once.
The bearer of the token whose request body never finished held its connection (and what of the
body had come) for ever; now the body has BODY_TIMEOUT seconds, as in `atc serve`, then 408.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from test_agents_mcp import start_http
from held_sockets import closed_by_server, wait_read_by_server, wait_server_idle

TOKEN = "t" * 32


def _start(home: Path, body_timeout: float = 1.0) -> tuple[subprocess.Popen, int]:
    """`atc mcp --http` with the serving bounds shortened (headers 1 s, the body
    ``body_timeout``, 4 connections)."""
    code = ("import attention_cloud.sharing.server as s\n"
            f"s.HEADERS_TIMEOUT = 1.0\ns.BODY_TIMEOUT = {body_timeout}\ns.MAX_CONNECTIONS = 4\n"
            "from attention_cloud.cli import main\n"
            "main(['mcp', '--http', '--port', '0'])")
    env = {**os.environ, "ATC_HOME": str(home), "ATC_MCP_TOKEN": TOKEN}
    server, port, _line = start_http([sys.executable, "-c", code], env)
    return server, port


@contextmanager
def _server(home: Path, body_timeout: float = 1.0):
    """The port of a listening server (as _start makes it), stopped when the block ends."""
    server, port = _start(home, body_timeout)
    try:
        yield port
    finally:
        server.terminate()
        server.wait(timeout=60)


@contextmanager
def _held():
    """A list for the sockets a test holds, all closed, whatever the test asserts, when the
    block ends."""
    held: list[socket.socket] = []
    try:
        yield held
    finally:
        for sock in held:
            sock.close()


@pytest.fixture(scope="module")
def _bounded_server(tmp_path_factory):
    """One server (as _start makes it) for the tests of the default bounds: each start cost
    seconds of CPU (Python, the SDK whole, its HTTP stack), and what these tests check, how it
    treats connections, depends on the connections it holds, which ``serving`` empties."""
    with _server(tmp_path_factory.mktemp("bounds") / "home") as port:
        yield port


@pytest.fixture
def serving(_bounded_server):
    """The shared server's port, holding no connection when the test starts (as a fresh
    server), and a list for the sockets the test holds."""
    wait_server_idle(_bounded_server)
    with _held() as held:
        yield _bounded_server, held


def _status(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        return sock.recv(4096).split(b"\r\n", 1)[0]


def test_a_connection_that_never_finishes_its_headers_is_closed(serving):
    port, held = serving
    for n in range(2):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        if n == 1:
            sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        held.append(sock)
    closed = closed_by_server(held)
    answer = _status(port, b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert closed == [True, True]
    assert answer.startswith(b"HTTP/1.1 401"), answer


def _authorised_post(length: int) -> bytes:
    """The head of an authorised MCP request whose body is ``length`` bytes."""
    return (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
            b"Content-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\n"
            b"Content-Length: " + str(length).encode() + b"\r\n\r\n")


def _body_in_progress(port: int) -> socket.socket:
    """A connection holding an authorised request whose body has not all come."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(_authorised_post(100) + b"{\"jsonrpc\": ")
    wait_read_by_server(sock)
    return sock


def test_past_its_connections_a_caller_is_answered_503_at_once(tmp_path):
    with _server(tmp_path / "home", body_timeout=60.0) as port, _held() as held:
        held.extend(_body_in_progress(port) for _ in range(3))    # with the caller's, 4
        answer = _status(port, b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 503"), answer


def test_connections_held_half_open_do_not_keep_the_owners_agent_out(serving):
    """Any local process, without the token, holding every connection with a request line
    each (opened again as the headers' deadline closed it) had the owner's agent answered 503
    for as long as it went on; the newest connection now closes the one waiting longest."""
    port, held = serving
    for _ in range(6):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        held.append(sock)
    answer = _status(port, b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 401"), answer     # answered: it reached the token check


def test_an_authorised_body_that_never_finishes_is_answered_408(serving):
    port, _ = serving
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(_authorised_post(100) + b"{\"jsonrpc\": ")
        sock.settimeout(8)
        answer = b""
        try:   # the headers and the body may arrive apart: read until the server closes
            while chunk := sock.recv(4096):
                answer += chunk
        except socket.timeout:
            answer += b"(nothing more within 8 s)"
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b"did not arrive within" in answer, answer


def test_an_authorised_body_over_the_sdks_limit_is_answered_413_in_json(serving):
    """README: a body over 4 MiB is a 413 whose answer is JSON, as every refusal of the
    served surfaces is (the SDK's own answer was plain text)."""
    body = b"x" * (4 * 1024 * 1024 + 1)
    port, _ = serving
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(_authorised_post(len(body)))
        try:
            sock.sendall(body)
        except (BrokenPipeError, ConnectionResetError):
            pass                      # refused before all of it was read
        sock.settimeout(8)
        answer = b""
        try:
            while chunk := sock.recv(4096):
                answer += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    assert answer.startswith(b"HTTP/1.1 413"), answer[:300]
    assert b"application/json" in answer and b'{"error"' in answer, answer[:300]


def test_a_token_in_a_url_is_written_to_no_log(tmp_path):
    """uvicorn's access log wrote each request's path with its query string to stdout, so a
    token a client sent in the URL (`?access_token=`, RFC 6750's form for it) stood in the
    server's log, right or wrong: `atc serve` writes no access log, and now neither does this."""
    code = "from attention_cloud.cli import main\nmain(['mcp', '--http', '--port', '0'])"
    env = {**os.environ, "ATC_HOME": str(tmp_path / "home"), "ATC_MCP_TOKEN": TOKEN}
    server = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        for query in (f"access_token={TOKEN}", "token=guessed-wrong-0123456789"):
            status = _status(port, f"GET /mcp?{query} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert status == b"HTTP/1.1 401 Unauthorized", status
    finally:
        server.terminate()
        logged = server.communicate(timeout=60)[0]
    assert TOKEN not in logged and "guessed-wrong" not in logged, logged[-2000:]
