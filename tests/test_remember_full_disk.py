"""`atc remember` that meets a full disk after its journal commit says the item was kept.

The item is committed (journal, remembered.jsonl, its BM25 entry) before the curate that
builds its rungs and vectors. A full disk in that curate (ENOSPC from the vector log, the
snapshot) made `atc remember` exit 1 with the disk's error, though the item was kept and is
found: a caller that retried on failure got "already remembered", and one that did not
believed the memory lost. Now the call succeeds with ``curated: false`` and the note that
`atc curate` finishes it, as `--no-curate` does.
"""
from __future__ import annotations

import errno
import json
from pathlib import Path

from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config


def _full_disk(self, *args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_in_the_curate_keeps_the_remembered_item_and_exits_0(home: Path,
                                                                          monkeypatch) -> None:
    write_config(home, {"embedder": "hash"})
    monkeypatch.setattr(Memory, "curate", _full_disk)
    run = CliRunner().invoke(main, ["remember", "the staging DB is read-only on Fridays",
                                    "--format", "json", "--home", str(home)])
    assert run.exit_code == 0, run.output
    done = json.loads(run.stdout)
    assert done["new"] is True and done["curated"] is False
    monkeypatch.undo()
    with Memory.open(home) as mem:
        assert mem.item(done["handle"]).text == "the staging DB is read-only on Fridays"
        again = mem.remember("the staging DB is read-only on Fridays")
        assert not again.new and again.curated  # the same command again curates it


def test_a_full_disk_when_remember_closes_the_home_says_the_item_is_kept_and_exits_0(
        home: Path, monkeypatch) -> None:
    """Closing the home after the commit writes the journal's snapshot when one is due; a full
    disk there made `atc remember` print the disk's error and exit 1, though the item was
    committed. Now it prints what it remembered, says what was not written, and exits 0."""
    from attention_cloud import memory

    write_config(home, {"embedder": "hash"})
    snapshot = home / "snapshot.qlf"

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(snapshot))

    monkeypatch.setattr(memory, "snapshot_due", lambda _home: True)
    monkeypatch.setattr(memory, "write_snapshot", full_disk)
    run = CliRunner().invoke(main, ["remember", "deploys freeze at 16:00 on Fridays",
                                    "--home", str(home)])
    assert run.exit_code == 0, run.output
    assert run.stdout.startswith("remembered it_")
    handle = run.stdout.split()[1]
    assert run.stderr.strip() == (f"atc: note: {handle} is kept, but closing the home did not "
                                  f"write {snapshot}: No space left on device; a later command "
                                  "writes it once the disk has room")
    monkeypatch.undo()
    with Memory.open(home) as mem:
        assert mem.item(handle).text == "deploys freeze at 16:00 on Fridays"
