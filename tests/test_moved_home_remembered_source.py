"""A remembered item's pointer named the home's remembered.jsonl by its absolute path: after
the home was moved or copied (a backup restored, a project's `.mem` moved with it), `atc show
HANDLE --source` said `OLD/remembered.jsonl: cannot read`, or read the old home's file while
it was still there. A remembered item's record is read from the home that holds the item."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from attention_cloud.cli import main

NOTE = "the staging DB is read-only on Fridays"


def _remembered_then_copied(tmp_path: Path) -> tuple[Path, Path, str]:
    """A home holding NOTE, and a copy of it elsewhere: (old, copy, the note's handle)."""
    old = tmp_path / "old-home"
    old.mkdir()
    (old / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    done = CliRunner().invoke(main, ["remember", NOTE, "--no-curate", "--format", "json",
                                     "--home", str(old)])
    assert done.exit_code == 0, done.output
    moved = tmp_path / "moved-home"
    shutil.copytree(old, moved)
    return old, moved, json.loads(done.stdout)["handle"]


def test_a_moved_home_shows_its_remembered_records(tmp_path: Path) -> None:
    old, moved, handle = _remembered_then_copied(tmp_path)
    shutil.rmtree(old)
    out = CliRunner().invoke(main, ["show", handle, "--source", "--format", "json",
                                    "--home", str(moved)])
    assert out.exit_code == 0, out.output
    assert json.loads(json.loads(out.stdout)["verbatim"])["text"] == NOTE


def test_forgetting_in_a_moved_home_names_no_other_folders_file(tmp_path: Path) -> None:
    _, moved, handle = _remembered_then_copied(tmp_path)
    out = CliRunner().invoke(main, ["forget", handle, "--yes", "--format", "json",
                                    "--home", str(moved)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["sources"] == []   # not old-home/remembered.jsonl to delete
    assert NOTE not in (moved / "remembered.jsonl").read_text(encoding="utf-8")
