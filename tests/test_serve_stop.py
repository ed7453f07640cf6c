"""`atc serve` stopped as a service manager or a terminal stops it: SIGTERM or Ctrl-C while
a request is being answered lets that request finish, then the server exits 0 with nothing on
stderr but what it said while serving. uvicorn raises the signal again once it has stopped,
which used to end the process by SIGTERM itself (exit 143) or as `atc: interrupted` (exit 130)."""
from __future__ import annotations

import signal
import threading
import time

import pytest

from test_serve_share import call, granted  # noqa: F401  (the fixture)
from test_sharing import Server


def _stopped(server: Server, sig: int) -> tuple[int, str]:
    server.proc.send_signal(sig)
    code = server.proc.wait(timeout=120)
    return code, server.proc.stderr.read()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_while_a_request_runs_answers_it_and_exits_0(granted, sig):  # noqa: F811
    home, tokens = granted
    server = Server(home)
    assert call(server.url, tokens["fay"], "/v1/whoami")[0] == 200  # serving, not starting
    answers: list = []
    # A goal that runs to its time limit: the request is still being answered at the stop.
    asking = threading.Thread(target=lambda: answers.append(call(
        server.url, tokens["erin"], "/v1/query", {"goal": "repeat, fail", "time_limit": 2})))
    asking.start()
    time.sleep(0.5)  # the request reaches the server (it is answered for 2 s from then on)
    code, stderr = _stopped(server, sig)
    asking.join(timeout=60)
    assert code == 0, stderr
    assert "Traceback" not in stderr and "interrupted" not in stderr, stderr
    assert answers and isinstance(answers[0][0], int)  # answered, not cut off


def test_a_stop_as_soon_as_the_address_is_printed_exits_0(granted):  # noqa: F811
    """The address is printed before the server takes over SIGTERM: a script that stops it at
    once found the process killed by the signal."""
    home, _ = granted
    code, stderr = _stopped(Server(home), signal.SIGTERM)
    assert code == 0, stderr
