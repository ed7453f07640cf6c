"""``atc mcp``: memory as an MCP server (the official ``mcp`` Python SDK).

Tools: ``hydrate`` (a frame in its envelope, plus its receipt), ``receipt`` (a stored receipt
by id), ``query`` (a sandboxed Prolog goal over the vocabulary), ``remember``, ``forget``,
``attend``, ``claim`` and ``show``.

What a model reads is a result's text content; programs read its structured content (checked
against the tool's outputSchema). ``hydrate``'s text is the frame in its envelope, within the
budget, and one line naming the receipt and how to read it (:func:`hydrate_text`): the receipt,
twice the frame's size and more, stays in the structured content, where the SDK had also put
it, indented, in the text. Every other tool's text is its structured result as compact JSON,
so a client that reads only text content still gets all of it; the resources are compact JSON
too.
Resources: ``receipt://{receipt_id}``, every receipt stored in the home, and
``receipts://recent``, the newest 50 of them (id, goal, created, facts, URI). Served over stdio, or
streamable HTTP on 127.0.0.1 only (``--http [--port N]``; path ``/mcp``), where every request
must carry the server's bearer token (``mcp_auth``: the tools act as the home's owner).

One :class:`~attention_cloud.Memory` per process, and the server is long-running, so it must
never stand in the way of ``atc ingest`` or ``atc curate`` in another process:

- memory opens lazily, on the first call, and only reads until a tool writes;
- every call runs on one worker thread, one at a time (the Prolog engine is process-wide);
- before a call, memory is reopened when the journal changed on disk (another process
  committed), so answers never come from a stale view;
- a tool that writes (``remember``, ``forget``, ``attend``, ``claim``) takes the home's write
  lock and gives it back as soon as it is done. While another process holds it (a long
  ``atc ingest``, the Stop hook's capture) the tool waits, up to :data:`WRITE_WAIT` seconds
  (``$ATC_LOCK_WAIT`` when set), its answer saying how long (``waited_s``, ``note``), and
  other calls are answered meanwhile; past that it fails with one line naming the writer.

Errors come back as MCP tool errors (``isError``) with one clear line; a request the SDK
cannot read (not JSON, a lone surrogate escape) gets a JSON-RPC error of one line with its id,
over stdio and HTTP alike (``mcp_wire``).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import logging
import os
import time
from typing import Annotated, Any, Callable, Literal, TypeVar

from mcp_types import CallToolResult, TextContent
from pydantic import Field

from ..api_args import MAX_BUDGET
from ..errors import AtcError, WriterBusy, one_line
from ..json_values import strict_json
from .memory_host import MemoryHost

_T = TypeVar("_T")

SERVER_NAME = "attention-cloud"

#: The longest time_limit the query tool takes, in seconds (the default): calls run one at a
#: time and a goal cannot be cancelled once it runs, so a longer one would hold every later
#: call, and the server after its client has gone.
QUERY_TIME_LIMIT_MAX = 30.0

# What each argument takes, in the tools' input schemas (an agent framework builds its calls
# from them); a value outside is refused before the tool runs, in one line.
Budget = Annotated[int, Field(ge=0, le=MAX_BUDGET, description="tokens (estimated)")]
Limit = Annotated[int, Field(ge=1)]
TimeLimit = Annotated[float, Field(gt=0, le=QUERY_TIME_LIMIT_MAX, description="seconds")]
Kind = Literal["note", "decision", "preference"]
Level = Literal["L0", "L1", "L2", "L3", "l0", "l1", "l2", "l3"]
Mode = Literal["attention-only", "production"]
#: What every tool answers: text for the model, the structured result (a JSON object) for
#: programs; the SDK checks the latter against the tool's output model.
Answer = Annotated[CallToolResult, dict[str, Any]]

#: Seconds a write tool waits for another process's write lock (``$ATC_LOCK_WAIT`` when set):
#: a capture hook's ingest and curate usually end well within it, and it stays under the 60 s
#: a client's request times out after by default (the TypeScript SDK's).
WRITE_WAIT = 30.0

#: Seconds between two tries of a waiting write tool; the worker thread is free meanwhile.
WRITE_RETRY = 0.2


def argument_problems(exc: Any) -> str:
    """A pydantic ValidationError of a tool's arguments on one line: each argument and what
    it must be (``budget: Input should be a valid integer``), without the input echoed back or
    pydantic's documentation link."""
    return "; ".join(f"{'.'.join(str(part) for part in err['loc']) or 'arguments'}: "
                     f"{' '.join(str(err['msg']).split())}" for err in exc.errors())


def answer(result: dict[str, Any], text: str | None = None) -> CallToolResult:
    """A tool's answer: ``result`` as its structured content, and as its text content either
    ``text`` or ``result`` as compact JSON (the serialised JSON the MCP specification asks of a
    tool with structured content, without the SDK's indentation)."""
    if text is None:
        text = compact_json(result)
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=result)


def compact_json(value: Any) -> str:
    """``value`` as the server writes all its JSON text (tool results and resources alike):
    on one line, no spaces, so a model reading it pays no tokens for indentation."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def receipt_line(receipt_id: str) -> str:
    """The line after a frame in ``hydrate``'s text: which receipt says why each fact is
    there, and the two ways a client reads it (a tool for a client without resources)."""
    return (f"Receipt {receipt_id} (why each fact is here): the receipt tool with "
            f"receipt_id {receipt_id}, or the resource receipt://{receipt_id}.")


def hydrate_text(result: dict[str, Any]) -> str:
    """What a model reads of a ``hydrate`` answer: the frame in its envelope, as ``atc
    hydrate`` prints it and within the budget, then :func:`receipt_line`."""
    return f"{result['frame']}\n{receipt_line(result['receipt_id'])}"


def writer_named(exc: WriterBusy) -> str:
    """The process holding the write lock, as a tool's answer names it."""
    return f"another process (pid {exc.holder})" if exc.holder else "another process"


def busy_message(exc: WriterBusy, waited: float) -> str:
    """Why a write tool gave up, for the agent that called it: who writes and how long the
    tool waited, without the advice meant for a script's author (``release()``,
    ``ATC_LOCK_WAIT``)."""
    wait = f"; waited {waited:g} s for it to finish" if waited > 0 else ""
    return (f"{writer_named(exc)} is writing to this memory home{wait}: call the tool again "
            "once it is done")


def listed_tools(home: str | os.PathLike[str]) -> list[Any]:
    """The tools ``tools/list`` hands a client (the SDK's Tool objects: name, description,
    input and output schema), from a server on ``home`` opened and closed for it."""
    server = build_server(home)
    try:
        return asyncio.run(server.list_tools())
    finally:
        server.atc_close()


def build_server(home: str | os.PathLike[str] | None = None, *,
                 http_token: str | None = None) -> Any:
    """The MCPServer with memory's tools and receipt resources, for ``home``; its HTTP app
    answers only requests bearing ``http_token`` (none: no HTTP app may be built)."""
    # The SDK logs at INFO on stderr, where faiss's loader then reported each CPU build it
    # tried and could not load ("ModuleNotFoundError ... swigfaiss_avx512") when memory opened.
    logging.getLogger("faiss").setLevel(logging.WARNING)
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
    from pydantic import ValidationError

    class Server(MCPServer):
        """Arguments the schema rejects are a tool error of one line, like every other."""

        async def call_tool(self, name: str, arguments: dict[str, Any],
                            context: Any = None) -> Any:
            tool = self._tool_manager.get_tool(name)
            if tool is not None and isinstance(arguments, dict):
                refuse_unknown_arguments(name, arguments, tool.parameters)
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                if isinstance(exc.__cause__, ValidationError):
                    raise ToolError(f"Error executing tool {name}: "
                                    f"{argument_problems(exc.__cause__)}") from exc.__cause__
                raise

        async def run_stdio_async(self) -> None:
            """The SDK's stdio transport, fed lines that :mod:`.mcp_wire` screened, so a
            request the SDK cannot read is answered rather than dropped."""
            from mcp.server.stdio import stdio_server

            from .mcp_wire import ScreenedLines, stdin_wire

            try:
                with stdin_wire() as wire:
                    lines = ScreenedLines(wire)
                    # stdio_server only iterates its stdin: lines, not an anyio file, serve
                    async with stdio_server(stdin=lines) as (  # type: ignore[arg-type]
                            read_stream, write_stream):
                        lines.answer_on(write_stream)
                        low = self._lowlevel_server  # as MCPServer.run_stdio_async
                        await low.run(read_stream, lines.watching(write_stream),
                                      low.create_initialization_options())
            except* BrokenPipeError:
                # the client went away while a call ran (killed, or quit mid-tool): its
                # answer has no reader, so the server ends as when stdin closes between calls
                stdout_gone()

        def streamable_http_app(self, **options: Any) -> Any:
            """The SDK's app, its answers to a body it cannot read mended by
            :mod:`.mcp_wire` (the request's id, one line naming the problem)."""
            from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

            from ..sharing.server import BodyInTime
            from .mcp_auth import BearerGate
            from .mcp_wire import ScreenedHTTP

            if not http_token:
                raise RuntimeError("atc mcp serves HTTP only behind a bearer token")
            most = options.get("max_request_body_size", DEFAULT_MAX_REQUEST_BODY_SIZE)
            # the SDK reads a body with no deadline: the token's bearer sending one byte now
            # and then held the connection for ever; BodyInTime gives it atc serve's deadline
            return BearerGate(BodyInTime(ScreenedHTTP(super().streamable_http_app(**options),
                                                      most), most),
                              http_token)

    host = MemoryHost(home)
    worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="atc-memory")

    async def run(fn: Callable[[], _T]) -> _T:
        try:
            # inf and nan as atc query --format json prints them (the SDK wrote bare
            # Infinity/NaN in the text and null in the structured content)
            return strict_json(await asyncio.wrap_future(worker.submit(fn)))
        except AtcError as exc:
            raise ToolError(one_line(exc, "mcp")) from None

    async def write(fn: Callable[[], dict[str, Any]], *,
                    create: bool = False) -> dict[str, Any]:
        """FN run under the home's write lock, given back after it. While another process
        holds the lock it is tried again every WRITE_RETRY seconds, the worker free for
        other calls in between, up to the wait; an answer that waited says so."""
        from ..home import lock_wait_set

        try:
            limit = lock_wait_set()
        except AtcError as exc:
            raise ToolError(one_line(exc, "mcp")) from None
        limit = WRITE_WAIT if limit is None else limit
        start = time.monotonic()
        busy: WriterBusy | None = None

        def locked() -> dict[str, Any]:
            made_home = create and not host.home.exists()
            host.memory(create=create).acquire(wait=0)
            waited = time.monotonic() - start
            try:
                result = fn()
            except BaseException:
                if made_home:  # a failed call leaves no home behind (an agent's typo)
                    host.remove_home()
                raise
            finally:
                host.wrote()
            if busy is None:
                return result
            return {**result, "waited_s": round(waited, 1),
                    "note": f"waited {waited:.1f} s for {writer_named(busy)} writing to this "
                            "memory home"}

        while True:
            try:
                return strict_json(await asyncio.wrap_future(worker.submit(locked)))
            except WriterBusy as exc:
                busy = exc
            except AtcError as exc:
                raise ToolError(one_line(exc, "mcp")) from None
            waited = time.monotonic() - start
            if waited >= limit:
                raise ToolError(busy_message(busy, limit)) from None
            await asyncio.sleep(min(WRITE_RETRY, limit - waited))

    server = Server(
        SERVER_NAME,
        instructions=(
            "Attention Cloud: durable agent memory. Call `hydrate` with what you are trying to "
            "do to get a budgeted frame of relevant memory (each fact with its source pointer; "
            "the line after the frame names its receipt, which says why each fact is there: "
            "the `receipt` tool reads it); `remember` to keep a note, decision or "
            "preference; `query` for exact Prolog questions over the journal "
            "(item_kind(H, error), item_goal(H, G), ...); `show` to read one item at a rung. "
            f"A tool that writes waits while another process writes to memory (up to "
            f"{WRITE_WAIT:g} s; "
            "`waited_s` in its answer says how long)."),
    )

    @server.tool()
    async def hydrate(goal: str, budget: Budget = 2000, plane: str = "default",
                      now: str | None = None) -> Answer:
        """Render a frame of memory for GOAL within a token budget (estimated tokens).

        Returns the frame wrapped in its <memory-frame> envelope (ready to place in context;
        ingestion strips it, so it is never captured as new memory) and a line naming its
        receipt (per fact: handle, segment, rung, why it was chosen, score, tokens, source),
        which the `receipt` tool reads; the structured result holds the receipt too.
        `plane` is default, execution or exploration; `now` (ISO 8601) is the present that
        phrases like "two weeks ago" are read against.
        """
        def call() -> dict[str, Any]:
            frame = host.memory().hydrate(goal, budget=budget, plane=plane, now=now)
            return {"receipt_id": frame.receipt_id, "frame": frame.envelope,
                    "receipt": frame.receipt}
        result = await run(call)
        return answer(result, hydrate_text(result))

    @server.tool(name="receipt")
    async def receipt_tool(receipt_id: str) -> Answer:
        """The stored receipt RECEIPT_ID (the id a `hydrate` answer names): per fact its
        handle, segment, rung, why it was chosen, score, tokens and source pointer; what the
        resource receipt://RECEIPT_ID holds, for a client that reads no resources."""
        return answer(await run(lambda: host.memory().receipt(receipt_id)))

    @server.tool()
    async def query(goal: str, limit: Limit = 100,
                    time_limit: TimeLimit = QUERY_TIME_LIMIT_MAX) -> Answer:
        """Solutions of a Prolog GOAL over memory's query vocabulary (sandboxed, as
        `atc query`): e.g. `item_kind(H, error), item_goal(H, G)`. Returns one row per
        solution mapping each named variable to its value, and `more` when `limit` cut them.
        `time_limit` is at most 30 seconds."""
        def call() -> dict[str, Any]:
            result = host.memory().query(goal, limit=limit, time_limit=time_limit)
            return {"rows": result.rows, "more": result.more}
        return answer(await run(call))

    @server.tool()
    async def remember(text: str, kind: Kind = "note",
                       segment: str = "default") -> Answer:
        """Keep one memory: TEXT becomes a journal item of KIND (note, decision or
        preference) in SEGMENT, with its own verbatim record, curated at once so frames find
        it. Remembering the same text again changes nothing (`new` is false)."""
        def call() -> dict[str, Any]:
            return host.memory(create=True).remember(text, kind=kind, segment=segment).as_dict()
        return answer(await write(call, create=True))

    @server.tool()
    async def forget(handle: str, reason: str = "forgotten by request") -> Answer:
        """Erase an item as `atc forget` does: no file of the memory home keeps its text, what
        was derived from it is rebuilt without it, an audit record remains. Returns what was
        done (invalidated records, sources that still hold the text, ...)."""
        def call() -> dict[str, Any]:
            report = host.memory().forget([handle], reason=reason, who="mcp")
            return {"handle": handle, **report.as_dict()}
        return answer(await write(call))

    @server.tool()
    async def attend(goal_id: str, budget: int = 3, depends_on: list[str] | None = None,
                     loss: float = 1.0, current: str | None = None,
                     scope: str = "default") -> Answer:
        """The attention controller's next step for goal GOAL_ID (as `atc attend`): rank
        candidate inspections by value of computation and decide: inspect one, or stop.
        `depends_on` (belief ids) sets the goal first, with `loss` if its decision is wrong."""
        def call() -> dict[str, Any]:
            import time

            ctl = _controller(host, scope)
            now = time.time()
            if depends_on:
                # checked before the goal is set: refused after it, the tool failed and had
                # still journalled the goal
                ctl.check_attend(budget=budget, current=current)
                ctl.add_goal(goal_id, depends_on=depends_on, loss_if_wrong=loss, now=now)
            return ctl.attend(goal_id, budget=budget, now=now, current=current).as_dict()
        # a goal the home holds, unless depends_on sets it here (as `atc attend`)
        return answer(await write(call, create=bool(depends_on)))

    @server.tool()
    async def claim(text: str, claim_type: str, evidence: list[str] | None = None,
                    subject: str | None = None, mode: Mode = "attention-only",
                    scope: str = "default") -> Answer:
        """Check a claim's evidence with the validator (as `atc claim`); in `production` mode
        a claim without the evidence its type requires is not allowed (`allowed` false,
        `violations` say what is missing)."""
        def call() -> dict[str, Any]:
            import time

            verdict = _controller(host, scope).claim(
                text, claim_type=claim_type, evidence=tuple(evidence or ()), mode=mode,
                now=time.time(), subject=subject)
            return dict(verdict.__dict__)
        # judged by what a home holds: a missing one is a mistyped home, not one to make
        return answer(await write(call, create=False))

    @server.tool()
    async def show(handle: str, level: Level = "L0", source: bool = False) -> Answer:
        """One item, arc or session rollup at a rung (L0 verbatim .. L3 skeleton), with its
        fields; `source` adds the verbatim record its pointer addresses."""
        def call() -> dict[str, Any]:
            from ..show import show_record

            return show_record(host.memory(), handle, level.lower(), source)
        return answer(await run(call))

    @server.resource("receipt://{receipt_id}", mime_type="application/json",
                     description="A stored hydration receipt (what `atc receipt ID` prints).")
    def receipt(receipt_id: str) -> str:
        from ..hydration import load_receipt

        try:
            return compact_json(load_receipt(host.home, receipt_id))
        except AtcError as exc:
            raise ResourceNotFoundError(one_line(exc, "mcp")) from None

    @server.resource("receipts://recent", mime_type="application/json",
                     description="The 50 most recent receipts: id, goal, created, facts.")
    def recent_receipts() -> str:
        return compact_json(recent(host.home))

    # The SDK ignores an argument a tool does not take (call_tool refuses it): the schemas
    # say so, so that a client may check its calls before sending them.
    # Each tool's outputSchema is its result's schema (schemas/mcp.schema.json), bundled with
    # the schemas it refers to: the SDK derived only `object` from `dict[str, Any]`, and a
    # client resolves a `$ref` only within the document.
    from ..schemas import bundled

    for tool in server._tool_manager.list_tools():
        tool.parameters["additionalProperties"] = False
        tool.fn_metadata.output_schema = bundled("mcp", tool.name)
        tool.__dict__.pop("output_schema", None)      # a cached_property, read before now
    # for serve(): memory is closed on the worker thread that opened it
    server.atc_close = lambda: worker.submit(host.close).result()
    return server


def stdout_gone() -> None:
    """Point standard output at the null device once its reader has gone, so that what is
    left in its buffers is dropped at exit rather than reported as a broken pipe (Python's
    own advice for a program whose output pipe closes early)."""
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def refuse_unknown_arguments(name: str, arguments: dict[str, Any],
                             schema: dict[str, Any]) -> None:
    """A ToolError of one line naming the arguments of a call that the tool ``name`` does
    not take (its ``schema``'s properties): the SDK dropped them, so a misspelt ``budgte``
    gave a frame of the default budget without a word."""
    from mcp.server.mcpserver.exceptions import ToolError

    takes = list(schema.get("properties", {}))
    unknown = sorted(key for key in arguments if key not in takes)
    if unknown:
        what = "not an argument" if len(unknown) == 1 else "not arguments"
        raise ToolError(f"Error executing tool {name}: {', '.join(unknown)}: {what} of "
                        f"{name} (it takes {', '.join(takes)})")


def recent(home: Any, limit: int = 50) -> list[dict[str, Any]]:
    """The newest stored receipts, newest first, in the order they were saved
    (:func:`..receipt_cap.newest_saved`): id, goal, created, number of facts, and the
    ``receipt://`` URI that reads each."""
    from ..receipt_cap import newest_saved

    return [{"id": data.get("id", rid), "uri": f"receipt://{rid}", "goal": data.get("goal"),
             "created": data.get("created"), "facts": len(data.get("facts", []))}
            for rid, data in newest_saved(home, limit)]


def _controller(host: MemoryHost, scope: str) -> Any:
    from ..attention.controller import Controller

    mem = host.memory(create=True)
    return Controller(mem.pl, scope, memory=mem)


def serve(home: str | os.PathLike[str] | None = None, *, http: bool = False,
          port: int = 8765) -> None:
    """Run the server until the client goes away (stdio) or it is interrupted (HTTP: on
    127.0.0.1 only, every request bearing the token of :func:`.mcp_auth.server_token`;
    ``port`` 0 a free one, which the serving line on stderr names once it listens; SIGTERM or
    Ctrl-C end it with exit 0, see :class:`_StopsAtExit0`)."""
    from .mcp_log import log_on_one_line

    log_on_one_line()               # before the SDK's own logging set-up, which it replaces
    if http:
        with _StopsAtExit0():       # before the serving line: a stop from then on counts
            _serve_http(home, port)
        return
    from .mcp_sdk import import_for_stdio

    import_for_stdio()              # the SDK without its HTTP stack, before build_server's
    server = build_server(home)
    try:
        server.run("stdio")
    finally:
        server.atc_close()


def _serve_http(home: str | os.PathLike[str] | None, port: int) -> None:
    import sys

    from ..home import resolve_home
    from ..sharing.server import listening_socket
    from .mcp_auth import server_token

    token, where = server_token(resolve_home(home))
    with listening_socket("127.0.0.1", port) as sock:    # port 0: a free one, named below
        print(f"atc mcp: serving http://127.0.0.1:{sock.getsockname()[1]}/mcp; every request "
              f"needs 'Authorization: Bearer TOKEN' with the token in {where}", file=sys.stderr,
              flush=True)
        server = build_server(home, http_token=token)
        try:
            _run_http(server, sock)
        finally:
            server.atc_close()


def _run_http(server: Any, sock: Any) -> None:
    """What the SDK's ``run("streamable-http")`` does, on uvicorn with ``atc serve``'s bounds on
    connections (:func:`..sharing.server.bounded_http_protocol`), on the listening ``sock``:
    uvicorn's own held a connection that sent nothing, or never the end of its headers, for
    ever, and took any number of them, so any local process, token or not, could hold every
    file descriptor."""
    import anyio
    import uvicorn

    from ..sharing.server import bounded_http_protocol

    # no access log, as atc serve: uvicorn's wrote each request's path and query string to
    # stdout, a token a client put in the URL (`?access_token=`, RFC 6750's form) with it
    config = uvicorn.Config(server.streamable_http_app(host="127.0.0.1"),
                            log_level=server.settings.log_level.lower(), access_log=False,
                            http=bounded_http_protocol())
    anyio.run(functools.partial(uvicorn.Server(config).serve, sockets=[sock]))


class _Stopped(Exception):
    """SIGTERM or SIGINT outside uvicorn's own handling: the HTTP server is to end, exit 0."""


class _StopsAtExit0:
    """SIGTERM and Ctrl-C end ``atc mcp --http`` with exit 0, as they end ``atc serve``.

    While it serves, uvicorn handles both (the requests being answered are answered); once
    stopped it raises the signal again for the handler in place before it, which with Python's
    own ended the process by SIGTERM (exit 143) or as ``atc: interrupted`` (exit 130). Here
    that handler is this one: it raises :class:`_Stopped` in the main thread, at the re-raise
    (uvicorn is done) or before uvicorn took over (the server is still starting: no request
    can be in flight, and memory opens only at the first call), and the context ends it.
    Outside the main thread signals are left to their owner."""

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "_StopsAtExit0":
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._stop)
        return self

    @staticmethod
    def _stop(_signum: int, _frame: Any) -> None:
        raise _Stopped

    def __exit__(self, kind: Any, _value: Any, _tb: Any) -> bool:
        import signal

        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        return kind is not None and issubclass(kind, _Stopped)
