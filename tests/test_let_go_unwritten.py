"""A writer whose write the file system refused lets go of what it holds unwritten.

Python keeps the bytes of a refused write (a full disk) in the file object's buffer and writes
them at its next flush, or when the object is garbage-collected: at the end of the file as it
is then. ``LexicalIndex.close()`` and ``VectorStore.close()`` whose flush raised left their log
file objects (and the vector store its lock) to the garbage collector, so the refused bytes
landed after whatever another writer had appended since; a ``Memory.close()`` whose snapshot
write raised kept the home's write lock and stayed open. Now the bytes are dropped (the next
open reads the logs as far as they are whole, and the pending file or curation indexes what is
missing, as after a kill), the locks are released, and the error is raised once.
"""
from __future__ import annotations

import errno
import gc
import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

from attention_cloud import Memory
from attention_cloud.embed import VectorStore
from attention_cloud.embed.lexical import LexicalIndex


class FillingDisk(io.FileIO):
    """A file on a disk that fills: while ``full``, writes to that file system are refused
    (ENOSPC), wherever its descriptor points to another (``/dev/null``) they are not."""

    full = False

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.device = os.fstat(self.fileno()).st_dev

    def write(self, data):  # type: ignore[override]
        if FillingDisk.full and os.fstat(self.fileno()).st_dev == self.device:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(data)


@pytest.fixture
def disk():
    FillingDisk.full = False
    yield FillingDisk
    FillingDisk.full = False


def test_a_bm25_close_refused_by_a_full_disk_never_writes_its_bytes_after_another_writer(
        tmp_path: Path, disk) -> None:
    folder = tmp_path / "lexical"
    first = LexicalIndex.open(folder)
    first.add(["it_1"], ["the staging database is read-only on Fridays"])
    first.flush()
    log = first._log  # from here on its appends go to a disk that fills
    first._log = io.TextIOWrapper(io.BufferedWriter(FillingDisk(log.name, "a")), encoding="utf-8")
    log.close()
    first.add(["it_2"], ["deploys freeze at sixteen hundred"])
    disk.full = True
    with pytest.raises(OSError, match="No space left on device"):
        first.close()
    disk.full = False
    second = LexicalIndex.open(folder)  # the next writer, once the disk has room
    second.add(["it_3"], ["the ledger is backfilled in batches"])
    second.close()
    del first
    gc.collect()
    committed = json.loads((folder / "committed.json").read_text(encoding="utf-8"))
    assert (folder / "lexical.jsonl").stat().st_size == committed["log_bytes"]
    reader = LexicalIndex.open(folder, read_only=True)
    assert [reader.has(k) for k in ("it_1", "it_2", "it_3")] == [True, False, True]


def test_a_vector_store_close_refused_by_a_full_disk_releases_its_lock_and_never_writes_later(
        tmp_path: Path, disk) -> None:
    folder = tmp_path / "vectors"
    rows = np.eye(3, 8, dtype=np.float32)
    first = VectorStore.open(folder, embedder_id="test@1", dim=8)
    first.add(["a"], rows[:1])
    first.flush()
    log = first._vector_log  # from here on its rows go to a disk that fills
    first._vector_log = io.BufferedWriter(FillingDisk(log.name, "a"))
    log.close()
    disk.full = True
    with pytest.raises(OSError):
        first.add(["b"], rows[1:2])
    with pytest.raises(OSError, match="No space left on device"):
        first.close()
    disk.full = False
    second = VectorStore.open(folder, embedder_id="test@1", dim=8)  # its lock was released
    second.add(["c"], rows[2:3])
    second.close()
    del first
    gc.collect()
    third = VectorStore.open(folder, embedder_id="test@1", dim=8)
    third.add(["d"], rows[:1] + rows[2:3])
    third.close()
    reader = VectorStore.open(folder, embedder_id="test@1", dim=8, read_only=True)
    assert sorted(reader.keys()) == ["a", "c", "d"]
    for key, row in (("a", rows[0]), ("c", rows[2]), ("d", rows[0] + rows[2])):
        np.testing.assert_array_equal(reader.vector(key), row)


def test_a_memory_close_whose_snapshot_write_fails_is_closed_unlocked_and_raises_once(
        home: Path, monkeypatch) -> None:
    from attention_cloud import memory

    mem = Memory.open(home)
    mem.remember("deploys freeze at 16:00 on Fridays", curate=False)

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(home / "snapshot.qlf"))

    monkeypatch.setattr(memory, "snapshot_due", lambda _home: True)
    monkeypatch.setattr(memory, "write_snapshot", full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        mem.close()
    assert not mem.lock.held
    mem.close()  # closed: closing again does nothing, and raises nothing
    monkeypatch.undo()
    with Memory.open(home) as again:  # the next open reads what was committed, and writes
        assert again.remember("deploys freeze at 16:00 on Fridays", curate=False).new is False
        assert again.remember("the staging DB is read-only on Fridays", curate=False).new
