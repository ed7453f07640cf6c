"""The suite's own set-up: the processes tests start see the signals a user would send."""
from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

CHILD_SEES_CTRL_C = ("import signal; print(signal.getsignal(signal.SIGINT) is "
                     "signal.default_int_handler)")


def test_a_process_a_test_starts_does_not_ignore_ctrl_c():
    """The check the run below makes: a child of the test process takes Ctrl-C."""
    out = subprocess.run([sys.executable, "-c", CHILD_SEES_CTRL_C], capture_output=True,
                         text=True, check=True, timeout=60)
    assert out.stdout.strip() == "True", out


def test_a_suite_started_with_ctrl_c_ignored_still_hands_it_to_its_processes():
    """pytest started with SIGINT ignored (`nohup`, `cmd &` in a script) handed SIG_IGN to
    every `atc` the tests started: test_interrupts' Ctrl-C tests then spun for minutes on a
    process that never saw the signal. conftest.py handles SIGINT again; this runs the check
    above in such a pytest."""
    here = Path(__file__)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"{here}::test_a_process_a_test_starts_does_not_ignore_ctrl_c"],
        cwd=here.parent.parent, capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
