"""Zero-model fallback embedder: signed feature hashing of words, word pairs and character n-grams.

Needs nothing but numpy and starts instantly, so memory keeps a semantic-ish jump when no model
is installed. Features of a text:

* each lexical term (see :mod:`.terms`: folded words, whole identifiers), weight 1;
* each pair of adjacent terms, weight 0.5 (phrases such as "error budget");
* character 3- and 4-grams of each term padded with ``<``/``>``, total weight 1 per term
  (spelling variants and inflections share most n-grams).

Every feature is hashed with CRC-32 to a bucket and a sign, counts are dampened with
``1 + log(count)``, and the row is L2-normalised, so cosine similarity approximates weighted
feature overlap. Vectors depend only on the text and this module's version: the id
``hash-v1-<dim>`` changes whenever the feature recipe does.

Contents:
    HashingEmbedder -- the Embedder implementation (default 512 dimensions)
"""
from __future__ import annotations

import zlib
from collections import defaultdict

import numpy as np

from .terms import lexical_terms

__all__ = ["HashingEmbedder"]


class HashingEmbedder:
    """Signed feature-hashing embedder (see module doc).

    Args:
        dim: vector width; more dimensions mean fewer hash collisions.
    """

    def __init__(self, dim: int = 512) -> None:
        if dim < 16:
            raise ValueError("HashingEmbedder needs at least 16 dimensions")
        self.dim = dim
        self.id = f"hash-v1-{dim}"

    def _features(self, text: str) -> dict[str, float]:
        features: dict[str, float] = defaultdict(float)
        terms = lexical_terms(text)
        for term in terms:
            features["w:" + term] += 1.0
            padded = f"<{term}>"
            grams = [padded[i : i + n] for n in (3, 4) for i in range(len(padded) - n + 1)]
            if grams:
                share = 1.0 / len(grams)
                for gram in grams:
                    features["c:" + gram] += share
        for left, right in zip(terms, terms[1:]):
            features[f"p:{left} {right}"] += 0.5
        return features

    def _vector(self, text: str) -> np.ndarray:
        row = np.zeros(self.dim, dtype=np.float32)
        for feature, count in self._features(text).items():
            digest = zlib.crc32(feature.encode("utf-8"))
            sign = 1.0 if digest & 0x80000000 else -1.0
            row[(digest & 0x7FFFFFFF) % self.dim] += sign * (1.0 + np.log(count) if count > 1 else count)
        norm = float(np.linalg.norm(row))
        return row / norm if norm > 0 else row

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Vectors for ``texts``: shape ``(len(texts), dim)``, float32, unit rows (zero for no terms).

        ``batch_size`` is accepted for interface compatibility; hashing has no batches.
        """
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts, not a single string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vector(text)
        return out
