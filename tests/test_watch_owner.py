"""One watcher a home: ``atc watch`` claims ``home/watch.pid`` (locked while it runs), a second
watcher on the same home is refused naming the first, a mark left by a watcher that died is
taken over with a note, and other writers wait for the running watcher's batches. And what a
batch says of how it read a file (the ingest notes) reaches a watcher's user.
Real subprocesses throughout; waits are on conditions with a deadline.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from attention_cloud.home import LOCK_WAIT, lock_wait, write_config

from watching import ATC, WatchProcess



def _cc(uuid: str, text: str) -> str:
    return json.dumps({"type": "user", "uuid": uuid, "sessionId": "S1", "cwd": "/srv",
                       "timestamp": "2026-02-01T10:00:00Z",
                       "message": {"role": "user", "content": text}}) + "\n"


@pytest.fixture
def hashed(home):
    write_config(home, {"embedder": "hash"})
    return home


def _batch_with(what):
    return lambda e: e["event"] == "batch" and what(e)


def test_a_second_watcher_is_refused_naming_the_first_which_goes_on_as_the_homes_watcher(
        hashed, tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "a.jsonl").write_text(_cc("u1", "Plan the ledger migration."))
    first = WatchProcess(hashed, str(folder), debounce="0.1", settle="0.5")
    try:
        began = first.wait_for(_batch_with(lambda e: e["new"] == 1))
        journal = (hashed / "journal.pl").read_bytes()
        second = subprocess.run([ATC, "watch", str(folder), "--home", str(hashed)],
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 1, second
        assert second.stdout == ""
        assert second.stderr.splitlines() == [
            f"atc: {hashed}: another atc watch (pid {first.proc.pid}) is following this memory "
            "home; stop it first, or give one watcher every path to follow"]
        assert (hashed / "journal.pl").read_bytes() == journal
        # the refused one left the first's mark alone: other writers still wait for its batches
        assert (hashed / "watch.pid").read_text().strip() == str(first.proc.pid)
        assert lock_wait(hashed) == LOCK_WAIT
        with open(folder / "a.jsonl", "a") as fh:
            fh.write(_cc("u2", "Then backfill the ledger rows."))
        first.wait_for(_batch_with(lambda e: e["new"] == 1 and e is not began))
    finally:
        assert first.stop() == 0
    assert not (hashed / "watch.pid").exists()
    assert lock_wait(hashed) == 0


def test_a_mark_left_by_a_watcher_that_died_is_taken_over_with_a_note(hashed, tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "a.jsonl").write_text(_cc("u1", "Plan the ledger migration."))
    gone = subprocess.Popen(["true"])
    gone.wait()
    (hashed / "watch.pid").write_text(f"{gone.pid}\n")
    assert lock_wait(hashed) == 0        # nobody holds it: writers do not wait for a dead pid
    w = WatchProcess(hashed, str(folder), debounce="0.1", settle="0.5")
    try:
        note = w.wait_for(lambda e: e["event"] == "took_over")
        assert note["pid"] == gone.pid and note["path"] == str(hashed / "watch.pid")
        w.wait_for(_batch_with(lambda e: e["new"] == 1))
        assert (hashed / "watch.pid").read_text().strip() == str(w.proc.pid)
    finally:
        assert w.stop() == 0
    assert not (hashed / "watch.pid").exists()
    # the text log says it in a line
    (hashed / "watch.pid").write_text(f"{gone.pid}\n")
    text = WatchProcess(hashed, str(folder), out="text", debounce="0.1", settle="0.5")
    try:
        line = text.wait_for(lambda line: "takes over" in line)
    finally:
        assert text.stop() == 0
    assert line.split(" ", 1)[1] == (f"{hashed / 'watch.pid'} named pid {gone.pid}, no longer "
                                     "running: this watcher takes over\n")


def test_a_watcher_says_how_it_read_a_file_once_in_json_and_text(hashed, tmp_path, capsys):
    folder = tmp_path / "sessions"
    folder.mkdir()
    session = folder / "a.jsonl"
    session.write_text(_cc("u1", "Plan the ledger migration."))
    done = subprocess.run([ATC, "ingest", str(session), "--home", str(hashed), "--segment", "work"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    with open(session, "a") as fh:
        fh.write(_cc("u2", "Then backfill the ledger rows."))
    said = ("1 item already in segment work stays there (an item keeps the segment it was "
            "first ingested into; the segment asked for applies to new items only)")
    w = WatchProcess(hashed, str(folder), "--segment", "home", debounce="0.1", settle="0.5")
    try:
        first = w.wait_for(_batch_with(lambda e: e["new"] == 1))
        assert first["notes"] == [{"file": str(session), "note": said}]
        with open(session, "a") as fh:
            fh.write(_cc("u3", "And check the totals."))
        again = w.wait_for(_batch_with(lambda e: e["new"] == 1 and e is not first))
        assert again["notes"] == []      # the same note of the same file: said once
    finally:
        assert w.stop() == 0
    from attention_cloud.watch.cli import text_log

    capsys.readouterr()
    text_log(2.0)(first)
    assert capsys.readouterr().err.split(" ", 1)[1] == f"note {session}: {said}\n"
