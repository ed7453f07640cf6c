"""A declassification is never in force without its audit line: `atc declassify` killed
(SIGKILL) between its two writes leaves the label as it was, or lifted with the line."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main
from test_declassify_missing_label import _state, owned  # noqa: F401 - the fixture

ROOT = Path(__file__).resolve().parent.parent

# `atc declassify` SIGKILLed the moment it appends its audit line
KILLED_AT_AUDIT = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from attention_cloud.sharing import policy
policy.append_event = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from attention_cloud.cli import main
main(["declassify", sys.argv[3], "--why", "shared with the team", "--restriction",
      "private", "--home", sys.argv[2]])
"""


def test_a_kill_before_the_audit_line_leaves_the_restriction_in_force(owned):
    # the restriction was lifted in the journal first and the audit line written after: a
    # kill between the two left the record declassified with no record of who did it or why
    home, handle = owned
    killed = subprocess.run([sys.executable, "-c", KILLED_AT_AUDIT, str(ROOT / "host"),
                             str(home), handle], timeout=300)
    assert killed.returncode == -9
    shown, audit, _ = _state(home, handle)
    assert "private" in shown and b"declassify" not in audit
    done = CliRunner().invoke(main, ["declassify", handle, "--why", "shared with the team",
                                     "--restriction", "private", "--home", str(home)])
    assert done.exit_code == 0, done.output
    shown, audit, _ = _state(home, handle)
    assert "private" not in shown and audit.count(b'"declassify"') == 1
