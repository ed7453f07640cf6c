"""`atc serve` on a home no one holds a token to: every request would be answered 401, so it
says so once at start, on stderr, and serves anyway (a principal added while it runs is
served: the server reopens the home when the journal changes). A home with a grantee's token
starts without that line."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.home import write_config
from test_serve_share import call
from test_sharing import Server

NOBODY = "no principal holds a token"


@pytest.fixture(scope="module")
def empty_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("serve") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    Memory.open(home).close()
    return home


def _stderr_line(server: Server, text: str, timeout: float = 60) -> str:
    """The first line the server writes to stderr that holds ``text`` (within ``timeout``)."""
    import select
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([server.proc.stderr], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = server.proc.stderr.readline()
        if not line:
            break
        if text in line:
            return line.strip()
    raise AssertionError(f"the server never said {text!r}")


def _serve(home: Path) -> Server:
    return Server(home, argv=[sys.executable, "-m", "attention_cloud.cli", "serve", "--port",
                              "0", "--home", str(home)])


def test_serving_a_home_with_no_tokens_says_so_and_serves_one_added_later(empty_home) -> None:
    from attention_cloud.sharing import add_principal

    server = _serve(empty_home)
    try:
        said = _stderr_line(server, NOBODY)     # said after the address, before any request
        assert said.startswith("atc serve: ") and "401" in said and "atc principal add" in said
        with Memory.open(empty_home) as mem:
            add_principal(mem, "alice", owner=True)     # the owner holds no token
            token = add_principal(mem, "bob")
        status, answer, _ = call(server.url, token, "/v1/whoami")
    finally:
        stderr = server.stop()
    assert status == 200 and answer["principal"] == "bob", answer
    assert NOBODY not in stderr, stderr                 # said once


def test_serving_a_home_with_a_token_says_nothing_of_it(empty_home) -> None:
    # runs after the test above: bob holds a token now
    server = _serve(empty_home)
    try:    # answered: the check at start has run
        assert call(server.url, "atc_0123456789abcdef.wrong", "/v1/whoami")[0] == 401
    finally:
        stderr = server.stop()
    assert NOBODY not in stderr


def test_a_server_whose_last_token_is_removed_says_so_when_it_refuses(empty_home) -> None:
    """It said so only at start: a server whose last token holder was removed while it ran
    answered every request 401 and said nothing. Now the first request refused after that
    says it, once (runs after the tests above: bob holds the home's only token)."""
    from attention_cloud.sharing import add_principal
    from attention_cloud.sharing.policy import remove_principal

    server = _serve(empty_home)
    try:
        with Memory.open(empty_home) as mem:
            token = add_principal(mem, "carol")
        assert call(server.url, token, "/v1/whoami")[0] == 200
        with Memory.open(empty_home) as mem:
            remove_principal(mem, "bob")
            remove_principal(mem, "carol")
        for _ in range(3):
            assert call(server.url, token, "/v1/whoami")[0] == 401
        said = _stderr_line(server, NOBODY)
        assert said.startswith("atc serve: ")
    finally:
        stderr = server.stop()
    assert NOBODY not in stderr, stderr                 # said once, not per request
