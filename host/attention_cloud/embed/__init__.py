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

from .fusion import fuse_rankings
from .hashing import HashingEmbedder
from .hybrid import hybrid_search
from .lexical import LexicalIndex
from .loading import DEFAULT_EMBEDDER, Embedder, EmbedderInfo, available_embedders, load_embedder
from .onnx_model import OnnxEmbedder
from .static import StaticEmbedder
from .store import VectorStore, handle_of
from .wordpiece import WordPieceTokenizer

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
