"""Every stored receipt is on its reader's list, so the cap reaches it (receipt_cap.py).

Two ways a receipt escaped the cap: receipts saved before `receipts_kept` existed were on no
list, so none of them was ever pruned (a home that grew by gigabytes kept them all); and two
processes pruning one reader's list at once each rewrote it from what they had read, so the
id the other appended in between was lost, and its receipt stayed on disk for good.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path

from attention_cloud.hydration import save_receipt


def _home(root: Path, kept: int) -> Path:
    home = root / "home"
    (home / "receipts").mkdir(parents=True)
    (home / "config.json").write_text(json.dumps({"receipts_kept": kept}), encoding="utf-8")
    return home


def _store(home: Path, rid: str, created: str, reader: str | None = None) -> dict:
    receipt = {"id": rid, "created": created}
    if reader:
        receipt["reader"] = reader
    (home / "receipts" / f"{rid}.json").write_text(json.dumps(receipt), encoding="utf-8")
    return receipt


def _new(rid: str, created: str, reader: str | None = None) -> dict:
    """A receipt this atc saves (not yet on disk)."""
    return {"id": rid, "created": created, **({"reader": reader} if reader else {})}


def _stored(home: Path) -> set[str]:
    return {p.stem for p in (home / "receipts").glob("*.json")}


def test_receipts_saved_before_the_cap_are_pruned_with_their_readers_newer_ones(tmp_path):
    home = _home(tmp_path, 3)
    old_owner = [f"r_o{n}" for n in range(5)]
    old_bob = [f"r_b{n}" for n in range(2)]
    for n, rid in enumerate(old_owner):
        _store(home, rid, f"2025-01-0{n + 1}T10:00:00Z")
    for n, rid in enumerate(old_bob):
        _store(home, rid, f"2025-02-0{n + 1}T10:00:00Z", "bob")
    save_receipt(home, _new("r_new", "2026-01-01T10:00:00Z"))
    assert _stored(home) == {"r_o3", "r_o4", "r_new"} | set(old_bob)
    for n in range(2):
        save_receipt(home, _new(f"r_bnew{n}", "2026-01-01T10:00:00Z", "bob"))
    assert _stored(home) == {"r_o3", "r_o4", "r_new", "r_b1", "r_bnew0", "r_bnew1"}


def test_receipts_left_off_the_lists_of_an_older_atc_are_pruned_too(tmp_path):
    """A home whose lists an earlier atc started, after receipts of the uncapped days."""
    home = _home(tmp_path, 2)
    _store(home, "r_legacy", "2025-01-01T10:00:00Z")
    (home / "receipts" / ".owner.kept").write_text("r_a\n", encoding="utf-8")
    _store(home, "r_a", "2025-06-01T10:00:00Z")
    save_receipt(home, _new("r_b", "2025-07-01T10:00:00Z"))
    assert _stored(home) == {"r_a", "r_b"}


def test_readers_pruning_at_once_lose_no_receipt_from_their_list(tmp_path):
    home = _home(tmp_path, 4)
    save_receipt(home, _new("r_first", "2025-01-01T10:00:00Z"))
    start = threading.Barrier(8)

    def save(worker: int) -> None:
        start.wait()
        for n in range(25):
            save_receipt(home, _new(f"r_{worker}_{n}", "2026-01-01T10:00:00Z"))

    threads = [threading.Thread(target=save, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    listed = (home / "receipts" / ".owner.kept").read_text(encoding="utf-8").split()
    assert len(listed) == 4
    assert _stored(home) == set(listed)
