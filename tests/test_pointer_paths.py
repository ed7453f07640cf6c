"""Transcripts kept under a folder whose name holds ``#`` (``C#``, ``F#``: a project's folder)
or ``:``: pointers name the file, then its place, so a ``#`` or ``:`` inside the path must not
be read as the start of a JSON pointer or a line number (before: ``atc show --source`` said
``/…/C: no such file`` for every item of such a file, and a text turn that grew kept its
shorter reading live beside the whole one)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from attention_cloud.ingest.pointers import parse_pointer, read_pointer

TURNS = "User: are we still on for the picnic saturday?\nAssistant: yes we are\n" \
    "and I will bring the snacks\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "C#" / "notes:old"
    path.mkdir(parents=True)
    (path / "chat.txt").write_text(TURNS, encoding="utf-8")
    (path / "o.json").write_text(json.dumps([{"role": "user", "content": "hi"}]),
                                 encoding="utf-8")
    (path / "s.jsonl").write_text(json.dumps({"content": [{"text": "a"}]}) + "\n",
                                  encoding="utf-8")
    return path


def test_each_pointer_shape_names_the_file_inside_such_a_folder(folder):
    chat, doc, lines = (str(folder / n) for n in ("chat.txt", "o.json", "s.jsonl"))
    assert (parse_pointer(f"{chat}:2-3").path, parse_pointer(f"{chat}:2-3").line) == (chat, 2)
    assert read_pointer(f"{chat}:2-3") == "Assistant: yes we are\nand I will bring the snacks"
    assert read_pointer(f"{chat}:1") == "User: are we still on for the picnic saturday?"
    assert read_pointer(f"{doc}#/0/content") == "hi"
    assert read_pointer(f"{doc}#") == [{"role": "user", "content": "hi"}]
    assert read_pointer(f"{lines}:1#/content/0/text") == "a"


def test_a_file_gone_is_still_named_by_its_pointer(tmp_path):
    gone = tmp_path / "F#" / "chat.jsonl"
    assert parse_pointer(f"{gone}:3").path == str(gone)
    assert parse_pointer(f"{gone}:3#/content/1").path == str(gone)
    assert parse_pointer(f"{gone}#/messages/2").path == str(gone)


def _atc(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", "--home", str(home),
                           *args], capture_output=True, text=True, timeout=120)


def test_a_grown_turn_in_such_a_folder_is_one_item_and_shows_its_source(folder, tmp_path):
    home = tmp_path / "home"
    chat = folder / "chat.txt"
    assert _atc(home, "ingest", str(chat)).returncode == 0
    with chat.open("a", encoding="utf-8") as handle:
        handle.write("and a blanket for everyone\n")
    assert _atc(home, "ingest", str(chat)).returncode == 0
    listed = _atc(home, "query", "item(H), item_source(H, S), item_text(H, T)", "--format", "json")
    rows = json.loads(listed.stdout)
    assert sorted(r["S"] for r in rows) == [f"{chat}:1", f"{chat}:2-4"]
    (turn,) = [r["H"] for r in rows if r["S"].endswith(":2-4")]
    shown = _atc(home, "show", turn, "--source")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.rstrip().endswith(
        "Assistant: yes we are\nand I will bring the snacks\nand a blanket for everyone")
