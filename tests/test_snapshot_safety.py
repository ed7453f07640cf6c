"""Snapshots cannot lose or double work.

A long-open process (a watcher) used to write snapshot.qlf from its own stale view, dropping
another writer's acknowledged item; a kill between replacing snapshot.qlf and snapshot.meta left a
new snapshot with an old offset, and reopening replayed the journal over it, doubling facts.
Now the snapshot carries the offset it covers and a digest of the journal before it, a writer
catches up with the journal before its first change and before a snapshot, and a snapshot that
does not match its journal is refused (the journal is replayed whole).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import attention_cloud.store as store
from attention_cloud import Memory
from attention_cloud.bridge import Var


def session(n: int) -> list[dict]:
    return [
        {"type": "user", "uuid": f"u{n}", "sessionId": f"S{n}",
         "timestamp": f"2026-01-{n % 28 + 1:02d}T10:00:00Z",
         "message": {"role": "user", "content": f"Task {n}: make the retry loop back off"}},
        {"type": "assistant", "uuid": f"a{n}", "sessionId": f"S{n}",
         "timestamp": f"2026-01-{n % 28 + 1:02d}T10:01:00Z",
         "message": {"role": "assistant", "content": f"Done {n}: backoff doubles; tests pass."}},
    ]


def write_session(folder: Path, n: int) -> Path:
    path = folder / f"s{n}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in session(n)), encoding="utf-8")
    return path


def handles(mem: Memory) -> set[str]:
    return {row["H"] for row in mem.query("item(H)", limit=10_000).rows}


def fact_count(mem: Memory) -> int:
    (count,) = mem.pl.once("atc_store:store_fact_count", Var())
    return count


def atc(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args, "--home", str(home)],
                          capture_output=True, text=True, timeout=300, check=False)


def state(home: Path) -> tuple[set[str], int]:
    with Memory.open(home) as mem:
        return handles(mem), fact_count(mem)


def test_a_long_open_writer_keeps_what_another_writer_committed(home, tmp_path):
    first = write_session(tmp_path, 1)
    with Memory.open(home) as mem:
        mem.ingest([first])
    watcher = Memory.open(home)  # open a while, not writing yet (no lock held)
    try:
        other = atc("ingest", str(write_session(tmp_path, 2)), home=home)
        assert other.returncode == 0, other.stderr  # acknowledged
        watcher.ingest([write_session(tmp_path, 3)])  # catches up before its batch
        assert len(handles(watcher)) == 6
        watcher.snapshot()
    finally:
        watcher.close()
    items, facts = state(home)
    assert len(items) == 6
    shutil.rmtree(home / "snapshot.qlf", ignore_errors=True)
    (home / "snapshot.qlf").unlink(missing_ok=True)
    assert state(home) == (items, facts)  # the journal alone says the same


def test_a_snapshot_from_a_stale_reader_includes_the_latest_commit(home, tmp_path):
    with Memory.open(home) as mem:
        mem.ingest([write_session(tmp_path, 1)])
    reader = Memory.open(home)
    try:
        assert atc("ingest", str(write_session(tmp_path, 2)), home=home).returncode == 0
        reader.snapshot()  # takes the lock and catches up before dumping
    finally:
        reader.close()
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts > 0
        assert len(handles(mem)) == 4


class Crash(Exception):
    """Stands for the process dying at that point."""


def _crash_at(monkeypatch, step: int) -> None:
    """Make the ``step``-th filesystem step of write_snapshot raise, as a kill there would."""
    calls = {"n": 0}
    real_replace, real_fsync = os.replace, store.fsync_path

    def counted(fn):
        def wrapper(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == step:
                raise Crash(f"killed at step {step}")
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(store.os, "replace", counted(real_replace))
    monkeypatch.setattr(store, "fsync_path", counted(real_fsync))


@pytest.mark.parametrize("step", range(1, 8))
def test_a_kill_at_any_step_of_a_snapshot_write_loses_and_doubles_nothing(home, tmp_path,
                                                                          monkeypatch, step):
    with Memory.open(home) as mem:
        mem.ingest([write_session(tmp_path, 1)])
        mem.snapshot()  # an old snapshot to be replaced
        mem.ingest([write_session(tmp_path, 2)])
    expected = state(home)
    mem = Memory.open(home)
    _crash_at(monkeypatch, step)
    try:
        mem.snapshot()
    except Crash:
        pass
    finally:
        monkeypatch.undo()
        mem.close()
    assert state(home) == expected
    with Memory.open(home) as again:  # and a snapshot written after the crash is right too
        again.ingest([write_session(tmp_path, 3)])
        again.snapshot()
    items, facts = state(home)
    assert len(items) == 6 and facts > expected[1]


def test_a_new_snapshot_with_an_old_meta_is_not_replayed_over(home, tmp_path):
    with Memory.open(home) as mem:
        mem.ingest([write_session(tmp_path, 1)])
        mem.snapshot()
    old_meta = (home / "snapshot.meta").read_text()
    with Memory.open(home) as mem:
        mem.ingest([write_session(tmp_path, 2)])
        mem.snapshot()
    expected = state(home)
    (home / "snapshot.meta").write_text(old_meta)  # the kill between the two renames
    assert state(home) == expected


def test_a_snapshot_that_does_not_match_its_journal_is_refused(home, tmp_path):
    with Memory.open(home) as mem:
        mem.ingest([write_session(tmp_path, 1)])
        mem.snapshot()
    other = tmp_path / "other"  # another journal, longer than the snapshot's offset
    with Memory.open(other) as mem:
        mem.ingest([write_session(tmp_path, n) for n in (5, 6, 7)])
    expected = state(other)
    for name in ("snapshot.qlf", "snapshot.meta"):
        shutil.copy(home / name, other / name)
    with Memory.open(other) as mem:
        assert mem.open_info.snapshot_facts == 0  # refused: replayed from the journal
    assert state(other) == expected
    (other / "snapshot.qlf").write_bytes(b"not a qlf")  # an unreadable one is refused too
    with Memory.open(other) as mem:
        assert mem.open_info.snapshot_facts == 0
    assert state(other) == expected


def test_a_snapshot_of_the_previous_format_is_ignored(home, tmp_path):
    with Memory.open(home) as mem:
        mem.ingest([write_session(tmp_path, 1)])
        mem.snapshot()
    expected = state(home)
    meta = home / "snapshot.meta"
    _, version, offset, facts = meta.read_text().strip().rstrip(".").split(",")
    meta.write_text(f"snapshot({version},{offset},{facts}).\n")
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts == 0
    assert state(home) == expected


def facts_of(home: Path, tmp_path: Path) -> list[str]:
    """Every durable fact of ``home`` as written (store_compact/2's lines, the epoch left out)."""
    out = tmp_path / f"facts-{len(list(tmp_path.iterdir()))}.pl"
    with Memory.open(home) as mem:
        mem.pl.once("atc_store:store_compact", str(out), Var())
    lines = out.read_text(encoding="utf-8").splitlines()[1:]
    return sorted(line for line in lines if not line.startswith("commit("))


def parts_header(home: Path) -> str:
    with open(home / "snapshot.qlf", "rb") as fh:
        return fh.readline().decode("ascii")


def header_lists(header: str) -> tuple[list[int], list[int]]:
    """The parts' lengths and lanes a snapshot's header line names."""
    lengths, lanes = header[header.index("[") + 1:].split("],[")
    return [int(n) for n in lengths.split(",")], [int(n) for n in lanes[:lanes.index("]")].split(",")]


def ingested_home(home: Path, tmp_path: Path, sessions=range(1, 6)) -> None:
    with Memory.open(home) as mem:
        mem.ingest([write_session(tmp_path, n) for n in sessions])


def test_a_snapshot_in_parts_loads_the_same_facts(home, tmp_path, monkeypatch):
    ingested_home(home, tmp_path)
    expected = facts_of(home, tmp_path)  # from the journal alone
    monkeypatch.setattr(store, "SNAPSHOT_PART_FACTS", 7)
    with Memory.open(home) as mem:
        written = mem.snapshot()
    header = parts_header(home)
    lengths, lanes = header_lists(header)
    assert header.startswith("atc_snapshot(") and len(lengths) >= 3  # three parts or more
    assert set(lanes) == {1, 2}                                        # in both lanes
    assert (home / "snapshot.meta").read_text().startswith("snapshot(4,")
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts == written > 7
        assert mem.open_info.replayed == 0
    assert facts_of(home, tmp_path) == expected


def snapshotted(home: Path) -> tuple[Any, Path, bytes, str]:
    """Snapshot ``home``; its state, the snapshot file, the file's bytes and its parts header."""
    with Memory.open(home) as mem:
        mem.snapshot()
    snapshot = home / "snapshot.qlf"
    return state(home), snapshot, snapshot.read_bytes(), parts_header(home)


@pytest.mark.parametrize("cut", ["header", "a part", "the last part", "a byte"])
def test_a_torn_snapshot_in_parts_is_refused_and_the_journal_replayed(home, tmp_path,
                                                                      monkeypatch, cut):
    ingested_home(home, tmp_path)
    monkeypatch.setattr(store, "SNAPSHOT_PART_FACTS", 10)
    expected, snapshot, data, header = snapshotted(home)
    lengths, _ = header_lists(header)
    start = len(header)
    keep = {"header": start, "a part": start + lengths[0],
            "the last part": start + sum(lengths[:-1]) + lengths[-1] // 2,
            "a byte": len(data) - 1}[cut]
    snapshot.write_bytes(data[:keep])
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts == 0  # refused: replayed from the journal
        assert mem.open_info.replayed > 0
    assert state(home) == expected


def test_a_snapshot_of_the_form_before_parts_opens_and_is_replaced_by_parts(home, tmp_path):
    ingested_home(home, tmp_path)
    expected = facts_of(home, tmp_path)
    # The form before parts: one QLF of the whole dump, no multifile declarations, meta format 2.
    dump = tmp_path / "dump"
    dump.mkdir()
    with Memory.open(home) as mem:
        (info,) = mem.pl.once("atc_store:store_dump", str(dump), 10**9, Var())
        swipl = store._swipl_binary(mem.pl)
        (version,) = mem.pl.once("user:current_prolog_flag", store.Atom("version"), Var())
    parts = [Path(str(p)) for p in info["parts"]]
    lines = [line for p in parts for line in p.read_text(encoding="utf-8").splitlines(keepends=True)]
    part = dump / "whole.pl"
    part.write_text("".join(line for line in lines if not line.startswith(":- multifile(")),
                    encoding="utf-8")
    store._qcompile(swipl, part)
    shutil.copy(part.with_suffix(".qlf"), home / "snapshot.qlf")
    (home / "snapshot.meta").write_text(
        f"snapshot(2,{version},{info['offset']},{info['facts']}).\n", encoding="utf-8")
    assert not parts_header(home).startswith("atc_snapshot(")
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts == info["facts"] > 0
        assert mem.open_info.replayed == 0
        mem.ingest([write_session(tmp_path, 9)])
        mem.snapshot()  # the next snapshot is written in parts
    assert parts_header(home).startswith("atc_snapshot(")
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts > info["facts"]
        assert mem.open_info.replayed == 0
    assert set(expected) < set(facts_of(home, tmp_path))


def test_a_snapshot_in_parts_from_another_prolog_version_is_refused(home, tmp_path):
    ingested_home(home, tmp_path)
    expected, snapshot, data, header = snapshotted(home)
    version = header[len("atc_snapshot("):header.index(",")]
    other = str(int(version) - 1).rjust(len(version), "0")  # same length: the offsets hold
    snapshot.write_bytes(data.replace(version.encode(), other.encode(), 1))
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts == 0
    assert state(home) == expected


def test_a_lane_that_fails_to_load_refuses_the_snapshot(home, tmp_path):
    """The two lanes load at once; one whose part is unreadable refuses the whole snapshot,
    after both have stopped, and the journal is replayed."""
    ingested_home(home, tmp_path)
    expected, snapshot, data, header = snapshotted(home)
    lengths, lanes = header_lists(header)
    assert set(lanes) == {1, 2}
    for lane in (1, 2):
        k = lanes.index(lane)
        start = len(header) + sum(lengths[:k])
        snapshot.write_bytes(data[:start] + b"NOT A QLF" + data[start + 9:])
        with Memory.open(home) as mem:
            assert mem.open_info.snapshot_facts == 0 and mem.open_info.replayed > 0
        assert state(home) == expected


def test_a_snapshot_in_parts_without_lanes_loads_its_parts_in_order(home, tmp_path):
    """The header before lanes, atc_snapshot(Version, Lengths): every part in turn."""
    ingested_home(home, tmp_path)
    expected, snapshot, data, header = snapshotted(home)
    lengths, _ = header_lists(header)
    version = header[len("atc_snapshot("):header.index(",")]
    old = f"atc_snapshot({version},[{','.join(map(str, lengths))}]).\n"
    snapshot.write_bytes(old.encode("ascii") + data[len(header):])
    (home / "snapshot.meta").write_text(
        (home / "snapshot.meta").read_text().replace("snapshot(4,", "snapshot(3,", 1))
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts > 0 and mem.open_info.replayed == 0
    assert state(home) == expected


def test_lanes_are_balanced_by_what_is_written(home, tmp_path):
    """A writer holds an entity occurrence a fact, which a snapshot writes as a few groups: the
    lanes are balanced without them (they would weigh one lane down with facts never written)."""
    from attention_cloud.paths import samples_dir

    with Memory.open(home) as mem:
        mem.ingest(sorted(samples_dir().glob("*.jsonl")))  # transcripts that name entities
        mem.curate()
        assert mem.query("distilled(H, entity, E)", limit=1).rows
        (lanes,) = mem.pl.once("atc_store:snapshot_lanes_", Var())
    named = {f"{pi.args[0]}/{pi.args[1]}" for pi in (p.args[0].args[1] for p in lanes)}
    assert "record_/11" in named, named
    assert "entity_/3" not in named and "entity_ids_/2" not in named
    assert {int(p.args[1]) for p in lanes} == {1, 2}


def test_a_snapshot_damaged_in_place_that_loads_less_is_refused(home, tmp_path):
    """A byte of snapshot.qlf changed on disk, where a part names the module its facts go to
    (`atc_journal` read as `Ztc_journal`): the part loads without an error, and its items went
    to a module nobody reads. Before, the home opened with 0 items (exit 0), and an `atc
    forget` of a note remembered on that view compacted the journal from it, deleting every
    item for good. Now a snapshot that loaded fewer facts than it says it wrote is refused and
    the journal replayed whole."""
    ingested_home(home, tmp_path)
    expected, snapshot, data, _ = snapshotted(home)
    at = data.index(b"atc_journal")
    snapshot.write_bytes(data[:at] + b"Z" + data[at + 1:])
    with Memory.open(home) as mem:
        assert mem.open_info.snapshot_facts == 0  # refused: replayed from the journal
        assert handles(mem) == expected[0]
        note = mem.remember("the staging key rotates on fridays", curate=False).handle
        mem.forget([note])                        # compacts the journal from this view
    assert state(home)[0] == expected[0]
