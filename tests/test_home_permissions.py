"""A memory home whose files this user may not write (made by another user, or with sudo): a
writing command is one line naming the file and a non-zero exit, the journal unchanged; a
frame is still given, its receipt saying it was not stored (as on a read-only volume)."""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud.cli import main
from attention_cloud.home import write_config
from privileges import without_file_capabilities

CHAT = ('{"role": "user", "content": "Which queue do we use for billing events?"}\n'
        '{"role": "assistant", "content": "SQS FIFO, deduplicated by invoice id."}\n')


def _atc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*without_file_capabilities(), sys.executable, "-m",
                           "attention_cloud.cli", *args], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A home with a chat ingested (no curation: nothing here needs vectors), and the chat."""
    root = tmp_path_factory.mktemp("perm")
    chat = root / "chat.jsonl"
    chat.write_text(CHAT, encoding="utf-8")
    home = root / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    out = CliRunner().invoke(main, ["ingest", str(chat), "--home", str(home)],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return home, chat


@pytest.fixture
def home(built, tmp_path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(built[0], copy)
    yield copy
    for path in [copy, *copy.rglob("*")]:                  # let tmp_path be removed
        path.chmod(0o700 if path.is_dir() else 0o600)


def _one_line_refusal(out: subprocess.CompletedProcess[str], path: Path) -> None:
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("atc: "), out.stderr
    assert str(path) in lines[0] and "ermission denied" in lines[0], lines[0]


def test_ingest_into_a_journal_this_user_may_not_write_is_one_line(home, built):
    journal = home / "journal.pl"
    before = journal.read_bytes()
    journal.chmod(0o400)
    (built[1].parent / "more.jsonl").write_text(CHAT.replace("billing", "invoices"),
                                                encoding="utf-8")
    out = _atc("ingest", str(built[1].parent / "more.jsonl"), "--home", str(home))
    _one_line_refusal(out, journal)
    assert journal.read_bytes() == before


def test_remember_when_the_lock_file_is_not_this_users_is_one_line(home):
    journal = home / "journal.pl"
    before = journal.read_bytes()
    (home / ".lock").chmod(0o400)
    out = _atc("remember", "the staging DB is read-only on Fridays", "--home", str(home))
    _one_line_refusal(out, home / ".lock")
    assert journal.read_bytes() == before


def test_a_frame_is_given_when_its_receipt_cannot_be_stored_here(home):
    receipts = home / "receipts"
    receipts.mkdir(exist_ok=True)
    receipts.chmod(0o500)
    out = _atc("hydrate", "which queue for billing", "--format", "json", "--home", str(home))
    assert out.returncode == 0, out.stderr
    frame = json.loads(out.stdout)
    assert "SQS FIFO" in frame["text"]
    assert frame["receipt"]["stored"] is False
    assert any("receipt not stored" in n for n in frame["receipt"]["notes"])
    assert "Traceback" not in out.stderr and "receipt not stored" in out.stderr
    assert list(receipts.iterdir()) == []


def test_a_permission_error_in_any_command_is_one_line_through_the_runner(home, monkeypatch):
    """In process (CliRunner), whatever the user: a command that meets a file it may not open."""
    from attention_cloud import memory

    def refused(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(home / "journal.pl"))

    monkeypatch.setattr(memory.Memory, "stats", refused)
    out = CliRunner().invoke(main, ["stats", "--home", str(home)])
    assert out.exit_code == 1, out.output
    assert out.output.strip().splitlines() == [
        f"atc: {home / 'journal.pl'}: Permission denied (this user may not read or write "
        "that file of the memory home: check its owner and mode)"]
