"""Ctrl-C stops a long goal or frame at once, not when its time limit comes.

SWI-Prolog runs embedded without signal handling (pyswip, ``--nosignals``) and a call into it
is one ctypes call, so Python saw SIGINT only when the call returned: ``atc query`` of an
endless goal took its whole time limit (30 s by default) to answer Ctrl-C. The ``atc``
program now forwards SIGINT into the running call (bridge/interrupts.py), which is aborted as a
limit aborts it: "interrupted", exit 130, at once, whatever ``catch/3`` the goal holds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attention_cloud import Memory

pytestmark = pytest.mark.skipif(os.environ.get("ATC_PROLOG", "pyswip") == "janus",
                                reason="janus reads signals its own way (README: Limits)")

ENDLESS = 'format("running~n"), between(1, inf, X), X < 0'


@pytest.fixture(scope="module")
def small_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("interrupts") / "home"
    with Memory.open(home) as mem:
        mem.remember("The staging database is read-only on Fridays.", curate=False)
    return home


def interrupt_when_running(args: list[str], home: Path) -> tuple[int, str, float]:
    """Run ``atc ARGS``, send SIGINT once it says it is running, return (exit code, stderr,
    seconds from the signal to the end)."""
    proc = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", *args, "--home",
                             str(home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        seen = ""
        while "running" not in seen:
            line = proc.stderr.readline()
            assert line, f"ended before running: {seen}"
            seen += line
        time.sleep(0.3)  # inside the goal's loop
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, rest = proc.communicate(timeout=50)
        return proc.returncode, seen + rest, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("goal", [ENDLESS, f"catch(({ENDLESS}), _, true)",
                                  f"catch(({ENDLESS}), _, (repeat, fail))"],
                         ids=["endless", "caught", "recovery-loops"])
def test_ctrl_c_stops_a_long_query_at_once(small_home, goal):
    code, err, seconds = interrupt_when_running(["query", goal, "--time-limit", "60"],
                                                small_home)
    assert (code, err.strip().splitlines()[-1]) == (130, "atc: interrupted"), err
    assert seconds < 20, seconds   # the time limit is 60 s


def test_ctrl_c_stops_a_frame_whose_walk_rule_loops(small_home, tmp_path):
    rules = tmp_path / "spin.pl"
    rules.write_text('spin(_, _) :- format("running~n"), repeat, fail.\n')
    code, err, seconds = interrupt_when_running(
        ["hydrate", "staging", "--rules", str(rules), "--walk", "spin"], small_home)
    assert (code, err.strip().splitlines()[-1]) == (130, "atc: interrupted"), err
    assert seconds < 20, seconds


def test_the_next_call_after_an_interrupt_runs_whole(small_home):
    # the interrupt is the call's it reached; the home answers the next command as before
    interrupt_when_running(["query", ENDLESS], small_home)
    done = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "query",
                           'item_text(H, T), sub_string(T, _, _, _, "Fridays")', "--home",
                           str(small_home)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "read-only on Fridays" in done.stdout, done.stderr


def test_a_program_embedding_memory_keeps_its_own_sigint_handling(small_home):
    # only the atc program forwards: a library caller's SIGINT handler and wakeup fd are its own
    code = ("import signal, sys\n"
            "from attention_cloud import Memory\n"
            f"m = Memory.open({str(small_home)!r})\n"
            "m.query('item(H)')\n"
            "print(signal.set_wakeup_fd(-1), signal.getsignal(signal.SIGINT) is "
            "signal.default_int_handler)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split() == ["-1", "True"], done.stderr
