"""Run every plunit suite in tests/prolog/ in its own swipl process."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SUITES = sorted((Path(__file__).parent / "prolog").glob("test_*.pl"))


@pytest.mark.parametrize("suite", SUITES, ids=[s.stem for s in SUITES])
def test_plunit_suite_passes(suite: Path):
    swipl = shutil.which("swipl")
    assert swipl, "swipl must be on PATH (scripts/setup installs it)"
    proc = subprocess.run([swipl, "-q", "-g", "run_tests", "-t", "halt", str(suite)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
