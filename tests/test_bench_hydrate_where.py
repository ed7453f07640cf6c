"""scripts/bench/hydrate_where.py: the map of where a warm frame's CPU goes. What its reader
relies on: every part it names was really timed (the Prolog call, the host callbacks, each
goal of hydrate/3 and of the jump), its instrumented pass gives the facts hydrate gives, and
the home's engine is left as it was (the next frame is an ordinary one)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from attention_cloud.bridge import Atom, Var

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

from hydrate_where import calls, chosen, measure, redundancy, redundancy_report, report  # noqa: E402

GOALS = ["why do processor retries fail", "what did we decide about the retry policy"]


def test_every_part_of_a_frame_is_timed_and_the_engine_left_as_it_was(curated_samples):
    mem = curated_samples
    mem.jump  # its search registered, as a frame registers it
    before = dict(mem.pl.engine._callables)
    m = measure(mem, GOALS, rounds=2)
    assert m["frames"] == 4 and m["same"]
    assert [g for g, _ in m["least"]] == GOALS and all(cpu > 0 for _, cpu in m["least"])
    assert m["parts"]["prolog"][0] == 4 and m["parts"]["build_frame"][0] == 4
    assert m["parts"]["prolog"][1] < m["parts"]["hydrate"][1]
    assert m["callbacks"]["atc_jump:semantic_hits/4"][0] >= 4
    assert {"select_facts_", "walk_", "fuse_"} <= set(m["clauses"])  # fuse_: a goal of jump_/9
    text = report(m, slowest=1, top=5)
    assert "host callbacks" in text and any(goal in text for goal in GOALS)
    assert mem.pl.engine._callables == before
    assert "once" not in vars(mem.pl)
    assert mem.hydrate(GOALS[0]).facts


def test_calls_counts_the_frames_lookups_and_leaves_the_profiler_off(curated_samples):
    """--calls: the figures a cut in lookups is measured by (item_/10 reads a frame)."""
    mem = curated_samples
    rows = calls(mem, GOALS, top=40)
    assert len(rows) == 40
    per_frame = [n for _, n, _ in rows]
    assert per_frame == sorted(per_frame, reverse=True) and per_frame[-1] > 0
    assert any(name == "atc_journal:item_/10" for name, _, _ in rows)
    assert all(0 <= share <= 1 for _, _, share in rows)
    (was,) = mem.pl.once("user:profiler", Var(), Atom("false"))   # the old state, kept off
    assert str(was) == "false"
    assert mem.hydrate(GOALS[0]).facts


def test_redundancy_replays_the_selections_checks_and_leaves_no_wrapper(curated_samples):
    """--redundancy: the checks a frame's selection made, replayed; the engine's redundancy_/4
    is unwrapped after and the recorded calls dropped, so the next frame is an ordinary one."""
    mem = curated_samples
    r = redundancy(mem, GOALS, passes=2)
    assert r["calls"] > 0
    assert len(r["checks"]) == len(r["copies"]) == 2
    assert all(c > 0 for c in r["checks"] + r["copies"])
    text = redundancy_report(r, frame=0.02)
    assert "near-duplicate checks" in text and "of a frame's 20.0 ms" in text
    assert mem.pl.once("bench_hydrate_redundancy:redundancy_recording") is None
    (kept,) = mem.pl.once("bench_hydrate_redundancy:redundancy_recorded", Var())
    assert int(kept) == 0
    assert mem.hydrate(GOALS[0]).facts


def test_only_keeps_the_goals_holding_a_text_and_refuses_none():
    assert chosen(["a last week", "b", "c yesterday"], ["last week", "yesterday"]) == \
        ["a last week", "c yesterday"]
    assert chosen(["a", "b"], None) == ["a", "b"]
    proc = subprocess.run([sys.executable, str(BENCH / "hydrate_where.py"), "--home", "nowhere",
                           "--only", "no such words"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "no such words" in proc.stderr.splitlines()[-1]
