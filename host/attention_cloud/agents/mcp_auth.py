"""Who may talk to ``atc mcp --http``: the bearer of the server's token, and no one else.

The MCP tools read and write the whole home as its owner (``forget`` erases), so over HTTP
every request must carry ``Authorization: Bearer TOKEN``; a missing, malformed or wrong one is
answered 401 before the MCP SDK sees the request. Loopback alone is no boundary: any process
of any user on the machine can open a connection to 127.0.0.1.

The token is ``$ATC_MCP_TOKEN`` when set (at least :data:`MIN_TOKEN_CHARS` characters), else
the one kept in the home's ``mcp-token`` file, written on the first ``--http`` start, readable
by its owner only (mode 0600), and kept across restarts so a client's configuration stays
valid. It is compared in constant time (``hmac.compare_digest``).
"""
from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Any

from ..errors import HomeError, UsageError
from ..home import create_home

#: The variable that sets the server's token instead of the home's ``mcp-token`` file.
TOKEN_ENV = "ATC_MCP_TOKEN"

#: The file in the home that keeps the generated token.
TOKEN_FILE = "mcp-token"

#: A shorter token is refused: a guessable one would be no better than none.
MIN_TOKEN_CHARS = 16


def server_token(home: Path) -> tuple[str, str]:
    """The token the HTTP server requires, and where it came from (the variable's name or
    the file's path). UsageError when ``$ATC_MCP_TOKEN`` is set but too short or not ASCII
    printable, or set to nothing; HomeError when the home cannot keep the token it makes."""
    from ..environment import setting

    token = setting(TOKEN_ENV)
    if token is not None:
        if len(token) < MIN_TOKEN_CHARS or not _printable(token):
            raise UsageError(f"${TOKEN_ENV} must be at least {MIN_TOKEN_CHARS} printable ASCII "
                             "characters without spaces")
        return token, f"${TOKEN_ENV}"
    path = home / TOKEN_FILE
    try:
        token = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        token = ""
    try:
        if len(token) < MIN_TOKEN_CHARS or not _printable(token):
            token = secrets.token_urlsafe(32)
            create_home(home)
            tmp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(token + "\n")
            os.replace(tmp, path)
        elif path.stat().st_mode & 0o077:
            path.chmod(0o600)         # a copy or an old umask made it readable by others
    except OSError as exc:
        raise HomeError(f"{path}: cannot keep the MCP server's token there "
                        f"({exc.strerror or exc}); set ${TOKEN_ENV} instead") from None
    return token, str(path)


def _printable(token: str) -> bool:
    return all(33 <= ord(c) < 127 for c in token)


class BearerGate:
    """ASGI wrapper that answers 401 (JSON, ``WWW-Authenticate: Bearer``) to every HTTP
    request whose ``Authorization`` header is not ``Bearer TOKEN``, and passes the others on."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode("ascii")

    def __getattr__(self, name: str) -> Any:  # the wrapped app's state, routes ...
        return getattr(self.app, name)

    def allows(self, headers: list[tuple[bytes, bytes]]) -> bool:
        """Whether the request's headers carry this server's bearer token."""
        values = [v for k, v in headers if k.lower() == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, given = values[0].strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and not self.allows(scope.get("headers", [])):
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] == "http" and not self.allows(scope.get("headers", [])):
            body = json.dumps({"error": "a valid bearer token is required (Authorization: "
                                        "Bearer TOKEN; atc mcp --help)"}).encode()
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode()),
                                    (b"www-authenticate", b"Bearer")]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
