"""An erasure killed after its erase batch, whose plan file was then damaged, is still finished.

The erase batch leaves only tombstones in the journal's facts, but the journal file, its
snapshot and the indexes still hold the text until stages 5 and 6 (purge, compact) run. A
damaged ``erasure.pending.json`` was read as "no plan" and removed, so those stages never ran:
the forgotten text stayed readable in journal.pl, snapshot and the BM25/vector logs for good.
Now the next call re-derives what is left from the journal's tombstones and finishes it.
"""
from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.audit import read_events
from attention_cloud.cli import main
from test_erasure import ROOT, SECRET, curated, files_holding  # noqa: F401 - the fixture

#: ``atc forget`` of one handle, killed as the erase batch has committed (before any purge).
KILLED_AFTER_BATCH = r"""
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from attention_cloud import Memory, erasure
def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
erasure._finish = killed
with Memory.open(sys.argv[2]) as mem:
    mem.forget([sys.argv[3]], reason="test", who="test")
"""


def _kill_after_batch(home, handle) -> None:
    killed = subprocess.run([sys.executable, "-c", KILLED_AFTER_BATCH, str(ROOT / "host"),
                             str(home), handle], timeout=300)
    assert killed.returncode == -9
    assert (home / "erasure.pending.json").exists()


def test_a_damaged_plan_after_the_erase_batch_still_leaves_no_file_holding_the_text(curated):
    home, _, secret = curated
    _kill_after_batch(home, secret)
    assert files_holding(home, SECRET)  # journal, indexes: the stages after the batch
    (home / "erasure.pending.json").write_bytes(b"\xff\x00{\"hand")
    with Memory.open(home) as mem:
        report = mem.finish_erasure()
        assert report is not None and secret in report.handles
        assert mem.item(secret) is None
    assert not (home / "erasure.pending.json").exists()
    assert files_holding(home, SECRET) == []


def test_a_damaged_plan_with_no_erasure_in_the_journal_is_only_removed(curated):
    home, _, secret = curated
    (home / "erasure.pending.json").write_bytes(b"[1, 2]\n")
    journal = (home / "journal.pl").read_bytes()
    with Memory.open(home) as mem:
        assert mem.finish_erasure() is None
        assert mem.item(secret) is not None
    assert not (home / "erasure.pending.json").exists()
    assert (home / "journal.pl").read_bytes() == journal  # nothing compacted for nothing


def _forget_events(home) -> list[str]:
    return [e["handle"] for e in read_events(home) if e.get("event") == "forget"]


def test_finishing_a_damaged_plan_counts_only_the_items_it_erased(curated):
    """The report named every item ever forgotten (every tombstone in the journal), so `atc
    forget` said "finished an interrupted erasure of N items" of items long erased before."""
    home, _, secret = curated
    with Memory.open(home) as mem:
        earlier = mem.query('item_text(H, T), sub_string(T, _, _, _, "idempotent now")').rows[0]["H"]
        mem.forget([earlier], reason="test", who="ann")  # finished: its audit record is written
    _kill_after_batch(home, secret)
    (home / "erasure.pending.json").write_bytes(b"\xff\x00{\"hand")
    run = CliRunner().invoke(main, ["forget", secret, "--yes", "--home", str(home)])
    assert run.exit_code == 0, run.output
    assert "finished an interrupted erasure of 1 items" in run.stderr
    assert "forgot 0 items (1 already forgotten)" in run.stdout
    assert files_holding(home, SECRET) == []
    assert sorted(_forget_events(home)) == sorted([earlier, secret])  # each once


def test_an_erasure_resumed_from_its_plan_writes_the_audit_record_of_its_items(curated):
    """The killed run's batch had tombstoned its items, so the resumed run took them as
    forgotten before it and wrote no `forget` event: `atc audit` never listed the erasure."""
    home, _, secret = curated
    _kill_after_batch(home, secret)
    with Memory.open(home) as mem:
        report = mem.finish_erasure()
        assert report is not None and report.handles == [secret]
    assert files_holding(home, SECRET) == []
    assert _forget_events(home) == [secret]
