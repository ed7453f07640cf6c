"""An agent that curates after every turn of one long session pays for the turn, not the session.

Each curate rebuilds the rollup of the session that gained items. It read every item of that
session again to do it (the curator's rungs of each), so a loop of hundreds of turns in one
process paid more each turn (2.6 s a curate at 600 items, BENCHMARKS.md "An agent's first day").
A Memory keeps the rungs of the sessions it built last, checked against what the curator would
read, and reads only what changed; the records it builds are the same.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from attention_cloud import Memory
from attention_cloud import curation


@pytest.fixture
def mem(hash_memory: Memory) -> Memory:
    return hash_memory


@pytest.fixture
def curator_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The handles the extractive curator is asked to read, in order."""
    seen: list[str] = []
    real = curation.curate_items

    def counting(views):
        seen.extend(v.handle for v in views)
        return real(views)

    monkeypatch.setattr(curation, "curate_items", counting)
    return seen


def _session_records(mem: Memory) -> list[tuple[str, str, str]]:
    rows = mem.query("item_session(H, remembered), rung(R, L, T), "
                     "( R = H ; sub_atom(R, 0, _, _, ses_) ; sub_atom(R, 0, _, _, arc_) )",
                     limit=100_000).rows
    return sorted({(r["R"], r["L"], r["T"]) for r in rows})


def test_a_turn_after_many_reads_only_the_new_item(mem: Memory, curator_reads: list[str]) -> None:
    for n in range(30):
        mem.remember(f"note {n}: the cache for shard {n} is warmed at boot")
    curator_reads.clear()
    done = mem.remember("note 30: the cache for shard 30 is cold")
    assert done.curated
    assert curator_reads == [done.handle]


def test_what_it_builds_is_what_reading_every_item_afresh_builds(mem: Memory) -> None:
    for n in range(12):
        mem.remember(f"decision {n}: retry the charge {n} times", kind="decision")
    built = _session_records(mem)
    assert any(r[0].startswith("ses_") for r in built)
    # the session rebuilt from nothing kept (as erasure rebuilds it): every rung read afresh
    curation.curate_scope(mem, [], {"remembered"}, [])
    assert _session_records(mem) == built


def test_an_erasure_keeps_no_rung_of_what_it_forgot(mem: Memory) -> None:
    secret = mem.remember("the vault passphrase is hunter2-zebra-77")
    mem.remember("the vault is in the basement")
    assert secret.handle in curation.session_rungs(mem)._rungs
    mem.forget([secret.handle], reason="secret")
    assert secret.handle not in curation.session_rungs(mem)._rungs


def test_an_erasure_in_another_process_drops_them_at_the_next_call(mem: Memory) -> None:
    secret = mem.remember("the vault passphrase is hunter2-zebra-77")
    mem.remember("the vault is in the basement")
    assert secret.handle in curation.session_rungs(mem)._rungs
    mem.release()
    atc = Path(sys.executable).parent / "atc"
    done = subprocess.run([str(atc), "forget", secret.handle, "--yes", "--home", str(mem.home)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert mem.item(secret.handle) is None      # the call reads the compacted home afresh
    assert mem.session_rungs is None
