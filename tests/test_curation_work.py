"""Work a curate run does once, not twice: what a user waiting on ``atc curate`` (or the
watcher) pays for an item is the embedder's time, not the same reading of it again.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
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


@pytest.fixture(scope="module")
def curated(ingested, tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("curation-work-curated") / "home"
    import shutil

    shutil.copytree(ingested, home)
    out = CliRunner().invoke(main, ["curate", "--home", str(home)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return home


def asked_for_distillations(monkeypatch) -> list[str]:
    """Every handle curation asks Prolog for the distillation of, from now on."""
    import attention_cloud.curation as curation

    asked: list[str] = []
    original = curation._distillation_entries
    monkeypatch.setattr(curation, "_distillation_entries",
                        lambda mem, handles: asked.extend(handles) or original(mem, handles))
    return asked


def own_distillation_is_text(home: Path) -> list[str]:
    """Items of a kind that gets a distillation vector whose distillation is their text (or
    blank): they have none, by design."""
    from attention_cloud.jump import distillation_key
    from attention_cloud.vector_texts import has_distillation_vector

    with Memory.open(home) as mem:
        kinds = {str(r["H"]): str(r["K"]) for r in mem.query("item_kind(H, K)").rows}
        store = mem.jump.vectors
        return [h for h, k in kinds.items()
                if has_distillation_vector(k) and store.has(h) and not store.has(distillation_key(h))]


def test_a_second_curate_asks_prolog_for_no_distillation(curated, tmp_path, monkeypatch):
    """The check at the start of every run (does each item have its vectors?) knows which
    items have no distillation vector because their distillation is their text: it asked
    Prolog for each of them on every run (~10 µs an item; chat turns: ~1 in 9 items)."""
    home = copy_of(curated, tmp_path)
    assert own_distillation_is_text(home)
    asked = asked_for_distillations(monkeypatch)
    with Memory.open(home) as mem:
        report = mem.curate()
    assert report.items == 0 and report.repaired == 0 and report.embedded == 0
    assert asked == []


def test_a_home_curated_before_is_asked_once_then_never(curated, tmp_path, monkeypatch):
    """A home whose vectors were written before (no note of the items whose distillation is
    their text) is asked about them by its next curate, which notes them: later runs ask
    nothing, and every vector stays what it was."""
    from attention_cloud.ingest_index import item_meta

    from test_reembed import stored

    home = copy_of(curated, tmp_path)
    plain = own_distillation_is_text(home)
    with Memory.open(home) as mem:  # the text vectors of those items as an older version wrote them
        mem.lock.acquire()
        store = mem.jump.vectors
        present, matrix = store.vectors(plain)
        metas = [store.meta(h) for h in plain]
        store.add(plain, matrix, [item_meta(m["kind"], m["segment"]) for m in metas])
        mem.jump.flush()
    before = stored(home)
    asked = asked_for_distillations(monkeypatch)
    with Memory.open(home) as mem:
        first = mem.curate()
    assert set(plain) <= set(asked) and first.repaired == 0 and first.embedded == 0
    asked.clear()
    with Memory.open(home) as mem:
        mem.curate()
    assert asked == []
    after = stored(home)
    assert after.keys() == before.keys()
    assert all(np.array_equal(after[k], before[k]) for k in before)


def test_reembed_keeps_the_note(curated, tmp_path, monkeypatch):
    """A home moved to another embedder knows the same items have no distillation vector."""
    home = copy_of(curated, tmp_path)
    out = CliRunner().invoke(main, ["curate", "--reembed", "--embedder", "hash:256", "--home",
                                    str(home)], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    asked = asked_for_distillations(monkeypatch)
    with Memory.open(home) as mem:
        mem.curate()
    assert asked == []


def test_the_start_of_run_check_reads_the_curated_records_in_one_text(curated, tmp_path,
                                                                        monkeypatch):
    """The check at the start of every run (and every watcher wake that curates) looks at
    every curated item and arc: their ids crossed from Prolog one atom at a time (~5 µs each,
    seconds a run at a million items). Now they cross as one text a kind: the atoms the
    check converts do not grow with the home; it still finds what it checks for."""
    from attention_cloud.bridge import swi_engine

    import attention_cloud.curation as curation

    home = copy_of(curated, tmp_path)
    converted = Counter()
    engine_class = swi_engine.SwiEngine  # the default backend (pyswip): an atom's text read
    original = engine_class._atom_text

    def counting(self, a):
        converted["atoms"] += 1
        return original(self, a)

    with Memory.open(home) as mem:
        (items,) = mem.pl.once("atc_ladder:ladder_curated_items", _var())
        assert len(items) > 40
        mem.lock.acquire()
        monkeypatch.setattr(engine_class, "_atom_text", counting)
        assert curation._repair_indexes(mem, True) == 0
        monkeypatch.setattr(engine_class, "_atom_text", original)
        assert converted["atoms"] < 20, converted
        # and what it checks for, it still finds: an item and an arc without their BM25 entry
        (arc,) = next(iter(mem.pl.solutions("atc_ladder:arc", _var())))
        mem.jump.lexical.remove([str(items[0]), str(arc)])
        mem.jump.flush()
        assert curation._repair_indexes(mem, True) == 2
        assert mem.jump.lexical.has(str(items[0])) and mem.jump.lexical.has(str(arc))


def test_a_run_larger_than_the_rungs_it_keeps_still_reads_each_item_once(ingested, tmp_path,
                                                                         monkeypatch):
    """A run of more items than it keeps rungs for (10,000) read its first batches a second
    time for their sessions' arcs and rollups. Now a session whose items are all curated gets
    its arcs and rollup as the run goes, from the rungs just made: each item is read once, and
    the arcs and rollups are those of a run that kept everything."""
    import attention_cloud.curation as curation

    reference = copy_of(ingested, tmp_path / "reference")
    with Memory.open(reference) as mem:
        mem.curate()
        expected = rows(mem)
        sizes = Counter(str(r["S"]) for r in mem.query("item_session(_, S)").rows)
    assert len(sizes) > 1
    monkeypatch.setattr(curation, "BATCH", 4)
    # room for the largest session and a batch, less than the whole run
    monkeypatch.setattr(curation, "RUNGS_KEPT", max(sizes.values()) + 4)
    assert sum(sizes.values()) > curation.RUNGS_KEPT
    home = copy_of(ingested, tmp_path / "small-batches")
    read = Counter()
    original = curation.curate_items
    monkeypatch.setattr(curation, "curate_items",
                        lambda views: read.update(v.handle for v in views) or original(views))
    with Memory.open(home) as mem:
        report = mem.curate()
        assert rows(mem) == expected
        (stale,) = mem.pl.once("atc_ladder:ladder_stale_sessions", _var())
        assert not stale
    assert report.rollups == len(sizes) and sorted(report.sessions) == sorted(sizes)
    assert len(read) == sum(sizes.values()) and max(read.values()) == 1, read.most_common(3)


def test_an_id_holding_a_newline_is_read_from_the_lists(curated, tmp_path, monkeypatch):
    """The joined texts cannot carry an id with a newline in it (ingest never makes one; a
    journal written by hand might): the counts Prolog gives tell, and the lists are read."""
    import attention_cloud.curation as curation

    home = copy_of(curated, tmp_path)
    with Memory.open(home) as mem:
        items, arcs = curation._curated_records(mem)
        real_once = mem.pl.once

        def split_one(goal, *args):
            if goal == "atc_ladder:ladder_curated_texts":
                text, n, arc_text, m = real_once(goal, *args)
                return text.replace("\n", "\nX\n", 1), n, arc_text, m  # as if an id held "\nX"
            return real_once(goal, *args)

        monkeypatch.setattr(mem.pl, "once", split_one)
        assert curation._curated_records(mem) == (items, arcs)
        assert len(items) > 40 and arcs
