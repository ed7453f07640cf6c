"""`--home` naming a folder that is not a memory home (a transcripts folder, a project, the
user's own home directory: a mistyped path or a confusion with the ingest path): every command
refuses it in one line, writes nothing there, and exits non-zero; before, reading commands
answered an empty memory (and hydrate wrote `receipts/` into the folder) and writing ones
spread a home's files among the user's."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import HomeError, Memory
from attention_cloud.cli import main

CHAT = '{"role": "user", "content": "Which queue do we use for billing events?"}\n'


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A project folder with a transcript in it: no memory home."""
    path = tmp_path / "project"
    (path / "sessions").mkdir(parents=True)
    (path / "sessions" / "chat.jsonl").write_text(CHAT, encoding="utf-8")
    (path / "notes.txt").write_text("my own notes\n", encoding="utf-8")
    return path


def _listing(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def _message(folder: Path) -> str:
    return (f"atc: {folder}: not a memory home (it holds other files and none of a home's, "
            "such as journal.pl or config.json); check --home or $ATC_HOME, or name an empty "
            "or new folder")


@pytest.mark.parametrize("command", [
    ["hydrate", "which queue"], ["query", "item(H)"], ["stats"], ["show", "it_0"],
    ["ingest", "CHAT"], ["remember", "the staging DB is read-only on Fridays"], ["curate"],
])
def test_every_command_refuses_a_folder_that_is_not_a_home(folder, command):
    before = _listing(folder)
    args = [str(folder / "sessions" / "chat.jsonl") if a == "CHAT" else a for a in command]
    out = CliRunner().invoke(main, [*args, "--home", str(folder)])
    assert out.exit_code == 1, out.output
    assert out.output.strip().splitlines() == [_message(folder)]
    assert _listing(folder) == before


def test_the_real_command_says_so_in_one_line(folder):
    before = _listing(folder)
    out = subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(folder),
                          "hydrate", "which queue"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [_message(folder)]
    assert _listing(folder) == before


def test_the_python_api_raises_a_home_error(folder):
    with pytest.raises(HomeError, match="not a memory home"):
        Memory.open(folder)
    assert "journal.pl" not in _listing(folder)


def test_a_hook_log_makes_no_folder_a_home(folder):
    (folder / "hooks.log").write_text("2026-01-01T00:00:00Z user-prompt error: ...\n")
    out = CliRunner().invoke(main, ["stats", "--home", str(folder)])
    assert out.exit_code == 1 and "not a memory home" in out.output


def test_an_empty_folder_or_one_with_only_a_config_is_still_a_home(tmp_path):
    empty = tmp_path / "empty"
    (empty / ".hidden-by-a-tool").mkdir(parents=True)
    (empty / "hooks.log").write_text("a hook ran before memory was made\n")
    out = CliRunner().invoke(main, ["remember", "cache TTL is 90s", "--home", str(empty)])
    assert out.exit_code == 0, out.output
    configured = tmp_path / "configured"
    configured.mkdir()
    (configured / "config.json").write_text('{"embedder": "hash"}\n', encoding="utf-8")
    out = CliRunner().invoke(main, ["stats", "--home", str(configured)])
    assert out.exit_code == 0, out.output


def test_doctor_names_the_folder_that_is_not_a_home(folder):
    out = CliRunner().invoke(main, ["doctor", "--home", str(folder)])
    assert out.exit_code == 1
    assert f"  NOT A HOME, every command stops on it ({folder}: not a memory home" in out.output
