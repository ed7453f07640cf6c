"""A plane's segments and their shares of the budget (facts/planes.pl, README "Hydration").

A rules file naming a segment twice (a line copied, a file that repeats another's) gave it
two parts of the budget: the frame drew each twice over half of what it had, and the receipt
said the segment had half the budget and spent none of it. Now a segment is one part, with the
share it is first given.
"""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
SEGMENTS = {"work": FIXTURES / "claude_code_session.jsonl",
            "notes": FIXTURES / "2026-01-02-standup.md"}
GOAL = "what did we fix in the cache"
PLANE = "plane(p, _{seeds: 6}).\n"


def _frame(home: Path, rules: Path) -> dict:
    out = CliRunner().invoke(main, ["hydrate", GOAL, "--rules", str(rules), "--plane", "p",
                                    "--format", "json", "--home", str(home)])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_a_segment_a_plane_names_twice_is_one_part_of_the_budget(tmp_path):
    home = tmp_path / "home"
    for segment, source in SEGMENTS.items():
        out = CliRunner().invoke(main, ["ingest", str(source), "--segment", segment,
                                        "--home", str(home)])
        assert out.exit_code == 0, out.output
    once, twice = tmp_path / "once.pl", tmp_path / "twice.pl"
    once.write_text(PLANE + "plane_segment(p, work, 1).\nplane_segment(p, notes, 1).\n",
                    encoding="utf-8")
    twice.write_text(PLANE + "plane_segment(p, work, 1).\nplane_segment(p, notes, 1).\n"
                     "plane_segment(p, work, 3).\n", encoding="utf-8")
    expected, got = _frame(home, once), _frame(home, twice)
    assert got["receipt"]["budget"]["segments"] == expected["receipt"]["budget"]["segments"]
    assert {s: v["budget"] for s, v in got["receipt"]["budget"]["segments"].items()} == \
        {"work": 1000, "notes": 1000}
    handles = [f["handle"] for f in got["receipt"]["facts"]]
    assert len(handles) == len(set(handles))
    assert got["text"].count("## work") == 1
