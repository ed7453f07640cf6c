"""The ladder and the jump on a realistic transcript, with the real default embedder."""
from __future__ import annotations

import pytest

from attention_cloud import Memory
from attention_cloud.paths import samples_dir


@pytest.fixture(scope="module")
def curated_default(tmp_path_factory):
    """The bundled sample, ingested and curated with the default (MiniLM) embedder."""
    home = tmp_path_factory.mktemp("ladder") / "home"
    mem = Memory.open(home)
    mem.ingest([samples_dir()])
    report = mem.curate()
    yield mem, report
    mem.close()


def _reopen(mem: Memory) -> Memory:
    return mem if not mem._closed else Memory.open(mem.home)


def test_every_item_and_arc_has_all_rungs(curated_default):
    mem, report = curated_default
    mem = _reopen(mem)
    assert report.items > 0 and report.arcs > 0 and report.rollups == 3
    for goal in ("item(H)", "arc(H)", "rollup(H, _)"):
        records = [r["H"] for r in mem.query(goal, limit=10_000).rows]
        assert records
        for level in ("l1", "l2", "l3"):
            missing = mem.query(f"{goal}, \\+ rung(H, {level}, _)", limit=5).rows
            assert not missing, (goal, level, missing)


def test_structured_distillation_and_provenance(curated_default):
    mem = _reopen(curated_default[0])
    decisions = mem.query('distilled(H, decision, D)', limit=50).rows
    assert any("backoff" in r["D"].lower() for r in decisions)
    prov = mem.query("arc(A), provenance(A, H), arc_member(A, H)", limit=5).rows
    assert prov


def test_nearest_finds_the_failing_test_error(curated_default):
    mem = _reopen(curated_default[0])
    rows = mem.query('nearest("tests failing", H, S), item_kind(H, error)', limit=3).rows
    assert rows and rows[0]["S"] > 0.2
    hits = mem.query('nearest("tests failing", 5, Hits)').rows[0]["Hits"]
    assert len(hits) == 5 and hits == sorted(hits, key=lambda h: -h[1])


def test_second_curate_does_no_work(curated_default):
    mem = _reopen(curated_default[0])
    again = mem.curate()
    assert (again.items, again.arcs, again.rollups, again.embedded) == (0, 0, 0, 0)


def test_forgetting_removes_vectors_and_derivatives(curated_default):
    mem = _reopen(curated_default[0])
    handle = mem.query('nearest("tests failing", H, _), item_kind(H, error)', limit=1).rows[0]["H"]
    assert mem.jump.vectors.has(handle)
    invalidated = mem.forget(handle, reason="test")
    assert not mem.jump.vectors.has(handle)
    assert any(i.startswith("arc_") or i.startswith("ses_") for i in invalidated)
    assert handle not in {r["H"] for r in mem.query('nearest("tests failing", 20, Hs), member(H-_, Hs)', limit=50).rows}
    assert mem.item(handle) is None
    rebuilt = mem.curate()  # the session's rollup (and arcs) are rebuilt without the item
    assert rebuilt.rollups == 1
    assert not mem.query(f"provenance(_, {handle})").rows
