"""`atc serve` as a stranger on the network meets it: what an error tells a caller, a body
that never finishes arriving, and more connections than the server takes at once."""
from __future__ import annotations

import json
import socket
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from granted_home import granted_memory
from held_sockets import closed_by_server, wait_read_by_server, wait_server_idle
from test_sharing import Server

#: The server's limits, small enough for a test to reach quickly.
PATCHED = "BODY_TIMEOUT = 1.0; s.MAX_CONNECTIONS = 4"


@pytest.fixture(scope="module")
def granted(tmp_path_factory) -> tuple[Path, str, str]:
    """A small home (not curated) granted to erin at L0: the home, her token, the grant id."""
    from attention_cloud.sharing import add_grant, add_principal

    memory = granted_memory(tmp_path_factory.mktemp("serve"), "L2")
    try:
        token = add_principal(memory, "erin")
        grant_id = add_grant(memory, "erin", segments=["default"], ceiling="L0")
    finally:
        memory.close()
    return memory.home, token, grant_id


class PatchedServer(Server):
    """`atc serve --port 0` in a subprocess, its limits set by :data:`PATCHED`."""

    def __init__(self, home: Path, extra: str = "") -> None:
        code = ("import attention_cloud.sharing.server as s; s." + PATCHED + "\n" + extra +
                "from attention_cloud.cli import main\n"
                f"main(['serve', '--port', '0', '--home', {str(home)!r}])")
        super().__init__(home, argv=[sys.executable, "-c", code])


def get(url: str, token: str | None = None) -> tuple[int, dict]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        body = exc.read()
        try:
            return exc.code, json.loads(body)
        except ValueError:
            return exc.code, {"text": body.decode("utf-8", "replace")}


def test_a_home_that_cannot_be_opened_tells_a_caller_nothing_of_the_owners_machine(
        granted, tmp_path):
    """A home whose configuration broke answered every caller, before their token was
    checked, with a 400 naming the file on the owner's machine (`/home/alice/...config.json:
    unreadable configuration`). Now a caller gets a 503 saying the home cannot be read, and
    the reason goes to the server's standard error, for its owner."""
    import shutil

    home = tmp_path / "home"
    shutil.copytree(granted[0], home)
    server = PatchedServer(home)
    try:
        assert get(server.url + "/v1/whoami", granted[1])[0] == 200
        (home / "config.json").write_text("{not json", encoding="utf-8")
        answers = [get(server.url + "/v1/whoami", "atc_0123456789abcdef." + "x" * 43),
                   get(server.url + "/v1/whoami", granted[1])]
    finally:
        log = server.stop()
    for status, body in answers:
        assert status == 503, body
        assert body == {"error": "this memory home cannot be read now (its owner sees why)"}
    assert "config.json" in log and "unreadable configuration" in log


def test_a_body_that_never_finishes_arriving_is_refused_at_the_deadline(granted):
    """A caller that announced a body and sent a byte now and then held its connection (and
    what it had sent) for as long as it went on; now the whole body has BODY_TIMEOUT seconds
    and the caller gets a 408."""
    server = PatchedServer(granted[0])
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(b"POST /v1/hydrate HTTP/1.1\r\nHost: x\r\n"
                         b"Authorization: Bearer " + granted[1].encode() + b"\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
            started = time.monotonic()
            answer = b""
            sock.settimeout(0.3)
            while time.monotonic() - started < 20 and b"\r\n\r\n" not in answer:
                try:
                    sock.sendall(b" ")
                    answer += sock.recv(4096)
                except socket.timeout:
                    continue
                except OSError:
                    break
        took = time.monotonic() - started
    finally:
        server.stop()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert took < 15


def _requests_in_progress(port: int, token: str, count: int) -> list[socket.socket]:
    """``count`` connections each holding a request the server is reading: its headers came,
    its body has not (it waits BODY_TIMEOUT for the rest)."""
    held = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"POST /v1/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                     token.encode() + b"\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{")
        wait_read_by_server(sock)
        held.append(sock)
    return held


def _whoami_while_requests_in_progress(server: "PatchedServer", token: str,
                                        count: int) -> tuple[int, dict, int]:
    """GET /v1/whoami while ``count`` requests of the token's are in progress, then again once
    they are gone: the first answer's status and body, the second's status. Stops ``server``."""
    busy = []
    try:
        busy = _requests_in_progress(server.port, token, count)
        status, body = get(server.url + "/v1/whoami", token)
        # the server has read the held requests' headers from their sockets, but counts one
        # as the caller's only once its token is checked (awaited): ask again until it has
        deadline = time.monotonic() + 10
        while status == 200 and time.monotonic() < deadline:
            time.sleep(0.05)
            status, body = get(server.url + "/v1/whoami", token)
        for sock in busy:
            sock.close()
        wait_server_idle(server.port)   # it has seen them end: not a fixed 0.5 s
        after, _ = get(server.url + "/v1/whoami", token)
    finally:
        for sock in busy:
            sock.close()
        server.stop()
    return status, body, after


def test_more_connections_than_the_server_takes_are_answered_503_at_once(granted):
    """Each connection may hold a body of up to 8 MB while it arrives: without a bound, a
    caller opening thousands held the server's memory in thousands of them. The refusal is
    JSON, as every refusal is."""
    server = PatchedServer(granted[0], extra="s.BODY_TIMEOUT = 60.0\n")
    status, body, after = _whoami_while_requests_in_progress(server, granted[1], 3)  # and it: 4
    assert status == 503 and after == 200
    # in the body every refusal has (it was uvicorn's plain-text "Service Unavailable")
    assert body == {"error": "the server is answering as many connections as it takes (4); "
                             "retry in a moment"}


def test_connections_held_half_open_do_not_keep_other_callers_out(granted):
    """One caller, without a token, holding every connection the server takes with a request
    line and never its end (each opened again as the headers' deadline closes it) had every
    other caller answered 503 for as long as it went on (64 such connections against `atc
    serve`: three callers in a row refused). Now a connection that comes when the server
    holds as many as it takes closes the one waiting longest for its headers; a request being
    read is never closed so."""
    server = PatchedServer(granted[0], extra="s.BODY_TIMEOUT = 60.0\n")
    half_open, busy = [], []
    try:
        busy = _requests_in_progress(server.port, granted[1], 1)
        time.sleep(0.5)
        for _ in range(6):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\n")
            half_open.append(sock)
        time.sleep(0.5)
        status, body = get(server.url + "/v1/whoami", granted[1])
        busy[0].sendall(b" " * 999)         # the request being read was left alone
        busy[0].settimeout(30)
        answer = busy[0].recv(4096)
    finally:
        for sock in half_open + busy:
            sock.close()
        server.stop()
    assert status == 200, body
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]   # its body, "{" and spaces, read whole


def test_a_grant_revoked_between_two_requests_of_one_connection_counts_at_the_second(
        granted, tmp_path):
    """A keep-alive connection is no session: each request is checked against the grants
    the home holds when it arrives."""
    import http.client
    import shutil

    from click.testing import CliRunner

    from attention_cloud.cli import main

    home = tmp_path / "home"
    shutil.copytree(granted[0], home)
    server = PatchedServer(home)
    body = json.dumps({"goal": "retry", "budget": 400})
    headers = {"Authorization": f"Bearer {granted[1]}", "Content-Type": "application/json"}
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        conn.request("POST", "/v1/hydrate", body, headers)
        before = json.loads(conn.getresponse().read())
        out = CliRunner().invoke(main, ["grant", "revoke", granted[2], "--home", str(home)])
        assert out.exit_code == 0, out.output
        conn.request("POST", "/v1/hydrate", body, headers)      # the same connection
        after = json.loads(conn.getresponse().read())
        conn.request("GET", "/v1/grants", headers=headers)
        grants = json.loads(conn.getresponse().read())
        conn.close()
    finally:
        server.stop()
    assert before["facts"]
    assert after["facts"] == [] and grants == {"grants": []}


#: Code run in the server's process: every scrypt it computes is reported on standard error,
#: with whether it ran on the thread that answers requests.
COUNT_SCRYPT = """
import hashlib, sys, threading
_scrypt = hashlib.scrypt
def _counted(*args, **kwargs):
    on_loop = threading.current_thread() is threading.main_thread()
    print(f"scrypt on_loop={on_loop}", file=sys.stderr, flush=True)
    return _scrypt(*args, **kwargs)
hashlib.scrypt = _counted
"""


def test_a_token_is_hashed_once_and_never_on_the_thread_that_answers(granted):
    """Every request paid scrypt (~30 ms idle, 125 ms on this loaded machine) on the one
    thread that answers all requests: a caller sending wrong tokens a few times a second
    held every other caller behind them. A token is now checked once per server process,
    and the check runs on a worker thread."""
    server = PatchedServer(granted[0], COUNT_SCRYPT)
    try:
        statuses = [get(server.url + "/v1/whoami", granted[1])[0] for _ in range(3)]
        statuses.append(get(server.url + "/v1/whoami", granted[1][:-4] + "abcd")[0])
        statuses.append(get(server.url + "/v1/whoami", granted[1])[0])
    finally:
        log = server.stop()
    assert statuses == [200, 200, 200, 401, 200]
    checks = [line for line in log.splitlines() if line.startswith("scrypt on_loop=")]
    assert checks == ["scrypt on_loop=False"] * 2, log


def test_a_float_json_cannot_hold_is_answered_as_atc_query_prints_it(granted):
    """A grantee's query whose answer holds inf or nan was a 500 with no word of why (the JSON
    writer refuses them); it is the strings "inf", "-inf" and "nan", as atc query prints."""
    import urllib.request

    home, token, _ = granted
    server = Server(home)
    try:
        request = urllib.request.Request(
            server.url + "/v1/query", method="POST",
            data=json.dumps({"goal": "X is inf, Y is nan, Z is -inf"}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                status, answer = reply.status, json.loads(reply.read())
        except urllib.error.HTTPError as exc:
            status, answer = exc.code, exc.read().decode("utf-8", "replace")
    finally:
        server.stop()
    assert status == 200, answer
    assert answer["rows"] == [{"X": "inf", "Y": "nan", "Z": "-inf"}]


def test_a_connection_that_never_finishes_a_request_is_closed_at_the_deadline(granted):
    """A caller that opened a connection and sent nothing, or a request line and never the
    end of its headers (a client gone mid-request, its half-open connection), held one of the
    server's connections for ever: MAX_CONNECTIONS of them and every caller was answered 503
    until the server restarted. Now each request's headers have HEADERS_TIMEOUT seconds to
    arrive (from the connection's start, or from the answer before on a kept-alive one),
    then the connection is closed and others are served."""
    server = PatchedServer(granted[0], extra="s.HEADERS_TIMEOUT = 1.0\n")
    held = []
    try:
        for n in range(4):          # the patched MAX_CONNECTIONS
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            if n == 1:
                sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\n")
            elif n == 2:            # one answer, then a request that never ends
                sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\n\r\n")
                answer = b""
                while not answer.endswith(b"}"):
                    answer += sock.recv(4096)
                assert answer.startswith(b"HTTP/1.1 401"), answer
                sock.sendall(b"GET /v1/whoami HTTP/1.1\r\n")
            held.append(sock)
        closed = closed_by_server(held)
        status, _ = get(server.url + "/v1/whoami", granted[1])
    finally:
        for sock in held:
            sock.close()
        server.stop()
    assert closed == [True, True, True, True]
    assert status == 200


def test_a_request_that_is_not_http_is_refused_in_json(granted):
    """A malformed request line, or two Content-Length headers, were refused by uvicorn in plain
    text (`Invalid HTTP request received.`), where every refusal's body is JSON."""
    server = PatchedServer(granted[0])
    answers = []
    try:
        for request in (b"GET /v1/whoami HTTP/1.1 trailing\r\nHost: x\r\n\r\n",
                        b"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                        b"Content-Length: 40\r\n\r\n{}"):
            with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
                sock.sendall(request)
                answer = b""
                while chunk := sock.recv(4096):
                    answer += chunk
            answers.append(answer)
    finally:
        server.stop()
    for answer in answers:
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400"), answer[:300]
        assert json.loads(body) == {"error": "the request is not valid HTTP/1.1 (a malformed line, "
                                             "headers too large, two Content-Length headers, "
                                             "...)"}


def test_one_principal_holds_at_most_a_few_requests_at_once(granted):
    """A grantee holding every connection with a request whose body came a byte at a time
    (each BODY_TIMEOUT long, then opened again) had every other caller answered 503, their
    share of the server's time untouched (it counts the seconds answering takes). Now past
    MAX_REQUESTS_PER_PRINCIPAL requests being read or answered they are answered 429 at once."""
    server = PatchedServer(granted[0], extra="s.BODY_TIMEOUT = 60.0\ns.MAX_CONNECTIONS = 64\n"
                                             "s.MAX_REQUESTS_PER_PRINCIPAL = 2\n")
    status, body, after = _whoami_while_requests_in_progress(server, granted[1], 2)
    assert (status, after) == (429, 200), body
    assert body == {"error": "erin has 2 requests in progress on this server, as many as one "
                             "caller may; retry when one is answered"}


def _unsent_by_server(server_port: int, client_port: int) -> int:
    """Bytes the server's end of the connection from ``client_port`` holds unsent in the
    kernel (/proc/net/tcp's tx_queue): more than 0 once an answer is written and not read."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        ends = (int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16))
        if ends == (server_port, client_port):
            return int(fields[4].split(":")[0], 16)
    return 0


def test_answers_a_caller_never_reads_do_not_keep_other_callers_out(granted):
    """A grantee's connections, each asking for an answer of 4 MB and never reading it, held
    every connection the server takes: a closed connection waits to send what it holds, so
    neither the deadline after an answer nor a newcomer's closing of the longest waiting freed
    one, and every other caller was answered 503 for as long as the grantee liked (64 of
    them on a real server; 503 at 10 s and 50 s). Now an answer not read by the deadline,
    or the longest waiting when the server is full, is dropped with its connection."""
    server = PatchedServer(granted[0], extra="s.HEADERS_TIMEOUT = 2.0\n")
    goal = "length(L, 22), foldl([_, A0, A]>>atom_concat(A0, A0, A), L, x, B)"   # 4 MB
    body = json.dumps({"goal": goal, "limit": 1}).encode()
    request = (b"POST /v1/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
               granted[1].encode() + b"\r\nContent-Type: application/json\r\n"
               b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    held, statuses = [], []
    try:
        for _ in range(3):          # with the caller's below, the patched MAX_CONNECTIONS
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # reads nothing
            sock.connect(("127.0.0.1", server.port))
            sock.sendall(request)
            held.append(sock)
        for sock in held:           # each answer made, and waiting for its caller
            deadline = time.monotonic() + 60
            while _unsent_by_server(server.port, sock.getsockname()[1]) == 0:
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.05)
        deadline = time.monotonic() + 10
        while not statuses or statuses[-1] != 200 and time.monotonic() < deadline:
            statuses.append(get(server.url + "/v1/whoami", granted[1])[0])
            time.sleep(0.2)
    finally:
        for sock in held:
            sock.close()
        server.stop()
    assert statuses[-1] == 200, statuses
