"""The faster embedding path gives the vectors the slower one gave.

The tokenizer reads only a prefix of a long text, the embedder embeds each distinct text once,
and a curation run copies the vector of a text it embedded before: none of that may change what
the model sees, so retrieval is unchanged. Compared here against the whole-text tokenizer it
replaced and against texts embedded one by one.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from attention_cloud.embed import WordPieceTokenizer, load_embedder
from attention_cloud.embed.onnx_model import DEFAULT_VOCAB
from attention_cloud.embed.wordpiece import basic_words


def whole_text_ids(tokenizer: WordPieceTokenizer, text: str) -> list[int]:
    """The encoder as it was: every word of the text, then cut to max_length."""
    budget = tokenizer.max_length - 2
    ids = [tokenizer.cls_id]
    for word in basic_words(text):
        pieces = tokenizer._word_ids(word)
        room = budget - (len(ids) - 1)
        if len(pieces) >= room:
            ids.extend(pieces[:room])
            break
        ids.extend(pieces)
    return ids + [tokenizer.sep_id]


def texts(seed: int, count: int) -> list[str]:
    """Texts whose prefix cuts fall anywhere: inside words, accents, CJK runs, words over 100
    characters (one [UNK]), punctuation runs, control characters, long and short."""
    rng = random.Random(seed)
    parts = ["deploy", "naïve", "café", "東京は日本", "ERR_CONN_RESET", "x" * 140, "...", "\x00",
             "\u200b", "it_3fa2#l1", "Übergrößenträger", "retry-policy", "12,345.6", "\n\t",
             "supercalifragilistic", "ﬁle", "a"]
    out = []
    for _ in range(count):
        size = rng.choice([3, 40, 300, 1500, 6000])
        words = [rng.choice(parts) for _ in range(size)]
        out.append("".join(w + rng.choice([" ", "", "  ", "-"]) for w in words))
    return out


@pytest.mark.parametrize("max_length", [8, 32, 256])
def test_prefix_tokenizing_gives_the_whole_texts_ids(max_length):
    tokenizer = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=max_length)
    for text in texts(max_length, 120) + ["", " ", "x" * 5000, ("y" * 99 + " ") * 300]:
        assert tokenizer.encode(text) == whole_text_ids(tokenizer, text), text[:80]


def test_a_megabyte_tool_result_tokenizes_like_its_start():
    tokenizer = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=256)
    head = "Traceback (most recent call last): File app.py line 12 in main " * 8
    ids = tokenizer.encode(head + "0123456789 " * 100_000)
    assert len(ids) == 256 and ids == whole_text_ids(tokenizer, head + "0123456789 " * 400)


@pytest.fixture(scope="module")
def minilm():
    return load_embedder()


def test_repeated_texts_get_the_vectors_of_texts_embedded_alone(minilm):
    distinct = ["pytest: 3 failed, KeyError: 'ttl' in tests/test_cache.py",
                "git push rejected: the pre-commit hook found trailing whitespace",
                "ok", "a much longer tool output line about the deploy " * 40]
    batch = [distinct[i] for i in (0, 1, 0, 2, 3, 1, 1, 2)]
    together = minilm.embed(batch)
    alone = np.vstack([minilm.embed([t], batch_size=1) for t in distinct])
    for row, text in zip(together, batch):
        reference = alone[distinct.index(text)]
        assert float(row @ reference) > 0.9999
        assert np.abs(row - reference).max() < 2e-3   # int8 activations: batch-level scale
    assert np.array_equal(together[0], together[2]) and np.array_equal(together[1], together[6])


def _counting_rows(embedder) -> list[tuple[int, ...]]:
    """Record every sequence ``embedder`` runs through the model (one entry per row)."""
    rows: list[tuple[int, ...]] = []
    run = embedder._run

    def recording(session, sequences, pad_id):
        rows.extend(tuple(s) for s in sequences)
        return run(session, sequences, pad_id)

    embedder._run = recording
    return rows


def test_texts_the_model_cannot_tell_apart_run_through_it_once(minilm):
    """Texts that differ only in case, whitespace or accents, or only past the 256 word pieces
    the model reads, are one input to the model: one forward pass, one vector."""
    twin = _twin(minilm, threads=1)
    rows = _counting_rows(twin)
    long_head = "the deploy log says the cache warmed in 3 s " * 40  # past 256 pieces alone
    batch = ["Deploy failed:\n  ERR_CONN_RESET", "deploy failed: ERR_CONN_RESET",
             "Café  naïve", "cafe naive", long_head + "and then it failed", long_head + "ok",
             "something else"]
    vectors = twin.embed(batch)
    assert len(rows) == len(set(rows)) == 4
    assert np.array_equal(vectors[0], vectors[1]) and np.array_equal(vectors[2], vectors[3])
    assert np.array_equal(vectors[4], vectors[5])
    assert np.array_equal(vectors, _twin(minilm, threads=1).embed(batch))  # as before, row by row


def test_curation_runs_an_item_and_a_distillation_it_equals_through_the_model_once(tmp_path, minilm):
    """An item whose distillation is its own text with the line breaks collapsed (a short
    item the curator cannot shorten) gets both vectors from one forward pass."""
    from attention_cloud import Memory
    from attention_cloud.embed.onnx_model import OnnxEmbedder
    from attention_cloud.home import write_config
    from attention_cloud.jump import distillation_key

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "minilm"})
    notes = ["The deploy failed.\nWe decided to roll back to v1.2 and never deploy on Fridays.",
             "Skill elixir:hex-docs-search\nLaunching skill: elixir:hex-docs-search"]
    with Memory.open(home) as mem:
        mem.jump._embedder = embedder = _twin(minilm, threads=1)
        assert isinstance(embedder, OnnxEmbedder)
        for note in notes:
            mem.remember(note, curate=False)
        rows = _counting_rows(embedder)
        mem.curate()
        assert rows and len(rows) == len(set(rows))  # no input ran through the model twice
        handles = [row["H"] for row in mem.query("item_kind(H, note)").rows]
        store = mem.jump.vectors
        for handle in handles:
            assert store.has(distillation_key(handle))
            assert np.array_equal(store.vector(handle), store.vector(distillation_key(handle)))


def test_a_curation_run_embeds_a_repeated_text_once(tmp_path):
    from attention_cloud.jump import Jump

    jump = Jump(tmp_path, "hash")
    meta = [{"record": "item", "level": "l0"}] * 3
    jump.index(["it_a", "it_b", "it_c"], ["same output", "other", "same output"], meta)
    assert jump.embedded_texts == 3  # one call: the embedder itself embeds "same output" once
    jump.index(["it_d", "it_e"], ["same output", "new text"], meta[:2])
    assert jump.embedded_texts == 4 and jump.reused_vectors == 1
    assert np.array_equal(jump.vectors.vector("it_d"), jump.vectors.vector("it_a"))
    jump.close()


def _twin(minilm, threads: int):
    """Another embedder on the default's model file, with ``threads`` cores."""
    from attention_cloud.embed.onnx_model import OnnxEmbedder

    tokenizer = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=256)
    return OnnxEmbedder(minilm.model_path, tokenizer, embedder_id=minilm.id, threads=threads)


def test_a_call_of_many_batches_runs_on_both_cores_with_the_vectors_of_one(minilm):
    import threading

    # 20 texts make 18 batches at this budget (one of two short rows): enough for both workers
    # to take some, at a third of the model runs of 60
    corpus = texts(5, 20)
    reference = _twin(minilm, threads=1).embed(corpus)
    both = _twin(minilm, threads=2)
    both.token_budget = 256  # many small batches
    workers: set[str] = set()
    run = both._run

    def recording(session, sequences, pad_id):
        workers.add(threading.current_thread().name)
        return run(session, sequences, pad_id)

    both._run = recording
    together = both.embed(corpus)
    assert np.array_equal(together, reference)  # each row is computed alone: bit for bit
    assert len(workers) == 2 and all(name.startswith("atc-embed") for name in workers)
    workers.clear()
    assert np.array_equal(both.embed(corpus[:1]), reference[:1])  # one batch: the caller runs it
    assert workers == {threading.current_thread().name}


def test_a_worker_that_fails_stops_the_others_and_its_error_reaches_the_caller(minilm):
    both = _twin(minilm, threads=2)
    both.token_budget = 128
    calls = []
    run = both._run

    def failing(session, sequences, pad_id):
        calls.append(len(sequences))
        if len(calls) == 3:
            raise RuntimeError("onnxruntime: out of memory")
        return run(session, sequences, pad_id)

    both._run = failing
    corpus = texts(6, 80)
    with pytest.raises(RuntimeError, match="out of memory"):
        both.embed(corpus)
    assert len(calls) < 10  # the other worker stopped after its batch, not after the queue
