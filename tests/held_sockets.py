"""Sockets a test holds open against a server, and whether the server closed them."""
from __future__ import annotations

import socket


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
