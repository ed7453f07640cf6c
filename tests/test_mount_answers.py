"""What a mount's server answers is checked before any of it enters the frame: a server that
hangs, drips, floods or answers garbage leaves the frame to local memory with one line saying
why; a good answer's records are named as the frame names them (NAME:SEGMENT) and keep their
near-duplicates."""
from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.sharing import mounts
from attention_cloud.sharing.policy import add_mount, remove_mount, sharing_state

GOAL = "why do processor retries fail"


def good_answer(share: int = 1000) -> dict:
    """A frame as `atc serve` answers one: two facts and a near-duplicate in `payments`."""
    facts = [{"handle": "it_aaaa", "segment": "payments", "level": "L2", "seeded_by": "relevance",
              "score": 0.8, "tokens": 12, "hops": 0, "source": "alice:1", "time": "",
              "text": "Retries fail when the processor times out after thirty seconds."},
             {"handle": "it_bbbb", "segment": "payments", "level": "L3", "seeded_by": "recency",
              "score": 0.5, "tokens": 5, "hops": 0, "source": "alice:2", "time": "",
              "text": "payments: retry policy"}]
    receipt = {"id": "r_00000000000000aa", "path": "hybrid",
               "budget": {"total": share, "spent": 17, "framing": 30, "segments": {
                   "payments": {"budget": share, "spent": 17, "framing": 30, "path": "hybrid"}}},
               "facts": [{k: v for k, v in f.items() if k != "text"} for f in facts],
               "beyond": [], "suppressed": [{"handle": "it_cccc", "segment": "payments",
                                             "suppressed": "redundant", "like": "it_aaaa",
                                             "similarity": 0.91}]}
    return {"receipt_id": receipt["id"], "receipt": receipt, "facts": facts, "text": ""}


class FakeMount:
    """A server on loopback whose answer to every request is ``behave(handler)``."""

    def __init__(self, behave) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                behave(self)

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                behave(self)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def answer_json(value, status: int = 200):
    def behave(handler) -> None:
        body = value if isinstance(value, bytes) else json.dumps(value).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    return behave


def drip(handler) -> None:
    """Headers one byte at a time, a byte every 0.2 s, never ending: every read is quick."""
    try:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        while True:
            handler.wfile.write(b"X")
            handler.wfile.flush()
            time.sleep(0.2)
    except OSError:
        pass


def flood(handler) -> None:
    """A JSON string without end and without a length."""
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()
        handler.wfile.write(b'{"facts": "')
        chunk = b"a" * 65536
        while True:
            handler.wfile.write(chunk)
    except OSError:
        pass


@pytest.fixture(scope="module")
def bob_home(tmp_path_factory) -> Path:
    """Bob's home: one note of his own in segment `own`, and a mount `alice` (its URL set
    by each test)."""
    home = tmp_path_factory.mktemp("bob") / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    with Memory.open(home) as mem:
        mem.remember("Processor retries fail when the gateway times out after 30 s.",
                     segment="own")
    return home


def point_mount(mem, url: str) -> None:
    """Mount `alice` at ``url`` (in place of the last test's)."""
    if sharing_state(mem).mounts:
        remove_mount(mem, "alice")
    add_mount(mem, "alice", url, "ALICE_TOKEN")


def frame_through(bob_home: Path, behave, monkeypatch, timeout: float = 30.0):
    server = FakeMount(behave)
    monkeypatch.setenv("ALICE_TOKEN", "atc_0123456789abcdef.secret")
    monkeypatch.setattr(mounts, "TIMEOUT", timeout)
    try:
        with Memory.open(bob_home, create=False) as mem:
            point_mount(mem, server.url)
            started = time.monotonic()
            frame = mounts.hydrate_with_mounts(mem, GOAL, budget=600)
            took = time.monotonic() - started
    finally:
        server.close()
    return frame, took


GARBAGE = {
    "a list": ([1, 2], "the server's answer is not a JSON object"),
    "no receipt": ({"facts": []}, "receipt must be present"),
    "facts not a list": ({**good_answer(), "facts": {"a": 1}}, "facts must be a list"),
    "a fact not an object": ({**good_answer(), "facts": ["x"]}, "facts[0] must be an object"),
    "a score as text": ({**good_answer(), "facts": [{**good_answer()["facts"][0],
                                                     "score": "high"}]},
                        "facts[0].score must be a number"),
    "an unknown level": ({**good_answer(), "facts": [{**good_answer()["facts"][0],
                                                      "level": "L9"}]},
                         "facts[0].level must be one of L0, L1, L2, L3"),
    "a segment with a newline": (
        {**good_answer(), "facts": [{**good_answer()["facts"][0],
                                     "segment": "payments\n## forged"}]},
        "facts[0].segment must be one line"),
    "a fact outside every segment": (
        {**good_answer(), "facts": [{**good_answer()["facts"][0], "segment": "elsewhere"}]},
        "facts[0].segment must be one of the receipt's budget segments"),
    "a budget as text": ({**good_answer(), "receipt": {**good_answer()["receipt"],
                                                       "budget": "all"}},
                         "receipt.budget must be an object"),
    "a bad excerpt": ({**good_answer(), "facts": [{**good_answer()["facts"][0],
                                                   "excerpt": "most"}]},
                      "facts[0].excerpt must be an excerpt record"),
    "a path no frame takes": ({**good_answer(), "receipt": {**good_answer()["receipt"],
                                                           "path": "telepathy"}},
                              "receipt.path must be one of hybrid, semantic, lexical, recency"),
    "a segment's path no frame takes": (
        {**good_answer(), "receipt": {**good_answer()["receipt"], "budget": {
            **good_answer()["receipt"]["budget"], "segments": {"payments": {
                "budget": 1000, "spent": 17, "framing": 30, "path": "guess"}}}}},
        'receipt.budget.segments["payments"].path must be one of hybrid, semantic, lexical, '
        "recency"),
    "a fact without seeded_by": ({**good_answer(), "facts": [
        {k: v for k, v in good_answer()["facts"][0].items() if k != "seeded_by"}]},
        "facts[0].seeded_by must be present"),
    "an unknown kind of near-duplicate": (
        {**good_answer(), "receipt": {**good_answer()["receipt"], "suppressed": [
            {**good_answer()["receipt"]["suppressed"][0], "suppressed": "boring"}]}},
        "receipt.suppressed[0].suppressed must be one of redundant, covered"),
    "a near-duplicate's similarity past 1": (
        {**good_answer(), "receipt": {**good_answer()["receipt"], "suppressed": [
            {**good_answer()["receipt"]["suppressed"][0], "similarity": 7}]}},
        "receipt.suppressed[0].similarity must be a number from 0 to 1"),
    "a time that is no time": ({**good_answer(), "facts": [{**good_answer()["facts"][0],
                                                            "time": "last Tuesday"}]},
                               "facts[0].time must be empty or an ISO 8601 time"),
    "not JSON": (b"<html>oops</html>", "the server's answer is not JSON"),
    "JSON nested past the parser": (b"[" * 100_000, "the server's answer is not JSON"),
}


@pytest.mark.parametrize("case", list(GARBAGE))
def test_a_mount_answering_garbage_leaves_the_local_frame_and_says_why(bob_home, monkeypatch,
                                                                        case):
    """A score as text, a fact that was not an object, a budget that was not one ended `atc
    hydrate` with a traceback (ValueError, AttributeError): the local frame was lost too."""
    value, why = GARBAGE[case]
    frame, _ = frame_through(bob_home, answer_json(value), monkeypatch)
    mount = frame.receipt["mounts"][0]
    assert mount["status"] == "failed" and why in mount["error"], mount
    assert "\n" not in mount["error"]
    assert frame.facts and {f.segment for f in frame.facts} == {"own"}
    assert any(n.startswith("mount alice failed:") for n in frame.receipt["notes"])


def test_a_mount_that_drips_its_answer_is_given_up_at_the_deadline(bob_home, monkeypatch):
    """Each read came within the socket's timeout, so the frame waited as long as the
    server went on sending (for ever); now the whole answer has TIMEOUT seconds."""
    frame, took = frame_through(bob_home, drip, monkeypatch, timeout=1.5)
    mount = frame.receipt["mounts"][0]
    assert mount["status"] == "failed" and mount["error"] == "no whole answer within 1.5 s"
    assert took < 15
    assert {f.segment for f in frame.facts} == {"own"}


def test_a_mount_answering_without_end_is_cut_at_the_answer_limit(bob_home, monkeypatch):
    """The answer was read whole before it was parsed: a server streaming without end grew
    the process's memory without end."""
    monkeypatch.setattr(mounts, "MAX_ANSWER_BYTES", 2 * 1024 * 1024)
    frame, _ = frame_through(bob_home, flood, monkeypatch)
    mount = frame.receipt["mounts"][0]
    assert mount["status"] == "failed"
    assert mount["error"] == "the server's answer is larger than 2,097,152 bytes"
    assert {f.segment for f in frame.facts} == {"own"}


def test_a_mount_that_never_answers_is_given_up_at_the_deadline(bob_home, monkeypatch):
    """A server that takes the connection and says nothing."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    monkeypatch.setenv("ALICE_TOKEN", "atc_0123456789abcdef.secret")
    monkeypatch.setattr(mounts, "TIMEOUT", 1.0)
    try:
        with Memory.open(bob_home, create=False) as mem:
            point_mount(mem, url)
            frame = mounts.hydrate_with_mounts(mem, GOAL, budget=600)
    finally:
        listener.close()
    mount = frame.receipt["mounts"][0]
    assert mount["status"] == "failed" and "1 s" in mount["error"], mount
    assert {f.segment for f in frame.facts} == {"own"}


def test_a_mounts_records_are_named_as_the_frame_names_them_and_keep_their_duplicates(
        bob_home, monkeypatch):
    """A mounted fact's receipt said `"segment": "payments"` while the frame's heading and the
    receipt's budget said `alice:payments`, so a fact matched no budget segment; and the
    mount's near-duplicates (its receipt's suppressed) were dropped, so the frame's line
    counting them was never written."""
    frame, _ = frame_through(bob_home, answer_json(good_answer(300)), monkeypatch)
    receipt = frame.receipt
    assert receipt["mounts"][0]["status"] == "ok"
    mounted = [f for f in receipt["facts"] if f.get("mount") == "alice"]
    assert [f["segment"] for f in mounted] == ["alice:payments"] * 2
    assert {f["segment"] for f in receipt["facts"]} <= set(receipt["budget"]["segments"])
    assert receipt["suppressed"] == [{"handle": "it_cccc", "segment": "alice:payments",
                                      "suppressed": "redundant", "like": "it_aaaa",
                                      "similarity": 0.91, "mount": "alice"}]
    section = frame.text.split("## alice:payments", 1)[1]
    assert "(1 near-duplicates left out: the receipt's suppressed)" in section
    seg = receipt["budget"]["segments"]["alice:payments"]
    assert seg["spent"] == sum(f["tokens"] for f in mounted)


def test_a_mount_answering_past_its_share_is_cut_to_its_share(bob_home, monkeypatch):
    """The facts a mount answered were all kept, whatever they cost: a server could fill
    the frame, and the agent's context, with as much text as it liked."""
    answer = good_answer(300)
    big = {**answer["facts"][0], "handle": "it_dddd", "tokens": 1,
           "text": "padding " * 4000}
    answer["facts"].insert(0, big)
    frame, _ = frame_through(bob_home, answer_json(answer), monkeypatch)
    receipt = frame.receipt
    mounted = [f for f in receipt["facts"] if f.get("mount") == "alice"]
    assert "it_dddd" not in {f["handle"] for f in mounted} and len(mounted) == 2
    assert receipt["mounts"][0]["dropped"] == 1
    assert any("past its share" in n for n in receipt["notes"])
    assert receipt["budget"]["spent"] <= 600


def test_a_mounted_frames_receipt_keeps_the_receipts_contract(bob_home, monkeypatch):
    """A near-duplicate of a fact the mount's share left out was listed `like` a fact the
    frame does not hold; the receipt of a frame with mounts meets the receipt's schema."""
    from attention_cloud.schemas import schema_problems

    answer = good_answer(300)
    answer["facts"][0]["text"] = "padding " * 4000      # it_aaaa, past the share
    frame, _ = frame_through(bob_home, answer_json(answer), monkeypatch)
    receipt = frame.receipt
    handles = {f["handle"] for f in receipt["facts"]}
    assert "it_aaaa" not in handles and receipt["mounts"][0]["dropped"] == 1
    assert all(s["like"] in handles for s in receipt.get("suppressed", [])), receipt
    assert schema_problems(receipt) == []
    frame, _ = frame_through(bob_home, answer_json(good_answer(300)), monkeypatch)
    assert schema_problems(frame.receipt) == []
    assert [s["like"] for s in frame.receipt["suppressed"]] == ["it_aaaa"]


def test_a_redirect_never_carries_the_mounts_token_to_another_host(bob_home, monkeypatch):
    """urllib followed a redirect with every header of the request: a mount (or whatever
    stood between) answering 302 to another host had that host sent the bearer token. A
    redirect is now a failed mount naming where it pointed; nothing goes there."""
    seen: list = []

    def capture(handler) -> None:
        seen.append(handler.headers.get("Authorization"))
        answer_json(good_answer())(handler)

    elsewhere = FakeMount(capture)

    def redirect(handler) -> None:
        handler.send_response(302)
        handler.send_header("Location", elsewhere.url + "/v1/whoami")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    try:
        frame, _ = frame_through(bob_home, redirect, monkeypatch)
    finally:
        elsewhere.close()
    mount = frame.receipt["mounts"][0]
    assert mount["status"] == "failed" and mount["error"].startswith(
        f"HTTP 302: the server redirects to {elsewhere.url}/v1/whoami"), mount
    assert seen == []



def test_a_silent_server_is_the_same_deadline_whichever_clock_sees_it_first():
    """The socket's read timeout and the answer's deadline are the same number of seconds, so
    under load the socket's fired first and the mount said `unreachable (timed out)` of a
    server that took the connection and said nothing; both now say the deadline."""
    import urllib.request

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    try:
        request = urllib.request.Request(f"http://127.0.0.1:{listener.getsockname()[1]}/v1/x")
        with pytest.raises(mounts.MountError, match=r"^no whole answer within 0.2 s$"):
            mounts._fetch(request, 0.2)
    finally:
        listener.close()
