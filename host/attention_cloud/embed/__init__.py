"""Embeddings, the vector store and its faiss index, and BM25: the host side of the jump.

Public API::

    from attention_cloud.embed import (Embedder, load_embedder, available_embedders,
                                       VectorStore, LexicalIndex, DEFAULT_EMBEDDER, fuse_rankings)
    embedder = load_embedder()        # MiniLM int8 ONNX; "hash" needs no model; "static" is fast
    store = VectorStore.open(home / "vectors", embedder_id=embedder.id, dim=embedder.dim)
    store.add(["it_3fa2"], embedder.embed(["deploy failed on eu-west"]), [{"level": "l0"}])
    store.search(embedder.embed(["why did the deploy fail"])[0], 5)   # [("it_3fa2", 0.71)]

Keys are opaque strings to this package. The convention used by the callers: an item's verbatim
text (L0) is stored under its handle (``it_3fa2``), a higher rung under ``handle#l1`` ...
``handle#l3``, and ``meta`` repeats the level, segment and kind so that searches can filter on
them; :func:`handle_of` maps a key back to its handle.
"""
from __future__ import annotations

from ..lazy_names import lazy_names

# Each name is imported from its module on first use (PEP 562): a process that reads a few
# stored vectors (`atc stats`, cells, the frame's rows) imports one small module, not faiss,
# onnxruntime and the tokenizer, which the modules below pull in (~0.1-0.2 s of CPU each start).
_LAZY = {
    "fuse_rankings": ".fusion",
    "HashingEmbedder": ".hashing",
    "hybrid_search": ".hybrid",
    "LexicalIndex": ".lexical",
    "DEFAULT_EMBEDDER": ".loading",
    "Embedder": ".loading",
    "EmbedderInfo": ".loading",
    "available_embedders": ".loading",
    "load_embedder": ".loading",
    "OnnxEmbedder": ".onnx_model",
    "StaticEmbedder": ".static",
    "VectorStore": ".store",
    "handle_of": ".store",
    "WordPieceTokenizer": ".wordpiece",
}

__getattr__, __dir__ = lazy_names(__name__, _LAZY)

__all__ = [
    "DEFAULT_EMBEDDER",
    "Embedder",
    "EmbedderInfo",
    "HashingEmbedder",
    "LexicalIndex",
    "OnnxEmbedder",
    "StaticEmbedder",
    "VectorStore",
    "WordPieceTokenizer",
    "available_embedders",
    "fuse_rankings",
    "handle_of",
    "hybrid_search",
    "load_embedder",
]
