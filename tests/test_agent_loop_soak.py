"""An agent loop on one open Memory: scripts/bench/agent_loop_soak.py --quick (200 turns).

Every turn appends to a growing transcript (OpenAI chat and Anthropic Messages JSONL), ingests
it, hydrates (some goals naming a time), queries, and now and then curates, remembers, forgets,
adds a walk rule and walks it, while a second process runs ``atc ingest``/``atc curate`` on the
same home. The driver checks every turn that nothing but the documented busy-lock HomeError is
raised, receipts name facts memory holds and never spend more than the budget, the newest item
is findable and forgotten items never come back; it exits 1 on any failure.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_quick_agent_loop_soak_finds_nothing_wrong(tmp_path):
    out = tmp_path / "soak.json"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "agent_loop_soak.py"),
                           "--quick", "--json", str(out)],
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["failures"] == []
    assert result["turns"] == 200
    assert result["ingested"] >= 600            # three items a turn, every one found
    assert result["forgotten"] >= 4
    assert result["latency_ms"]["walk"]["calls"] >= 19
    assert any(k.endswith(":ok") for k in result["side"]), result["side"]
