"""scripts/bench/hydrate_ab.py's choice of goals: one template's goals alone with --only."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "scripts" / "bench"
sys.path.insert(0, str(BENCH))

from hydrate_ab import chosen_goals  # noqa: E402


def test_only_keeps_the_goals_holding_the_text_in_their_order():
    goals = chosen_goals(12, 7, "worker")
    assert len(goals) == 12
    assert all("worker" in g for g in goals)
    everything = chosen_goals(12 * 40, 7)
    assert goals == [g for g in everything if "worker" in g][:12]


def test_without_only_the_goals_are_the_mixed_ones():
    assert chosen_goals(5, 7) == chosen_goals(5, 7, None)
    assert len({g.split()[0] for g in chosen_goals(60, 7)}) > 3


def test_only_text_no_goal_holds_is_refused_naming_it():
    with pytest.raises(ValueError, match="--only 'no such words'"):
        chosen_goals(5, 7, "no such words")
    proc = subprocess.run([sys.executable, str(BENCH / "hydrate_ab.py"), "--home", "nowhere",
                           "--base", "HEAD", "--only", "no such words"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--only 'no such words': 0 of" in proc.stderr.splitlines()[-1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "hydrate_ab.py"), *args],
                          capture_output=True, text=True, timeout=120)


def test_homes_runs_the_new_tree_on_each_home(tmp_path):
    import argparse

    from hydrate_ab import sides

    tree = tmp_path / "tree"
    tree.mkdir()
    args = argparse.Namespace(homes=[tmp_path / "a", tmp_path / "b"], home=None, base=None,
                              new=str(tree))
    runs = sides(args, tmp_path / "scratch")
    assert list(runs) == ["A", "B"]
    assert runs["A"] == (tree.resolve(), (tmp_path / "a").resolve())
    assert runs["B"] == (tree.resolve(), (tmp_path / "b").resolve())


def test_homes_and_home_misuse_is_refused_naming_the_option(tmp_path):
    proc = _run("--homes", str(tmp_path), str(tmp_path), "--base", "HEAD")
    assert proc.returncode == 2
    assert "--base does not apply" in proc.stderr.splitlines()[-1]
    proc = _run("--home", str(tmp_path))
    assert proc.returncode == 2
    assert "name the one before with --base" in proc.stderr.splitlines()[-1]
    proc = _run("--homes", str(tmp_path), str(tmp_path / "missing"))
    assert proc.returncode == 2
    assert f"no home at {tmp_path / 'missing'}" in proc.stderr.splitlines()[-1]
    proc = _run("--home", str(tmp_path), "--homes", str(tmp_path), str(tmp_path), "--base", "HEAD")
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr.splitlines()[-1]


def test_slowest_lists_each_sides_worst_goals_first():
    from hydrate_ab import slowest_lines

    lines = slowest_lines(["a", "b", "c"], {"A": [0.010, 0.030, 0.020], "B": [0.005, 0.001, 0.002]}, 2)
    assert lines == ["slowest on A (least CPU ms over the rounds):", "    30.0  b", "    20.0  c",
                     "slowest on B (least CPU ms over the rounds):", "     5.0  a", "     2.0  c"]
    assert slowest_lines(["a"], {"A": [0.01]}, 0) == []
