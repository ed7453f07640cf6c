"""`scripts/bench/mcp_answers.py` measures what `atc mcp` answers tool by tool (the sizes
BENCHMARKS.md quotes): run on the bundled sample sessions, each hydrate's text stays within its
budget plus the receipt line, and is smaller than its structured content."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "host" / "attention_cloud" / "samples"


def test_each_answer_is_measured_and_a_frame_text_keeps_its_budget() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts/bench/mcp_answers.py"),
                          "--data", str(SAMPLES), "--budgets", "300", "1200"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line.strip("| ").split(" | ") for line in out.stdout.splitlines()
            if line.startswith("| ") and not line.startswith(("| tool", "|---"))]
    assert {row[0] for row in rows} >= {"hydrate", "receipt", "query", "show", "remember"}
    frames = [row for row in rows if row[0] == "hydrate"]
    assert len(frames) == 4
    for _tool, call, text_chars, text_tokens, structured_chars, *_ in frames:
        budget = int(call.rsplit(" ", 1)[1])
        assert int(text_tokens) <= budget + 40, call      # the frame, plus the receipt line
        assert int(text_chars) < int(structured_chars), call
