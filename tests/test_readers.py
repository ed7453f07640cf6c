"""Readers need no lock: the vector store, the BM25 index and whole ``atc hydrate`` / ``atc
query`` processes read the last committed state while one writer appends."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from attention_cloud.embed import LexicalIndex, VectorStore
from attention_cloud.embed.faiss_index import IndexPolicy
from attention_cloud.errors import HomeError, UsageError
from attention_cloud.home import WriteLock
from attention_cloud.jump import Jump

ROOT = Path(__file__).resolve().parent.parent
DIM = 16


def unit_rows(n: int, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def writer(path: Path, **kw) -> VectorStore:
    return VectorStore.open(path, embedder_id="test", dim=DIM, **kw)


def reader(path: Path, **kw) -> VectorStore:
    return VectorStore.open(path, embedder_id="test", dim=DIM, read_only=True, **kw)


# -- the vector store -----------------------------------------------------------------------------
def test_readers_see_what_was_flushed_never_a_batch_being_written(tmp_path):
    first, second = unit_rows(50, seed=1), unit_rows(30, seed=2)
    store = writer(tmp_path)
    store.add([f"a{i}" for i in range(50)], first)
    store.flush()
    store.add([f"b{i}" for i in range(30)], second)  # written to the logs, not yet flushed
    store.remove(["a0"])
    early = reader(tmp_path)  # no lock: the writer still holds the store open
    assert len(early) == 50 and early.has("a0") and not early.has("b0")
    assert early.search(first[7], 1)[0][0] == "a7"
    store.flush()
    late = reader(tmp_path)
    assert len(late) == 79 and not late.has("a0") and late.search(second[3], 1)[0][0] == "b3"
    assert len(early) == 50  # a reader is a snapshot of its open
    with pytest.raises(HomeError, match="open in another process"):
        writer(tmp_path)  # writers still exclude each other
    for handle in (early, late, store):
        handle.close()


def test_a_reader_writes_nothing_and_refuses_writes(tmp_path):
    missing = tmp_path / "none"
    with reader(missing) as empty:
        assert len(empty) == 0 and empty.search(unit_rows(1)[0], 3) == []
    assert not missing.exists()  # opening to read created nothing
    store = writer(tmp_path)
    store.add(["k1", "k2"], unit_rows(2))
    store.flush()
    keys_log = next(tmp_path.glob("keys-*.jsonl"))
    with open(keys_log, "a", encoding="utf-8") as handle:
        handle.write('{"r": 99, "k": "torn')  # the writer is half-way through a line
    size = keys_log.stat().st_size
    with reader(tmp_path) as view:
        assert sorted(view.keys()) == ["k1", "k2"]
        with pytest.raises(UsageError, match="read-only"):
            view.add(["k3"], unit_rows(1))
        with pytest.raises(UsageError, match="read-only"):
            view.remove(["k1"])
    assert keys_log.stat().st_size == size  # a reader cuts no torn tail: it is not its to cut
    store._release_files()


def test_a_compaction_does_not_disturb_an_open_reader(tmp_path):
    vectors = unit_rows(3000, seed=3)
    keys = [f"k{i}" for i in range(3000)]
    store = writer(tmp_path)
    store.add(keys, vectors)
    store.flush()
    view = reader(tmp_path)
    store.remove(keys[:1500])
    store.flush()  # compacts: generation 1 replaces generation 0, whose files are deleted
    assert not (tmp_path / "vectors-0.f16").exists()
    assert view.search(vectors[10], 1)[0][0] == "k10"
    assert np.array_equal(view.vector("k2000"), vectors[2000].astype(np.float16).astype(np.float32))
    with reader(tmp_path) as fresh:
        assert len(fresh) == 1500 and fresh.search(vectors[2000], 1)[0][0] == "k2000"
    view.close()
    store.close()


def test_a_reader_loads_the_saved_approximate_index_the_manifest_names(tmp_path):
    policy = IndexPolicy(kind="hnsw", background=False)
    vectors = unit_rows(2000, seed=5)
    with writer(tmp_path, policy=policy) as store:
        store.add([f"k{i}" for i in range(2000)], vectors)
    named = json.loads((tmp_path / "manifest.json").read_text())["index"]["file"]
    with reader(tmp_path, policy=policy) as view:
        assert view.index_kind == "hnsw" and view._index.ntotal == 2000
        assert view.search(vectors[42], 1)[0][0] == "k42"
    assert sorted(p.name for p in tmp_path.glob("index*.faiss")) == [named]  # untouched by it


# -- BM25 -----------------------------------------------------------------------------------------
def test_lexical_readers_see_the_committed_prefix_only(tmp_path):
    index = LexicalIndex.open(tmp_path)
    index.add(["it_1", "it_2"], ["retry the payment webhook", "flaky login test"])
    index.flush()
    index.add(["it_3"], ["retry budget exceeded"])  # buffered or written, not flushed
    index._log.flush()  # even once its bytes reach the file, a reader must not see them
    view = LexicalIndex.open(tmp_path, read_only=True)
    assert [k for k, _ in view.search("retry", 5)] == ["it_1"]
    with pytest.raises(UsageError, match="read-only"):
        view.add(["it_9"], ["x"])
    with pytest.raises(UsageError, match="read-only"):
        view.remove(["it_1"])
    index.flush()
    assert {k for k, _ in LexicalIndex.open(tmp_path, read_only=True).search("retry", 5)} == {"it_1", "it_3"}
    assert [k for k, _ in view.search("retry", 5)] == ["it_1"]  # its snapshot
    index.close()


def test_a_copied_home_is_read_in_full(tmp_path):
    # cp -r or a restored backup gives every file a new inode: the committed record names the
    # old one for good, and the copy is read to its last whole line instead of refused
    import shutil

    index = LexicalIndex.open(tmp_path / "a")
    index.add(["it_1", "it_2"], ["retry the payment webhook", "flaky login test"])
    index.flush()
    index.close()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    view = LexicalIndex.open(tmp_path / "b", read_only=True)
    assert [k for k, _ in view.search("retry", 5)] == ["it_1"]


def test_lexical_reader_after_a_log_compaction_and_with_a_torn_tail(tmp_path):
    index = LexicalIndex.open(tmp_path)
    for round_ in range(3):  # superseded records outnumber live ones: the log is compacted
        index.add([f"it_{i}" for i in range(600)], [f"round {round_} text {i}" for i in range(600)])
    index.flush()
    log = tmp_path / "lexical.jsonl"
    with open(log, "a", encoding="utf-8") as handle:
        handle.write('{"k": "it_torn", "t": {"ro')
    size = log.stat().st_size
    with LexicalIndex.open(tmp_path, read_only=True) as view:
        assert len(view) == 600 and not view.has("it_torn")
        assert view.search("round 2 text 17", 1)[0][0] == "it_17"
    assert log.stat().st_size == size
    assert not LexicalIndex.open(tmp_path / "none", read_only=True).has("x")
    assert not (tmp_path / "none").exists()


# -- the jump ------------------------------------------------------------------------------------
def test_jump_reads_without_the_lock_and_takes_it_to_write(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    lock = WriteLock(home)
    jump = Jump(home, "hash", lock=lock)
    assert not jump.has_vectors() and not lock.held
    assert jump.lexical.read_only
    jump.index(["it_1"], ["retry the payment webhook"], [{"record": "item"}])
    assert lock.held and not jump.lexical.read_only and not jump.vectors.read_only
    jump.flush()
    other = Jump(home, "hash", lock=WriteLock(home))  # another process's view, beside the writer
    assert other.vectors.read_only and other.semantic("payment webhook", 1, {})[0][0] == "it_1"
    assert other.lexical_hits("webhook", 1, {})[0][0] == "it_1"
    other.close()
    jump.close()
    lock.release()


# -- whole processes --------------------------------------------------------------------------------
def _atc(*args: str, home: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "host")}
    return subprocess.run([sys.executable, "-m", "attention_cloud.cli", *args, "--home", str(home)],
                          capture_output=True, text=True, timeout=timeout, env=env)


#: Rounds of reads taken while the curate runs; after them the test waits for its end and reads
#: once more. Each round is two whole processes (about 1.2 s of CPU each to start): unbounded,
#: the rounds went on for as long as the curate lasted, which a loaded machine stretches
#: (BENCHMARKS.md, "The test suite's wall time", round 29).
READS_BESIDE_THE_WRITER = 3


def test_hydrate_and_query_run_while_curate_writes(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts" / "bench"))
    from gen_corpus import generate

    corpus = tmp_path / "corpus"
    generate(3000, corpus, 1)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"embedder": "hash"}', encoding="utf-8")
    ingested = _atc("ingest", str(corpus), home=home)
    assert ingested.returncode == 0, ingested.stderr
    env = {**os.environ, "PYTHONPATH": str(ROOT / "host")}
    curate = subprocess.Popen([sys.executable, "-m", "attention_cloud.cli", "curate", "--format", "json",
                               "--home", str(home)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env)
    during, rungs_seen = 0, []
    try:
        while True:
            running = curate.poll() is None
            hydrated = _atc("hydrate", "--goal", "fix the retry bug", "--budget", "300", home=home)
            assert hydrated.returncode == 0, hydrated.stderr
            assert hydrated.stdout.startswith("memory frame for: fix the retry bug")
            assert "[L" in hydrated.stdout  # it rendered items
            # both counts from one `atc query`: one process, one committed state
            queried = _atc("query", "aggregate_all(count, item_kind(_, _), N), "
                           "aggregate_all(count, curated(_, _), C)", "--format", "json", home=home)
            assert queried.returncode == 0, queried.stderr
            (row,) = json.loads(queried.stdout)
            assert row["N"] == 3000  # every ingested item
            rungs_seen.append(row["C"])
            still = curate.poll() is None
            during += running and still
            if not running:
                break
            if during >= READS_BESIDE_THE_WRITER:
                curate.wait(timeout=600)  # enough reads beside it: the next round reads its end
    finally:
        out, err = curate.communicate(timeout=600)
    assert curate.returncode == 0, err
    assert json.loads(out)["items"] == 3000
    assert during >= 1, "curate finished before a reader could run beside it"
    assert rungs_seen == sorted(rungs_seen) and rungs_seen[-1] > 3000  # committed batches, in order
