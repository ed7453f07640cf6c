"""The ladder and the jump on a realistic transcript, with the real default embedder."""
from __future__ import annotations

import json

import pytest

from attention_cloud import Memory
from attention_cloud.home import write_config
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


def test_similarity_scores_any_record_as_nearest_would(curated_default):
    # similarity/3 gives the cosine nearest/3 reports for a hit, and a cosine for records the
    # search did not return (a BM25 hit past the semantic cut, a walked neighbour).
    mem = _reopen(curated_default[0])
    hits = mem.query('nearest("tests failing", 10, Hits)').rows[0]["Hits"]
    top, last = hits[0], hits[-1]
    outside = mem.query('item(H), \\+ (nearest("tests failing", 10, Hs), memberchk(H-_, Hs))',
                        limit=1).rows[0]["H"]
    rows = mem.query(f'similarity("tests failing", [{top[0]}, not_a_record, {outside}], Pairs)').rows
    pairs = dict(rows[0]["Pairs"])
    assert list(pairs) == [top[0], outside]          # order kept, records without vectors left out
    assert pairs[top[0]] == pytest.approx(top[1], abs=1e-5)
    assert pairs[outside] <= last[1] + 1e-6
    best = mem.query(f'similarity("tests failing", [{outside}, {top[0]}, not_a_record], 1, Best)').rows
    assert [h for h, _ in best[0]["Best"]] == [top[0]]  # the K best, best first


def test_similarity_k_best_is_the_head_of_every_score_best_first(curated_default):
    # With K, only the K best are sorted (a partition first): the same records, scores and
    # order as sorting every score, ties broken by record.
    mem = _reopen(curated_default[0])
    records = [r["H"] for r in mem.query("item(H)", limit=80).rows] + ["not_a_record"]
    every = mem.jump.similarity("tests failing", records)
    assert len(every) == len(records) - 1
    best_first = sorted(every, key=lambda pair: (-pair[1], pair[0]))
    for k in (0, 1, 7, len(every) - 1, len(every), len(every) + 5):
        assert mem.jump.similarity("tests failing", records, k) == best_first[:k]


def test_similarity_rejects_records_that_are_not_a_list_of_names(curated_default):
    mem = _reopen(curated_default[0])
    with pytest.raises(Exception, match="list"):
        mem.query('similarity("tests failing", it_x, Pairs)')
    with pytest.raises(Exception, match="atomic"):
        mem.query('similarity("tests failing", [f(x)], Pairs)')
    with pytest.raises(Exception, match="nonneg"):
        mem.query('similarity("tests failing", [], -1, Pairs)')


def test_similarity_without_embeddings_raises(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "none"})
    mem = Memory.open(home)
    try:
        mem.ingest([samples_dir()])
        mem.curate()
        with pytest.raises(Exception, match="embeddings"):
            mem.query('similarity("tests failing", [], Pairs)')
    finally:
        mem.close()


def test_second_curate_does_no_work(curated_default):
    mem = _reopen(curated_default[0])
    again = mem.curate()
    assert (again.items, again.arcs, again.rollups, again.embedded) == (0, 0, 0, 0)


def test_forgetting_removes_vectors_and_derivatives(curated_default):
    mem = _reopen(curated_default[0])
    handle = mem.query('nearest("tests failing", H, _), item_kind(H, error)', limit=1).rows[0]["H"]
    assert mem.jump.vectors.has(handle)
    had_distillation = mem.jump.vectors.has(f"{handle}#l2")
    report = mem.forget(handle, reason="test")
    assert not mem.jump.vectors.has(handle)
    assert had_distillation and not mem.jump.vectors.has(f"{handle}#l2")
    assert any(i.startswith("arc_") or i.startswith("ses_") for i in report.invalidated)
    assert handle not in {r["H"] for r in mem.query('nearest("tests failing", 20, Hs), member(H-_, Hs)', limit=50).rows}
    assert mem.item(handle) is None
    assert report.rebuilt["rollups"] == 1  # the session's rollup is rebuilt without the item
    assert mem.curate().rollups == 0      # ... at once: nothing is left for the next curate
    assert not mem.query(f"provenance(_, {handle})").rows


PASSING = ("I'm planning a charity bake sale for the local shelter next month and need ideas for "
           "what to bake, how to price cupcakes and cookies, and how to set up the table so it "
           "draws people in. By the way, I finally ran my first 5K race last Sunday and finished "
           "it in 31 minutes. Anyway, what sells best at bake sales, and should I offer "
           "gluten-free options too?")


def test_a_fact_stated_in_passing_is_found_through_its_distillation(tmp_path):
    # The whole turn is about a bake sale; the 5K is said in passing. The curator pulls the
    # statement into the distillation, which has a vector of its own (HANDLE#l2); the jump
    # scores the item by its best vector and never hands out the second key.
    mem = Memory.open(tmp_path / "home")
    try:
        transcript = tmp_path / "passing.json"
        transcript.write_text(json.dumps({"session_id": "passing", "messages": [
            {"role": "user", "content": PASSING, "timestamp": "2026-11-01T10:00:00Z"}]}), encoding="utf-8")
        mem.ingest([transcript])
        mem.curate()
        (handle,) = [r["H"] for r in mem.query("item(H)").rows]
        store, embed = mem.jump.vectors, mem.jump.embedder
        assert store.has(f"{handle}#l2")
        goal = "how long did it take me to run the 5K race"
        query = embed.embed([goal])[0]
        whole = float(store.vector(handle) @ query)
        distilled = float(store.vector(f"{handle}#l2") @ query)
        assert distilled > whole
        hits = mem.query(f'nearest("{goal}", 5, Hits)').rows[0]["Hits"]
        assert [h for h, _ in hits] == [handle]
        assert hits[0][1] == pytest.approx(distilled, abs=1e-4)
    finally:
        mem.close()


def test_distillation_vectors_can_be_switched_off_and_are_backfilled_when_on(tmp_path):
    from attention_cloud.home import write_config

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "hash", "distillation_vectors": False})
    mem = Memory.open(home)
    try:
        mem.ingest([samples_dir()])
        report = mem.curate()
        assert report.embedded > 0
        assert not [k for k in mem.jump.vectors.keys() if "#" in k]
        # curation gives a distillation vector to the items whose L2 is not their text, tool
        # output and file operations aside (attention_cloud.vector_texts)
        items = len(mem.query('item(H), rung(H, l2, T), T \\== "", \\+ item_text(H, T), '
                              '\\+ item_kind(H, tool_result), \\+ item_kind(H, file_op)',
                              limit=100_000).rows)
        assert 0 < items < len(mem.query("item(H)", limit=100_000).rows)
    finally:
        mem.close()
    # switched on later (or a home curated before distillation vectors): the next curate
    # embeds those distillations once (as curation would have), and the run after that does nothing
    write_config(home, {"embedder": "hash", "distillation_vectors": True})
    mem = Memory.open(home)
    try:
        backfill = mem.curate()
        assert backfill.items == 0 and backfill.embedded == items
        assert len([k for k in mem.jump.vectors.keys() if k.endswith("#l2")]) == items
        assert mem.curate().embedded == 0
    finally:
        mem.close()


def test_query_vectors_are_kept_per_text_and_per_embedder(tmp_path):
    from attention_cloud.jump import Jump

    class Counting:
        def __init__(self, inner):
            self.inner, self.id, self.dim, self.calls = inner, inner.id, inner.dim, 0

        def embed(self, texts, **kwargs):
            self.calls += 1
            return self.inner.embed(texts, **kwargs)

    jump = Jump(tmp_path, "hash")
    first = Counting(jump.embedder)
    jump._embedder = first
    a = jump.query_vector("retry policy")
    b = jump.query_vector("retry policy")
    assert first.calls == 1 and (a == b).all()           # a hydration asks once per segment
    second = Counting(first.inner)
    jump._embedder = second
    jump.query_vector("retry policy")
    assert second.calls == 1                              # another embedder embeds again
