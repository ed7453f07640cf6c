"""Sockets a test holds open against a server, and whether the server closed them."""
from __future__ import annotations

import socket
import time
from pathlib import Path


def closed_by_server(held: list[socket.socket], within: float = 8) -> list[bool]:
    """For each of ``held``, whether the server closed it (its next read is the end) within
    ``within`` seconds; a socket still open then, or reset, is False."""
    closed = []
    for sock in held:
        sock.settimeout(within)
        try:
            closed.append(sock.recv(4096) == b"")
        except (socket.timeout, ConnectionResetError):
            closed.append(False)
    return closed


def _server_end(server_port: int, client_port: int) -> tuple[str, int] | None:
    """The state (hex, as the kernel lists it) and unread bytes of the server's end of the
    connection from ``client_port`` to ``server_port`` on 127.0.0.1, or None when not listed."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        ends = (int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16))
        if ends == (server_port, client_port):
            return fields[3], int(fields[4].split(":")[1], 16)
    return None


def wait_read_by_server(sock: socket.socket, within: float = 60) -> None:
    """Wait until the server has read all that was sent on ``sock`` (a connection to a server
    on 127.0.0.1): its end of the connection is established and nothing waits in its receive
    queue (Linux's /proc/net/tcp lists a connection not yet accepted, or accepted and not read,
    with the bytes it holds). A fixed sleep stood in for this: a request that reached a loaded
    server later than the sleep was still in its accept queue when the test stopped it."""
    client_port, server_port = sock.getsockname()[1], sock.getpeername()[1]
    deadline = time.monotonic() + within
    while _server_end(server_port, client_port) != ("01", 0):
        assert time.monotonic() < deadline, (f"the server had not read the request in {within} "
                                             "s", _server_end(server_port, client_port))
        time.sleep(0.02)


def wait_server_idle(server_port: int, within: float = 60) -> None:
    """Wait until the server on 127.0.0.1:``server_port`` holds no connection: none listed
    with its end established or waiting for it to close (a connection a test closed is
    CLOSE_WAIT until the server has seen the end). A server shared by tests of its bounds
    then starts each test as a fresh one would."""
    def held() -> list[str]:
        return [fields[3] for fields in (line.split() for line in
                                         Path("/proc/net/tcp").read_text().splitlines()[1:])
                if int(fields[1].split(":")[1], 16) == server_port
                and fields[3] in ("01", "08")]          # ESTABLISHED, CLOSE_WAIT

    deadline = time.monotonic() + within
    while held():
        assert time.monotonic() < deadline, f"the server still held {held()} after {within} s"
        time.sleep(0.02)
