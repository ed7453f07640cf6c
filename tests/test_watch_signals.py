"""A signal can land anywhere in the watcher's loop: SIGTERM must stop ``atc watch`` and
SIGUSR1 must log its status wherever the main thread is when Python runs the handler,
including inside the wake-up the loop sleeps on (a ``threading.Event`` there deadlocked: its
``set()`` from the handler waited for the lock its own thread held in ``wait()``/``clear()``).

The watcher runs in a subprocess whose trace function raises a signal at every line the
main thread executes, so every point of the loop gets one; a hang is a failure, not a stuck
suite (the subprocess is killed at the deadline).
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

_SCRIPT = textwrap.dedent("""
    import signal, sys, tempfile
    from pathlib import Path
    from attention_cloud.watch.watcher import Watcher, WatchOptions

    class Home:            # the loop touches only the home's path while nothing is due
        def __init__(self, home):
            self.home = home

    scratch = tempfile.TemporaryDirectory()   # removed as the process exits
    root = Path(scratch.name)
    (root / "home").mkdir()
    (root / "watched").mkdir()
    events = []
    watcher = Watcher(Home(root / "home"), [root / "watched"],
                      WatchOptions(poll=True, interval=0.01), events.append)
    watcher.install_signal_handlers()
    raised = 0

    def every_line(frame, event, arg):
        global raised
        if event == "line" and raised <= LINES:
            raised += 1
            signal.raise_signal(signal.SIGUSR1 if raised <= LINES else signal.SIGTERM)
        return every_line

    sys.settrace(lambda frame, event, arg: every_line)
    watcher.run()
    sys.settrace(None)
    print(events[-1]["event"], events[-1]["why"], any(e["event"] == "status" for e in events))
""")


def test_a_signal_at_any_line_of_the_loop_stops_the_watcher_or_logs_its_status(children_tmpdir):
    script = _SCRIPT.replace("LINES", "3000")
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        raise AssertionError("the watcher hung on a signal instead of stopping") from None
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["stop", "SIGTERM", "True"]
    assert list(children_tmpdir.iterdir()) == []   # its scratch folders removed


def test_the_wake_up_set_past_a_full_pipe_stays_set_and_clears_whole():
    """Events in a burst (thousands of files touched at once) set the wake-up more often than
    the loop wakes: past a full pipe a set() must neither block nor raise, and clear() must
    forget them all."""
    from attention_cloud.watch.wake import Wake

    wake = Wake()
    assert wake.wait(0) is False
    for _ in range(200_000):            # past the pipe's 64 KiB
        wake.set()
    assert wake.wait(0) is True
    wake.clear()
    assert wake.wait(0) is False
    wake.set()
    assert wake.wait(5) is True
