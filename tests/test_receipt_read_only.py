"""A home on a read-only file system: its owner still gets frames, the receipt saying it was not
stored; a grantee's frame is refused, its receipt being the owner's access log."""
from __future__ import annotations

import errno
from pathlib import Path

import pytest

from attention_cloud import hydration
from attention_cloud.samples import sample_paths


@pytest.fixture(scope="module")
def mem(tmp_path_factory, curated_hash_memory):
    memory = curated_hash_memory(tmp_path_factory.mktemp("ro"),
                                 sample_paths()[0])
    yield memory
    memory.close()


def _read_only(monkeypatch) -> None:
    def refuse(home: Path, receipt: dict) -> Path:
        raise OSError(errno.EROFS, "Read-only file system", str(home / "receipts"))

    monkeypatch.setattr(hydration, "save_receipt", refuse)


def test_the_owner_gets_the_frame_and_a_receipt_saying_it_was_not_stored(mem, monkeypatch):
    """Before, `atc hydrate` on a home mounted read-only printed only `Read-only file system:
    …/receipts/r_….tmp` and no frame."""
    stored = mem.hydrate("why do processor retries fail", budget=600)
    _read_only(monkeypatch)
    frame = mem.hydrate("why do processor retries fail", budget=600)
    assert frame.receipt["stored"] is False and "stored" not in stored.receipt
    assert any("read-only file system" in n for n in frame.receipt["notes"])
    assert frame.receipt["facts"] == stored.receipt["facts"]  # the same frame, not a lesser one
    assert frame.receipt_id != stored.receipt_id and frame.receipt["id"] == frame.receipt_id
    assert frame.receipt_id in frame.text


def test_another_write_failure_is_still_an_error(mem, monkeypatch):
    def full(home: Path, receipt: dict) -> Path:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(hydration, "save_receipt", full)
    with pytest.raises(OSError):
        mem.hydrate("why do processor retries fail", budget=600)


def test_a_grantees_frame_is_refused_when_its_receipt_cannot_be_kept(tmp_path, monkeypatch):
    """A grantee's receipt is the owner's log of what was read: on a read-only home the
    owner's frame comes, the grantee's does not."""
    from granted_home import granted_memory

    from attention_cloud.sharing import reader_hydrate

    memory = granted_memory(tmp_path, "L2")
    try:
        _read_only(monkeypatch)
        assert memory.hydrate("retry", budget=400).receipt["stored"] is False
        with pytest.raises(OSError) as caught:
            reader_hydrate(memory, "bob", "retry", budget=400)
        assert caught.value.errno == errno.EROFS
    finally:
        memory.close()
