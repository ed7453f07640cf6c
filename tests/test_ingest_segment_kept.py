"""A file ingested again with another `--segment` (the first ingest forgot it): its items keep
the segment they were first ingested into (an item's handle does not depend on it), and the
report says so, instead of `unchanged` and nothing in the segment asked for."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config

CHAT = ("Priya: the deploy on Tuesday broke because the migration locked the users table\n"
        "Tomás: we run migrations with lock_timeout = 5s from now on\n"
        "Priya: agreed, and add a canary step\n")


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    chat = tmp_path / "team.txt"
    chat.write_text(CHAT, encoding="utf-8")
    return home, chat


def test_the_report_says_the_items_stay_in_their_first_segment(tmp_path):
    home, chat = _setup(tmp_path)
    runner = CliRunner()
    first = runner.invoke(main, ["ingest", str(chat), "--home", str(home)])
    assert first.exit_code == 0, first.output
    again = runner.invoke(main, ["ingest", str(chat), "--segment", "work", "--home", str(home),
                                 "--format-output", "json"])
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["new"] == 0 and report["unchanged"] == 3
    assert {"file": str(chat), "note": "3 items already in segment default stay there (an item "
            "keeps the segment it was first ingested into; the segment asked for applies to "
            "new items only)"} in report["notes"]
    stats = json.loads(runner.invoke(main, ["stats", "--format", "json", "--home",
                                            str(home)]).stdout)
    assert stats["segments"] == {"default": 3}


def test_the_same_segment_again_says_nothing_and_the_command_line_prints_it(tmp_path):
    home, chat = _setup(tmp_path)
    atc = [sys.executable, "-m", "attention_cloud.cli"]
    first = subprocess.run([*atc, "ingest", str(chat), "--segment", "chat", "--home", str(home)],
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    chat.write_text(CHAT + "Tomás: I'll write the runbook\n", encoding="utf-8")
    same = subprocess.run([*atc, "ingest", str(chat), "--segment", "chat", "--home", str(home)],
                          capture_output=True, text=True, timeout=120)
    assert same.returncode == 0 and "stay there" not in same.stderr + same.stdout, same.stderr
    other = subprocess.run([*atc, "ingest", str(chat), "--segment", "work", "--home", str(home)],
                           capture_output=True, text=True, timeout=120)
    assert other.returncode == 0, other.stderr
    assert (f"note {chat}: 4 items already in segment chat stay there" in other.stderr
            ), other.stderr
