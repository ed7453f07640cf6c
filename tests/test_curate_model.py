"""The model curator against a stand-in for an OpenAI-compatible chat endpoint.

The stand-in is a tiny ``http.server`` on 127.0.0.1 started by the tests; each test tells it
how to answer (a good reply, an HTTP error, a stall, malformed JSON, a partial reply).
"""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from attention_cloud.curate import (
    L1_TOKENS,
    L3_TOKENS,
    ItemView,
    ModelCurator,
    Rungs,
    curate_items,
    estimate_tokens,
)
from attention_cloud.errors import InputError, UsageError

Reply = Callable[[dict], tuple[int, bytes]]


class StandIn:
    """A local stand-in endpoint: records requests, answers with ``self.reply``."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.reply: Reply = lambda request: (500, b"not configured")
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stand_in.requests.append({"path": self.path, **body})
                stand_in.headers.append(dict(self.headers))
                status, payload = stand_in.reply(body)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout test)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


@pytest.fixture
def endpoint() -> Iterator[StandIn]:
    stand_in = StandIn()
    yield stand_in
    stand_in.server.shutdown()
    stand_in.server.server_close()


def completion(content: str) -> tuple[int, bytes]:
    return 200, json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()


def items_of(request: dict) -> list[dict]:
    return json.loads(request["messages"][1]["content"])["items"]


def good_reply(request: dict) -> tuple[int, bytes]:
    answers = [
        {"id": entry["id"], "l1": f"Model summary of {entry['id']}.",
         "l2": {"decisions": ["Use SQLite."], "constraints": [], "outcomes": ["It worked."],
                "facts": [], "entities": ["SQLite"]}}
        for entry in items_of(request)
    ]
    return completion(json.dumps({"items": answers}))


TEXTS = [
    "We decided to use SQLite for the cache because Redis needed another server to run. The "
    "cache must stay under 500 MB; the benchmark passed with 12 queries per second.",
    "I just adopted a beagle named Biscuit on March 3, and she already knows 4 tricks. Can you "
    "suggest a good harness for a 9 kg dog that pulls on the leash during walks?",
    "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n"
    "KeyError: 'user_id' when the session cookie expired after 30 minutes of idle time.",
]


def make_items(count: int = 3) -> list[ItemView]:
    return [ItemView(f"it_{i}", "ses_a", i, "turn", "", "2026-01-01T00:00:00Z", f"s.jsonl#L{i}",
                     TEXTS[i % len(TEXTS)]) for i in range(count)]


def assert_extractive(before: list[Rungs], after: list[Rungs]) -> None:
    assert after == before
    assert all(r.curator.startswith("extractive@") for r in after)


def test_a_good_reply_replaces_l1_and_l2_and_keeps_l3_and_provenance(endpoint):
    endpoint.reply = good_reply
    items = make_items()
    before = curate_items(items)
    after = ModelCurator(endpoint.url, "tiny-model", api_key="sk-test").improve(items, before)
    for item, old, new in zip(items, before, after):
        assert new.curator == "model:tiny-model"
        assert new.l1 == f"Model summary of {item.handle}."
        assert new.distillation.decisions == ("Use SQLite.",)
        assert new.distillation.tags == old.distillation.tags  # tags stay extractive
        assert new.provenance == old.provenance == (item.handle,)
        assert new.l3.startswith(item.pointer)
        assert estimate_tokens(new.l3) <= min(L3_TOKENS, estimate_tokens(new.l1), estimate_tokens(new.l2))
    request = endpoint.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["model"] == "tiny-model" and request["temperature"] == 0
    assert [e["id"] for e in items_of(request)] == ["it_0", "it_1", "it_2"]
    assert endpoint.headers[0]["Authorization"] == "Bearer sk-test"


def test_a_model_summary_of_a_tool_output_names_its_call(endpoint):
    # The model's sentence replaced the extractive L1 of a tool's output, and with it the
    # call's label that L1 starts with: "3 tests failed" said nothing of which command.
    endpoint.reply = good_reply
    text = "$ pytest tests/test_retry.py -q\nFAILED tests/test_retry.py::test_backoff\n3 failed, 9 passed"
    item = ItemView("it_t", "ses_a", 0, "error", "", "2026-01-01T00:00:00Z", "s.jsonl#L0", text,
                    answers_call=True)
    [new] = ModelCurator(endpoint.url, "tiny-model").improve([item], curate_items([item]))
    assert new.curator == "model:tiny-model"
    assert new.l1 == "$ pytest tests/test_retry.py -q → Model summary of it_t."
    assert estimate_tokens(new.l1) <= 40


def test_items_are_sent_in_batches(endpoint):
    endpoint.reply = good_reply
    items = make_items(5)
    ModelCurator(endpoint.url + "/chat/completions", "m", batch_size=2).improve(items, curate_items(items))
    assert [len(items_of(r)) for r in endpoint.requests] == [2, 2, 1]
    assert all(r["path"] == "/v1/chat/completions" for r in endpoint.requests)
    assert "Authorization" not in endpoint.headers[0]


def test_a_server_error_keeps_the_extractive_rungs(endpoint):
    endpoint.reply = lambda request: (500, b'{"error": "overloaded"}')
    items = make_items()
    before = curate_items(items)
    curator = ModelCurator(endpoint.url, "m")
    assert_extractive(before, curator.improve(items, before))
    assert curator.failures == 1 and "HTTP 500" in curator.last_error


@pytest.mark.serial  # a 0.2 s timeout answered within 0.9 s of wall time: alone, not beside workers
def test_a_timeout_keeps_the_extractive_rungs(endpoint):
    def stall(request: dict) -> tuple[int, bytes]:
        time.sleep(1.0)
        return good_reply(request)

    endpoint.reply = stall
    items = make_items()
    before = curate_items(items)
    curator = ModelCurator(endpoint.url, "m", timeout=0.2)
    started = time.perf_counter()
    assert_extractive(before, curator.improve(items, before))
    assert time.perf_counter() - started < 0.9
    assert curator.failures == 1


@pytest.mark.parametrize("content", ["not json at all", '{"items": "nope"}', "[1, 2", '{"answer": 42}'])
def test_malformed_json_keeps_the_extractive_rungs(endpoint, content):
    endpoint.reply = lambda request: completion(content)
    items = make_items()
    before = curate_items(items)
    assert_extractive(before, ModelCurator(endpoint.url, "m").improve(items, before))


def test_a_reply_that_is_not_a_chat_completion_keeps_the_extractive_rungs(endpoint):
    endpoint.reply = lambda request: (200, b'{"object": "list", "data": []}')
    items = make_items()
    before = curate_items(items)
    assert_extractive(before, ModelCurator(endpoint.url, "m").improve(items, before))


def test_an_unreachable_endpoint_keeps_the_extractive_rungs():
    items = make_items()
    before = curate_items(items)
    curator = ModelCurator("http://127.0.0.1:9/v1", "m", timeout=2)
    assert_extractive(before, curator.improve(items, before))
    assert curator.failures == 1


def test_each_item_falls_back_on_its_own(endpoint):
    def partial(request: dict) -> tuple[int, bytes]:
        answers = [
            {"id": "it_0", "l1": "Chose SQLite over Redis; cache under 500 MB.", "l2": "not an object"},
            {"id": "it_1", "l1": 7, "l2": {"decisions": [], "constraints": [], "outcomes": [],
                                           "facts": ["Adopted Biscuit on March 3."], "entities": ["Biscuit"]}},
            # it_2 is missing from the reply
        ]
        return completion("```json\n" + json.dumps({"items": answers}) + "\n```")

    endpoint.reply = partial
    items = make_items()
    before = curate_items(items)
    after = ModelCurator(endpoint.url, "m").improve(items, before)
    assert after[0].l1 == "Chose SQLite over Redis; cache under 500 MB."
    assert after[0].distillation == before[0].distillation and after[0].l2 == before[0].l2
    assert after[1].l1 == before[1].l1
    assert after[1].distillation.facts == ("Adopted Biscuit on March 3.",)
    assert after[2] == before[2]
    assert after[0].curator == after[1].curator == "model:m"


def test_model_rungs_obey_the_size_caps(endpoint):
    long_sentence = "word " * 300
    endpoint.reply = lambda request: completion(json.dumps({"items": [
        {"id": e["id"], "l1": long_sentence, "l2": {"decisions": [long_sentence] * 9, "constraints": [],
                                                    "outcomes": [], "facts": [], "entities": []}}
        for e in items_of(request)]}))
    items = make_items()
    after = ModelCurator(endpoint.url, "m").improve(items, curate_items(items))
    for item, rungs in zip(items, after):
        assert estimate_tokens(rungs.l1) <= min(L1_TOKENS, estimate_tokens(item.text))
        assert estimate_tokens(rungs.l2) <= estimate_tokens(item.text)
        assert len(rungs.distillation.decisions) <= 3


def test_bad_settings_and_mismatched_input_are_refused():
    with pytest.raises(UsageError, match="http"):
        ModelCurator("ftp://example.org", "m")
    with pytest.raises(UsageError, match="model name"):
        ModelCurator("http://localhost:1", " ")
    with pytest.raises(UsageError, match="batch size"):
        ModelCurator("http://localhost:1", "m", batch_size=0)
    items = make_items()
    with pytest.raises(InputError, match="pair up"):
        ModelCurator("http://localhost:1", "m").improve(items, list(reversed(curate_items(items))))


def test_atc_curate_says_when_the_model_curator_did_not_answer(tmp_path):
    # an unreachable endpoint must not pass for a model-curated home: the report counts the
    # batches that kept their extractive rungs, and the command says so on stderr
    from click.testing import CliRunner

    from attention_cloud.cli import main

    home, chat = tmp_path / "home", tmp_path / "chat.json"
    home.mkdir()
    (home / "config.json").write_text(json.dumps(
        {"embedder": "hash", "curator": {"url": "http://127.0.0.1:9/v1", "model": "m"}}), encoding="utf-8")
    chat.write_text(json.dumps([{"role": "user", "content": TEXTS[0]},
                                {"role": "assistant", "content": TEXTS[2]}]), encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(chat), "--home", str(home)]).exit_code == 0
    result = runner.invoke(main, ["curate", "--home", str(home), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["items"] == 2 and report["model_improved"] == 0
    assert report["model_failed"] == 1 and report["model_error"]
    assert "model curator did not answer 1 batch usably" in result.stderr
    assert "extractive rungs" in result.stderr
