"""What `atc serve` answers has a JSON Schema (`serve.schema.json`, one `$defs` entry per
endpoint and one for every refusal), and a real server's answers meet it: whoami, grants,
hydrate, query, show, receipt, and a 401, a 404 and a 400."""
from __future__ import annotations

import sys

import pytest

from attention_cloud.schemas import schema, schema_problems
from granted_home import granted_memory
from test_serve_share import call
from test_sharing import Server


def _answer_meets(answer: dict, endpoint: str) -> None:
    assert schema_problems(answer, "serve", endpoint) == [], (endpoint, answer)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A server on a home granted to bob at L1, and bob's token."""
    from attention_cloud.sharing.policy import issue_token

    memory = granted_memory(tmp_path_factory.mktemp("serve_schemas"), "L1")
    try:
        memory.curate()
        token = issue_token(memory, "bob")
    finally:
        memory.close()
    server = Server(memory.home, argv=[sys.executable, "-m", "attention_cloud.cli", "serve",
                                       "--port", "0", "--home", str(memory.home)])
    yield server, token
    server.stop()


def test_every_endpoints_answer_meets_its_schema(served) -> None:
    server, token = served
    answers = {}
    for endpoint, path, body in (("whoami", "/v1/whoami", None), ("grants", "/v1/grants", None),
                                 ("hydrate", "/v1/hydrate", {"goal": "the flaky cache test",
                                                             "budget": 800}),
                                 ("query", "/v1/query", {"goal": "item_kind(H, K)", "limit": 3})):
        status, answer, _ = call(server.url, token, path, body)
        assert status == 200, answer
        _answer_meets(answer, endpoint)
        answers[endpoint] = answer
    assert answers["hydrate"]["facts"] and answers["query"]["rows"]
    handle = answers["hydrate"]["facts"][0]["handle"]
    status, shown, _ = call(server.url, token, f"/v1/show/{handle}")
    assert status == 200, shown
    _answer_meets(shown, "show")
    status, receipt, _ = call(server.url, token, f"/v1/receipt/{answers['hydrate']['receipt_id']}")
    assert status == 200, receipt
    _answer_meets(receipt, "receipt")


def test_refusals_meet_the_error_schema(served) -> None:
    server, token = served
    for who, path, body, want in (("atc_0123456789abcdef.wrong", "/v1/whoami", None, 401),
                                  (token, "/v1/show/it_0000000000000000", None, 404),
                                  (token, "/v1/hydrate", {"goal": "x", "celing": "L0"}, 400)):
        status, answer, _ = call(server.url, who, path, body)
        assert status == want, answer
        _answer_meets(answer, "error")
    assert set(schema("serve")["$defs"]) == {"whoami", "grants", "hydrate", "query", "show",
                                             "receipt", "error"}
    assert schema_problems({"error": "x"}, "serve", "error") == []
    assert schema_problems({"message": "x"}, "serve", "error") \
        == ["(top): 'error' is a required property"]


def _raw(url: str, method: str, token: str) -> tuple[int, str, bytes]:
    """Status, content type and body of one request, whatever the body holds."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, method=method,
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, reply.headers.get("content-type", ""), reply.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), exc.read()


@pytest.mark.parametrize("method, path, want, says", [
    ("GET", "/v1/nothing-here", 404, "no such endpoint: GET /v1/nothing-here"),
    ("GET", "/v1/show/", 404, "no such endpoint: GET /v1/show/"),
    ("DELETE", "/v1/whoami", 405, "DELETE is not allowed on /v1/whoami (it takes GET)"),
    ("GET", "/v1/hydrate", 405, "GET is not allowed on /v1/hydrate (it takes POST)"),
])
def test_a_path_or_method_no_endpoint_takes_is_refused_in_json(served, method, path, want,
                                                                says) -> None:
    """A client reads every refusal's body as the error schema has it: an unknown path or a
    method an endpoint does not take was Starlette's plain-text `Not Found`."""
    import json

    server, token = served
    status, kind, raw = _raw(server.url + path, method, token)
    assert (status, kind) == (want, "application/json"), raw
    answer = json.loads(raw)
    _answer_meets(answer, "error")
    assert answer["error"] == says
