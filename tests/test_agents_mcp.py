"""`atc mcp`, driven by the official MCP SDK's own client (stdio_client + ClientSession)
against a real server subprocess: tools listed, each tool called, a receipt read as a
resource, errors as tool errors, and the home's write lock free between calls. The tests
that only call tools share one server (``served``), as a client's session does; those about
the server's environment, its bytes on stdin or its end start their own."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

mcp = pytest.importorskip("mcp")
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "host" / "attention_cloud" / "samples"
ATC = str(Path(sys.executable).parent / "atc")
TOOLS = {"hydrate", "receipt", "query", "remember", "forget", "attend", "claim", "show"}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("mcp") / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    beliefs = [
        ["source", "add", "registry", "--type", "dependency_version", "--kind", "package_registry"],
        ["source", "add", "summary", "--type", "dependency_version", "--kind", "own_summary"],
        ["belief", "add", "dep_version", "--type", "dependency_version", "--subject", "libfoo",
         "--value", "4.1", "--confidence", "0.9", "--age", "21600", "--volatility",
         "package_release", "--source", "summary"],
        ["belief", "add", "compat", "--type", "compatibility", "--subject", "deploy", "--value",
         "A", "--confidence", "0.9", "--age", "21600", "--volatility", "config_docs",
         "--supports", "dep_version"]]
    # the same atc commands, run in this process (click's runner): the home is the subject's
    # set-up, not the subject; the server under test is a real `atc mcp` process
    from click.testing import CliRunner

    from attention_cloud.cli import main
    from attention_cloud.memory import current

    for args in (["ingest", str(SAMPLES)], ["curate"], *beliefs):
        done = CliRunner().invoke(main, [*args, "--home", str(home)])
        assert done.exit_code == 0, done.output + repr(done.exception)
    if current() is not None:  # the attention commands keep their Memory open
        current().close()
    return home


def _data(result) -> dict:
    assert not result.is_error, result.content
    if isinstance(result.structured_content, dict):
        return result.structured_content
    return json.loads(result.content[0].text)


def _error(result) -> str:
    assert result.is_error
    return result.content[0].text


@contextlib.asynccontextmanager
async def _session(home: Path, env: dict | None = None):
    """An initialized SDK client session with a new `atc mcp` server process."""
    params = StdioServerParameters(command=ATC, args=["mcp"],
                                   env={"ATC_HOME": str(home),
                                        **({"ATC_PROLOG": os.environ["ATC_PROLOG"]}
                                           if "ATC_PROLOG" in os.environ else {}),
                                        **(env or {})})
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def _session_run(home: Path, body, env: dict | None = None) -> None:
    async with _session(home, env) as session:
        await body(session)


@pytest.fixture(scope="module")
def served(home: Path):
    """``served(body)`` runs ``body(session)`` in one `atc mcp` server for the module's tests
    that need no server of their own (no environment of their own, no end of the server
    under test): the server is what a client keeps for a whole session, and each start of
    one (Python, the SDK, SWI-Prolog, the home) cost more than most of these tests' calls."""
    with anyio.from_thread.start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_session(home)) as session:
            yield lambda body: portal.call(body, session)


def test_every_tool_and_a_receipt_resource_through_the_sdk_client(home: Path, served) -> None:
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        listed = await session.list_tools()
        seen["tools"] = {t.name for t in listed.tools}
        templates = await session.list_resource_templates()
        seen["templates"] = [t.uri_template for t in templates.resource_templates]

        frame = _data(await session.call_tool(
            "hydrate", {"goal": "why do processor retries fail", "budget": 600}))
        seen["frame"] = frame
        receipt = await session.read_resource(f"receipt://{frame['receipt_id']}")
        seen["receipt"] = json.loads(receipt.contents[0].text)
        listed = await session.list_resources()
        seen["resources"] = [str(r.uri) for r in listed.resources]
        recent = await session.read_resource("receipts://recent")
        seen["recent"] = json.loads(recent.contents[0].text)

        seen["query"] = _data(await session.call_tool(
            "query", {"goal": "item_kind(H, error), item_source(H, S)", "limit": 2}))
        seen["remember"] = _data(await session.call_tool(
            "remember", {"text": "the staging DB is read-only on Fridays", "kind": "note"}))
        seen["again"] = _data(await session.call_tool(
            "remember", {"text": "the staging DB is read-only on Fridays", "kind": "note"}))
        handle = seen["remember"]["handle"]
        seen["show"] = _data(await session.call_tool("show", {"handle": handle,
                                                              "source": True}))
        seen["recall"] = _data(await session.call_tool(
            "hydrate", {"goal": "can I write to staging on Friday", "budget": 300}))
        seen["attend"] = _data(await session.call_tool(
            "attend", {"goal_id": "deploy", "depends_on": ["compat"], "budget": 3}))
        seen["claim"] = _data(await session.call_tool(
            "claim", {"text": "deploy A", "claim_type": "live_system_state",
                      "mode": "production"}))
        seen["forget"] = _data(await session.call_tool("forget", {"handle": handle}))
        seen["after"] = _data(await session.call_tool(
            "query", {"goal": f"item({json.dumps(handle)})"}))

    served(body)
    assert seen["tools"] == TOOLS
    assert seen["templates"] == ["receipt://{receipt_id}"]
    frame = seen["frame"]
    assert frame["frame"].startswith(f'<memory-frame receipt="{frame["receipt_id"]}" '
                                     'source="attention-cloud">')
    assert "ProcessorClient" in frame["frame"]
    assert seen["receipt"]["id"] == frame["receipt_id"] == frame["receipt"]["id"]
    assert seen["receipt"]["facts"], "the stored receipt lists the frame's facts"
    assert seen["resources"] == ["receipts://recent"]
    assert seen["recent"][0]["id"] == frame["receipt_id"]
    assert seen["recent"][0]["uri"] == f"receipt://{frame['receipt_id']}"
    assert len(seen["query"]["rows"]) == 2 and seen["query"]["more"] is True
    assert seen["remember"]["new"] is True and seen["remember"]["curated"] is True
    assert seen["again"]["new"] is False
    assert seen["again"]["handle"] == seen["remember"]["handle"]
    assert '"read-only on Fridays"' in seen["show"]["verbatim"] or \
        "read-only on Fridays" in seen["show"]["verbatim"]
    assert seen["show"]["kind"] == "note"
    assert seen["remember"]["handle"] in {f["handle"] for f in seen["recall"]["receipt"]["facts"]}
    assert seen["attend"]["decision"] == "inspect"        # the registry, as in the README
    assert seen["attend"]["chosen"]["target"] == "registry"
    assert seen["claim"]["allowed"] is False and seen["claim"]["violations"]
    assert seen["forget"]["handle"] == seen["remember"]["handle"]
    assert seen["after"]["rows"] == []


def test_errors_are_tool_errors_of_one_line_and_the_server_keeps_serving(home: Path,
                                                                        served) -> None:
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        seen["bad_query"] = _error(await session.call_tool("query", {"goal": "shell('ls')"}))
        seen["syntax"] = _error(await session.call_tool("query", {"goal": "item(("}))
        seen["empty"] = _error(await session.call_tool("remember", {"text": "   "}))
        seen["kind"] = _error(await session.call_tool("remember", {"text": "x", "kind": "idea"}))
        seen["show"] = _error(await session.call_tool("show", {"handle": "it_0000000000000000"}))
        seen["forget"] = _error(await session.call_tool("forget",
                                                        {"handle": "it_0000000000000000"}))
        seen["goal"] = _error(await session.call_tool("hydrate", {"goal": " "}))
        try:
            await session.read_resource("receipt://r_0000000000000000")
            seen["resource"] = "read"
        except Exception as exc:  # an MCP protocol error, as the SDK raises it
            seen["resource"] = str(exc)
        seen["still"] = _data(await session.call_tool("query", {"goal": "item(H)", "limit": 1}))

    served(body)
    for key in ("bad_query", "syntax", "empty", "kind", "show", "forget", "goal"):
        assert "\n" not in seen[key].strip(), (key, seen[key])
    assert "nothing to remember" in seen["empty"]
    assert "kind: Input should be 'note', 'decision' or 'preference'" in seen["kind"]
    assert "no such item" in seen["show"] and "no such item" in seen["forget"]
    assert "goal must not be empty" in seen["goal"]
    assert "no such receipt" in seen["resource"]
    assert len(seen["still"]["rows"]) == 1


def test_the_server_does_not_keep_other_writers_out(home: Path, served) -> None:
    """Between calls the server holds no lock: `atc remember` in another process succeeds
    while it runs, and the server's next answer sees that process's item."""
    seen: dict = {}
    env = {**os.environ, "ATC_HOME": str(home)}

    async def body(session: ClientSession) -> None:
        await session.call_tool("remember", {"text": "server wrote this note"})
        other = subprocess.run([ATC, "remember", "another process wrote this note",
                                "--no-curate", "--format", "json"],
                               env=env, capture_output=True, text=True)
        seen["other"] = other
        seen["rows"] = _data(await session.call_tool(
            "query", {"goal": 'item_text(H, "another process wrote this note")'}))["rows"]

    served(body)
    assert seen["other"].returncode == 0, seen["other"].stderr
    handle = json.loads(seen["other"].stdout)["handle"]
    assert seen["rows"] == [{"H": handle}]


_HOLD_LOCK = """
import fcntl, os, sys
fd = os.open(os.path.join(sys.argv[1], ".lock"), os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.pwrite(fd, f"{os.getpid()}\\n".encode(), 0)
print("held", flush=True)
sys.stdin.readline()
"""


def _hold_write_lock(home: Path) -> subprocess.Popen:
    """Another process holding the home's write lock until a line on its stdin (or its end),
    as a long `atc ingest` or a capture hook's ingest does (the lock is home/.lock's flock,
    with the holder's pid). Released by the test, never after a fixed time: a loaded machine
    reaches the next step of a test later than any fixed time allows."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(home)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "held\n"
    return holder


def _release(holder: subprocess.Popen) -> None:
    """Let a holder of :func:`_hold_write_lock` give the lock back and end."""
    holder.stdin.write("\n")
    holder.stdin.close()
    assert holder.wait(timeout=30) == 0


def test_a_write_tool_waits_for_another_writer_and_says_so(home: Path, served) -> None:
    """While another process writes (a long ingest, the Stop hook's capture), `remember`
    failed at once with a message for a script's author (release(), ATC_LOCK_WAIT). It now
    waits for the writer, a bounded time, and its answer says how long; reads go on being
    answered while it waits."""
    import time

    seen: dict = {}

    async def body(session: ClientSession) -> None:
        await session.call_tool("query", {"goal": "true"})   # memory open before the writer
        holder = _hold_write_lock(home)
        start = time.monotonic()
        try:
            async def write() -> None:
                seen["remember"] = _data(await session.call_tool(
                    "remember", {"text": "noted while another process was writing"}))
                seen["remember_at"] = time.monotonic() - start

            async def read_then_release() -> None:
                # sent after the remember (one pipe, in order), answered while it waits:
                # the lock is held until then, and a second more, however slow the machine
                seen["query"] = _data(await session.call_tool("query", {"goal": "item(H)",
                                                                        "limit": 1}))
                seen["query_at"] = time.monotonic() - start
                seen["remembered_before_query"] = "remember" in seen
                await anyio.sleep(1.0)
                _release(holder)

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(write)
                tasks.start_soon(read_then_release)
        finally:
            if holder.poll() is None:
                holder.kill()
            holder.wait(timeout=30)
        handle = seen["remember"]["handle"]
        seen["rows"] = _data(await session.call_tool(
            "query", {"goal": f"item({json.dumps(handle)})"}))["rows"]

    served(body)
    remembered = seen["remember"]
    assert remembered["new"] is True and seen["rows"] == [{}]
    # the remember began waiting before the query was answered, and the lock was released a
    # second after that answer: it waited at least that second, and said so
    assert 1.0 <= remembered["waited_s"] <= seen["remember_at"]
    assert remembered["note"].startswith("waited ") and "another process" in remembered["note"]
    assert not seen["remembered_before_query"] and len(seen["query"]["rows"]) == 1
    assert seen["query_at"] < seen["remember_at"]


def test_a_write_tool_gives_up_after_a_bounded_wait_with_one_line(home: Path) -> None:
    """A writer that holds the lock longer than the wait ($ATC_LOCK_WAIT here, else 30 s) is
    a tool error of one line saying so and naming the writer's pid, without a word about
    release() or environment variables the agent cannot set; nothing is written."""
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        holder = _hold_write_lock(home)
        try:
            seen["pid"] = holder.pid
            seen["error"] = _error(await session.call_tool(
                "remember", {"text": "a note that must wait too long"}))
        finally:
            holder.kill()
            holder.wait(timeout=30)
        seen["rows"] = _data(await session.call_tool(
            "query", {"goal": 'item_text(H, "a note that must wait too long")'}))["rows"]

    anyio.run(_session_run, home, body, {"ATC_LOCK_WAIT": "1"})
    assert "\n" not in seen["error"]
    assert seen["error"] == ("Error executing tool remember: another process "
                             f"(pid {seen['pid']}) is writing to this memory home; waited 1 s "
                             "for it to finish: call the tool again once it is done")
    assert seen["rows"] == []


def start_http(argv: list[str], env: dict) -> tuple[subprocess.Popen, int, str]:
    """A server started by ``argv`` (``atc mcp --http --port 0``: a free port, no race with
    another process for one picked beforehand), its port as its serving line names it, and
    that line: the first on stderr, printed once the socket listens."""
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    line = server.stderr.readline()
    found = re.match(r"atc mcp: serving http://127\.0\.0\.1:(\d+)/mcp;", line)
    if found is None:
        server.kill()
        pytest.fail(f"no serving line: {line}{server.stderr.read()}")
    return server, int(found.group(1)), line


def test_streamable_http_on_loopback(home: Path) -> None:
    """`atc mcp --http --port N` serves the same tools at http://127.0.0.1:N/mcp."""
    import time

    from mcp.client.streamable_http import streamable_http_client

    import httpx2

    env = {**os.environ, "ATC_HOME": str(home), "ATC_MCP_TOKEN": HTTP_TOKEN}
    server, port, _line = start_http([ATC, "mcp", "--http", "--port", "0"], env)
    seen: dict = {}

    async def body() -> None:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {HTTP_TOKEN}"})
        async with client, streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                                  http_client=client) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                seen["tools"] = {t.name for t in (await session.list_tools()).tools}
                seen["rows"] = _data(await session.call_tool(
                    "query", {"goal": "item_kind(H, error)", "limit": 1}))["rows"]

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                anyio.run(body)
                break
            except Exception:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.5)
        seen["bad"] = _http_bad_requests(port)
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert seen["tools"] == TOOLS
    assert len(seen["rows"]) == 1
    # faiss's loader reported every CPU build it could not load, at the SDK's INFO level
    assert "faiss" not in server.stderr.read()
    # what stdio answers (test_every_request_gets_an_answer_over_stdio), HTTP answers too,
    # status 400: the SDK's own answers gave id null, called a lone surrogate a parse error
    # ("unexpected end of hex escape"), printed pydantic's report of many lines, and accepted
    # a request with an id of null (202) as a notification
    assert [status for status, _ in seen["bad"]] == [400] * 4 + [200]
    assert seen["bad"][0][1] == {"jsonrpc": "2.0", "id": 2, "error": {
        "code": -32602, "message": "Invalid params: params.arguments.handle holds a lone "
        "surrogate escape (a \\ud800-\\udfff without its other half), which is no text"}}
    assert seen["bad"][1][1]["id"] is None and seen["bad"][1][1]["error"]["code"] == -32700
    assert seen["bad"][2][1] == {"jsonrpc": "2.0", "id": 4, "error": {
        "code": -32600, "message": 'Invalid Request: a message needs "jsonrpc": "2.0"'}}
    assert seen["bad"][3][1] == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": 'Invalid Request: "id" must be a string or an integer, '
        'not null'}}
    # params the method cannot read: the SDK said only "Invalid request parameters"
    assert seen["bad"][4][1] == {"jsonrpc": "2.0", "id": 5, "error": {
        "code": -32602, "message": "Invalid params: name: Field required"}}


def _http_bad_requests(port: int) -> list:
    """A raw session at http://127.0.0.1:PORT/mcp, then a request with a lone surrogate
    escape, a body that is not JSON, JSON that is no JSON-RPC message, a request with an id
    of null and a tools/call without a tool's name: (status, reply) for each."""
    import urllib.error
    import urllib.request

    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "Authorization": f"Bearer {HTTP_TOKEN}"}

    def post(body: str) -> tuple:
        request = urllib.request.Request(url, data=body.encode(), headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, reply.headers, reply.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers, exc.read()

    _, init, _ = post(_INIT.splitlines()[0])
    headers["mcp-session-id"] = init["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-06-18"
    post(_INIT.splitlines()[1])
    out = []
    for body in (r'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show",'
                 r'"arguments":{"handle":"a\ud800"}}}', "not json", '{"id":4}',
                 '{"jsonrpc":"2.0","id":null,"method":"ping"}',
                 '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}'):
        status, _, text = post(body)
        if text.startswith(b"event:"):      # an event stream: its one message's data
            text = next(line[5:] for line in text.splitlines() if line.startswith(b"data:"))
        out.append((status, json.loads(text)))
    return out


#: The token the HTTP tests give the server through $ATC_MCP_TOKEN.
HTTP_TOKEN = "test-token-0123456789abcdef"


def _http_status(port: int, headers: dict[str, str]) -> tuple[int, dict]:
    """Status and JSON answer of an MCP initialize request POSTed with ``headers``."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp", data=_INIT.splitlines()[0].encode(),
        headers={"Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, {}
    except urllib.error.HTTPError as exc:
        return exc.code, {**json.loads(exc.read()), "www": exc.headers.get("www-authenticate")}


def test_http_answers_only_the_bearer_of_its_token(tmp_path: Path) -> None:
    """`atc mcp --http` answered any process on the machine: the tools read, wrote and erased
    the home as its owner with no credential at all. Every request now needs the server's
    bearer token: none, a wrong one or another scheme is a 401 the SDK never sees; the token
    is made once, kept in HOME/mcp-token readable by its owner alone, in a home only its
    owner can enter, and the same file serves the next start."""
    home = tmp_path / "fresh-home"
    env = {k: v for k, v in os.environ.items() if k != "ATC_MCP_TOKEN"}
    env["ATC_HOME"] = str(home)
    seen: dict = {}
    server, port, serving_line = start_http([ATC, "mcp", "--http", "--port", "0"], env)
    try:
        token = (home / "mcp-token").read_text().strip()
        for name, headers in (("none", {}), ("wrong", {"Authorization": "Bearer " + "x" * 43}),
                              ("basic", {"Authorization": f"Basic {token}"}),
                              ("prefix", {"Authorization": f"Bearer {token[:-1]}"})):
            seen[name] = _http_status(port, headers)
        seen["right"] = _http_status(port, {"Authorization": f"Bearer {token}"})
    finally:
        server.terminate()
        server.wait(timeout=30)
    for name in ("none", "wrong", "basic", "prefix"):
        status, answer = seen[name]
        assert status == 401 and answer["www"] == "Bearer", (name, seen[name])
        assert answer["error"].startswith("a valid bearer token is required")
    assert seen["right"][0] == 200
    assert len(token) >= 32
    assert (home / "mcp-token").stat().st_mode & 0o777 == 0o600
    assert home.stat().st_mode & 0o777 == 0o700
    assert "mcp-token" in serving_line   # says where the token is
    # the next start keeps the token, so a client's configuration stays valid
    from attention_cloud.agents.mcp_auth import server_token

    assert server_token(home) == (token, str(home / "mcp-token"))


def test_a_short_token_from_the_environment_is_refused(tmp_path: Path) -> None:
    out = subprocess.run([ATC, "mcp", "--http", "--port", "0"],
                         env={**os.environ, "ATC_HOME": str(tmp_path / "h"),
                              "ATC_MCP_TOKEN": "secret"},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr == ("atc: $ATC_MCP_TOKEN must be at least 16 printable ASCII characters "
                          "without spaces\n")
    assert not (tmp_path / "h").exists()


def test_http_flag_binds_loopback_only() -> None:
    from attention_cloud.cli import main

    params = {p.name: p for p in main.get_command(None, "mcp").params}
    assert "host" not in params, "no option may bind another interface"
    source = (ROOT / "host" / "attention_cloud" / "agents" / "mcp_server.py").read_text()
    assert 'host="127.0.0.1"' in source


def test_readme_shows_the_client_configuration() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "claude mcp add attention-cloud -- atc mcp" in readme
    assert "claude_desktop_config.json" in readme
    assert shutil.which is not None


def test_tool_schemas_say_which_values_each_argument_takes(home: Path, served) -> None:
    """An agent framework builds its calls from the tools' input schemas: a kind, level or
    mode given as any string, or a budget, limit or time limit as any number, let a model
    send values every call refused. The schemas now list the choices and bounds the tools
    take, and a value outside them is the usual one-line tool error."""
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        listed = await session.list_tools()
        seen["schemas"] = {t.name: t.input_schema["properties"] for t in listed.tools}
        with_item = _data(await session.call_tool("query", {"goal": "item(H)", "limit": 1}))
        seen["level"] = _data(await session.call_tool("show", {
            "handle": with_item["rows"][0]["H"], "level": "l2"}))
        seen["budget"] = _error(await session.call_tool("hydrate", {"goal": "x", "budget": -1}))
        seen["huge"] = _error(await session.call_tool("hydrate", {"goal": "x", "budget": 10**400}))
        seen["mode"] = _error(await session.call_tool("claim", {"text": "x", "claim_type": "y",
                                                                "mode": "strict"}))

    served(body)
    schemas = seen["schemas"]
    assert schemas["remember"]["kind"]["enum"] == ["note", "decision", "preference"]
    assert set(schemas["show"]["level"]["enum"]) >= {"L0", "L1", "L2", "L3"}
    assert schemas["claim"]["mode"]["enum"] == ["attention-only", "production"]
    assert schemas["hydrate"]["budget"]["minimum"] == 0
    assert schemas["hydrate"]["budget"]["maximum"] == 10_000_000
    assert schemas["query"]["limit"]["minimum"] == 1
    assert schemas["query"]["time_limit"]["exclusiveMinimum"] == 0
    assert schemas["query"]["time_limit"]["maximum"] == 30
    assert seen["level"]["level"] == "L2"
    assert seen["budget"] == ("Error executing tool hydrate: budget: Input should be greater "
                              "than or equal to 0")
    # a budget past ~10**308 overflowed the planner's floats: an internal Prolog error
    assert seen["huge"] == ("Error executing tool hydrate: budget: Input should be less "
                            "than or equal to 10000000")
    assert seen["mode"] == ("Error executing tool claim: mode: Input should be "
                            "'attention-only' or 'production'")


def test_a_float_json_cannot_hold_comes_back_as_atc_query_prints_it(home: Path, served) -> None:
    """Prolog's inf and nan came back as bare Infinity/NaN in the tool's text (no JSON:
    JSON.parse refuses it) and as null in its structured content (a value lost); they are now
    the strings "inf", "-inf" and "nan", as `atc query --format json` prints them."""
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        seen["result"] = await session.call_tool("query", {"goal": "X is inf, Y is nan, "
                                                                   "Z is -inf, W is 1.5"})

    served(body)
    result = seen["result"]
    assert not result.is_error
    expected = {"rows": [{"X": "inf", "Y": "nan", "Z": "-inf", "W": 1.5}], "more": False}

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    assert json.loads(result.content[0].text, parse_constant=refuse) == expected
    assert result.structured_content == expected


def test_arguments_of_the_wrong_type_are_one_line_tool_errors(home: Path, served) -> None:
    """Arguments the tool's schema rejects (missing, wrong type) come back as one line naming
    each argument and what it must be, not pydantic's multi-line report with its URL."""
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        seen["type"] = _error(await session.call_tool("hydrate", {"goal": "x", "budget": "abc"}))
        seen["missing"] = _error(await session.call_tool("hydrate", {}))
        seen["two"] = _error(await session.call_tool("remember", {"text": 5, "kind": []}))
        seen["list"] = _error(await session.call_tool("attend", {"goal_id": "g",
                                                                 "depends_on": "b1"}))
        seen["still"] = _data(await session.call_tool("query", {"goal": "item(H)", "limit": 1}))

    served(body)
    for key in ("type", "missing", "two", "list"):
        assert "\n" not in seen[key] and "pydantic" not in seen[key], (key, seen[key])
    assert seen["type"] == ("Error executing tool hydrate: budget: Input should be a valid "
                            "integer, unable to parse string as an integer")
    assert seen["missing"] == "Error executing tool hydrate: goal: Field required"
    assert seen["two"].startswith("Error executing tool remember: text: Input should be a "
                                  "valid string; kind: ")
    assert seen["list"].startswith("Error executing tool attend: depends_on")
    assert len(seen["still"]["rows"]) == 1


def test_a_query_may_not_hold_the_server_past_the_default_time_limit(home: Path,
                                                                      served) -> None:
    """Calls run one at a time on one thread and a running goal cannot be cancelled, so a
    client's time_limit is capped at 30 s: with time_limit 1e6, `repeat, fail` held every
    later call, and the server went on running long after its client had gone."""
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        seen["long"] = _error(await session.call_tool(
            "query", {"goal": "repeat, fail", "time_limit": 1e6}))
        seen["still"] = _data(await session.call_tool(
            "query", {"goal": "item(H)", "limit": 1, "time_limit": 30}))

    served(body)
    assert seen["long"] == ("Error executing tool query: time_limit: Input should be less "
                            "than or equal to 30")
    assert len(seen["still"]["rows"]) == 1


_INIT = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
         '"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n'
         '{"jsonrpc":"2.0","method":"notifications/initialized"}\n')


def _raw_replies(home: Path, lines: list[str], last_id: int, timeout: float = 60) -> tuple:
    """Lines written to a real `atc mcp`'s stdin, byte for byte, after the handshake; the
    replies (parsed) up to the one with LAST_ID, and what /proc said fd 0 was meanwhile."""
    import threading

    env = {**os.environ, "ATC_HOME": str(home)}
    server = subprocess.Popen([ATC, "mcp"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    replies: list = []
    done = threading.Event()

    def read() -> None:
        for raw in server.stdout:
            replies.append(json.loads(raw))
            if replies[-1].get("id") == last_id:
                break
        done.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        server.stdin.write((_INIT + "".join(line + "\n" for line in lines)).encode())
        server.stdin.flush()
        finished = done.wait(timeout)
        stdin_target = os.readlink(f"/proc/{server.pid}/fd/0") \
            if Path("/proc/self/fd").is_dir() else os.devnull
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    assert finished, f"no reply with id {last_id}; replies: {replies}"
    return replies, stdin_target


#: Lines no client should send, each a case of the test below: a lone surrogate escape, no
#: JSON, no JSON-RPC message, a null id; the last (id 6) a request that must be served.
_ODD_LINES = [
    r'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"show",'
    r'"arguments":{"handle":"a\ud800"}}}',
    'not json',
    '',
    '{"id":4,"method":"ping"}',
    '[1]',
    r'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\udc00"}}',
    r'{"jsonrpc":"2.0","id":"k\ud800","method":"ping"}',
    r'{"jsonrpc":"2.0","id":5,"method":"x\ud800"}',
    '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"query",'
    '"arguments":{"goal":"true"}}}']


@pytest.fixture(scope="module")
def raw_replies(home: Path) -> tuple[list, list, str]:
    """One real `atc mcp` sent, byte for byte on its stdin, a line past the request limit and
    a ping (id 7), then _ODD_LINES (each start of a server costs seconds): the replies to
    _ODD_LINES (the handshake's first, up to the one to id 6), the replies to the long line
    and the ping, and what fd 0 was."""
    from attention_cloud.agents.mcp_wire import MAX_LINE_CHARS

    huge = ('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"' + "x" * MAX_LINE_CHARS
            + '"}}')
    replies, stdin_target = _raw_replies(
        home, [huge, '{"jsonrpc":"2.0","id":7,"method":"ping"}', *_ODD_LINES], last_id=6)
    long_line = [r for r in replies if r.get("id") == 7 or (
        r.get("id") is None and "the line holds more than" in r["error"]["message"])]
    return [r for r in replies if r not in long_line], long_line, stdin_target


def test_every_request_gets_an_answer_over_stdio(raw_replies) -> None:
    """The SDK's stdio transport dropped a line it could not parse: a request holding a lone
    surrogate escape ("\\ud800"), a line that is no JSON, JSON that is no JSON-RPC message got
    no reply at all and the client waited for ever. Each now gets a JSON-RPC error of one line
    with the request's id (null when it has none), and later requests are served."""
    replies, _, stdin_target = raw_replies
    by_id = {}
    for reply in replies[1:]:
        by_id.setdefault(json.dumps(reply["id"]), []).append(reply)
    errors = [r["error"] for r in replies[1:] if "error" in r]
    assert all("\n" not in e["message"] for e in errors), errors
    assert by_id["2"] == [{"jsonrpc": "2.0", "id": 2, "error": {
        "code": -32602, "message": "Invalid params: params.arguments.handle holds a lone "
        "surrogate escape (a \\ud800-\\udfff without its other half), which is no text"}}]
    null = [r["error"] for r in by_id["null"]]
    assert null[0]["code"] == -32700 and null[0]["message"].startswith("Parse error: ")
    assert null[1] == {"code": -32600,
                       "message": "Invalid Request: a message is a JSON object, not an array"}
    # an id that is itself no text cannot be written back: null, as JSON-RPC has it
    assert null[2]["code"] == -32600 and null[2]["message"].startswith("Invalid Request: id ")
    # MCP forbids a null id; the SDK took such a request for a notification
    assert null[3] == {"code": -32600, "message": 'Invalid Request: "id" must be a string or '
                       'an integer, not null'}
    assert len(null) == 4, "no reply to a blank line or a notification"
    assert by_id["4"][0]["error"] == {"code": -32600, "message":
                                      'Invalid Request: a message needs "jsonrpc": "2.0"'}
    assert by_id["5"][0]["error"]["message"].startswith("Invalid Request: method holds a lone")
    assert by_id["6"][0]["result"]["structuredContent"] == {"rows": [{}], "more": False}
    # as the SDK does when it reads stdin itself: a tool reading stdin sees the null device
    assert stdin_target == os.devnull


def test_a_home_that_cannot_keep_the_token_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    out = subprocess.run([ATC, "mcp", "--http", "--port", "0"],
                         env={**{k: v for k, v in os.environ.items() if k != "ATC_MCP_TOKEN"},
                              "ATC_HOME": str(blocker / "home")},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"atc: {blocker / 'home' / 'mcp-token'}: cannot keep the MCP "
                                 "server's token there (")
    assert out.stderr.endswith("); set $ATC_MCP_TOKEN instead\n")


def test_http_on_a_port_in_use_is_one_line_before_any_serving_line(home: Path) -> None:
    """Another server on the port: `atc mcp --http` said it was serving there, then printed
    uvicorn's bind error among its start-up and shut-down logs and exited 3; now one line, as
    `atc serve` says it, exit 1."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "ATC_HOME": str(home), "ATC_MCP_TOKEN": HTTP_TOKEN}
        out = subprocess.run([ATC, "mcp", "--http", "--port", str(port)], env=env,
                             capture_output=True, text=True, timeout=60)
    assert out.returncode == 1, out.stderr
    assert out.stderr.strip().splitlines() == [
        f"atc: cannot listen on 127.0.0.1:{port}: Address already in use"]


def test_an_argument_a_tool_does_not_take_is_refused_not_ignored(home: Path, served) -> None:
    """A misspelt argument (`budgte`) or one the tool does not offer (`ceiling`) was dropped
    without a word: the agent got a frame of the default 2,000 tokens and took it for the
    one it asked for. It is now a one-line tool error naming it and what the tool takes, and
    each tool's schema says no other property is allowed (as `atc serve` refuses a field)."""
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        listed = await session.list_tools()
        seen["closed"] = {t.name: t.input_schema.get("additionalProperties") for t in listed.tools}
        seen["typo"] = _error(await session.call_tool("hydrate", {"goal": "x", "budgte": 100}))
        seen["two"] = _error(await session.call_tool("show", {"handle": "h", "lvl": "L2",
                                                              "depth": 1}))
        seen["still"] = _data(await session.call_tool("hydrate", {"goal": "x", "budget": 100}))

    served(body)
    assert set(seen["closed"].values()) == {False}, seen["closed"]
    assert seen["typo"] == ("Error executing tool hydrate: budgte: not an argument of hydrate "
                            "(it takes goal, budget, plane, now)")
    assert seen["two"] == ("Error executing tool show: depth, lvl: not arguments of show "
                           "(it takes handle, level, source)")
    assert seen["still"]["receipt"]["budget"]["total"] == 100


def test_attend_with_a_goal_and_a_bad_budget_changes_nothing(home: Path, served) -> None:
    # Before: the attend tool set the goal (journalled) and only then had its budget refused:
    # a tool error that still changed memory (`atc attend` checks first; the tool did not).
    seen: dict = {}
    journal = (home / "journal.pl").read_bytes()

    async def body(session: ClientSession) -> None:
        for budget in (-1, 10001):
            seen[budget] = _error(await session.call_tool(
                "attend", {"goal_id": "fresh-goal", "depends_on": ["compat"],
                           "budget": budget}))
        seen["current"] = _error(await session.call_tool(
            "attend", {"goal_id": "fresh-goal", "depends_on": ["compat"],
                       "current": "attn-404"}))

    served(body)
    assert "budget -1: inspections left, 0 to 10000" in seen[-1], seen
    assert "budget 10001: inspections left, 0 to 10000" in seen[10001], seen
    assert "candidate `attn-404' does not exist" in seen["current"], seen
    assert (home / "journal.pl").read_bytes() == journal


def test_a_client_gone_mid_call_ends_the_server_quietly(home: Path) -> None:
    """A client that dies while a call runs (Claude Code quit or killed mid-tool) closes both
    pipes: the server's answer then met a broken pipe, and it exited 1 with forty lines of
    exception groups in the client's MCP log. It now ends as when its client hangs up between
    calls: exit 0, nothing on stderr but the SDK's log lines."""
    server = subprocess.Popen([ATC, "mcp"], env={**os.environ, "ATC_HOME": str(home)},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        server.stdin.write(_INIT.encode())
        server.stdin.flush()
        assert json.loads(server.stdout.readline())["id"] == 1
        server.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":'
                           b'"query","arguments":{"goal":"repeat, fail","time_limit":1.5}}}\n')
        server.stdin.flush()
    finally:
        server.stdin.close()
        server.stdout.close()
        status = server.wait(timeout=60)
        err = server.stderr.read().decode("utf-8", "replace")
        server.stderr.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert status == 0, err


def test_what_the_model_reads_of_a_frame_keeps_its_budget(home: Path, served) -> None:
    """A hydrate answer's text content (what an MCP client shows its model) is the frame in its
    envelope, within the budget, and one line naming the receipt; the receipt and the rest stay
    in the structured content, which still meets the tool's outputSchema, and the receipt the
    line names is read by the receipt tool and the receipt:// resource alike."""
    from jsonschema.validators import validator_for

    from attention_cloud.curate import estimate_tokens

    seen: dict = {}

    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        seen["schema"] = tools["hydrate"].output_schema
        seen["receipt_schema"] = tools["receipt"].output_schema
        for budget in (150, 600, 3000):
            result = await session.call_tool(
                "hydrate", {"goal": "why do processor retries fail", "budget": budget})
            assert not result.is_error, result.content
            assert len(result.content) == 1
            text = result.content[0].text
            receipt_id = text.rsplit("\n", 1)[1].split()[1]
            by_tool = await session.call_tool("receipt", {"receipt_id": receipt_id})
            by_resource = await session.read_resource(f"receipt://{receipt_id}")
            seen[budget] = (text, result.structured_content, by_tool,
                            json.loads(by_resource.contents[0].text))

    served(body)
    validate = validator_for(seen["schema"])(seen["schema"])
    for budget in (150, 600, 3000):
        text, structured, by_tool, by_resource = seen[budget]
        frame, line = text.rsplit("\n", 1)
        assert frame == structured["frame"] and frame.startswith("<memory-frame")
        assert estimate_tokens(frame) <= budget
        assert line.startswith(f"Receipt {structured['receipt_id']} ")
        assert f"receipt://{structured['receipt_id']}" in line and "receipt tool" in line
        assert "\n" not in line and estimate_tokens(line) <= 40
        assert list(validate.iter_errors(structured)) == []
        assert structured["receipt"]["facts"], "the sample home holds facts for this goal"
        assert by_tool.structured_content == structured["receipt"] == by_resource
        # a client that reads only text content gets the receipt whole from the tool
        assert json.loads(by_tool.content[0].text) == structured["receipt"]
    assert list(validator_for(seen["receipt_schema"])(seen["receipt_schema"]).iter_errors(
        seen[600][1]["receipt"])) == []
    # at the largest budget the old text (the result as indented JSON) was several frames long
    assert len(seen[3000][0]) < len(json.dumps(seen[3000][1], indent=2)) / 2


def test_other_tools_answer_text_a_text_only_client_can_read_whole(home: Path, served) -> None:
    """Every tool but hydrate gives its whole result as compact JSON text too, so a client that
    ignores structured content loses nothing; a receipt id that is not stored is one line."""
    seen: dict = {}

    async def body(session: ClientSession) -> None:
        seen["query"] = await session.call_tool(
            "query", {"goal": "item_kind(H, error), item_source(H, S)", "limit": 3})
        handle = seen["query"].structured_content["rows"][0]["H"]
        seen["show"] = await session.call_tool("show", {"handle": handle, "source": True})
        seen["missing"] = await session.call_tool("receipt",
                                                  {"receipt_id": "r_0000000000000000"})
        seen["bad"] = await session.call_tool("receipt", {"receipt_id": "x) :- halt"})

    served(body)
    for name in ("query", "show"):
        result = seen[name]
        assert not result.is_error, result.content
        text = result.content[0].text
        assert json.loads(text) == result.structured_content
        assert "\n" not in text          # compact: no indentation spent on the model
    for name in ("missing", "bad"):
        message = _error(seen[name])
        assert "\n" not in message and "receipt" in message, message

def test_a_line_past_the_request_limit_is_answered_not_read_into_memory(raw_replies) -> None:
    """A stdio line was read whole however long: a client that wrote 5 MiB (or `< /dev/zero`,
    a line without end) grew the server's memory without bound. Over HTTP the SDK refuses a
    body over 4 MiB; now a line over that is read no further than the limit at a time, its
    rest dropped, answered with one error (id null), and the next request served."""
    from attention_cloud.agents.mcp_wire import MAX_LINE_CHARS

    _, after, _ = raw_replies     # the same server's replies to these two lines
    assert after == [
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message":
         f"Invalid Request: the line holds more than {MAX_LINE_CHARS:,} characters, the most "
         "one message may (as over HTTP); it was not read"}},
        {"jsonrpc": "2.0", "id": 7, "result": {}}]


def test_the_help_names_every_tool_the_server_lists() -> None:
    """`atc mcp --help` lists the tools a client gets (TOOLS, which the server's own listing
    is checked against above): it left out `receipt`, which README names."""
    from click.testing import CliRunner

    from attention_cloud.cli import main

    helped = CliRunner().invoke(main, ["mcp", "--help"])
    assert helped.exit_code == 0, helped.output
    listed = re.search(r"Tools: ([^;]*);", " ".join(helped.stdout.split()))
    assert listed is not None, helped.stdout
    assert set(listed.group(1).split(", ")) == TOOLS
