"""Work a curate run does once, not twice: what a user waiting on ``atc curate`` (or the
watcher) pays for an item is the embedder's time, not the same reading of it again.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from attention_cloud import Memory
from attention_cloud.cli import main
from attention_cloud.home import write_config
from attention_cloud.paths import samples_dir


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    """The bundled agent sessions ingested (not curated), hash embedder."""
    home = tmp_path_factory.mktemp("curation-work") / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash"})
    out = CliRunner().invoke(main, ["ingest", str(samples_dir()), "--home", str(home)],
                             catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return home


def copy_of(home: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "home"
    shutil.copytree(home, target)
    return target


def test_a_run_reads_each_item_once_for_its_rungs_arcs_and_rollup(ingested, tmp_path,
                                                                    monkeypatch):
    """The arcs and rollups of the sessions a run touched are built from the rungs the run
    has just made for their items, not from a second extractive reading of every item."""
    import attention_cloud.curation as curation

    home = copy_of(ingested, tmp_path)
    read = Counter()
    original = curation.curate_items
    monkeypatch.setattr(curation, "curate_items",
                        lambda views: read.update(v.handle for v in views) or original(views))
    with Memory.open(home) as mem:
        report = mem.curate()
    assert report.items > 20 and report.arcs and report.rollups
    assert set(read) and max(read.values()) == 1, read.most_common(3)


def test_arcs_and_rollups_are_the_same_as_from_a_fresh_reading(ingested, tmp_path):
    """Rungs kept from the run's item batches give the arcs and rollups a later run gives
    when it reads the sessions' items afresh (a session grown by a new file)."""
    home = copy_of(ingested, tmp_path)
    with Memory.open(home) as mem:
        mem.curate()
        first = rows(mem)
        assert first
        (stale,) = mem.pl.once("atc_ladder:ladder_stale_sessions", _var())
        assert not stale
        sessions = {str(r["S"]) for r in mem.query("item_session(_, S)").rows}
    import attention_cloud.curation as curation

    with Memory.open(home) as mem:
        mem.lock.acquire()
        report = curation.CurateReport()
        curation._curate_sessions(mem, sessions, report, None)  # every session read afresh
        assert rows(mem) == first


def rows(mem: Memory) -> list[tuple[str, str, str]]:
    """Every arc's and rollup's L1 and L2, sorted."""
    out = mem.query("( arc(A) ; rollup(A, _) ), rung(A, l1, L1), rung(A, l2, L2)").rows
    return sorted((str(r["A"]), str(r["L1"]), str(r["L2"])) for r in out)


def _var():
    from attention_cloud.bridge import Var

    return Var()
