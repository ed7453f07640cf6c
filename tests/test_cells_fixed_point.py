"""A cells build is a fixed point of the incremental step: a curate with nothing new after a
build (the first one, a rebuild, or the build a resumed run finishes) changes nothing.

A build used to store whatever k-means and its splits left, cells below the merge size
included, and the next ``atc curate`` with nothing new merged them (``merged: 3`` on a 100k
home): a resumed curate differed from an uninterrupted one by exactly that merge. K-means
leaving a stray item alone is forced here (one item peeled off into a cell of its own), so
the test does not depend on a corpus that happens to make one.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attention_cloud import Memory
from attention_cloud.cells import partition as P
from attention_cloud.cells import rebuild
import attention_cloud.cells.api as cells_api
from test_cells import _open, _sessions, _write


def _membership(mem: Memory) -> dict[str, str]:
    rows = mem.query("cell_member(C, H)", limit=100000).rows
    return {r["H"]: r["C"] for r in rows}


def _sizes(mem: Memory) -> list[int]:
    return sorted(r["N"] for r in mem.query("cell(C), cell_info(C, size, N)", limit=100000).rows)


def _with_a_stray_item(monkeypatch) -> None:
    """Make every build's clustering leave one item of its largest group alone."""
    bounded = P.bounded

    def peeled(groups, features, limit):
        out = bounded(groups, features, limit)
        largest = max(range(len(out)), key=lambda i: (len(out[i]), -int(out[i][0])))
        rows = out[largest]
        return out[:largest] + [rows[1:], rows[:1]] + out[largest + 1:]

    monkeypatch.setattr(P, "bounded", peeled)


@pytest.fixture(scope="module")
def sessions() -> list[dict]:
    return _sessions(5, 24, 1)  # 192 items: a merge size of 2


@pytest.mark.parametrize("streamed", [False, True])
def test_a_build_leaves_no_cell_a_curate_with_nothing_new_would_merge(tmp_path: Path, monkeypatch,
                                                                     sessions, streamed):
    if streamed:
        monkeypatch.setattr(cells_api, "STREAM_FROM", 10)
    _with_a_stray_item(monkeypatch)
    home = tmp_path / "home"
    home.mkdir()
    with _open(home) as mem:
        mem.ingest(_write(tmp_path / "t", sessions), format="openai")
        report = mem.curate()
        assert report.cells["rebuilt"]
        total = report.cells["items"]
        assert P.merge_size(total) >= 2
        sizes = _sizes(mem)
        assert len(sizes) > 1 and sizes[0] >= P.merge_size(total), sizes
        assert sum(sizes) == total
        built = _membership(mem)
        again = mem.curate()
        assert again.cells["merged"] == 0 and again.cells["assigned"] == 0
        assert _membership(mem) == built
        # and a rebuild of the same items gives the same cells
        rebuild(mem)
        assert _membership(mem) == built
