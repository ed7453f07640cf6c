"""The summary (L1) of a tool's output names the call it answers, in every format that pairs
calls with results.

A frame's L1 line of a tool result read ``(use "git add <file>... no changes added to commit…``
or ``Finished in 5.8 seconds … 389 tests, 0 failures`` with no ``$ git status`` or ``$ mix
test`` before it: at L0 the call heads the output, but the summary was the output's best
sentence alone, so a reader could not tell which command it answered.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud.curate import estimate_tokens
from attention_cloud.home import write_config

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"

# (fixture, format): Claude Code, OpenAI tool calls, SWE-agent and mini-swe-agent
# trajectories, OpenHands (V0 and V1), Codex, Anthropic messages.
PAIRED = [
    ("claude_code_session.jsonl", "claude-code"),
    ("openai_chat.json", "openai"),
    ("swe_agent_run.traj", "trajectory"),
    ("swe_agent_1x_run.traj", "trajectory"),
    ("mini_swe_agent_run.traj.json", "trajectory"),
    ("openhands_trajectory.json", "openhands"),
    ("openhands_v1_events.json", "openhands"),
    ("codex_rollout.jsonl", "codex"),
    ("anthropic_messages.json", "anthropic"),
]


def _outputs(mem: Memory) -> list[dict]:
    rows = mem.query("item_kind(H, K), memberchk(K, [tool_result, error]), "
                     "once(relation(H, tool, _)), item_text(H, X), rung(H, l1, S), "
                     "atom_string(H, Id)", limit=1000)
    return [{"handle": r["Id"], "text": r["X"], "l1": r["S"]} for r in rows.rows]


@pytest.mark.parametrize("name,fmt", PAIRED, ids=[n for n, _ in PAIRED])
def test_a_tool_results_summary_names_its_call(home, name, fmt):
    write_config(home, {"embedder": "hash"})
    mem = Memory.open(home)
    try:
        mem.ingest([FIXTURES / name], format=fmt)
        mem.curate()
        outputs = _outputs(mem)
        assert outputs, f"{name}: no tool output paired with its call"
        for out in outputs:
            call = " ".join(out["text"].strip().split("\n", 1)[0].split())
            l1 = out["l1"]
            # the call first (a long one cut with "…"), then what the output said
            head = call if len(call) <= 40 else call[:20]
            assert l1.startswith(head), (name, call, l1)
            assert estimate_tokens(l1) <= 40, (name, l1)
    finally:
        mem.close()
