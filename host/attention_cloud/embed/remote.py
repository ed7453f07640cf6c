"""Embedders backed by something outside this package: sentence-transformers, or an
OpenAI-compatible ``/embeddings`` HTTP endpoint.

Neither is a dependency. ``st:NAME`` needs the ``sentence-transformers`` package and a model
already on disk (this project never downloads weights at run time, so ``NAME`` should be a
local path, or a model in the local cache with ``HF_HUB_OFFLINE=1``). ``openai:URL?model=M``
posts ``{"model": M, "input": [...]}`` to ``URL`` (``.../v1/embeddings``) with the key from
``ATC_EMBED_API_KEY`` and uses the standard library only.

Contents:
    SentenceTransformerEmbedder, OpenAIEmbedder
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

import numpy as np

from attention_cloud.errors import EmbeddingError

__all__ = ["SentenceTransformerEmbedder", "OpenAIEmbedder"]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


class SentenceTransformerEmbedder:
    """A sentence-transformers model loaded from local files (see module doc)."""

    def __init__(self, name: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingError(f"st:{name} needs the sentence-transformers package") from exc
        try:
            self._model = SentenceTransformer(name, device="cpu", local_files_only=True)
        except Exception as exc:  # the library raises many unrelated types for a missing model
            raise EmbeddingError(f"sentence-transformers cannot load {name!r} from local files: {exc}") from exc
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self.id = f"st:{name}"

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Unit-length float32 vectors for ``texts``."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True)
        return _unit_rows(vectors)


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint (see module doc).

    Args:
        url: the full endpoint, e.g. ``http://localhost:8080/v1/embeddings``.
        model: the model name sent with each request.
        dim: the vector width, when known; otherwise one probe request finds it.
        timeout: seconds per HTTP request.
    """

    def __init__(self, url: str, model: str, *, dim: int | None = None, timeout: float = 60.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise EmbeddingError(f"openai embedder URL must start with http:// or https://, got {url!r}")
        self.url = url
        self.model = model
        self.timeout = timeout
        self.id = f"openai:{model}"
        self.dim = dim if dim is not None else int(self._request(["dimension probe"]).shape[1])

    def _request(self, texts: list[str]) -> np.ndarray:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get("ATC_EMBED_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = json.dumps({"model": self.model, "input": texts}).encode("utf-8")
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.load(response)
        except urllib.error.HTTPError as exc:
            raise EmbeddingError(f"embedding endpoint {self.url} answered HTTP {exc.code}") from exc
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise EmbeddingError(f"embedding endpoint {self.url} is unusable: {exc}") from exc
        try:
            rows = sorted(payload["data"], key=lambda item: item["index"])
            matrix = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"embedding endpoint {self.url} returned no data[].embedding") from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise EmbeddingError(f"embedding endpoint {self.url} returned {matrix.shape[0]} vectors for {len(texts)} texts")
        return _unit_rows(matrix)

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Unit-length float32 vectors for ``texts``, ``batch_size`` texts per request."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), max(1, batch_size)):
            chunk = self._request(list(texts[start : start + batch_size]))
            if chunk.shape[1] != self.dim:
                raise EmbeddingError(f"embedding endpoint {self.url} changed dimension to {chunk.shape[1]}")
            out[start : start + len(chunk)] = chunk
        return out
