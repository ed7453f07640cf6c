"""A static embedder distilled from the default MiniLM model (model2vec-style).

Distillation (once, at set-up time, by :func:`distill_static_table` or
``scripts/distill_static.py``): every WordPiece token of the vocabulary goes through the ONNX
model alone (``[CLS] token [SEP]``, mean-pooled, as the sentence model pools); the table is
centred (the shared ``[CLS]``/``[SEP]`` component says nothing about the token) and stored as
float16 ``.npy``, about 23 MB, outside the package (it is derived from the pinned model).

Embedding a text is then a weighted average of its tokens' rows, L2-normalised, with no
transformer run: tens of thousands of texts per second. Weights follow SIF (Arora et al. 2017):
``a / (a + p(token))`` with ``p`` from Zipf's law over the vocabulary rank, which for BERT's
vocabulary (ids from 1996 on) follows corpus frequency, so "the" weighs little and rare words
much. Quality sits between feature hashing and MiniLM itself (see jump_quality.py).

Contents:
    StaticEmbedder, distill_static_table, default_static_path, STATIC_ID
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from attention_cloud.errors import EmbeddingError
from attention_cloud.paths import is_private, scratch_dir

from .derived import cache_dir
from .onnx_model import DEFAULT_VOCAB, OnnxEmbedder, minilm_embedder
from .wordpiece import WordPieceTokenizer

__all__ = ["StaticEmbedder", "distill_static_table", "default_static_path", "STATIC_ID"]

#: Stable id of vectors made from the table distilled from the pinned MiniLM model.
STATIC_ID = "minilm-l6-static@1"
_FIRST_WORD_ID = 1996  # BERT uncased: ids below are [PAD], [unused*], specials and characters
_SIF_A = 1e-3


def default_static_path() -> Path:
    """Where the distilled table lives unless told otherwise: ``minilm-static-v1.npy`` in
    :func:`~attention_cloud.embed.derived.cache_dir`."""
    return cache_dir() / "minilm-static-v1.npy"


def _sif_weights(vocab_size: int) -> np.ndarray:
    ranks = np.maximum(np.arange(vocab_size) - _FIRST_WORD_ID + 1, 1).astype(np.float64)
    probability = (1.0 / ranks) / np.sum(1.0 / np.arange(1, vocab_size - _FIRST_WORD_ID + 1))
    weights = _SIF_A / (_SIF_A + probability)
    return weights.astype(np.float32)


def distill_static_table(out: Path, *, model: OnnxEmbedder | None = None, batch: int = 512) -> Path:
    """Run every vocabulary token through ``model`` (default: MiniLM) and save the table.

    Returns the path written. Takes about a minute on two cores.
    """
    model = model or minilm_embedder()
    tokenizer = model.tokenizer
    size = max(tokenizer.vocab.values()) + 1
    table = np.zeros((size, model.dim), dtype=np.float32)
    for start in range(0, size, batch):
        ids = range(start, min(size, start + batch))
        table[start : start + len(ids)] = model._run([[tokenizer.cls_id, i, tokenizer.sep_id] for i in ids], tokenizer.pad_id)
    table -= table[_FIRST_WORD_ID:].mean(axis=0)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(out.name + ".tmp.npy")
    np.save(temporary, table.astype(np.float16))
    os.replace(temporary, out)
    return out


class StaticEmbedder:
    """Weighted average of distilled token vectors (see module doc).

    Args:
        table_path: the ``.npy`` table from :func:`distill_static_table`.
        vocab_path: the WordPiece vocabulary the table was made with.

    Raises:
        EmbeddingError: missing or malformed table.
    """

    def __init__(self, table_path: Path | None = None, vocab_path: Path = DEFAULT_VOCAB) -> None:
        table_path = Path(table_path) if table_path else default_static_path()
        if table_path.parent == scratch_dir() and table_path.parent.is_dir() \
                and not is_private(table_path.parent):  # a shared /tmp folder: not ours to read
            raise EmbeddingError(f"static embedding table {table_path} is in a folder other "
                                 "users may write (set ATC_CACHE to a private directory)")
        if not table_path.is_file():
            raise EmbeddingError(
                f"static embedding table {table_path} is missing: run scripts/distill_static.py first"
            )
        try:
            table = np.load(table_path)
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"cannot read static embedding table {table_path}: {exc}") from exc
        self.tokenizer = WordPieceTokenizer.from_file(vocab_path, max_length=100_000)
        if table.ndim != 2 or table.shape[0] != len(self.tokenizer.vocab):
            raise EmbeddingError(f"static table {table_path} has shape {table.shape}, not one row per vocabulary token")
        self._table = table.astype(np.float32)
        self._weights = _sif_weights(len(table))
        self.dim = int(table.shape[1])
        self.id = STATIC_ID

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Unit-length float32 rows; a text with no tokens gives a zero row."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts, not a single string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            ids = np.array(self.tokenizer.encode(text)[1:-1], dtype=np.int64)
            if len(ids):
                weights = self._weights[ids]
                out[row] = weights @ self._table[ids]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)
