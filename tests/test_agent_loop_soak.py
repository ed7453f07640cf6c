"""An agent loop on one open Memory: scripts/bench/agent_loop_soak.py, 50 turns.

Every turn appends to a growing transcript (OpenAI chat and Anthropic Messages JSONL), ingests
it, hydrates (some goals naming a time), queries, and now and then curates, remembers, forgets,
adds a walk rule and walks it, while a second process runs ``atc ingest``/``atc curate`` on the
same home. The driver checks every turn that nothing but the documented busy-lock HomeError is
raised, receipts name facts memory holds and never spend more than the budget, the newest item
is findable and forgotten items never come back; it exits 1 on any failure.

The run is a quarter of ``--quick`` (200 turns) with the periodic calls four times as often,
so it makes as many of each as ``--quick`` did where the count is what matters: 5 transcript
files grown turn by turn (``--session-turns 10``), 5 forgets, 10 starts of the second process,
2 adds of the walk rule (the second replacing the first), 4 rounds of the fixed probe goals;
10 curates (``--curate-every 5``, as the 100 turns before made); and 50 ingests, hydrates and
query rounds, 5 walks, 3 remembers. Every call of the driver costs the same or less on a smaller home, so the turns'
own calls cost a quarter of ``--quick``'s (the calls are spread evenly: no one kind is most of
it; BENCHMARKS.md measures the long runs). Each turn's checks (the newest item findable, the
receipt's facts held and its budget kept, forgotten items never shown) run on all 50; 100 turns
cost half as much CPU again (40.6 s against 27.1 s; BENCHMARKS.md, round 34).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TURNS = 50


def test_quick_agent_loop_soak_finds_nothing_wrong(tmp_path):
    out = tmp_path / "soak.json"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "agent_loop_soak.py"),
                           "--turns", str(TURNS), "--session-turns", "10", "--forget-every", "10",
                           "--side-every", "5", "--rules-every", "25", "--probe-every", "13",
                           "--curate-every", "5",
                           "--json", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["failures"] == []
    assert result["turns"] == TURNS
    # about three new items a turn (a reading of a grown file may count one more or one less:
    # 605 in 200 turns, 298 in 100), and the home ends holding every one of them
    assert result["ingested"] >= 2.9 * TURNS
    assert result["forgotten"] >= 4
    remembered = result["latency_ms"]["remember"]["calls"] - result["busy"].get("remember_busy", 0)
    side_items = 3 * result["side"].get("ingest:ok", 0)   # each side transcript holds three
    assert result["items_end"] == (result["ingested"] + remembered + side_items
                                   - result["forgotten"]), result
    assert result["latency_ms"]["rules"]["calls"] == 2
    assert result["latency_ms"]["walk"]["calls"] >= TURNS // 10 - 1   # every tenth turn walks
    assert any(k.endswith(":ok") for k in result["side"]), result["side"]
