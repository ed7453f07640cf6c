"""BM25 lexical index, its terms, its persistence, and rank fusion."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_cloud.embed import LexicalIndex, fuse_rankings
from attention_cloud.embed.terms import lexical_terms
from attention_cloud.errors import UsageError

DOCS = {
    "it_1": "The deploy of it_3fa2 failed with ERR_CONN_RESET on prod-eu",
    "it_2": "We deployed the frontend and the deploy went fine",
    "it_3": "Lunch plans: tacos on Friday",
    "it_4": "Retry the deploy of it_3fa3 after fixing the config",
}


def make_index() -> LexicalIndex:
    index = LexicalIndex()
    index.add(list(DOCS), list(DOCS.values()))
    return index


def test_terms_keep_identifiers_whole_and_split():
    terms = lexical_terms("Deploying it_3fa2#l1 to prod-eu.example.com: ERR_CONN_RESET, Café")
    assert "it_3fa2#l1" in terms and "3fa2" in terms and "l1" in terms
    assert "prod-eu.example.com" in terms and "example" in terms
    assert "err_conn_reset" in terms and "cafe" in terms
    assert "deploy" in terms  # "deploying" folded
    assert "to" not in terms  # stopword


def test_an_identifier_written_with_markdown_escapes_is_the_same_identifier():
    # an LLM's answer escapes the underscores of SIAC_GEE for Markdown: a goal naming the
    # identifier must meet it whole, not only its parts
    assert lexical_terms(r"the SIAC\_GEE table and my\_proj\-v2") \
        == lexical_terms("the SIAC_GEE table and my_proj-v2")
    assert "siac_gee" in lexical_terms(r"SIAC\_GEE")
    # a backslash elsewhere is left alone: a Windows path, a lone escape
    assert lexical_terms(r"C:\Users\ana \_x") == ["c", "user", "ana", "x"]


def test_terms_fold_inflections_but_not_identifiers():
    assert lexical_terms("stories deployed deploys") == ["story", "deploy", "deploy"]
    assert lexical_terms("v1.2.3s") == ["v1.2.3s", "v1", "2", "3s"]


def test_terms_split_cjk_characters():
    assert lexical_terms("東京タワー") == ["東", "京", "タ", "ワ", "ー"]


def test_exact_identifier_ranks_first():
    index = make_index()
    hits = index.search("what happened to it_3fa2", 4)
    assert hits[0][0] == "it_1"
    # the near-miss identifier it_3fa3 is not confused with it_3fa2
    assert "it_4" not in [key for key, _ in hits[:1]]
    assert index.search("ERR_CONN_RESET", 1)[0][0] == "it_1"


def test_bm25_scores_follow_the_formula():
    index = LexicalIndex(k1=1.2, b=0.75)
    index.add(["a", "b"], ["apple banana", "banana cherry cherry date"])
    n, df = 2, 1
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    average = (2 + 4) / 2
    tf, length = 2, 4
    expected = idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * length / average))
    (key, score), = index.search("cherry", 5)
    assert key == "b" and score == pytest.approx(expected)


@pytest.mark.parametrize("snapshot", [False, True])
def test_bm25_scores_are_the_formulas_bit_for_bit(tmp_path, eager_snapshots, snapshot):
    """Each term's score is ``idf * tf * (k1 + 1) / (tf + norm)`` in that order of operations
    and the terms' scores are summed in the query's order: exactly the float64 numbers, from
    the postings held in memory and from a snapshot's mapped arrays alike (hydration compares
    scores across runs; a change of rounding would move frames)."""
    texts = {"a": "apple banana", "b": "banana cherry cherry date", "c": "cherry apple apple",
             "d": "date date date banana cherry"}
    index = LexicalIndex.open(tmp_path / "lex") if snapshot else LexicalIndex()
    index.add(list(texts), list(texts.values()))
    if snapshot:
        index.close()
        index = LexicalIndex.open(tmp_path / "lex", read_only=True)
    words = {key: text.split() for key, text in texts.items()}
    average = sum(map(len, words.values())) / len(words)

    def score(key: str, query: list[str]) -> float:
        total = 0.0
        for term in query:
            tf = words[key].count(term)
            if tf:
                df = sum(term in w for w in words.values())
                idf = math.log(1.0 + (len(words) - df + 0.5) / (df + 0.5))
                norm = 1.2 * (1.0 - 0.75 + 0.75 * len(words[key]) / average)
                total += idf * float(tf) * (1.2 + 1.0) / (float(tf) + norm)
        return total

    for query in (["cherry"], ["banana", "date"], ["apple", "cherry", "date"]):
        got = dict(index.search(" ".join(query), 10))
        assert got == {key: score(key, query) for key in texts if score(key, query)}


def test_search_misses_return_nothing_and_k_limits():
    index = make_index()
    assert index.search("zebra", 3) == []
    assert index.search("deploy", 0) == []
    assert len(index.search("deploy", 2)) == 2


def test_upsert_and_remove():
    index = make_index()
    assert index.add(["it_3"], ["Dinner: pasta about it_3fa2"]) == 0
    assert index.search("tacos", 5) == []
    assert {key for key, _ in index.search("it_3fa2", 5)} == {"it_1", "it_3"}
    assert index.remove(["it_1", "nope"]) == 1
    assert [key for key, _ in index.search("it_3fa2", 5)] == ["it_3"]
    assert len(index) == 3 and not index.has("it_1")


def test_allow_filters_results():
    hits = make_index().search("deploy", 5, allow=lambda key: key != "it_1")
    assert hits and all(key != "it_1" for key, _ in hits)


def test_filter_meta_restricts_results_and_persists(tmp_path):
    with LexicalIndex.open(tmp_path) as index:
        index.add(list(DOCS), list(DOCS.values()),
                  [{"kind": "error", "n": 1}, {"kind": "turn", "n": "1"}, None, {"kind": "turn", "n": 2}])
    with LexicalIndex.open(tmp_path) as index:
        assert [k for k, _ in index.search("deploy", 5, filter_meta={"kind": "turn"})] == ["it_2", "it_4"]
        assert [k for k, _ in index.search("deploy", 5, filter_meta={"kind": ["error", "turn"], "n": 1})] == ["it_1"]
        assert index.search("tacos", 5, filter_meta={"kind": "turn"}) == []
        assert index.meta("it_1") == {"kind": "error", "n": 1} and index.meta("it_3") == {}


def test_mismatched_lengths_are_refused():
    with pytest.raises(UsageError, match="2 keys but 1 texts"):
        LexicalIndex().add(["a", "b"], ["only one"])


def test_persisted_index_reopens_and_ignores_a_torn_line(tmp_path):
    with LexicalIndex.open(tmp_path) as index:
        index.add(list(DOCS), list(DOCS.values()))
        index.remove(["it_3"])
    with open(tmp_path / "lexical.jsonl", "a", encoding="utf-8") as log:
        log.write('{"k": "it_9", "t": {"tor')
    with LexicalIndex.open(tmp_path) as index:
        assert len(index) == 3 and not index.has("it_3") and not index.has("it_9")
        assert index.search("it_3fa2", 1)[0][0] == "it_1"
        index.add(["it_9"], ["after the crash"])
    with LexicalIndex.open(tmp_path) as index:
        assert index.search("crash", 1)[0][0] == "it_9"


def test_persisted_log_is_compacted_when_mostly_superseded(tmp_path):
    with LexicalIndex.open(tmp_path) as index:
        for round_ in range(3):
            index.add([f"k{i}" for i in range(600)], [f"text {round_} number {i}" for i in range(600)])
    lines = (tmp_path / "lexical.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 600
    with LexicalIndex.open(tmp_path) as index:
        assert index.search("number 17", 1)[0][0] == "k17"


def test_rrf_fusion_rewards_agreement():
    dense = [("a", 0.9), ("b", 0.8), ("c", 0.1)]
    lexical = [("b", 12.0), ("d", 5.0), ("a", 1.0)]
    fused = fuse_rankings([dense, lexical])
    assert [key for key, _ in fused] == ["b", "a", "d", "c"]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)


def test_minmax_fusion_uses_score_margins_and_weights():
    dense = [("a", 0.9), ("b", 0.5), ("c", 0.1)]
    lexical = [("c", 10.0), ("b", 9.0), ("a", 0.0)]
    fused = dict(fuse_rankings([dense, lexical], method="minmax", weights=[1.0, 0.5]))
    assert fused == pytest.approx({"a": 1.0, "b": 0.5 + 0.45, "c": 0.5})


def test_fusion_refuses_unknown_method_and_bad_weights():
    with pytest.raises(ValueError, match="unknown fusion method"):
        fuse_rankings([[("a", 1.0)]], method="borda")
    with pytest.raises(ValueError, match="1 rankings but 2 weights"):
        fuse_rankings([[("a", 1.0)]], weights=[1, 2])


def test_hybrid_search_fuses_dense_and_lexical_and_survives_either_missing(tmp_path):
    from attention_cloud.embed import VectorStore, hybrid_search, load_embedder

    embedder = load_embedder("hash")
    texts = {
        "it_a": "the nightly backup job crashed with error E4711",
        "it_b": "backups of the database run every night",
        "it_c": "we ordered pizza for the team lunch",
    }
    lexical = LexicalIndex()
    lexical.add(list(texts), list(texts.values()), [{"kind": "error"}, {"kind": "turn"}, {"kind": "turn"}])
    with VectorStore.open(tmp_path, embedder_id=embedder.id, dim=embedder.dim) as store:
        store.add(list(texts), embedder.embed(list(texts.values())), [{"kind": "error"}, {"kind": "turn"}, {"kind": "turn"}])
        hits = hybrid_search("E4711 nightly backup", 2, embedder=embedder, store=store, lexical=lexical)
        assert [key for key, _ in hits] == ["it_a", "it_b"]
        assert hits[0][1] == pytest.approx(2 / 61)  # first in both rankings
        turns = hybrid_search("backup", 3, embedder=embedder, store=store, lexical=lexical, filter_meta={"kind": "turn"})
        assert turns and {key for key, _ in turns} <= {"it_b", "it_c"}
        only_lexical = hybrid_search("E4711", 3, embedder=None, store=None, lexical=lexical)
        assert [key for key, _ in only_lexical] == ["it_a"]
        only_dense = hybrid_search("pizza lunch", 1, embedder=embedder, store=store, lexical=None)
        assert only_dense[0][0] == "it_c"


# ---------------------------------------------------------------------- snapshots

@pytest.fixture
def eager_snapshots(monkeypatch):
    """Snapshot at every flush, whatever the log's size."""
    from attention_cloud.embed import lexical

    monkeypatch.setattr(lexical, "_SNAPSHOT_MIN_BYTES", 0)
    monkeypatch.setattr(lexical, "_SNAPSHOT_GROWTH", 0.0)


def _ranked(index, query, **kw):
    return [(k, round(s, 9)) for k, s in index.search(query, 50, **kw)]


def test_reopen_from_a_snapshot_plus_log_tail_answers_like_a_fresh_index(tmp_path, eager_snapshots):
    reference = LexicalIndex()
    with LexicalIndex.open(tmp_path) as index:
        for target in (index, reference):
            target.add(list(DOCS), list(DOCS.values()), [{"kind": "error"}, {"kind": "turn"}, None, {"kind": "turn"}])
        index.flush()  # snapshot covers the four documents
        assert (tmp_path / "snapshot.json").exists()
        for target in (index, reference):  # the tail: a replacement, a removal, a new document
            target.add(["it_2"], ["the frontend deploy of it_3fa2 broke"], [{"kind": "error"}])
            target.remove(["it_3"])
            target.add(["it_5"], ["deploy notes for prod-eu"])
        index._log.flush()  # durable tail, but no new snapshot: reopening must replay it
        index._log.close()
        index._log = None
    with LexicalIndex.open(tmp_path) as reopened:
        assert len(reopened) == len(reference) == 4 and not reopened.has("it_3")
        for query in ("deploy", "it_3fa2", "prod-eu frontend", "tacos"):
            assert _ranked(reopened, query) == _ranked(reference, query)
        assert _ranked(reopened, "deploy", filter_meta={"kind": "error"}) == \
            _ranked(reference, "deploy", filter_meta={"kind": "error"})
        assert reopened.meta("it_2") == {"kind": "error"} and reopened.meta("it_5") == {}
        assert reopened.idf("deploy") == pytest.approx(reference.idf("deploy"))


def test_a_reader_of_a_snapshot_plus_log_tail_answers_like_the_writer(tmp_path, monkeypatch):
    """A reader holds the postings past the snapshot as arrays, not dicts: same answers."""
    from attention_cloud.embed import lexical

    monkeypatch.setattr(lexical, "_SNAPSHOT_MIN_BYTES", 0)
    monkeypatch.setattr(lexical, "_SNAPSHOT_GROWTH", 0.0)
    with LexicalIndex.open(tmp_path) as index:
        index.add(list(DOCS), list(DOCS.values()), [{"kind": "error"}, {"kind": "turn"}, None, {"kind": "turn"}])
        filler = [f"f{i}" for i in range(80)]           # a log longer than the head it is known by
        index.add(filler, [f"filler note {i} about the quarterly cache report" for i in range(80)])
        index.flush()                                   # snapshot of the 84 documents
        monkeypatch.setattr(lexical, "_SNAPSHOT_GROWTH", 10.0)
        index.add(["it_2"], ["the frontend deploy of it_3fa2 broke"], [{"kind": "error"}])
        index.add(["it_5", "it_6"], ["deploy notes for prod-eu", "tacos deploy retry"])
        index.remove(["it_3", "it_6"])                  # a snapshot document and a tail one
        index.add(["it_7"], ["retry the prod-eu deploy"])
        index.flush()                                   # committed, no new snapshot
        reader = LexicalIndex.open(tmp_path, read_only=True)
        assert reader._base_docs == 84 and len(reader) == len(index) == 85
        assert not reader._delta_post                   # the tail is held as arrays
        assert reader._slot_map is None                 # no key table until a lookup by key
        for query in ("deploy", "it_3fa2", "prod-eu frontend retry", "tacos", "notes cache"):
            assert _ranked(reader, query) == _ranked(index, query)
            assert _ranked(reader, query, filter_meta={"kind": "error"}) == \
                _ranked(index, query, filter_meta={"kind": "error"})
        assert reader.scores("deploy retry") == index.scores("deploy retry")
        assert reader.has("it_2") and reader.has("f3") and not reader.has("it_3") and not reader.has("it_6")
        assert reader.meta("it_2") == {"kind": "error"} and reader.meta("it_1") == {"kind": "error"}
        assert len(reader) == 85
        reader.close()


def test_a_snapshot_that_does_not_match_its_log_is_ignored(tmp_path, eager_snapshots):
    with LexicalIndex.open(tmp_path) as index:
        index.add(list(DOCS), list(DOCS.values()))
    # the log is replaced behind the snapshot's back (as a crash between compaction and the
    # new snapshot would leave it): the snapshot must not be used
    (tmp_path / "lexical.jsonl").write_text(
        json.dumps({"k": "it_9", "t": {"zebra": 1}}) + "\n", encoding="utf-8")
    with LexicalIndex.open(tmp_path) as index:
        assert len(index) == 1 and index.search("zebra", 1)[0][0] == "it_9"
        assert index.search("deploy", 5) == []


def test_an_unreadable_snapshot_falls_back_to_the_log(tmp_path, eager_snapshots):
    with LexicalIndex.open(tmp_path) as index:
        index.add(list(DOCS), list(DOCS.values()))
    for array in tmp_path.glob("snap-*/inv_slots.npy"):
        array.write_bytes(b"not numpy")
    with LexicalIndex.open(tmp_path) as index:
        assert len(index) == 4 and index.search("ERR_CONN_RESET", 1)[0][0] == "it_1"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(st.tuples(st.sampled_from(["add", "remove", "reopen", "flush"]),
                              st.integers(min_value=0, max_value=7),
                              st.lists(st.sampled_from(["deploy", "it_3fa2", "tacos", "prod-eu", "cache",
                                                        "retry", "error", "friday"]), min_size=1, max_size=5)),
                    max_size=25))
def test_snapshots_and_replay_never_change_answers(tmp_path_factory, eager_snapshots, ops):
    folder = tmp_path_factory.mktemp("lexical")
    reference = LexicalIndex()
    index = LexicalIndex.open(folder)
    try:
        for op, n, words in ops:
            key = f"k{n}"
            if op == "add":
                for target in (index, reference):
                    target.add([key], [" ".join(words)], [{"n": n % 2}])
            elif op == "remove":
                assert index.remove([key]) == reference.remove([key])
            elif op == "flush":
                index.flush()
            else:
                index.close()
                index = LexicalIndex.open(folder)
            assert len(index) == len(reference)
        for query in ("deploy", "it_3fa2 tacos", "retry error cache", "friday prod-eu"):
            assert _ranked(index, query) == _ranked(reference, query)
            assert _ranked(index, query, filter_meta={"n": 1}) == _ranked(reference, query, filter_meta={"n": 1})
    finally:
        index.close()


def _in_memory_postings(index):
    """The snapshot arrays as the one-go build made them (argsort over every posting)."""
    import numpy as np

    live = np.flatnonzero(index._live[:len(index._slot_keys)])
    parts = [index._forward(slot) for slot in live.tolist()]
    sizes = np.array([len(p[0]) for p in parts], dtype=np.int64)
    fwd_terms = np.concatenate([p[0] for p in parts]).astype(np.int32)
    fwd_counts = np.concatenate([p[1] for p in parts]).astype(np.float32)
    fwd_ptr = np.zeros(len(live) + 1, dtype=np.int64)
    np.cumsum(sizes, out=fwd_ptr[1:])
    order = np.argsort(fwd_terms, kind="stable")
    inv_ptr = np.zeros(len(index._terms) + 1, dtype=np.int64)
    np.cumsum(np.bincount(fwd_terms, minlength=len(index._terms)), out=inv_ptr[1:])
    return {"fwd_ptr": fwd_ptr, "fwd_terms": fwd_terms, "fwd_counts": fwd_counts, "inv_ptr": inv_ptr,
            "inv_slots": np.repeat(np.arange(len(live), dtype=np.int32), sizes)[order],
            "inv_counts": fwd_counts[order].astype(np.float64)}


def test_a_snapshot_written_in_passes_holds_the_one_go_arrays(tmp_path, eager_snapshots, monkeypatch):
    """The snapshot is written a chunk of documents and a range of terms at a time (bounded
    memory at a million items); its arrays are exactly those of sorting every posting at once,
    from a base snapshot, a delta, replaced and removed documents alike."""
    import random

    import numpy as np

    from attention_cloud.embed import lexical, postings

    monkeypatch.setattr(postings, "ENTRIES_PER_PASS", 37)  # many passes, terms split across reads
    monkeypatch.setattr(postings, "READ_ENTRIES", 64)
    monkeypatch.setattr(lexical, "_CHUNK_DOCS", 5)
    passes = []
    real_argsort = np.argsort
    monkeypatch.setattr(postings.np, "argsort", lambda a, **kw: passes.append(len(a)) or real_argsort(a, **kw))
    rng = random.Random(7)
    words = [f"w{i}" for i in range(60)] + ["deploy", "cache", "it_3fa2"]
    texts = {f"it_{i}": " ".join(rng.choice(words) for _ in range(rng.randint(1, 30))) for i in range(120)}
    with LexicalIndex.open(tmp_path) as index:
        index.add(list(texts)[:80], list(texts.values())[:80])
        index.flush()  # the base snapshot
        index.add(list(texts)[80:], list(texts.values())[80:])
        index.add(["it_3", "it_90"], ["deploy cache again", "w1 w2 w2"])  # replace base and delta docs
        index.remove(["it_5", "it_100"])
        expected = _in_memory_postings(index)
        ranked = {q: _ranked(index, q) for q in ("deploy", "w1 w7 cache", "it_3fa2 w59")}
        passes.clear()
        index.flush()  # the snapshot written in passes
        folder = tmp_path / json.loads((tmp_path / "snapshot.json").read_text())["dir"]
        assert len(passes) > 10 and max(passes) <= 37 + 30  # many term ranges (one term may exceed)
        for name, array in expected.items():
            written = np.load(folder / f"{name}.npy")
            assert written.dtype == array.dtype and np.array_equal(written, array), name
        assert {q: _ranked(index, q) for q in ranked} == ranked
    with LexicalIndex.open(tmp_path) as reopened:
        assert {q: _ranked(reopened, q) for q in ranked} == ranked


def test_a_large_delta_is_folded_into_a_snapshot_whatever_the_log_growth(tmp_path, monkeypatch):
    """A writer holds the postings past its snapshot in dicts (~100 bytes each): past
    _DELTA_MAX_POSTINGS a flush writes a snapshot even when the log grew by less than a tenth."""
    from attention_cloud.embed import lexical

    monkeypatch.setattr(lexical, "_SNAPSHOT_MIN_BYTES", 0)
    with LexicalIndex.open(tmp_path) as index:
        index.add([f"it_{i}" for i in range(200)], [f"w{i} w{i + 1} common" for i in range(200)])
        index.flush()
        assert index._base_docs == 200 and index._delta_entries == 0
        monkeypatch.setattr(lexical, "_SNAPSHOT_GROWTH", 10.0)  # log growth alone: never again
        monkeypatch.setattr(lexical, "_DELTA_MAX_POSTINGS", 9)
        index.add(["it_a", "it_b"], ["alpha beta", "gamma delta"])
        index.flush()
        assert index._base_docs == 200 and index._delta_entries == 4  # under the bound: kept
        index.add(["it_a"], ["alpha beta epsilon"])  # a replaced delta document leaves the count
        assert index._delta_entries == 5
        index.add(["it_c", "it_d"], ["zeta eta", "theta iota"])
        index.flush()
        assert index._base_docs == 204 and index._delta_entries == 0
        assert [k for k, _ in index.search("epsilon", 5)] == ["it_a"]


def test_a_reader_takes_in_what_the_writer_flushed_without_reopening(tmp_path):
    with LexicalIndex.open(tmp_path) as index:
        index.add(list(DOCS), list(DOCS.values()), [{"kind": "error"}, {"kind": "turn"}, None, {"kind": "turn"}])
        index.flush()
        reader = LexicalIndex.open(tmp_path, read_only=True)
        assert reader.refresh()  # nothing new
        index.add(["it_5", "it_6"], ["deploy notes for prod-eu", "tacos deploy retry"], [{"kind": "error"}, None])
        index.remove(["it_1"])
        index.flush()
        index.add(["it_9"], ["written after the flush"])  # not committed: not seen
        assert reader.refresh()
        fresh = LexicalIndex.open(tmp_path, read_only=True)
        assert reader.has("it_5") and not reader.has("it_1") and not reader.has("it_9")
        assert len(reader) == len(fresh)
        for query in ("deploy", "tacos retry", "prod-eu", "written after"):
            assert _ranked(reader, query) == _ranked(fresh, query)
            assert _ranked(reader, query, filter_meta={"kind": "error"}) == \
                _ranked(fresh, query, filter_meta={"kind": "error"})
        reader.close()
        fresh.close()


def test_a_reader_cannot_follow_a_compacted_log_and_says_so(tmp_path):
    with LexicalIndex.open(tmp_path) as index:
        index.add([f"d{i}" for i in range(1200)], [f"note {i}" for i in range(1200)])
        index.flush()
        reader = LexicalIndex.open(tmp_path, read_only=True)
        index.add([f"d{i}" for i in range(1200)], [f"note {i} again" for i in range(1200)])
        index.add([f"d{i}" for i in range(1200)], [f"note {i} once more" for i in range(1200)])
        index.flush()  # mostly superseded: the log is rewritten
        assert not reader.refresh()
        reader.close()


def test_a_log_written_anew_twice_is_never_read_from_the_old_offset(tmp_path):
    """Two compactions between a reader's refreshes: the second new log may be given the
    inode the reader's log had (a file system hands a freed inode to a later new file), so an
    inode cannot tell the logs apart; the log's id does, and the reader says it cannot follow
    (it read the new log from the old log's offset). The reuse is made here by giving the
    reader the new log's inode, as the file system would."""
    with LexicalIndex.open(tmp_path) as index:
        index.add([f"d{i}" for i in range(1200)], [f"note {i}" for i in range(1200)])
        index.flush()
        reader = LexicalIndex.open(tmp_path, read_only=True)
        for _ in range(2):
            index.purge()  # the log written anew
        index.add(["late"], ["written after both compactions"])
        index.flush()
        reader._log_inode = (tmp_path / "lexical.jsonl").stat().st_ino  # the inode reused
        assert not reader.refresh()
        reader.close()
        again = LexicalIndex.open(tmp_path, read_only=True)  # what the caller does then
        assert again.refresh() and again.has("late")
        again.close()


def test_without_scores_as_if_the_keys_were_not_indexed():
    """``without`` leaves keys out of the scores and the statistics alike: the rest score as an
    index that never held them (a grantee's search, the records a label hides left out)."""
    index = make_index()
    alone = LexicalIndex()
    kept = [k for k in DOCS if k != "it_4"]
    alone.add(kept, [DOCS[k] for k in kept])
    for query in ("deploy", "deploy config", "tacos"):
        assert index.search(query, 10, without=["it_4"]) == alone.search(query, 10)
    assert index.search("deploy", 10, without=[]) == index.search("deploy", 10)
    # within wins: it names the records scored already
    assert index.search("deploy", 10, within=["it_1", "it_2"], without=["it_1"]) == \
        index.search("deploy", 10, within=["it_1", "it_2"])
