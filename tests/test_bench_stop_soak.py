"""`scripts/bench/stop_soak.py` SIGTERMs busy `atc watch` and `atc serve` processes and counts
how each ended (BENCHMARKS.md quotes it): one trial of each, both ending 0, no hang, and no
work folder left behind; and a trial that ended otherwise is counted as what it was."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOAK = ROOT / "scripts" / "bench" / "stop_soak.py"


def test_one_stop_of_each_ends_0_and_leaves_no_folder(tmp_path, children_tmpdir) -> None:
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(SOAK), "--trials", "1", "--json", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    figures = json.loads(out.read_text())
    for command in ("watch", "serve"):
        assert figures[command]["this"]["exits"] == {"0": 1}, figures
        assert figures[command]["this"]["hangs"] == 0
    # nothing hung: no work folder kept "for hang stacks" (one was left in /tmp every run)
    assert list(children_tmpdir.iterdir()) == [] and "work folder" not in done.stdout


def test_the_summary_counts_each_way_of_ending() -> None:
    spec = importlib.util.spec_from_file_location("stop_soak", SOAK)
    soak = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(soak)
    trials = [{"exit": 0, "seconds": 1.5}, {"exit": -15, "seconds": 0.1},
              {"exit": "hang", "seconds": None}, {"exit": 0, "seconds": 4.0}]
    assert soak.summary(trials) == {"trials": 4, "exits": {"0": 2, "-15": 1, "hang": 1},
                                    "hangs": 1, "max_s": 4.0, "p50_s": 1.5}
