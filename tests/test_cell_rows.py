"""Cell rows: each cell's members' vectors copied side by side (attention_cloud/cells/rows.py).

The cell walk reads a focus cell's rows from the copy in a read or two instead of a read per
row. What a user relies on: the copies hold exactly the vector log's rows, so frames score the
same with or without them; a copy that no longer matches its member's vectors is never read;
new items' cells are appended as they are curated; forgetting an item deletes every copy of
its vectors; a copy of another embedder's store is ignored.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from attention_cloud import Memory
from attention_cloud.cells import cells_list
from attention_cloud.cells import rows as cell_rows
from attention_cloud.cells.rows import ROWS_META, CellRows

from test_cells import _sessions, _write, topical  # noqa: E402,F401 (topical: the fixture)


def _meta(home: Path) -> dict:
    return json.loads((home / ROWS_META).read_text())


def _copy_matches_log(mem: Memory) -> int:
    """Check every cell member's copy against the vector log; returns the members checked."""
    store = mem.jump.read_vectors()
    copies = CellRows.open(mem.home, store)
    assert copies is not None
    checked = 0
    for cell in cells_list(mem):
        members = _members(mem, cell["id"])
        ids = store.ids(members + [f"{m}#l2" for m in members])
        at = copies.copies(ids[: len(members)], ids[len(members):])
        assert (at >= 0).all(), f"cell {cell['id']} has members without a current copy"
        present, logged = store.vectors_of_ids(ids)
        rows = np.concatenate([at, at + 1])[present]
        assert np.array_equal(copies.read(rows), logged)
        checked += len(members)
    copies.close()
    return checked


def test_copies_scored_where_they_are_read_give_the_cosines_of_the_rows_read(topical: Memory):
    """CellRows.products scores the stretches it reads (gaps read through included) and picks
    the scores: bit for bit what einsum gives over the rows read in the order asked, with a
    member left out of each cell and a row asked for twice."""
    store = topical.jump.read_vectors()
    copies = CellRows.open(topical.home, store)
    query = np.random.default_rng(3).standard_normal(store.dim).astype(np.float32)
    for cell in cells_list(topical):
        members = _members(topical, cell["id"])[1:]           # one left out: a gap
        ids = store.ids(members + [f"{m}#l2" for m in members])
        at = copies.copies(ids[: len(members)], ids[len(members):])
        rows = np.concatenate([at, at + 1, at[:1]])            # the first text row twice
        assert np.array_equal(copies.products(rows, query),
                              np.einsum("ij,j->i", copies.read(rows), query))
    copies.close()


def _members(mem: Memory, cell: str) -> list[str]:
    return [r["H"] for r in mem.query(f"cell_member({cell}, H)", limit=100000).rows]


def _groups(mem: Memory) -> list[tuple[str, str]]:
    return [("\n".join(_members(mem, c["id"])), "") for c in cells_list(mem)]


def test_curation_copies_every_cells_rows_exactly(topical: Memory):
    meta = _meta(topical.home)
    assert (topical.home / "cells" / meta["rows_file"]).stat().st_size == meta["rows"] * meta["dim"] * 2
    live = sum(c["size"] for c in cells_list(topical))
    assert _copy_matches_log(topical) == live
    table = np.load(topical.home / "cells" / meta["table"])
    assert table.shape[1] == live and (np.diff(table[0]) > 0).all()


def test_a_cells_members_are_read_together(topical: Memory):
    store = topical.jump.read_vectors()
    copies = CellRows.open(topical.home, store)
    members = _members(topical, cells_list(topical)[0]["id"])
    ids = store.ids(members + [f"{m}#l2" for m in members])
    at = np.sort(copies.copies(ids[: len(members)], ids[len(members):]))
    assert np.array_equal(np.diff(at), np.full(len(at) - 1, 2))  # member after member
    copies.close()


def test_the_walk_scores_the_same_with_and_without_the_copies(topical: Memory):
    groups = _groups(topical)
    jump = topical.jump
    with_copies = jump.similarity_within("pottery kiln glaze", groups, None)
    assert jump._cell_rows is not None and jump._cell_rows.rows_read >= len(with_copies)
    cell_rows.drop(topical.home)
    without = jump.similarity_within("pottery kiln glaze", groups, None)
    assert jump._cell_rows is None
    assert sorted(with_copies) == sorted(without) and len(without) > 0
    frame = topical.hydrate("what glaze did the pottery class use?", budget=800)
    assert frame.facts


def test_new_items_append_their_cells_and_stay_exact(topical: Memory, tmp_path: Path):
    before = _meta(topical.home)
    topical.ingest(_write(tmp_path / "more", _sessions(2, 3, 20)), format="openai")
    report = topical.curate()
    after = _meta(topical.home)
    assert report.cells["rows_copied"] > 0
    assert after["rows"] > before["rows"]
    if after["generation"] == before["generation"]:  # appended, not rewritten
        assert after["table"] != before["table"]
    _copy_matches_log(topical)


def test_a_copy_that_no_longer_matches_its_vectors_is_not_read(topical: Memory):
    store = topical.jump.read_vectors()
    copies = CellRows.open(topical.home, store)
    members = _members(topical, cells_list(topical)[0]["id"])
    ids = store.ids(members + [f"{m}#l2" for m in members])
    text, distilled = ids[: len(members)], ids[len(members):]
    assert (copies.copies(text, distilled) >= 0).all()
    newer = text.copy()
    newer[0] = store.ids(["no-such-key"])[0]  # a member whose vector was replaced or removed
    assert copies.copies(newer, distilled)[0] == -1
    moved = distilled.copy()
    moved[1] = distilled[1] + 10**9 if distilled[1] >= 0 else 0  # its distillation changed
    assert copies.copies(text, moved)[1] == -1
    copies.close()


def test_forgetting_deletes_the_copies_and_the_next_curate_writes_them_without_it(topical: Memory):
    victim = _members(topical, cells_list(topical)[0]["id"])[0]
    store = topical.jump.read_vectors()
    vector = store.vector(victim).astype(np.float16).tobytes()
    topical.forget(victim)
    assert not (topical.home / ROWS_META).exists()
    assert not list((topical.home / "cells").glob("rows-*"))
    topical.curate()
    meta = _meta(topical.home)
    assert vector not in (topical.home / "cells" / meta["rows_file"]).read_bytes()
    _copy_matches_log(topical)


def test_dead_rows_past_the_live_start_a_new_generation(topical: Memory, monkeypatch):
    monkeypatch.setattr(cell_rows, "SLACK_ROWS", 0)
    store = topical.jump.read_vectors()
    cells = [c["id"] for c in cells_list(topical)]
    members = {c: _members(topical, c) for c in cells}
    first = _meta(topical.home)
    generations = {first["generation"]}
    for _ in range(3):  # every cell rewritten: the file would be mostly dead rows
        cell_rows.sync(topical.home, store, members.__getitem__, cells, cells * 3)
        generations.add(_meta(topical.home)["generation"])
    assert len(generations) > 1
    meta = _meta(topical.home)
    files = sorted(p.name for p in (topical.home / "cells").glob("rows-*"))
    assert files == sorted([meta["rows_file"], meta["table"]])  # earlier ones deleted
    _copy_matches_log(topical)


def test_copies_of_another_store_are_ignored(topical: Memory):
    meta = _meta(topical.home)
    meta["identity"]["embedder_id"] = "another-embedder"
    (topical.home / ROWS_META).write_text(json.dumps(meta))
    assert CellRows.open(topical.home, topical.jump.read_vectors()) is None
    topical.jump.similarity_within("kiln", _groups(topical), 5)
    assert topical.jump._cell_rows is None
    topical.curate()  # nothing new: the cells step writes them whole again for this store
    assert CellRows.open(topical.home, topical.jump.read_vectors()) is not None


def test_a_torn_table_is_written_anew(topical: Memory, tmp_path: Path):
    meta = _meta(topical.home)
    (topical.home / "cells" / meta["table"]).write_bytes(b"\x93NUMPY torn")
    assert CellRows.open(topical.home, topical.jump.read_vectors()) is None  # the log serves
    topical.ingest(_write(tmp_path / "more", _sessions(3, 2, 24)), format="openai")
    topical.curate()
    assert _meta(topical.home)["generation"] == meta["generation"] + 1
    _copy_matches_log(topical)


def test_rows_a_crash_left_past_the_committed_ones_are_written_over(topical: Memory, tmp_path: Path):
    meta = _meta(topical.home)
    rows_file = topical.home / "cells" / meta["rows_file"]
    with open(rows_file, "ab") as out:  # an append cut off before rows.json named it
        out.write(np.ones((3, meta["dim"]), dtype=np.float16).tobytes()[:-5])
    topical.ingest(_write(tmp_path / "more", _sessions(2, 3, 20)), format="openai")
    topical.curate()
    after = _meta(topical.home)
    assert after["generation"] == meta["generation"]  # appended to the same file
    assert rows_file.stat().st_size == after["rows"] * after["dim"] * 2
    _copy_matches_log(topical)


def test_a_rows_file_shorter_than_its_table_says_is_not_read_and_is_written_anew(topical: Memory,
                                                                                 tmp_path: Path):
    """A rows file cut short in place (by anything but our writes, which fsync it before the
    table names its rows): frames are not refused (every hydrate failed: "vector rows file ...
    ends before row N") and the next curate does not append past its end (the gap read as
    zeros: members scored with zero vectors, silently)."""
    meta = _meta(topical.home)
    rows_file = topical.home / "cells" / meta["rows_file"]
    os.truncate(rows_file, rows_file.stat().st_size // 2)
    assert CellRows.open(topical.home, topical.jump.read_vectors()) is None  # the log serves
    topical.hydrate("retry policy", budget=600)
    topical.ingest(_write(tmp_path / "more", _sessions(2, 3, 20)), format="openai")
    topical.curate()
    assert _meta(topical.home)["generation"] == meta["generation"] + 1
    _copy_matches_log(topical)


def test_a_home_copied_whole_still_reads_its_copies(topical: Memory, tmp_path: Path):
    # cp -a, a backup restored, a move to another disk: the vectors folder gets a new inode,
    # but the store (its id) and the copies are the same, so the walk reads them
    goal = "what glaze did the pottery class use?"
    before = topical.hydrate(goal, budget=800)
    copy = tmp_path / "copied"
    shutil.copytree(topical.home, copy, symlinks=True)
    assert os.stat(copy / "vectors").st_ino != os.stat(topical.home / "vectors").st_ino
    mem = Memory.open(copy)
    try:
        assert CellRows.open(copy, mem.jump.read_vectors()) is not None
        frame = mem.hydrate(goal, budget=800)
        assert mem.jump._cell_rows is not None and mem.jump._cell_rows.rows_read > 0
        assert [(f.handle, f.level, f.tokens) for f in frame.facts] == \
            [(f.handle, f.level, f.tokens) for f in before.facts]
        assert frame.text == before.text.replace(before.receipt_id, frame.receipt_id)
    finally:
        mem.close()


def test_copies_of_a_store_of_another_name_are_ignored(topical: Memory):
    meta = _meta(topical.home)
    meta["identity"]["store"] = "0" * 32  # another store (its row ids mean other vectors)
    (topical.home / ROWS_META).write_text(json.dumps(meta))
    assert CellRows.open(topical.home, topical.jump.read_vectors()) is None
