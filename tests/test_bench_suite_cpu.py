"""scripts/bench/suite_cpu.py charges each test with its own CPU and its children's."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "scripts" / "bench"


def test_a_tests_child_process_cpu_is_charged_to_it_and_summed_per_file(tmp_path):
    (tmp_path / "test_spin.py").write_text(
        "import subprocess, sys\n"
        "def test_child():\n"
        "    subprocess.run([sys.executable, '-c', 'x = sum(range(3_000_000))'], check=True)\n"
        "def test_nothing():\n"
        "    pass\n")
    out = tmp_path / "cpu.tsv"
    env = {**os.environ, "PYTHONPATH": str(BENCH), "SUITE_CPU_OUT": str(out)}
    ran = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "suite_cpu", "test_spin.py"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    rows = {line.split("\t")[0]: [float(v) for v in line.split("\t")[1:]]
            for line in out.read_text().splitlines()}
    assert set(rows) == {"test_spin.py::test_child", "test_spin.py::test_nothing"}
    assert rows["test_spin.py::test_child"][1] > 0.01          # the child's CPU
    assert rows["test_spin.py::test_nothing"][1] == 0.0
    table = subprocess.run([sys.executable, str(BENCH / "suite_cpu.py"), str(out)],
                           capture_output=True, text=True, check=True, timeout=60).stdout
    assert "test_spin.py" in table and "1 files, 2 tests" in table, table
