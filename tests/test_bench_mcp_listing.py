"""`scripts/bench/mcp_listing.py` prints what `atc mcp`'s tools/list hands a client (the sizes
BENCHMARKS.md quotes): a row per tool, and every tool's output schema smaller than it was while
it carried the whole tool document."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_listing_is_measured_tool_by_tool() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "scripts/bench/mcp_listing.py")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line.strip("| ").split(" | ") for line in out.stdout.splitlines()
            if line.startswith("| ") and not line.startswith(("| tool", "|---", "| all"))]
    assert {row[0] for row in rows} >= {"hydrate", "query", "remember", "forget", "show"}
    assert all(int(row[2]) < int(row[3]) for row in rows), rows
    assert "tools/list:" in out.stdout
