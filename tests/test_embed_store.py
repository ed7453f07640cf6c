"""VectorStore: upsert, removal, reopen, crash safety, index rebuilds and filtered search."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import faiss
import numpy as np
import pytest

from attention_cloud.embed import VectorStore, handle_of, load_embedder
from attention_cloud.embed.faiss_index import IndexPolicy
from attention_cloud.embed.mapped_rows import HEADER_BYTES
from attention_cloud.errors import EmbeddingError, HomeError, UsageError

DIM = 24


def unit_rows(count: int, seed: int = 0, dim: int = DIM) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((count, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def open_store(path: Path, **kwargs) -> VectorStore:
    return VectorStore.open(path, embedder_id="test@1", dim=DIM, **kwargs)


def stored(rows: np.ndarray) -> np.ndarray:
    """Vectors as the store keeps them: float16 rows, read back as float32."""
    return np.asarray(rows, dtype=np.float32).astype(np.float16).astype(np.float32)


def exact_top(vectors: np.ndarray, keys: list[str], query: np.ndarray, k: int) -> list[str]:
    order = np.argsort(-(stored(vectors) @ query), kind="stable")[:k]
    return [keys[i] for i in order]


def test_add_search_and_upsert(tmp_path):
    vectors = unit_rows(50)
    keys = [f"it_{i:03d}" for i in range(50)]
    with open_store(tmp_path) as store:
        assert store.add(keys, vectors) == 50
        assert len(store) == 50 and store.has("it_007") and "it_007" in store
        hits = store.search(vectors[7], 3)
        assert hits[0][0] == "it_007" and hits[0][1] == pytest.approx(1.0, abs=2e-3)
        assert [key for key, _ in hits] == exact_top(vectors, keys, vectors[7], 3)
        # same vector again: nothing written; a new vector replaces the old one
        assert store.add(["it_007"], vectors[7:8]) == 0
        assert store.add(["it_007"], vectors[8:9]) == 1
        assert len(store) == 50
        assert np.array_equal(store.vector("it_007"), stored(vectors[8]))
        assert {key for key, _ in store.search(vectors[8], 2)} == {"it_007", "it_008"}


def test_duplicate_key_in_one_call_keeps_the_last(tmp_path):
    vectors = unit_rows(2)
    with open_store(tmp_path) as store:
        assert store.add(["a", "a"], vectors) == 1
        assert np.array_equal(store.vector("a"), stored(vectors[1]))


def test_remove_hides_keys_from_search(tmp_path):
    vectors = unit_rows(20)
    keys = [f"k{i}" for i in range(20)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors)
        assert store.remove(["k3", "k4", "missing"]) == 2
        assert not store.has("k3") and len(store) == 18
        found = [key for key, _ in store.search(vectors[3], 20)]
        assert "k3" not in found and "k4" not in found and len(found) == 18


def test_reopen_restores_keys_vectors_and_meta(tmp_path):
    vectors = unit_rows(30)
    keys = [f"it_{i}#l1" for i in range(30)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors, [{"segment": "default", "level": "l1", "n": i} for i in range(30)])
        store.remove(["it_5#l1"])
    with open_store(tmp_path) as store:
        assert len(store) == 29 and not store.has("it_5#l1")
        assert store.meta("it_9#l1") == {"segment": "default", "level": "l1", "n": 9}
        assert np.array_equal(store.vector("it_9#l1"), stored(vectors[9]))
        assert store.search(vectors[9], 1)[0][0] == "it_9#l1"


def test_writes_since_last_flush_survive_a_crash(tmp_path):
    vectors = unit_rows(10)
    store = open_store(tmp_path)
    store.add([f"k{i}" for i in range(10)], vectors)
    store.remove(["k0"])
    store._release_files()  # a crash: no flush, no manifest update
    with open_store(tmp_path) as reopened:
        assert len(reopened) == 9 and not reopened.has("k0")


def test_torn_final_row_and_line_are_ignored_on_reopen(tmp_path):
    vectors = unit_rows(6)
    with open_store(tmp_path) as store:
        store.add([f"k{i}" for i in range(5)], vectors[:5])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    generation = manifest["generation"]
    # a crash in the middle of the next write: half a vector and half a key line
    with open(tmp_path / f"vectors-{generation}.f16", "ab") as log:
        log.write(vectors[5].astype(np.float16).tobytes()[: DIM])  # half a float16 row
    with open(tmp_path / f"keys-{generation}.jsonl", "a") as log:
        log.write('{"r": 5, "k": "k5"')
    with open_store(tmp_path) as store:
        assert len(store) == 5 and not store.has("k5")
        assert store.add(["k5"], vectors[5:6]) == 1  # the log continues cleanly after the cut
    with open_store(tmp_path) as store:
        assert len(store) == 6
        assert np.array_equal(store.vector("k5"), stored(vectors[5]))
        assert store.search(vectors[5], 1)[0][0] == "k5"


def test_key_line_whose_vector_never_reached_disk_is_dropped(tmp_path):
    vectors = unit_rows(3)
    with open_store(tmp_path) as store:
        store.add(["a", "b"], vectors[:2])
    generation = json.loads((tmp_path / "manifest.json").read_text())["generation"]
    with open(tmp_path / f"keys-{generation}.jsonl", "a") as log:
        log.write('{"r":2,"k":"c"}\n')
    with open_store(tmp_path) as store:
        assert sorted(store.keys()) == ["a", "b"]


def test_refuses_other_embedder_or_dimension(tmp_path):
    with open_store(tmp_path) as store:
        store.add(["a"], unit_rows(1))
        with pytest.raises(EmbeddingError, match="holds 24-d vectors; got 8-d"):
            store.add(["b"], unit_rows(1, dim=8))
    with pytest.raises(EmbeddingError, match="holds 24-d vectors of embedder 'test@1', not 32-d vectors of 'test@1'"):
        VectorStore.open(tmp_path, embedder_id="test@1", dim=32)
    with pytest.raises(EmbeddingError, match="not 24-d vectors of 'other@2'"):
        VectorStore.open(tmp_path, embedder_id="other@2", dim=DIM)


def test_bad_input_is_refused_with_clear_errors(tmp_path):
    with open_store(tmp_path) as store:
        with pytest.raises(UsageError, match="expected 2 vectors"):
            store.add(["a", "b"], unit_rows(3))
        with pytest.raises(EmbeddingError, match="NaN"):
            store.add(["a"], np.full((1, DIM), np.nan, dtype=np.float32))
        with pytest.raises(UsageError, match="values must be str, int, float, bool or None"):
            store.add(["a"], unit_rows(1), [{"tags": ["x"]}])
        with pytest.raises(UsageError, match="not a single string"):
            store.add("a", unit_rows(1))
        with pytest.raises(EmbeddingError, match="query has shape"):
            store.search(np.zeros(5, dtype=np.float32), 1)


def test_second_open_of_the_same_store_is_refused(tmp_path):
    with open_store(tmp_path):
        with pytest.raises(HomeError, match="is open in another process or handle"):
            open_store(tmp_path)
    open_store(tmp_path).close()  # released on close


def test_search_filters_on_meta_and_allow(tmp_path):
    vectors = unit_rows(300, seed=1)
    keys = [f"it_{i}" for i in range(300)]
    meta = [{"segment": "ops" if i % 3 == 0 else "default", "level": f"l{i % 4}", "kind": "error" if i % 5 == 0 else "turn"}
            for i in range(300)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors, meta)
        query = vectors[42]
        hits = store.search(query, 10, filter_meta={"segment": "ops", "kind": "error"})
        wanted = [i for i in range(300) if i % 15 == 0]
        assert [k for k, _ in hits] == exact_top(vectors[wanted], [keys[i] for i in wanted], query, 10)
        either = store.search(query, 300, filter_meta={"level": ["l1", "l2"]})
        assert len(either) == 150 and all(store.meta(k)["level"] in ("l1", "l2") for k, _ in either)
        assert store.search(query, 5, filter_meta={"segment": "nowhere"}) == []
        assert store.search(query, 5, filter_meta={"colour": "red"}) == []
        allowed = store.search(query, 5, allow=lambda key: int(key[3:]) % 2 == 1)
        odd = [i for i in range(300) if i % 2 == 1]
        assert [k for k, _ in allowed] == exact_top(vectors[odd], [keys[i] for i in odd], query, 5)
        assert store.search(query, 5, allow=lambda key: False) == []


def test_exact_filtered_search_over_most_of_a_log_with_dead_rows(tmp_path):
    # a filter matching most rows is scored over the whole log in one pass; replaced and
    # removed rows still in the log must not surface, and scores are the live vectors'
    vectors = unit_rows(400, seed=11)
    keys = [f"k{i}" for i in range(400)]
    meta = [{"segment": "main" if i % 10 else "side"} for i in range(400)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors, meta)
        replaced = unit_rows(20, seed=12)
        store.add(keys[:20], replaced, meta[:20])  # upserts: the old rows stay in the log, dead
        store.remove(keys[20:60])
        live = np.concatenate([replaced, vectors[20:]])
        query = vectors[70]
        wanted = [i for i in range(400) if not 20 <= i < 60 and meta[i]["segment"] == "main"]
        rows = live[wanted]
        hits = store.search(query, 15, filter_meta={"segment": "main"})
        assert [k for k, _ in hits] == exact_top(rows, [keys[i] for i in wanted], query, 15)
        expected = {keys[i]: float(row @ query) for i, row in zip(wanted, stored(rows))}
        assert all(abs(score - expected[key]) < 1e-5 for key, score in hits)


def test_meta_filter_tells_numbers_from_strings(tmp_path):
    with open_store(tmp_path) as store:
        store.add(["a", "b"], unit_rows(2), [{"n": 1}, {"n": "1"}])
        assert [k for k, _ in store.search(unit_rows(1)[0], 5, filter_meta={"n": 1})] == ["a"]


def test_search_many_matches_single_searches(tmp_path):
    vectors = unit_rows(200, seed=3)
    with open_store(tmp_path) as store:
        store.add([f"k{i}" for i in range(200)], vectors)
        batch = store.search_many(vectors[:25], 4)
        assert [[k for k, _ in hits] for hits in batch] == [[k for k, _ in store.search(v, 4)] for v in vectors[:25]]


def test_compaction_keeps_live_rows_and_shrinks_the_log(tmp_path):
    vectors = unit_rows(3000, seed=4)
    keys = [f"k{i}" for i in range(3000)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors, [{"even": i % 2 == 0} for i in range(3000)])
        store.remove(keys[:2000])
        store.flush()
        manifest = json.loads((tmp_path / "manifest.json").read_text())
        assert manifest["generation"] == 1 and manifest["rows"] == 1000
        assert not (tmp_path / "vectors-0.f16").exists()
        assert (tmp_path / "vectors-1.f16").stat().st_size == HEADER_BYTES + 1000 * DIM * 2
        assert store.search(vectors[2500], 1)[0][0] == "k2500"
        store.add(["new"], unit_rows(1, seed=9))
    with open_store(tmp_path) as store:
        assert len(store) == 1001
        assert store.meta("k2999") == {"even": False}
        hits = store.search(vectors[2998], 3, filter_meta={"even": True})
        assert hits[0][0] == "k2998" and all(store.meta(k)["even"] for k, _ in hits)


def test_approximate_index_is_saved_reloaded_and_rebuilt_when_stale(tmp_path):
    policy = IndexPolicy(kind="hnsw", background=False)
    vectors = unit_rows(2000, seed=5)
    keys = [f"k{i}" for i in range(2000)]
    with open_store(tmp_path, policy=policy) as store:
        store.add(keys, vectors)
        assert store.index_kind == "hnsw"
    saved = json.loads((tmp_path / "manifest.json").read_text())["index"]
    assert saved == {"kind": "hnsw", "ntotal": 2000, "covered": 2000, "file": "index-2000.faiss"}
    assert (tmp_path / "index-2000.faiss").exists()
    # reopen: loads the saved index and catches up rows written after it was saved
    store = open_store(tmp_path, policy=policy)
    store.add(["late"], unit_rows(1, seed=6))
    store._release_files()  # crash: the index file still holds 2000 rows
    with open_store(tmp_path, policy=policy) as store:
        assert store.index_kind == "hnsw" and store._index.ntotal == 2001
        assert store.search(unit_rows(1, seed=6)[0], 1)[0][0] == "late"
    # stale: the manifest says the saved index holds more rows than the file does
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["index"]["ntotal"] += 7
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with open_store(tmp_path, policy=policy) as store:
        assert store._index.ntotal == 2001
        assert store.search(vectors[10], 1)[0][0] == "k10"
    # missing: rebuilt from the log
    saved = json.loads((tmp_path / "manifest.json").read_text())["index"]["file"]
    assert sorted(p.name for p in tmp_path.glob("index*.faiss")) == [saved]  # older ones deleted
    (tmp_path / saved).unlink()
    with open_store(tmp_path, policy=policy) as store:
        assert store.index_kind == "hnsw" and len(store) == 2001
        assert store.search(vectors[11], 1)[0][0] == "k11"


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_approximate_indexes_skip_tombstones_and_keep_recall(tmp_path, kind):
    vectors = unit_rows(3000, seed=7)
    keys = [f"k{i}" for i in range(3000)]
    with open_store(tmp_path, policy=IndexPolicy(kind=kind, background=False)) as store:
        store.add(keys, vectors, [{"odd": i % 2 == 1} for i in range(3000)])
        assert store.index_kind == kind
        store.remove(keys[:300])
        for i in range(300, 330):
            assert store.search(vectors[i], 1)[0][0] == keys[i]
        nearest_to_removed = store.search(vectors[5], 20)
        assert len(nearest_to_removed) == 20 and all(int(k[1:]) >= 300 for k, _ in nearest_to_removed)
        hits = store.search(vectors[401], 5, filter_meta={"odd": True})
        assert hits[0][0] == "k401" and all(int(k[1:]) % 2 == 1 for k, _ in hits)


def test_auto_policy_switches_to_ann_in_the_background(tmp_path):
    policy = IndexPolicy(flat_limit=4000, build_chunk=1000)
    vectors = unit_rows(5000, seed=8)
    keys = [f"k{i}" for i in range(5000)]
    with open_store(tmp_path, policy=policy) as store:
        store.add(keys[:3000], vectors[:3000])
        assert store.index_kind == "flat"
        store.add(keys[3000:], vectors[3000:])  # crosses the limit: IVF (the default ann) builds while flat serves
        assert store.search(vectors[4321], 1)[0][0] == "k4321"
        store.add(["after"], unit_rows(1, seed=99))  # written during the build, caught up on adoption
        assert store.wait_for_index(timeout=60) == "ivf"
        assert store.search(unit_rows(1, seed=99)[0], 1)[0][0] == "after"
        assert store._index.ntotal == 5001


def test_keys_with_levels_map_to_their_handle():
    assert handle_of("it_3fa2#l1") == "it_3fa2"
    assert handle_of("it_3fa2") == "it_3fa2"


def test_real_embeddings_find_the_paraphrase(tmp_path):
    embedder = load_embedder()
    texts = {
        "it_a": "The deploy to eu-west failed because the database migration timed out",
        "it_b": "We picked a blue colour scheme for the landing page",
        "it_c": "Grandma's lasagne recipe uses three kinds of cheese",
    }
    with VectorStore.open(tmp_path, embedder_id=embedder.id, dim=embedder.dim) as store:
        store.add(list(texts), embedder.embed(list(texts.values())))
        query = embedder.embed(["why did the release break in europe?"])[0]
        assert store.search(query, 1)[0][0] == "it_a"


def test_index_policy_thresholds_and_hysteresis():
    policy = IndexPolicy()  # flat below 50k live rows, IVF from there
    assert policy.kind_for(49_999) == "flat" and policy.kind_for(50_000) == "ivf"
    # once on IVF, a store shrinking a little does not flip back and rebuild
    assert policy.kind_for(30_000, current="ivf") == "ivf"
    assert policy.kind_for(20_000, current="ivf") == "flat"
    assert IndexPolicy(ann="hnsw").kind_for(50_000) == "hnsw"
    assert IndexPolicy(kind="ivf").kind_for(500) == "flat"  # too few rows to approximate
    assert IndexPolicy(kind="ivf").kind_for(5_000) == "ivf"
    with pytest.raises(ValueError, match="index kind must be"):
        IndexPolicy(kind="annoy")


def test_vectors_by_key_gathers_the_present_ones_in_order(tmp_path):
    vectors = unit_rows(10)
    keys = [f"it_{i:03d}" for i in range(10)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors)
        store.remove(["it_004"])
        present, matrix = store.vectors(["it_002", "nope", "it_004", "it_009"])
        assert present.tolist() == [True, False, False, True]
        assert np.array_equal(matrix, stored(vectors[[2, 9]]))
        none, empty = store.vectors(["nope"])
        assert not none.any() and empty.shape == (0, DIM)
        # by file reads (a cells rebuild): the same rows, in the keys' order, repeats included
        asked = ["it_009", "it_002", "nope", "it_002", "it_000"]
        present, matrix = store.vectors(asked)
        read_present, read_matrix = store.vectors(asked, read=True)
        assert read_present.tolist() == present.tolist() == [True, True, False, True, True]
        assert np.array_equal(read_matrix, matrix) and np.array_equal(matrix, stored(vectors[[9, 2, 2, 0]]))


def test_a_large_log_is_read_ahead_in_the_background_without_changing_answers(tmp_path, monkeypatch):
    import attention_cloud.embed.store as store_module
    import threading

    vectors = unit_rows(40)
    keys = [f"it_{i:03d}" for i in range(40)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors)
    monkeypatch.setattr(store_module, "WARM_LOG_BYTES", 1)  # every log counts as large
    with open_store(tmp_path) as store:
        assert [key for key, _ in store.search(vectors[3], 2)] == exact_top(vectors, keys, vectors[3], 2)
    for thread in threading.enumerate():
        if thread.name == "atc-vector-warm":
            thread.join(timeout=5)
            assert not thread.is_alive()


def write_float32_store(path: Path, keys: list[str], vectors: np.ndarray) -> None:
    """A store as older versions wrote it: manifest format 1, float32 rows from byte 0."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "vectors-0.f32").write_bytes(np.asarray(vectors, dtype=np.float32).tobytes())
    lines = [json.dumps({"r": i, "k": key}) for i, key in enumerate(keys)]
    (path / "keys-0.jsonl").write_text("\n".join(lines) + "\n")
    (path / "manifest.json").write_text(json.dumps({
        "format": 1, "embedder_id": "test@1", "dim": DIM, "generation": 0, "rows": len(keys),
        "key_bytes": (path / "keys-0.jsonl").stat().st_size, "live": len(keys),
        "next_id": len(keys), "index": None}))


def test_an_older_float32_store_is_read_as_is_and_migrated_by_its_writer(tmp_path):
    vectors = unit_rows(40, seed=21)
    keys = [f"k{i}" for i in range(40)]
    write_float32_store(tmp_path, keys, vectors)
    with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, read_only=True) as view:
        assert np.array_equal(view.vector("k3"), vectors[3])  # float32 rows, untouched
        assert [k for k, _ in view.search(vectors[3], 3)] == [keys[i] for i in np.argsort(-(vectors @ vectors[3]))[:3]]
    assert (tmp_path / "vectors-0.f32").exists()  # a reader writes nothing
    with open_store(tmp_path) as store:  # the writer rewrites the log as float16 (a compaction)
        manifest = json.loads((tmp_path / "manifest.json").read_text())
        assert manifest["format"] == 2 and manifest["generation"] == 1
        assert not (tmp_path / "vectors-0.f32").exists()
        assert (tmp_path / "vectors-1.f16").stat().st_size == HEADER_BYTES + 40 * DIM * 2
        assert np.array_equal(store.vector("k3"), stored(vectors[3]))
        assert store.search(vectors[17], 1)[0][0] == "k17"
        store.add(["new"], unit_rows(1, seed=22))
    with open_store(tmp_path) as store:
        assert len(store) == 41 and store.search(unit_rows(1, seed=22)[0], 1)[0][0] == "new"


def test_exact_search_reads_the_mapped_log_without_a_copy(tmp_path):
    vectors = unit_rows(3000, seed=23)
    with open_store(tmp_path) as store:
        store.add([f"k{i}" for i in range(3000)], vectors)
        assert store.index_kind == "flat" and store._index is None  # no faiss copy of the rows
        mapped = store._matrix()
        assert mapped.array.dtype == np.float16 and not mapped.array.flags.owndata
        assert not mapped._index.codes.is_owned  # faiss scans the mapped rows themselves
        hits = store.search(vectors[5], 10)
        assert [k for k, _ in hits] == exact_top(vectors, [f"k{i}" for i in range(3000)], vectors[5], 10)


def test_compressed_ivf_candidates_are_reranked_by_exact_cosine(tmp_path):
    vectors = unit_rows(3000, seed=24)
    keys = [f"k{i}" for i in range(3000)]
    with open_store(tmp_path, policy=IndexPolicy(kind="ivf", background=False)) as store:
        store.add(keys, vectors)
        assert isinstance(store._index, faiss.IndexIVFScalarQuantizer)  # 4-bit codes, not float32
        assert store._index.sq.qtype == faiss.ScalarQuantizer.QT_4bit
        query = vectors[100] + 0.5 * vectors[200]
        hits = store.search(query, 8)
        exact = {k: float(v @ query) for k, v in zip(keys, stored(vectors))}
        assert all(abs(score - exact[key]) < 1e-5 for key, score in hits)  # exact scores, not the codes'
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
        assert hits[0][0] in ("k100", "k200")


def test_search_many_visits_as_many_ivf_lists_as_asked(tmp_path):
    """Echo detection searches near-duplicates with a narrow probe: ``nprobe`` is honoured (fewer
    lists, fewer candidates for a random query) and a near-duplicate is still found at nprobe 1."""
    vectors = unit_rows(3000, seed=25)
    keys = [f"k{i}" for i in range(3000)]
    with open_store(tmp_path, policy=IndexPolicy(kind="ivf", background=False)) as store:
        store.add(keys, vectors)
        assert [row[0][0] for row in store.search_many(vectors[:20], 8, nprobe=1)] == keys[:20]
        near = vectors[:20] + 0.01 * unit_rows(20, seed=26)  # cosine ~0.9999 to their originals
        assert [row[0][0] for row in store.search_many(near, 8, nprobe=2)] == keys[:20]
        far = unit_rows(50, seed=27)
        wide = sum(len(r) for r in store.search_many(far, 200))
        narrow = sum(len(r) for r in store.search_many(far, 200, nprobe=1))
        assert narrow < wide  # one list of ~55 holds fewer than 200 candidates


def test_a_batch_search_split_over_threads_finds_what_one_thread_finds(tmp_path):
    """Echo detection splits a chunk's search over two threads: every query gets the hits, in
    the order and with the scores, of the one-thread search; a filter applies in every thread,
    and the threads search with one OpenMP thread each (the setting is per thread)."""
    vectors = unit_rows(3000, seed=28)
    keys = [f"k{i}" for i in range(3000)]
    meta = [{"record": "item" if i % 3 else "arc"} for i in range(3000)]
    with open_store(tmp_path, policy=IndexPolicy(kind="ivf", background=False)) as store:
        store.add(keys, vectors, meta)
        queries = vectors[:300] + 0.05 * unit_rows(300, seed=29)
        for filter_meta in (None, {"record": "item"}):
            one = store.search_many(queries, 8, filter_meta=filter_meta, nprobe=2)
            two = store.search_many(queries, 8, filter_meta=filter_meta, nprobe=2, threads=2)
            assert two == one
            assert len(two) == 300 and all(len(row) == 8 for row in two)
        assert all(int(k[1:]) % 3 for row in two for k, _ in row)  # the filter held in both threads
        seen: list[int] = []
        original = faiss.omp_set_num_threads
        try:
            faiss.omp_set_num_threads = lambda n: (seen.append(n), original(n))[1]
            store.search_many(queries, 8, nprobe=2, threads=2)
        finally:
            faiss.omp_set_num_threads = original
        assert seen == [1, 1]


def test_an_ivf_index_is_retrained_once_the_store_outgrows_its_lists(tmp_path):
    """A search scans ``nprobe`` lists, so lists trained when the store was small hold more and
    more rows to scan as it grows: once they fall below 3/4 of √n the index is trained again at
    √n lists (with half of √n, a store grown from 3,000 to 6,000 rows kept its 54 lists)."""
    vectors = unit_rows(6000, seed=30)
    keys = [f"k{i}" for i in range(6000)]
    with open_store(tmp_path, policy=IndexPolicy(kind="ivf", background=False)) as store:
        store.add(keys[:3000], vectors[:3000])
        assert store._index.nlist == int(math.sqrt(3000))  # 54
        store.add(keys[3000:5000], vectors[3000:5000])
        assert store._index.nlist == 54  # 54 >= 0.75 * √5000 = 53.0: not yet
        store.add(keys[5000:], vectors[5000:])
        assert store._index.nlist == int(math.sqrt(6000))  # 54 < 0.75 * √6000 = 58.1: retrained
        assert store.search(vectors[5500], 1)[0][0] == "k5500"


def test_a_saved_float32_ivf_index_is_rebuilt_compressed(tmp_path):
    import faiss as faiss_module
    vectors = unit_rows(3000, seed=25)
    keys = [f"k{i}" for i in range(3000)]
    policy = IndexPolicy(kind="ivf", background=False)
    with open_store(tmp_path, policy=policy) as store:
        store.add(keys, vectors)
    # what an older version saved: IVF-Flat, a float32 copy of every vector
    old = faiss_module.IndexIVFFlat(faiss_module.IndexFlatIP(DIM), DIM, 54, faiss_module.METRIC_INNER_PRODUCT)
    old.train(vectors)
    old.add_with_ids(vectors, np.arange(3000, dtype=np.int64))
    named = json.loads((tmp_path / "manifest.json").read_text())["index"]["file"]
    faiss_module.write_index(old, str(tmp_path / named))
    with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, policy=policy, read_only=True) as view:
        assert isinstance(view._index, faiss_module.IndexIVFFlat)  # a reader serves from it as it is
        assert view.search(vectors[7], 1)[0][0] == "k7"
    with open_store(tmp_path, policy=policy) as store:
        assert isinstance(store._index, faiss_module.IndexIVFScalarQuantizer)
        assert store.search(vectors[7], 1)[0][0] == "k7"
    # the rebuilt index was saved in place of the old one, so the next open does not rebuild it
    saved = json.loads((tmp_path / "manifest.json").read_text())["index"]["file"]
    assert isinstance(faiss_module.read_index(str(tmp_path / saved)), faiss_module.IndexIVFScalarQuantizer)
    assert sorted(p.name for p in tmp_path.glob("index*.faiss")) == [saved]


def test_a_reader_maps_the_saved_ivf_lists_and_finds_rows_written_after_it(tmp_path):
    """A reader maps the saved index's lists from its file and keeps the rows written since it
    was saved in a small index of the same lists: it answers what the writer answers."""
    vectors = unit_rows(3600, seed=31)
    keys = [f"k{i}" for i in range(3600)]
    meta = [{"side": i % 4 == 0} for i in range(3600)]
    policy = IndexPolicy(kind="ivf", background=False)
    with open_store(tmp_path, policy=policy) as store:
        store.add(keys[:3000], vectors[:3000], meta[:3000])
        store.flush()  # the index is saved with 3000 rows
        store.add(keys[3000:], vectors[3000:], meta[3000:])  # too few to save it again
        store.remove(keys[10:30])
        store.flush()
        saved = json.loads((tmp_path / "manifest.json").read_text())["index"]
        assert saved["ntotal"] == 3000
        queries = np.vstack([vectors[3000:3040], vectors[:40], unit_rows(40, seed=32)])
        expected = [store.search(q, 10) for q in queries]
        expected_side = [store.search(q, 10, filter_meta={"side": True}) for q in queries]
    with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, policy=policy, read_only=True) as view:
        assert view._tail is not None and view._tail.ntotal == 600  # the mapped index is not grown
        assert view._index.ntotal == 3000
        assert [view.search(q, 10) for q in queries] == expected
        assert [view.search(q, 10, filter_meta={"side": True}) for q in queries] == expected_side
        assert view.search(vectors[3005], 1)[0][0] == "k3005"
        assert all(k not in {f"k{i}" for i in range(10, 30)} for hits in expected for k, _ in hits)


def test_a_batch_of_queries_matches_single_searches_with_dead_rows_and_a_filter(tmp_path):
    vectors = unit_rows(600, seed=26)
    keys = [f"k{i}" for i in range(600)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors, [{"side": i % 3 == 0} for i in range(600)])
        store.remove(keys[:50])
        store.add(keys[50:80], unit_rows(30, seed=27), [{"side": i % 3 == 0} for i in range(50, 80)])
        batch = store.search_many(vectors[100:140], 7, filter_meta={"side": True})
        single = [store.search(v, 7, filter_meta={"side": True}) for v in vectors[100:140]]
        assert [[k for k, _ in hits] for hits in batch] == [[k for k, _ in hits] for hits in single]
        assert all(int(k[1:]) % 3 == 0 and int(k[1:]) >= 50 for hits in batch for k, _ in hits)


@pytest.fixture
def eager_key_snapshots(monkeypatch):
    import attention_cloud.embed.store as store_module
    monkeypatch.setattr(store_module, "KEY_SNAPSHOT_MIN_BYTES", 0)


def test_reopen_from_a_key_snapshot_plus_log_tail_matches_a_full_replay(tmp_path, eager_key_snapshots):
    vectors = unit_rows(300, seed=28)
    keys = [f"it_{i}#l{i % 3}" for i in range(300)]
    meta = [{"segment": "a" if i % 2 else "b", "n": i} for i in range(300)]
    store = open_store(tmp_path)
    store.add(keys[:200], vectors[:200], meta[:200])
    store.remove(keys[:10])
    store.flush()
    snapshot = json.loads((tmp_path / "manifest.json").read_text())["key_snapshot"]
    assert snapshot["rows"] == 200 and (tmp_path / snapshot["file"]).exists()
    store.add(keys[200:250], vectors[200:250], meta[200:250])  # after the snapshot, committed
    store.remove(["it_20#l2"])
    store.flush()
    store.add(keys[250:], vectors[250:], meta[250:])  # never flushed: a crash
    store.remove(["it_30#l0"])
    store._release_files()
    live = [k for k in keys if k not in set(keys[:10]) | {"it_20#l2", "it_30#l0"}]
    for read_only in (False, True):  # the writer replays the unflushed tail and commits it on close
        with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, read_only=read_only) as again:
            assert again.keys() == live
            assert again.meta("it_120#l0") == {"segment": "b", "n": 120}
            assert np.array_equal(again.vector("it_77#l2"), stored(vectors[77]))
            assert again.search(vectors[150], 1)[0][0] == "it_150#l0"
            hits = again.search(vectors[151], 5, filter_meta={"segment": "a"})
            assert hits[0][0] == "it_151#l1" and all(again.meta(k)["segment"] == "a" for k, _ in hits)
    with open_store(tmp_path) as again:  # ids go on from where they were: nothing is reused
        again.add(["fresh"], unit_rows(1, seed=29))
        assert again.search(unit_rows(1, seed=29)[0], 1)[0][0] == "fresh"
        assert len(again) == len(live) + 1


def test_a_damaged_key_snapshot_falls_back_to_the_log(tmp_path, eager_key_snapshots):
    vectors = unit_rows(50, seed=30)
    with open_store(tmp_path) as store:
        store.add([f"k{i}" for i in range(50)], vectors, [{"i": i} for i in range(50)])
    name = json.loads((tmp_path / "manifest.json").read_text())["key_snapshot"]["file"]
    (tmp_path / name).write_bytes(b"not a snapshot")
    with open_store(tmp_path) as store:
        assert len(store) == 50 and store.meta("k7") == {"i": 7}
        assert store.search(vectors[7], 1)[0][0] == "k7"


def test_compaction_and_purge_keep_only_the_current_key_snapshot(tmp_path, eager_key_snapshots):
    vectors = unit_rows(3000, seed=31)
    keys = [f"k{i}" for i in range(3000)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors)
        store.flush()
        store.remove(keys[:2000])
        store.flush()  # compacts into generation 1
        manifest = json.loads((tmp_path / "manifest.json").read_text())
        assert manifest["generation"] == 1 and manifest["key_snapshot"]["generation"] == 1
        assert [p.name for p in tmp_path.glob("keys-*.npz")] == [manifest["key_snapshot"]["file"]]
        store.remove(keys[2000:2010])
        store.purge()
        manifest = json.loads((tmp_path / "manifest.json").read_text())
        assert [p.name for p in tmp_path.glob("keys-*.npz")] == [manifest["key_snapshot"]["file"]]
    with open_store(tmp_path) as store:
        assert len(store) == 990 and not store.has("k2005") and store.search(vectors[2500], 1)[0][0] == "k2500"


def test_a_reader_loads_the_key_snapshot_and_stops_at_the_committed_tail(tmp_path, eager_key_snapshots):
    vectors = unit_rows(125, seed=32)
    keys = [f"k{i}" for i in range(125)]
    store = open_store(tmp_path)
    store.add(keys[:100], vectors[:100])
    store.flush()  # snapshot of 100 keys
    store.add(keys[100:120], vectors[100:120])
    store.flush()  # grown past a tenth: a newer snapshot
    store.add(keys[120:], vectors[120:])  # not committed
    with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, read_only=True) as view:
        assert view.keys() == keys[:120]
        assert view.search(vectors[110], 1)[0][0] == "k110"
    store.close()


def test_exact_search_without_a_zero_copy_faiss_index_gives_the_same_hits(tmp_path, monkeypatch):
    from attention_cloud.embed import mapped_rows

    vectors = unit_rows(700, seed=33)
    keys = [f"k{i}" for i in range(700)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors, [{"odd": i % 2 == 1} for i in range(700)])
        store.remove(keys[:40])
        expected = [store.search(v, 6) for v in vectors[100:105]]
        filtered = store.search(vectors[301], 4, filter_meta={"odd": True})
    # a faiss that cannot read an index over the mapped rows (older than 1.11): blocks of rows
    monkeypatch.setattr(mapped_rows.MappedRows, "_zero_copy_index", lambda self, raw, start: None)
    monkeypatch.setattr(mapped_rows, "_BLOCK_ROWS", 256)
    with open_store(tmp_path) as store:
        assert store._matrix()._index is None
        got = [store.search(v, 6) for v in vectors[100:105]]
        assert [[k for k, _ in hits] for hits in got] == [[k for k, _ in hits] for hits in expected]
        assert all(abs(a[1] - b[1]) < 1e-5 for x, y in zip(got, expected) for a, b in zip(x, y))
        assert [k for k, _ in store.search(vectors[301], 4, filter_meta={"odd": True})] == [k for k, _ in filtered]


def test_a_checkpoint_saves_the_index_a_plain_flush_leaves_for_readers_to_catch_up(tmp_path, monkeypatch):
    import attention_cloud.embed.store as store_module

    # the floor scaled down: 200 new rows on a 5,000-row index are past it, under 5 % of it
    monkeypatch.setattr(store_module, "_SAVE_MIN_ROWS", 100)
    policy = IndexPolicy(kind="ivf", background=False)
    with open_store(tmp_path, policy=policy) as store:
        store.add([f"k{i}" for i in range(5000)], unit_rows(5000, seed=7))
    saved = lambda: json.loads((tmp_path / "manifest.json").read_text())["index"]  # noqa: E731
    assert saved()["ntotal"] == 5000
    store = open_store(tmp_path, policy=policy)
    store.add([f"n{i}" for i in range(200)], unit_rows(200, seed=8))
    store.flush()  # a batch of a curation: the large file is not rewritten for 4 %
    assert saved()["ntotal"] == 5000
    with open_store(tmp_path, policy=policy, read_only=True) as reader:
        assert reader._tail is not None and reader._tail.ntotal == 200  # indexed again at open
    store.flush(checkpoint=True)  # the end of the curation
    assert saved() == {"kind": "ivf", "ntotal": 5200, "covered": 5200, "file": "index-5200.faiss"}
    with open_store(tmp_path, policy=policy, read_only=True) as reader:
        assert reader._tail.ntotal == 0 and len(reader) == 5200
        assert reader.search(unit_rows(200, seed=8)[5], 1)[0][0] == "n5"
    store.add(["late"], unit_rows(1, seed=9))
    store.flush(checkpoint=True)  # under the floor: not rewritten
    assert saved()["ntotal"] == 5200
    store.close()


def test_a_saved_ivf_index_holds_no_rows_of_removed_or_replaced_keys(tmp_path, monkeypatch):
    """Keys removed or replaced (a record curated again) leave dead rows in the index; once they
    are as many as the new rows that make a save due, the saved file drops them, so a reader's
    search neither scans their codes nor masks them out, and finds what the writer finds."""
    import attention_cloud.embed.store as store_module

    monkeypatch.setattr(store_module, "_SAVE_MIN_ROWS", 100)
    policy = IndexPolicy(kind="ivf", background=False)
    keys = [f"k{i}" for i in range(5000)]
    vectors = unit_rows(5000, seed=41)
    saved = lambda: json.loads((tmp_path / "manifest.json").read_text())["index"]  # noqa: E731
    with open_store(tmp_path, policy=policy) as store:
        store.add(keys, vectors)
    first = saved()["file"]
    with open_store(tmp_path, policy=policy) as store:
        store.remove(keys[:60])
        store.add(keys[60:120], unit_rows(60, seed=42))  # replaced: 60 dead rows, 60 new
        store.flush(checkpoint=True)  # 60 new rows, under the floor of 100, but 120 changed
        queries = np.vstack([vectors[100:140], unit_rows(40, seed=43)])
        expected = [store.search(q, 10) for q in queries]
    assert saved()["ntotal"] == 4940 and saved()["file"] != first
    with open_store(tmp_path, policy=policy, read_only=True) as reader:
        assert reader._index.ntotal + reader._tail.ntotal == len(reader) == 4940
        assert reader._index_dead == 0
        assert [reader.search(q, 10) for q in queries] == expected
    with open_store(tmp_path, policy=policy) as store:  # removals alone, no new row
        store.remove(keys[200:320])
        store.flush(checkpoint=True)
        expected = [store.search(q, 10) for q in queries]
    # saved again at the same next id: under a name of its own (a reader may be opening the other)
    assert saved()["ntotal"] == 4820 and sorted(p.name for p in tmp_path.glob("index*.faiss")) == [saved()["file"]]
    with open_store(tmp_path, policy=policy, read_only=True) as reader:
        assert reader._index.ntotal == 4820 and reader._index_dead == 0
        assert [reader.search(q, 10) for q in queries] == expected


def test_rows_read_by_file_come_back_in_the_order_asked_repeats_included(tmp_path, monkeypatch):
    """A frame asks for rows in its own order, some twice (a record's rows in two cells'
    groups); each is read once, and every one comes back where it was asked."""
    from attention_cloud.embed.mapped_rows import MappedRows, write_header

    rng = np.random.default_rng(7)
    rows = rng.standard_normal((50, 8)).astype(np.float16)
    path = tmp_path / "vectors.f16"
    with open(path, "wb") as handle:
        write_header(handle, 8)
        handle.write(rows.tobytes())
    mapped = MappedRows(path, 8, np.float16, 50)
    asked = np.array([31, 2, 31, 49, 0, 2, 17])
    reads = []
    real = os.preadv
    monkeypatch.setattr(os, "preadv", lambda fd, bufs, at: reads.append(at) or real(fd, bufs, at))
    assert np.array_equal(mapped.pread(asked), rows[asked].astype(np.float32))
    assert len(reads) == len(set(asked.tolist())) == 5
    assert np.array_equal(mapped.pread(asked), mapped.gather(asked))


@pytest.mark.parametrize("kind", ["flat", "ivf"])
def test_a_reader_takes_in_what_the_writer_flushed_without_reopening(tmp_path, kind):
    """A long-running reader follows the writer: refresh applies the key log's new records
    and indexes the new rows, and answers as a reader opened afresh does."""
    vectors = unit_rows(3600, seed=41)
    keys = [f"k{i}" for i in range(3600)]
    policy = IndexPolicy(kind=kind, background=False) if kind == "ivf" else IndexPolicy()
    with open_store(tmp_path, policy=policy) as store:
        store.add(keys[:3000], vectors[:3000])
        store.flush()
        with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, policy=policy, read_only=True) as view:
            changes = view.changes
            assert view.refresh() and view.changes == changes  # nothing new: nothing done
            store.add(keys[3000:3300], vectors[3000:3300])
            store.remove(keys[:20])
            store.add(keys[3300:], vectors[3300:])  # not flushed: not committed, not seen
            store.flush()
            store.add(["late"], unit_rows(1, seed=42))  # written after the flush: unseen
            assert view.refresh() and view.changes > changes
            assert view.has("k3500") and not view.has("k5") and not view.has("late")
            assert len(view) == 3580
            queries = np.vstack([vectors[3000:3030], vectors[20:40], unit_rows(20, seed=43)])
            with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, policy=policy,
                                  read_only=True) as fresh:
                assert [view.search(q, 10) for q in queries] == [fresh.search(q, 10) for q in queries]
            assert view.search(vectors[3599], 1)[0][0] == "k3599"


def test_a_reader_cannot_follow_a_compaction_and_says_so(tmp_path):
    vectors = unit_rows(2000, seed=44)
    keys = [f"k{i}" for i in range(2000)]
    with open_store(tmp_path) as store:
        store.add(keys, vectors)
        store.flush()
        with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, read_only=True) as view:
            store.remove(keys[:1100])  # past a quarter of the log: the flush compacts
            store.flush()
            assert not view.refresh()  # the caller opens it again
            assert view.has("k0")      # and until then it answers from what it had


def test_a_store_made_in_the_old_ones_place_is_not_followed(tmp_path):
    """A re-embed and back replaces the vectors folder twice; the folder made last may be
    given the first one's inode, so a reader cannot tell the stores apart by it, and the new
    store's rows and generation may match what the reader read. The store's id in its manifest
    tells them apart: the reader says it cannot follow (it read the new key log from the old
    one's offset). The reuse is made here by giving the reader the new folder's inode."""
    import shutil

    vectors = unit_rows(400, seed=45)
    with open_store(tmp_path) as store:
        store.add([f"k{i}" for i in range(300)], vectors[:300])
        store.flush()
    view = VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, read_only=True)
    shutil.rmtree(tmp_path)
    with open_store(tmp_path) as store:  # another store in its place, written further
        store.add([f"n{i}" for i in range(400)], vectors)
        store.flush()
    view._folder_inode = tmp_path.stat().st_ino  # the inode reused
    assert not view.refresh()
    view.close()


def test_a_checkpoint_snapshots_the_key_tables_so_an_open_replays_little(tmp_path):
    """The end of a curation (a checkpoint) writes a key-table snapshot once the key log grew
    by ~256 KiB, not only by a tenth: an agent that curates a turn at a time would otherwise
    leave every open replaying thousands of records."""
    keys = [f"item-with-a-longer-handle-{i:06d}" for i in range(7000)]
    with open_store(tmp_path) as store:
        store.add(keys[:6000], unit_rows(6000, seed=51), [{"segment": "work"}] * 6000)
        store.flush()  # an ordinary flush: 4 MiB not reached, no snapshot
        assert json.loads((tmp_path / "manifest.json").read_text())["key_snapshot"] is None
        store.flush(checkpoint=True)
        manifest = json.loads((tmp_path / "manifest.json").read_text())
        assert manifest["key_snapshot"]["key_bytes"] == manifest["key_bytes"]
        store.add(keys[6000:], unit_rows(1000, seed=52))
        store.flush(checkpoint=True)  # grew by less than 256 KiB since: the snapshot stays
        assert json.loads((tmp_path / "manifest.json").read_text())["key_snapshot"] == manifest["key_snapshot"]
    with VectorStore.open(tmp_path, embedder_id="test@1", dim=DIM, read_only=True) as view:
        assert len(view) == 7000 and view.meta(keys[10]) == {"segment": "work"} and view.has(keys[6500])


def test_vector_logs_without_a_manifest_are_one_damage_for_every_opener(tmp_path):
    """A writer writes its manifest before any log: logs with none is damage, said in the one
    message by whoever opens the store (a writer, a reader, ``atc doctor``'s check), never
    read as an empty store over the logs (a writer would start a manifest of 0 rows on them)."""
    from attention_cloud.embed.store import check_store

    with open_store(tmp_path) as store:
        store.add(["it_001"], unit_rows(1))
    (tmp_path / "manifest.json").unlink()
    logs = sorted(p.name for p in tmp_path.iterdir())
    said = "it has vector logs but no manifest; its vectors derive from the journal"
    for opening in (lambda: open_store(tmp_path), lambda: open_store(tmp_path, read_only=True),
                    lambda: check_store(tmp_path)):
        with pytest.raises(HomeError, match=said):
            opening()
    assert sorted(p.name for p in tmp_path.iterdir()) == logs       # nothing written over them
