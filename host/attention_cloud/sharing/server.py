"""``atc serve``: a memory home over HTTP, for the principals it has granted something.

Every request carries ``Authorization: Bearer TOKEN`` (a token ``atc principal add`` issued);
a missing, malformed or wrong token is refused with 401, a team's token reading a pool (a
team-owned home) with 403, a principal who has used their share of the server's time with 429
(fair_share.py). Each request then runs as that principal through the same policy
as ``--as`` (sharing/reads.py), so every read is filtered by visible/3 and appended to the
owner's audit log. The home is read at its last committed state: the server's MemoryHost
reopens it when the journal changes (a grant revoked from the CLI counts at the next request).

Endpoints (JSON):
  GET  /v1/whoami           who the token is, the home's owner and kind, the caller's grants
  GET  /v1/grants           the live grants that reach the caller (never another grantee's)
  POST /v1/hydrate          {goal, budget?, plane?, ceiling?, now?, walk?, rules?}: a frame
                            (another field is refused, 400)
  POST /v1/query            {goal, limit?, time_limit?, rules?}: solutions
  GET  /v1/show/{handle}    ?level=L2: one record
  GET  /v1/receipt/{id}     a receipt of the caller's own read
Every refusal is `{"error": "..."}`, the router's too (an unknown path 404, a method 405).
"""
from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter
from typing import Any, Callable

from ..errors import AtcError, HomeError, InputError, one_line
from ..home import require_home, resolve_home
from ..json_values import strict_json

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765

#: The longest request body read, in bytes: a goal and a rules text (at most 1 MB, as UTF-8;
#: JSON's escapes may make it up to six times that). A longer one is refused unread (413):
#: the body is read whole before it is parsed, so a body without end grew the server's memory
#: without end.
MAX_BODY_BYTES = 8 * 1024 * 1024

#: Seconds a request's body may take to arrive, all of it: a caller sending a byte now and
#: then held its connection, and up to MAX_BODY_BYTES of this process's memory, for ever.
BODY_TIMEOUT = 30.0

#: Seconds a request's headers may take to arrive, from the connection's start or from the
#: answer before it on a kept-alive connection: a connection that never finished a request
#: (a client gone mid-request, or one that sent nothing) held one of MAX_CONNECTIONS for ever.
HEADERS_TIMEOUT = 30.0

#: The most connections served at once; past it a caller is answered 503 at once (each one
#: may hold up to MAX_BODY_BYTES while its body arrives).
MAX_CONNECTIONS = 64

#: The most requests of one principal read or answered at once; past it they are answered 429
#: at once: a grantee holding every connection with a request whose body came a byte at a
#: time (each BODY_TIMEOUT long, then again) had every other caller answered 503.
MAX_REQUESTS_PER_PRINCIPAL = 4

#: What a caller is told when the home cannot be opened: the reason (a path of the owner's
#: machine, the state of their files) is printed on the server's standard error instead, since
#: this answer goes to anyone, before their token is checked.
HOME_UNREADABLE = "this memory home cannot be read now (its owner sees why)"

from .limits import DEFAULT_BURST, DEFAULT_SHARE, QUERY_TIME_LIMIT_MAX  # noqa: F401  (re-exported)


def make_app(home: str | os.PathLike[str] | None, *, share: float = DEFAULT_SHARE,
             burst: float = DEFAULT_BURST) -> Any:
    """The Starlette application serving ``home``; each principal may take ``share`` of its
    time, ``burst`` seconds at once (fair_share.py)."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from . import policy, reads

    from ..agents.memory_host import MemoryHost

    from .fair_share import FairShare

    reader = MemoryHost(require_home(resolve_home(home)))   # reopened when the journal changes
    verified = VerifiedTokens()
    nobody = NoTokensNotice()
    shares = FairShare(share, burst)
    in_progress: Counter[str] = Counter()    # each principal's requests being read or answered

    def refuse(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
        if status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    async def no_endpoint(request: Request, exc: Any) -> JSONResponse:
        """The router's refusals (no endpoint at the path, a method it does not take) in the
        body every refusal has: Starlette answered them in plain text."""
        return JSONResponse({"error": routing_refusal(request.method, request.url.path,
                                                      exc.status_code, exc.detail, exc.headers)},
                            status_code=exc.status_code, headers=exc.headers)

    def endpoint(fn: Callable[[Any, str, Request, dict[str, Any]], Any]) -> Callable:
        async def handle(request: Request) -> JSONResponse:
            auth = request.headers.get("authorization", "")
            scheme, _, token = auth.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                return refuse(401, "a bearer token is required")
            try:
                mem = reader.memory()
            except (AtcError, OSError) as exc:
                print(f"atc serve: {one_line(exc, 'cli')}", file=sys.stderr, flush=True)
                return refuse(503, HOME_UNREADABLE)
            try:
                principal = await verified.principal(mem, token)
                if principal is None:
                    nobody.check(mem)       # the last token removed while it runs
                    return refuse(401, "invalid token")
                nobody.served()
                wait = shares.retry_after(principal)
                if wait is not None:        # refused before their body is read
                    return refuse(429, f"{principal} has used their share of this server's "
                                       f"time; retry in {wait} s", {"Retry-After": str(wait)})
                if in_progress[principal] >= MAX_REQUESTS_PER_PRINCIPAL:
                    return refuse(429, f"{principal} has {MAX_REQUESTS_PER_PRINCIPAL} requests in "
                                       f"progress on this server, as many as one caller may; "
                                       f"retry when one is answered", {"Retry-After": "1"})
                in_progress[principal] += 1
                try:
                    body: dict[str, Any] = {}
                    if request.method == "POST":
                        try:
                            raw = await body_in_time(request)
                        except BodyLate as exc:
                            return refuse(408, str(exc))
                        if raw is None:
                            return refuse(413, f"the request body is larger than "
                                               f"{MAX_BODY_BYTES:,} bytes")
                        try:
                            body = json.loads(raw)
                        except (ValueError, RecursionError):   # RecursionError: nested too deep
                            return refuse(400, "the request body must be a JSON object")
                        if not isinstance(body, dict):
                            return refuse(400, "the request body must be a JSON object")
                    # other requests ran while this one waited (its token's check, its body):
                    # memory may have been reopened and the token removed meanwhile
                    mem = reader.memory()
                    if await verified.principal(mem, token) != principal:
                        return refuse(401, "invalid token")
                    state = policy.sharing_state(mem)
                    if (state.owner and state.kind_of(principal) == "team"
                            and state.kind_of(state.owner) == "team"):
                        return refuse(403, "a pool cannot mount another pool")
                    started = time.monotonic()
                    try:
                        # inf and nan as atc query prints them: the JSON writer refused them,
                        # and the caller was told its request was bad
                        return JSONResponse(strict_json(fn(mem, principal, request, body)))
                    finally:            # an error took the server's time as well
                        shares.charge(principal, time.monotonic() - started)
                finally:
                    in_progress[principal] -= 1
            except InputError as exc:
                return refuse(404, one_line(exc, "http"))
            except (HomeError, OSError) as exc:   # the home's state, not the caller's input
                print(f"atc serve: {one_line(exc, 'cli')}", file=sys.stderr, flush=True)
                return refuse(503, HOME_UNREADABLE)
            except AtcError as exc:
                return refuse(400, one_line(exc, "http"))
            except (TypeError, ValueError, KeyError) as exc:
                return refuse(400, f"bad request: {exc}")

        return handle

    def whoami(mem: Any, principal: str, request: Request, body: dict) -> dict:
        state = policy.sharing_state(mem)
        return {"principal": principal, "kind": state.kind_of(principal),
                "owner": state.owner, "home_kind": state.kind_of(state.owner) if state.owner else None,
                "grants": [g.as_dict() for g in policy.grants_for(mem, principal)]}

    def grants(mem: Any, principal: str, request: Request, body: dict) -> dict:
        return {"grants": [g.as_dict() for g in policy.grants_for(mem, principal)]}

    def hydrate(mem: Any, principal: str, request: Request, body: dict) -> dict:
        _only(body, HYDRATE_FIELDS)
        goal = _text(body, "goal", required=True)
        frame = reads.reader_hydrate(
            mem, principal, goal, budget=_int(body, "budget", 2000),
            plane=_text(body, "plane") or "default", ceiling=_text(body, "ceiling") or "L0",
            now=body.get("now"), walk=_text(body, "walk"), rules_text=_text(body, "rules"),
            via="serve")
        facts = [{**fact, "text": f.text} for fact, f in zip(frame.receipt["facts"], frame.facts)]
        return {"receipt_id": frame.receipt_id, "receipt": frame.receipt, "facts": facts,
                "text": frame.text}

    def query(mem: Any, principal: str, request: Request, body: dict) -> dict:
        _only(body, QUERY_FIELDS)
        result = reads.reader_query(mem, principal, _text(body, "goal", required=True),
                                    limit=_int(body, "limit", 100),
                                    time_limit=_time_limit(body),
                                    rules_text=_text(body, "rules"), via="serve")
        return {"rows": result.rows, "more": result.more, "variables": result.variables}

    def show(mem: Any, principal: str, request: Request, body: dict) -> dict:
        return reads.reader_show(mem, principal, request.path_params["handle"],
                                 request.query_params.get("level"), via="serve")

    def receipt(mem: Any, principal: str, request: Request, body: dict) -> dict:
        return reads.reader_receipt(mem, principal, request.path_params["rid"], via="serve")

    routes = [Route("/v1/whoami", endpoint(whoami), methods=["GET"]),
              Route("/v1/grants", endpoint(grants), methods=["GET"]),
              Route("/v1/hydrate", endpoint(hydrate), methods=["POST"]),
              Route("/v1/query", endpoint(query), methods=["POST"]),
              Route("/v1/show/{handle}", endpoint(show), methods=["GET"]),
              Route("/v1/receipt/{rid}", endpoint(receipt), methods=["GET"])]
    app = Starlette(routes=routes, exception_handlers={HTTPException: no_endpoint})
    app.state.reader = reader
    app.state.no_tokens = nobody
    return app


class VerifiedTokens:
    """The bearer tokens this server has checked, so that a caller pays scrypt (~30 ms, more on
    a loaded machine, 16 MiB) once, not at every request; and the check itself runs on a
    worker thread, so that callers flooding the server with wrong tokens do not stop the
    event loop answering everyone else one scrypt at a time.

    A token is known by the SHA-256 of its whole text, with the principal, salt and hash its
    record held when it was checked: it is taken as checked only while its record is still
    the same (a removed principal's token is refused at the next request)."""

    #: The most tokens remembered (then forgotten all at once and checked again).
    MAX = 1024

    #: The most checks run at once: each takes 16 MiB, and the default pool of worker
    #: threads (40) let a flood of wrong tokens hold 640 MiB.
    AT_ONCE = 2

    def __init__(self) -> None:
        self._known: dict[bytes, tuple[str, str, str]] = {}
        self._limiter: Any = None

    async def principal(self, mem: Any, token: str) -> str | None:
        """The principal ``token`` was issued to, or None (malformed, unknown or wrong)."""
        import hashlib

        import anyio

        from . import policy

        claim = policy.token_claim(mem, token)
        if claim is None:
            return None
        key = hashlib.sha256(token.strip().encode("utf-8")).digest()
        if claim.principal is not None and \
                self._known.get(key) == (claim.principal, claim.salt, claim.stored):
            return claim.principal
        if self._limiter is None:           # made inside the event loop that uses it
            self._limiter = anyio.CapacityLimiter(self.AT_ONCE)
        # an unknown token id costs the same scrypt (holds() is then False): its time tells
        # nothing of which ids exist
        holds = await anyio.to_thread.run_sync(claim.holds, limiter=self._limiter)
        if not holds or claim.principal is None:
            return None
        if len(self._known) >= self.MAX:
            self._known.clear()
        self._known[key] = (claim.principal, claim.salt, claim.stored)
        return claim.principal


#: The fields each POST body may hold. Another is refused (400), not ignored: a caller who
#: sent ``mount`` or ``celing`` would otherwise get a frame of the whole home, or at L0.
HYDRATE_FIELDS = ("goal", "budget", "plane", "ceiling", "now", "walk", "rules")
QUERY_FIELDS = ("goal", "limit", "time_limit", "rules")


def _only(body: dict, fields: tuple[str, ...]) -> None:
    unknown = sorted(str(key) for key in body if key not in fields)
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} (this endpoint takes "
                         f"{', '.join(fields)})")


def _text(body: dict, key: str, *, required: bool = False) -> str | None:
    value = body.get(key)
    if value is None:
        if required:
            raise ValueError(f"{key!r} is required")
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string")
    return value


def _time_limit(body: dict) -> float | None:
    value = body.get("time_limit")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("'time_limit' must be a number of seconds")
    if not 0 < value <= QUERY_TIME_LIMIT_MAX:      # NaN fails both
        raise ValueError(f"'time_limit' must be more than 0 and at most "
                         f"{QUERY_TIME_LIMIT_MAX:g} seconds, not {value}")
    return float(value)


def routing_refusal(method: str, path: str, status: int, detail: str,
                    headers: dict[str, str] | None) -> str:
    """What a caller is told when no endpoint answers METHOD PATH (404), or the one at PATH
    takes other methods (405: those its ``Allow`` header lists, HEAD aside)."""
    shown = path if len(path) <= 200 else path[:200] + "..."
    if status == 404:
        return f"no such endpoint: {method} {shown}"
    if status == 405:
        allowed = [m.strip() for m in (headers or {}).get("Allow", "").split(",")
                   if m.strip() and m.strip() != "HEAD"]
        return f"{method} is not allowed on {shown} (it takes {', '.join(allowed)})"
    return str(detail)


class BodyLate(Exception):
    """A request's body had not all arrived BODY_TIMEOUT seconds after its headers (408)."""


async def body_in_time(request: Any, most: int | None = None) -> bytes | None:
    """The request's body, or None when it is longer than ``most`` bytes (MAX_BODY_BYTES by
    default; read no further). :class:`BodyLate` when it has not all come within BODY_TIMEOUT
    seconds: a caller sending a byte now and then would hold its connection for ever.
    ``atc serve`` and ``atc mcp --http`` (:class:`BodyInTime`) both read bodies here."""
    try:
        return await asyncio.wait_for(_body(request, MAX_BODY_BYTES if most is None else most),
                                      BODY_TIMEOUT)
    except asyncio.TimeoutError:
        raise BodyLate(f"the request body did not arrive within {BODY_TIMEOUT:g} s") from None


async def _body(request: Any, most: int) -> bytes | None:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > most:
        return None
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > most:
            return None
    return bytes(data)


class BodyInTime:
    """ASGI wrapper that reads a POST's whole body with :func:`body_in_time` before the app
    it wraps runs, and hands that app the body as one message: a body not all come within
    BODY_TIMEOUT is answered 408, one longer than ``most`` bytes 413 (``{"error": ...}``,
    ``Connection: close``). For an app that reads bodies itself with no deadline (the MCP
    SDK's)."""

    def __init__(self, app: Any, most: int) -> None:
        self.app = app
        self._most = most

    def __getattr__(self, name: str) -> Any:  # the wrapped app's state, routes ...
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request
        from starlette.responses import JSONResponse

        try:
            body = await body_in_time(Request(scope, receive), self._most)
        except BodyLate as exc:
            refusal = JSONResponse({"error": str(exc)}, status_code=408,
                                   headers={"Connection": "close"})
            await refusal(scope, receive, send)
            return
        if body is None:
            refusal = JSONResponse(
                {"error": f"the request body is larger than {self._most:,} bytes"},
                status_code=413, headers={"Connection": "close"})
            await refusal(scope, receive, send)
            return
        given = False

        async def replay() -> Any:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()          # after the body: the client's disconnect

        await self.app(scope, replay, send)


def _int(body: dict, key: str, default: int) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key!r} must be an integer")
    return value


#: Said on stderr, once each time no principal holds a token (README, "Sharing").
NO_TOKENS = ("atc serve: no principal holds a token on this home: every request is answered "
             "401 until one is added (atc principal add NAME)")


class NoTokensNotice:
    """Says NO_TOKENS once each time the home comes to have no token holder: at start, and at
    the first request refused after the last one was removed while the server ran (it said
    nothing then). A request served means someone holds one again: the next time none does
    is said again. Checked only on a refusal, so a served request costs nothing more."""

    def __init__(self) -> None:
        self.said = False

    def check(self, mem: Any) -> None:
        """Say NO_TOKENS if no principal of ``mem``'s home holds a token and it is not said."""
        from . import policy

        if policy.tokens_issued(mem):
            self.said = False
        elif not self.said:
            self.said = True
            print(NO_TOKENS, file=sys.stderr, flush=True)

    def served(self) -> None:
        """A request was served: a token is held."""
        self.said = False


def _say_when_nobody_holds_a_token(app: Any) -> None:
    """Say NO_TOKENS on stderr when no one could be served. Not refused: the server reopens
    the home when its journal changes, so a principal added while it runs is served."""
    try:
        mem = app.state.reader.memory()     # opened now: the first request finds it open
    except (AtcError, OSError):
        return                              # each request says why (503, on stderr)
    app.state.no_tokens.check(mem)


#: What a caller whose request is not HTTP/1.1 as h11 reads it is told (a 400).
INVALID_REQUEST = ("the request is not valid HTTP/1.1 (a malformed line, headers too large, two "
                   "Content-Length headers, ...)")

#: What a caller past MAX_CONNECTIONS is told (uvicorn's own refusal was plain text).
TOO_MANY_CONNECTIONS = ("the server is answering as many connections as it takes ({}); "
                        "retry in a moment")


def bounded_http_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol with this server's bounds on connections:

    - a connection whose request's headers have not all come HEADERS_TIMEOUT seconds after it
      opened, or after its last answer, is closed. uvicorn times out only an idle kept-alive
      connection, and its timer stops at the first byte that arrives: a request line alone, or
      nothing at all, held the connection for ever. A request whose headers came is left
      alone (its body has BODY_TIMEOUT; its answer takes what it takes);
    - an answer its caller has not read HEADERS_TIMEOUT seconds after it was made ends its
      connection at once (its unsent bytes dropped): a closed connection waits to send what
      it holds, and a grantee whose 64 connections each asked for a 4 MB answer and never
      read it held every connection for as long as they liked (every other caller 503);
    - a connection that comes when MAX_CONNECTIONS are open closes the one that has waited
      longest for its request's headers (one that sent nothing, part of a request line, or
      nothing since its last answer, or whose caller has not read that answer): one caller
      holding every connection half-open, each opened again as the deadline closed it, had
      every other caller answered 503 for as long as it went on, without a token. A caller
      whose request has come is never closed so;
    - past MAX_CONNECTIONS connections (or requests in progress) a request is answered 503
      with the JSON body every refusal has, as uvicorn's ``limit_concurrency`` answered it
      in plain text: when every connection holds a request (its body arriving, its answer).
    """
    from starlette.responses import JSONResponse
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class ServeProtocol(H11Protocol):
        _deadline: Any = None
        _waiting_since: float | None = None     # when it began to wait for a request's headers

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.app = self._bounded(self.app)

        def _bounded(self, app: Any) -> Any:
            async def bounded(scope: Any, receive: Any, send: Any) -> None:
                # this request's own task is among the tasks already (uvicorn looked before)
                if len(self.connections) >= MAX_CONNECTIONS or \
                        len(self.tasks) - 1 >= MAX_CONNECTIONS:
                    refusal = JSONResponse(
                        {"error": TOO_MANY_CONNECTIONS.format(MAX_CONNECTIONS)},
                        status_code=503, headers={"Connection": "close"})
                    await refusal(scope, receive, send)
                    return
                await app(scope, receive, send)
            return bounded

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._start_deadline()
            if len(self.connections) >= MAX_CONNECTIONS:   # the count _bounded refuses at
                self._close_longest_waiting()

        def _waiting(self) -> bool:
            """No request of this connection is being read or answered: it waits for one, or
            for its caller to read the last answer (closing, or not yet, it holds a slot)."""
            return (self.cycle is None or self.cycle.response_complete) and \
                (not self.transport.is_closing() or self._unsent() > 0)

        def _unsent(self) -> int:
            """Bytes of an answer still waiting for the caller to read them."""
            return self.transport.get_write_buffer_size()

        def _shut(self) -> None:
            """Close the connection; at once (abort) when an answer is unsent: close() waits
            until the caller reads it, and a caller who never does kept the connection."""
            if self._unsent() > 0:
                self.transport.abort()
            elif not self.transport.is_closing():
                self.transport.close()

        def _close_longest_waiting(self) -> None:
            waiting = [c for c in self.connections
                       if c is not self and isinstance(c, ServeProtocol) and c._waiting()]
            if waiting:
                min(waiting, key=lambda c: c._waiting_since or 0.0)._shut()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._start_deadline()

        def send_400_response(self, msg: str) -> None:
            """A request h11 cannot read (a malformed line, headers too large, two
            Content-Lengths) refused in the JSON body every refusal has: uvicorn's was the
            plain text `Invalid HTTP request received.`"""
            import h11

            body = json.dumps({"error": INVALID_REQUEST}).encode("utf-8")
            headers = [(b"content-type", b"application/json"),
                       (b"content-length", str(len(body)).encode("ascii")),
                       (b"connection", b"close")]
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
                          h11.Data(data=body), h11.EndOfMessage()):
                self.transport.write(self.conn.send(event))
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def _start_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._waiting_since = self.loop.time()
            self._deadline = self.loop.call_later(HEADERS_TIMEOUT, self._headers_late)

        def _headers_late(self) -> None:
            self._deadline = None
            if self.cycle is not None and not self.cycle.response_complete:
                return                      # a request came and is being answered
            self._shut()                    # connection_lost does the rest, as for a reset

    return ServeProtocol


def serve(home: str | os.PathLike[str] | None, *, host: str = DEFAULT_HOST,
          port: int = DEFAULT_PORT, announce: Callable[[str], None] | None = None,
          share: float = DEFAULT_SHARE, burst: float = DEFAULT_BURST) -> None:
    """Serve ``home`` on ``host:port`` until interrupted (port 0: a free one). ``announce``
    gets the address once the socket listens (``atc serve`` prints it); ``share`` and
    ``burst`` as for :func:`make_app`."""
    with _StopRequests() as stop:   # before the address is printed: a stop from then on counts
        _serve(stop, home, host=host, port=port, announce=announce, share=share, burst=burst)


def _serve(stop: "_StopRequests", home: str | os.PathLike[str] | None, *, host: str, port: int,
           announce: Callable[[str], None] | None, share: float, burst: float) -> None:
    import uvicorn

    app = make_app(home, share=share, burst=burst)
    sock = listening_socket(host, port)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if sock.family == socket.AF_INET6 else host
    if announce is not None:
        announce(f"http://{shown}:{bound}")
    _say_when_nobody_holds_a_token(app)     # after the address: a script waits for that line
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            http=bounded_http_protocol())    # its own MAX_CONNECTIONS
    server = uvicorn.Server(config)
    try:
        stop.run(server, sock)
    finally:
        sock.close()
        sys.stdout.flush()


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host:port`` (port 0: a free one, which ``getsockname()``
    names), bound before any serving line is printed, so that the line names the port truly
    listened on and a port in use is :class:`InputError` ``cannot listen on HOST:PORT:
    Address already in use`` rather than a server that says it serves, then fails. The
    address is reusable as uvicorn's is, so a port in TIME_WAIT is no obstacle."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    return sock


class _StopRequests:
    """SIGTERM and SIGINT (Ctrl-C) stop the server the way uvicorn stops it (the requests
    being answered are answered, then it exits), and ``serve`` returns: ``atc serve`` exits 0.

    uvicorn takes both signals over while it runs, and once stopped raises the signal again
    for the handler that was in place before it: with Python's own handlers that ended the
    process by SIGTERM (exit 143) or as a KeyboardInterrupt (``atc: interrupted``, exit 130),
    a stop asked for reported as a failure. This context's handler is the one in place: it
    asks the server to stop, so a signal raised again is a no-op and one that arrives before
    uvicorn took over (the address is printed first) stops the server as it starts. In place
    before the engine starts, it also keeps Ctrl-C from being forwarded into the Prolog call of
    a request (bridge/interrupts.py), which is answered instead. Outside the main thread
    (a program serving from a thread of its own) signals are left to their owner."""

    def __init__(self) -> None:
        self.server: Any = None             # the uvicorn.Server, once running
        self.asked = False
        self._previous: dict[int, Any] = {}

    def _ask(self, _signum: int, _frame: Any) -> None:
        self.asked = True
        if self.server is not None:
            self.server.should_exit = True

    def __enter__(self) -> "_StopRequests":
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._ask)
        return self

    def run(self, server: Any, sock: socket.socket) -> None:
        """Run ``server`` (a uvicorn.Server) on ``sock`` until a stop is asked for."""
        self.server = server
        server.should_exit = self.asked     # asked before the server was made: it stops at once
        server.run(sockets=[sock])

    def __exit__(self, *_exc: Any) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
