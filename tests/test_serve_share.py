"""Each principal's share of `atc serve`'s time (sharing/fair_share.py, README "Sharing").

The server answers one request at a time. Before, a grantee sending slow goals back to back
(or a stream of cheap ones) held every other caller behind them for as long as they went on;
now a principal who has used their share is answered 429 with Retry-After, at once and
without their body being read, while the others are answered as before.
"""
from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from attention_cloud.sharing.fair_share import FairShare
from granted_home import granted_memory
from test_sharing import Server


@pytest.fixture(scope="module")
def granted(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A small home granted to erin and fay at L0: the home and their tokens."""
    from attention_cloud.sharing import add_grant, add_principal

    memory = granted_memory(tmp_path_factory.mktemp("share"), "L2")
    try:
        tokens = {name: add_principal(memory, name) for name in ("erin", "fay")}
        for name in tokens:
            add_grant(memory, name, segments=["default"], ceiling="L0")
    finally:
        memory.close()
    return memory.home, tokens


def call(url: str, token: str, path: str, body: dict | None = None) -> tuple[int, dict, Any]:
    """Status, JSON answer and headers (looked up in any case) of one request."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data,
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read()), reply.headers
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), exc.headers


def test_a_principal_past_their_share_is_told_when_to_come_back_and_others_are_served(granted):
    home, tokens = granted
    server = Server(home, argv=[sys.executable, "-m", "attention_cloud.cli", "serve", "--port",
                                "0", "--burst", "1", "--share", "0.1", "--home", str(home)])
    try:
        # a goal that runs to its time limit takes 1.5 s of the server: past erin's burst
        status, answer, _ = call(server.url, tokens["erin"], "/v1/query",
                                 {"goal": "repeat, fail", "time_limit": 1.5})
        assert status == 400, answer
        status, answer, headers = call(server.url, tokens["erin"], "/v1/query",
                                       {"goal": "item(H)", "limit": 1})
        assert status == 429, answer
        assert answer["error"].startswith("erin has used their share of this server's time; "
                                          "retry in ")
        assert int(headers["Retry-After"]) >= 1
        status, answer, _ = call(server.url, tokens["fay"], "/v1/query",
                                 {"goal": "item(H)", "limit": 1})
        assert status == 200 and answer["rows"], answer
    finally:
        server.stop()


def test_atc_serve_refuses_a_share_or_burst_out_of_range(tmp_path):
    from click.testing import CliRunner

    from attention_cloud.cli import main

    for option, value in (("--share", "0"), ("--share", "1.5"), ("--burst", "0"),
                          ("--burst", "-3")):
        out = CliRunner().invoke(main, ["serve", option, value, "--home", str(tmp_path)])
        assert out.exit_code == 2 and f"Invalid value for '{option}'" in out.output, out.output


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_fills_at_the_share_up_to_the_burst():
    clock = Clock()
    shares = FairShare(0.5, 10, clock=clock)
    assert shares.retry_after("bob") is None
    shares.charge("bob", 14)                 # 10 - 14: 4 s short, filling at 0.5 s a second
    assert shares.retry_after("bob") == 8
    assert shares.retry_after("carol") is None      # a bucket of her own
    clock.now += 8.5
    assert shares.retry_after("bob") is None
    clock.now += 1000                        # full again, never past the burst
    shares.charge("bob", 10)
    assert shares.retry_after("bob") == 1
