"""The wire of ``atc mcp``: every request a client sends gets an answer naming its problem.

The MCP SDK's stdio transport drops a line it cannot read without a word, so a client that
sent a request waits for ever. Lines reach the SDK through :class:`ScreenedLines`, which
hands it every line it reads unchanged and answers the others itself, as JSON-RPC 2.0 says:

- a line that is not JSON: ``-32700`` Parse error, ``id`` null;
- JSON the SDK's parser refuses, a lone surrogate escape (``"\\ud800"``) in a string: Python
  reads it, so the reply names the request's id and the field, ``-32602`` when it lies in
  ``params``, else ``-32600``;
- JSON that is no JSON-RPC message (no ``jsonrpc``, a list, an id of null, which MCP
  forbids and the SDK took for a notification, ...): ``-32600`` Invalid Request, with the
  id when it has one.

A notification or a response is never answered (JSON-RPC forbids it); such a line is logged
on stderr. Blank lines are skipped. The SDK's own ``-32602 Invalid request parameters``, which
says nothing of why, is answered naming the params the method's types refuse, or that the
request came before the handshake (:meth:`ScreenedLines.mended`; over HTTP the params, in the
answer's event stream: :func:`_mended_event`).

Over HTTP the SDK answers such a body itself, status 400, but with ``id`` null, a lone
surrogate called a parse error (``unexpected end of hex escape``) and pydantic's report of many
lines for the rest, and a request with an id of null accepted (202) as a notification:
:class:`ScreenedHTTP` puts :func:`screen`'s error in that answer's place, after every check of
the SDK's own (origin, session, size) has run.
"""
from __future__ import annotations

import fcntl
import json
import logging
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from io import TextIOWrapper
from typing import Any, BinaryIO

import anyio
from mcp_types import (INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ClientRequest, ErrorData,
                       JSONRPCError, JSONRPCNotification, JSONRPCResponse,
                       jsonrpc_message_adapter)
from pydantic import ValidationError

log = logging.getLogger(__name__)


def screen(line: str) -> str | JSONRPCError | None:
    """What to do with one line from the client: the line itself when the SDK reads it, the
    error to answer in its place, or None when nothing is to be answered (a blank line, a
    notification or response the SDK cannot read)."""
    if not line.strip():
        return None
    try:
        read = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        pass
    else:
        # the SDK takes a request whose id is no string or integer (null, 1.5) for a
        # notification, and answers nothing
        if isinstance(read, JSONRPCNotification) and '"id"' in line:
            message = _loads(line)
            if isinstance(message, dict) and "id" in message:
                return _error(None, INVALID_REQUEST,
                              f"Invalid Request: {_shape_problem(message)}")
        return line
    try:
        message = json.loads(line)
    except ValueError as exc:
        return _error(None, PARSE_ERROR, f"Parse error: {exc}")
    except RecursionError:  # one message nested past the decoder ended the server
        return _error(None, PARSE_ERROR, "Parse error: JSON nested too deeply")
    if isinstance(message, dict) and "id" not in message and (
            isinstance(message.get("method"), str) or "result" in message or "error" in message):
        log.warning("a notification or response the MCP SDK cannot read was ignored")
        return None
    ident = _request_id(message)
    where = _lone_surrogate(message)
    if where is not None:
        code = INVALID_PARAMS if where == "params" or where.startswith("params.") else \
            INVALID_REQUEST
        return _error(ident, code, f"{_TITLES[code]}: {where} holds a lone surrogate escape (a "
                                   "\\ud800-\\udfff without its other half), which is no text")
    return _error(ident, INVALID_REQUEST, f"Invalid Request: {_shape_problem(message)}")


_TITLES = {INVALID_PARAMS: "Invalid params", INVALID_REQUEST: "Invalid Request"}


def _error(ident: str | int | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=ident, error=ErrorData(code=code, message=message))


def _loads(line: str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _request_id(message: Any) -> str | int | None:
    """The message's id when it is one JSON-RPC allows and the reply can carry (a string that
    is itself no text cannot be written back, so it becomes null)."""
    ident = message.get("id") if isinstance(message, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        return None
    if isinstance(ident, str) and _lone_surrogate(ident) is not None:
        return None
    return ident


def _lone_surrogate(value: Any, path: str = "") -> str | None:
    """The dotted path of the first string (or key) in VALUE holding a lone surrogate, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "the message"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else str(key)
            if _lone_surrogate(key) is not None:
                return f"a key of {path or 'the message'}"
            found = _lone_surrogate(item, inner)
            if found is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}[{i}]")
            if found is not None:
                return found
    return None


_JSON_TYPES = {list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "true or false", type(None): "null"}


def _shape_problem(message: Any) -> str:
    """Why a JSON value is no JSON-RPC 2.0 message, in a few words."""
    if not isinstance(message, dict):
        return f"a message is a JSON object, not {_JSON_TYPES.get(type(message), 'a value')}"
    if message.get("jsonrpc") != "2.0":
        return 'a message needs "jsonrpc": "2.0"'
    if "method" in message and not isinstance(message["method"], str):
        return '"method" must be a string'
    if "method" not in message:
        return 'a request needs a "method"'
    if "id" in message and _request_id(message) is None:
        return f'"id" must be a string or an integer, not {json.dumps(message["id"])}'
    if "params" in message and not isinstance(message["params"], dict):
        return '"params" must be an object'
    return "not a JSON-RPC 2.0 request, notification or response"


#: The longest line read from a stdio client, in characters: as the SDK's HTTP transport bounds
#: a request body (4 MiB), so that a client writing without end (``< /dev/zero``) is answered
#: rather than read into memory.
MAX_LINE_CHARS = 4 * 1024 * 1024


class ScreenedLines:
    """The client's lines for the SDK's ``stdio_server(stdin=...)``: the ones it reads pass on
    unchanged, the others are answered on its write stream (given to :meth:`answer_on` once
    the transport is open) and never reach it. A line over :data:`MAX_LINE_CHARS` is read no
    further than that at a time, dropped to its end and answered with an error (id null).

    At the end of stdin the lines end only once every request passed on has been answered
    (or cancelled by the client): the end of the lines ends the SDK's session, which
    cancelled the calls still running and answered each ``-32000 Connection closed``, while
    the call went on in memory's worker thread, so a ``remember`` was stored after its client
    was told it failed. A client that closes stdin, as the MCP specification's stdio shutdown
    asks, thus reads the true answer to every request it sent; one that has gone altogether
    ends the server at the first answer, on the broken pipe."""

    def __init__(self, wire: BinaryIO) -> None:
        # as the SDK reads stdin itself: UTF-8, undecodable bytes replaced
        self._text = TextIOWrapper(wire, encoding="utf-8", errors="replace")
        self._write: Any = None
        self._ready = anyio.Event()
        # the requests passed on and not answered yet, by id
        self._unanswered: dict[Any, dict[str, Any]] = {}
        self._initialized = False            # the client's initialize was answered
        self._all_answered = anyio.Event()
        self._all_answered.set()

    def _passed_on(self, line: str) -> None:
        """Note the request LINE holds (it waits for an answer), or the request a
        ``notifications/cancelled`` gives up (the SDK answers it no more)."""
        message = _loads(line)
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            return
        if "id" in message:
            self._unanswered[_id_key(message["id"])] = message
            self._all_answered = anyio.Event()
        elif message["method"] == "notifications/cancelled":
            params = message.get("params")
            if isinstance(params, dict) and "requestId" in params:
                self.answered(params["requestId"])

    def answered(self, ident: Any) -> None:
        """The request IDENT has its answer (or needs none any more)."""
        self._unanswered.pop(_id_key(ident), None)
        if not self._unanswered:
            self._all_answered.set()

    def mended(self, message: Any) -> Any:
        """MESSAGE, an answer on its way to the client; where it is the SDK's ``Invalid
        request parameters`` (no word of which), that error naming the problem: the request
        came before the handshake, or its params as the method's model reads them
        (``Invalid params: name: Field required``)."""
        request = self._unanswered.get(_id_key(message.id))
        if request is None:
            return message
        if isinstance(message, JSONRPCResponse) and request.get("method") == "initialize":
            self._initialized = True
        if not (isinstance(message, JSONRPCError) and message.error.code == INVALID_PARAMS
                and message.error.message == "Invalid request parameters"):
            return message
        if not self._initialized and request.get("method") != "initialize":
            return _error(message.id, INVALID_PARAMS, f"{request['method']} came before the "
                          "session was initialized: send initialize, then "
                          "notifications/initialized, first")
        problem = params_problem(request)
        return message if problem is None else _error(message.id, INVALID_PARAMS,
                                                      f"Invalid params: {problem}")

    def watching(self, write_stream: Any) -> "AnswerWatch":
        """WRITE_STREAM for the SDK's session, telling these lines of each answer sent."""
        return AnswerWatch(write_stream, self)

    async def _readline(self, most: int) -> str:
        """The next line, or its first ``most`` characters ("" at the end of the input)."""
        return await anyio.to_thread.run_sync(self._text.readline, most)

    def answer_on(self, write_stream: Any) -> None:
        """Replies go out on the transport's WRITE_STREAM, in turn with the server's own."""
        self._write = write_stream
        self._ready.set()

    async def __aiter__(self) -> AsyncIterator[str]:
        from mcp.shared.message import SessionMessage

        while line := await self._readline(MAX_LINE_CHARS + 1):
            if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
                while line and not line.endswith("\n"):   # the rest of it, never held whole
                    line = await self._readline(MAX_LINE_CHARS)
                verdict: str | JSONRPCError | None = _error(
                    None, INVALID_REQUEST, f"Invalid Request: the line holds more than "
                    f"{MAX_LINE_CHARS:,} characters, the most one message may (as over HTTP); "
                    "it was not read")
            else:
                verdict = screen(line)
            if isinstance(verdict, str):
                self._passed_on(verdict)
                yield verdict
            elif verdict is not None:
                await self._ready.wait()
                try:
                    await self._write.send(SessionMessage(verdict))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
        await self._all_answered.wait()   # stdin ended: the calls still running answer first


def params_problem(request: dict[str, Any]) -> str | None:
    """What the client request REQUEST's params lack for its method, read as the MCP types
    read them (``name: Field required``), on one line; None when they read, or the method is
    none the types know."""
    model = _REQUEST_MODELS.get(request.get("method"))
    if model is None:
        return None
    try:
        model.model_validate({"method": request["method"], "params": request.get("params", {})},
                             by_name=False)
    except ValidationError as exc:
        return "; ".join(f"{_field(err['loc'])}: {err['msg']}"
                         for err in exc.errors(include_url=False))
    return None


def _field(loc: tuple[Any, ...]) -> str:
    """A pydantic error's place in a request, as a field of its params (``name``)."""
    parts = loc[1:] if len(loc) > 1 and loc[0] == "params" else loc
    return ".".join(str(part) for part in parts) or "params"


def _request_models() -> dict[str, Any]:
    """Each client request's model by its method (``tools/call``: CallToolRequest)."""
    from typing import get_args

    models = {}
    for model in get_args(ClientRequest):
        (method,) = get_args(model.model_fields["method"].annotation)
        models[method] = model
    return models


_REQUEST_MODELS = _request_models()


def _id_key(ident: Any) -> Any:
    """A request id as a set holds it (an id a client sent as a list is no key)."""
    return ident if isinstance(ident, (str, int, float, bool, type(None))) else repr(ident)


class AnswerWatch:
    """The SDK session's write stream, passed through, telling :class:`ScreenedLines` the id of
    every response or error once it is sent (mended by :meth:`ScreenedLines.mended`)."""

    def __init__(self, stream: Any, lines: ScreenedLines) -> None:
        self._stream = stream
        self._lines = lines

    async def send(self, item: Any) -> None:
        from mcp.shared.message import SessionMessage

        message = getattr(item, "message", None)
        if not isinstance(message, (JSONRPCResponse, JSONRPCError)):
            await self._stream.send(item)
            return
        mended = self._lines.mended(message)
        await self._stream.send(item if mended is message else SessionMessage(mended))
        self._lines.answered(message.id)   # sent: the lines may end now

    async def __aenter__(self) -> "AnswerWatch":
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._stream.__aexit__(*exc)

    def __getattr__(self, name: str) -> Any:    # close, aclose, clone ...
        return getattr(self._stream, name)


@contextmanager
def stdin_wire() -> Iterator[BinaryIO]:
    """The client's end of stdin, with fd 0 pointed at the null device meanwhile, as the SDK
    does when it reads stdin itself: a tool or a child process that reads stdin sees end of
    file rather than taking the client's requests."""
    if not _backed_by_fd0():
        yield sys.stdin.buffer
        return
    wire = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        # never closed: a worker thread may still be blocked reading it after the transport ends
        yield os.fdopen(wire, "rb", closefd=False)
    finally:
        os.dup2(wire, 0)


def _backed_by_fd0() -> bool:
    try:
        return sys.stdin.buffer.fileno() == 0
    except (AttributeError, OSError, ValueError):
        return False


class ScreenedHTTP:
    """ASGI wrapper of the SDK's streamable HTTP app: where the SDK answers a POST with a 400
    JSON-RPC error of ``id`` null or a 202 (a notification), and :func:`screen` has an error
    for the body it was sent, the answer is that error (status 400, the other headers kept)."""

    def __init__(self, app: Any, max_body: int) -> None:
        self.app = app
        self._max_body = max_body

    def __getattr__(self, name: str) -> Any:  # the Starlette app's state, routes ...
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = bytearray()
        held: list[Any] = []

        async def tap_receive() -> Any:
            message = await receive()
            if message["type"] == "http.request" and len(body) <= self._max_body:
                body.extend(message.get("body", b""))
            return message

        streamed = [False]      # the answer is an event stream (no length to keep true)

        async def tap_send(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] in (400, 202):
                held.append(message)
                return
            if message["type"] == "http.response.start":
                streamed[0] = not any(k.lower() == b"content-length"
                                      for k, _ in message.get("headers", []))
            if not held:
                if streamed[0] and message["type"] == "http.response.body":
                    message = {**message, "body": _mended_event(message.get("body", b""),
                                                                bytes(body))}
                await send(message)
                return
            held.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                for out in _mended(held, bytes(body), self._max_body):
                    await send(out)
                held.clear()

        await self.app(scope, tap_receive, tap_send)


def _mended_event(chunk: bytes, body: bytes) -> bytes:
    """An event-stream CHUNK of the SDK's answer to the request BODY, its ``-32602 Invalid
    request parameters`` (no word of why) naming the params the method's types refuse, as
    over stdio (:func:`params_problem`); any other chunk unchanged."""
    if b'"Invalid request parameters"' not in chunk:
        return chunk
    request = _loads(body.decode("utf-8", errors="replace"))
    if not isinstance(request, dict):
        return chunk
    lines = chunk.split(b"\n")
    for i, line in enumerate(lines):
        if not line.startswith(b"data: "):
            continue
        answer = _loads(line[6:].decode("utf-8", errors="replace"))
        error = answer.get("error") if isinstance(answer, dict) else None
        if not (isinstance(error, dict) and error.get("message") == "Invalid request parameters"
                and answer.get("id") == request.get("id")):
            continue
        problem = params_problem(request)
        if problem is not None:
            mended = _error(answer["id"], INVALID_PARAMS, f"Invalid params: {problem}")
            ending = b"\r" if line.endswith(b"\r") else b""
            lines[i] = b"data: " + mended.model_dump_json(
                by_alias=True, exclude_unset=True).encode() + ending
    return b"\n".join(lines)


def _mended(held: list[Any], body: bytes, max_body: int) -> list[Any]:
    """The SDK's held answer with :func:`screen`'s error for BODY in its place, where the SDK
    could not read BODY (a 400 parse or validation error, id null) or took a request for a
    notification (202, an id of null); else unchanged."""
    if len(held) != 2 or len(body) > max_body:
        return held
    if held[0]["status"] == 400:
        # only the SDK's answers to a body it could not read (not one on a session, a header)
        answer = _loads(held[1].get("body", b"").decode("utf-8", errors="replace"))
        if not isinstance(answer, dict):
            return held
        error = answer.get("error")
        if not (answer.get("id", 0) is None and isinstance(error, dict) and
                str(error.get("message")).startswith(("Parse error", "Validation error"))):
            return held
    verdict = screen(body.decode("utf-8", errors="replace"))
    if not isinstance(verdict, JSONRPCError):
        return held
    text = verdict.model_dump_json(by_alias=True, exclude_unset=True).encode()
    headers = [(k, v) for k, v in held[0].get("headers", [])
               if k.lower() not in (b"content-length", b"content-type")]
    headers += [(b"content-type", b"application/json"),
                (b"content-length", str(len(text)).encode())]
    return [{**held[0], "status": 400, "headers": headers},
            {"type": "http.response.body", "body": text}]
