"""Float16 vector rows converted to float32: exact, whichever way the conversion runs."""
from __future__ import annotations

import numpy as np
import pytest

from attention_cloud.embed import half_floats


def every_half_float() -> np.ndarray:
    """All 65,536 float16 bit patterns as a 128 x 512 block (over MIN_VALUES values)."""
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).reshape(128, 512)


def test_every_float16_converts_to_the_float32_numpy_gives():
    rows = every_half_float()
    assert rows.size >= half_floats.MIN_VALUES
    out = half_floats.to_float32(rows)
    assert out.dtype == np.float32 and out.shape == rows.shape
    assert np.array_equal(out, rows.astype(np.float32), equal_nan=True)
    assert half_floats._session not in (None, False), "onnxruntime converts large blocks"


def test_sparse_rows_like_the_hash_embedders_are_exact():
    rng = np.random.default_rng(7)
    rows = (rng.standard_normal((1660, 512)) * 0.04).astype(np.float16)
    rows[rng.random(rows.shape) < 0.7] = 0
    assert np.array_equal(half_floats.to_float32(rows), rows.astype(np.float32))


def test_small_blocks_and_float32_rows_go_through_numpy():
    small = np.array([[0.5, -1.0, 0.0]], dtype=np.float16)
    assert np.array_equal(half_floats.to_float32(small), np.array([[0.5, -1.0, 0.0]], dtype=np.float32))
    single = np.ones((4, 4), dtype=np.float32)
    out = half_floats.to_float32(single)
    assert out.dtype == np.float32 and np.array_equal(out, single)


def test_without_onnxruntime_the_numbers_are_the_same(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(half_floats, "_session", False)
    rows = every_half_float()
    assert np.array_equal(half_floats.to_float32(rows), rows.astype(np.float32), equal_nan=True)


def test_the_vector_store_reads_rows_through_it(tmp_path):
    from attention_cloud.embed import VectorStore

    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((300, 512)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = VectorStore.open(tmp_path / "v", embedder_id="t", dim=512)
    try:
        keys = [f"k{i}" for i in range(300)]
        store.add(keys, vectors)
        present, got = store.vectors(keys)
        assert present.all()
        assert np.array_equal(got, vectors.astype(np.float16).astype(np.float32))
    finally:
        store.close()


@pytest.mark.parametrize("onnx", [True, False])
def test_rows_converted_into_a_kept_array_are_the_same(monkeypatch: pytest.MonkeyPatch, onnx: bool):
    if not onnx:
        monkeypatch.setattr(half_floats, "_session", False)
    rows = every_half_float()
    out = np.full(rows.shape, 7.0, dtype=np.float32)
    got = half_floats.to_float32(rows, out)
    assert got is out
    assert np.array_equal(out, rows.astype(np.float32), equal_nan=True)
    small = rows[:3, :8].copy()  # below the block size: numpy, into out all the same
    kept = np.zeros(small.shape, dtype=np.float32)
    assert half_floats.to_float32(small, kept) is kept and np.array_equal(kept, small.astype(np.float32))


def test_mid_sized_blocks_do_not_load_onnxruntime(monkeypatch: pytest.MonkeyPatch):
    """A block below MIN_VALUES converts with numpy while onnxruntime is not loaded: a process
    converting only such blocks (a small home's frames) never pays its load."""
    monkeypatch.setattr(half_floats, "_session", None)
    rows = every_half_float()[:64]                      # 32,768 values
    assert half_floats.MIN_LOADED_VALUES <= rows.size < half_floats.MIN_VALUES
    assert np.array_equal(half_floats.to_float32(rows), rows.astype(np.float32), equal_nan=True)
    assert half_floats._session is None


@pytest.mark.parametrize("kept", [False, True])
def test_mid_sized_blocks_go_through_a_loaded_onnxruntime_exactly(monkeypatch: pytest.MonkeyPatch,
                                                                   kept: bool):
    """Once onnxruntime is loaded, a block from MIN_LOADED_VALUES values converts through it
    (numpy's cast of the hash embedder's sparse rows costs ~4 ns a value, its call ~15 µs),
    with the numbers numpy gives."""
    session = half_floats._cast_session()
    if session is False:
        pytest.skip("onnxruntime cannot load here")
    calls = []

    class Counting:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(session, name)

    monkeypatch.setattr(half_floats, "_session", Counting())
    for half in (every_half_float()[:64], every_half_float()[64:]):
        out = np.empty(half.shape, dtype=np.float32) if kept else None
        got = half_floats.to_float32(half, out)
        assert np.array_equal(got, half.astype(np.float32), equal_nan=True)
    small = every_half_float()[:16]                      # 8,192 values: numpy, not the session
    assert np.array_equal(half_floats.to_float32(small), small.astype(np.float32), equal_nan=True)
    assert calls == (["io_binding", "run_with_iobinding"] if kept else ["run"]) * 2
