"""Rows of float16 read from a vector log, converted to float32 exactly and fast.

numpy converts half floats one value at a time, with a branch on whether the value is zero or
subnormal (~1 ns a value in dense vectors; ~4 ns in sparse ones such as the ``hash``
embedder's, ~70 % zeros, where that branch is mispredicted): a frame's gathers (~3,000 rows of
512) spent 1.5-6 ms on it. onnxruntime's ``Cast`` (MLAS, F16C/AVX-512 where the CPU has them)
converts the same rows ~4-13x faster, in one call. Every float16 is a float32, so both give
the same numbers; the cosines computed from them (numpy, as before) are unchanged.

onnxruntime is a dependency of the product (MiniLM runs on it) and is already loaded by a
home embedding with MiniLM; with another embedder the first large conversion loads it
(~0.15 s, ~35 MB resident of which ~20 MB shared library pages). Small blocks, or a process
where onnxruntime cannot load, convert with numpy. Where the process puts off set-up costs
(``start_cost.py``: an ``atc`` command, which ends after a frame or two), large blocks too
convert with numpy until it has converted :data:`DEFERRED_LOAD_VALUES` values, about the
load's cost in numpy's time: a `hash` home's ``atc hydrate`` or cold prompt hook no longer
loads onnxruntime to save a few milliseconds.

Contents:
    to_float32, cast_model
"""
from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from ..start_cost import deferred

__all__ = ["to_float32", "cast_model"]

#: Blocks of at least this many values go through onnxruntime, loading it if need be (its
#: first load costs ~0.15 s, which a process converting only small blocks never pays).
MIN_VALUES = 1 << 16
#: Blocks of at least this many values go through onnxruntime once it is loaded: its call
#: costs ~15 µs, numpy's cast ~1 ns a value in dense rows and ~4.4 ns in the ``hash``
#: embedder's sparse ones (16,384 values: 16 / 65 µs against ~18; 32,768: 142 against 21 µs
#: for sparse rows, measured on the 2-core AMD EPYC guest). A 100k-item frame's cosines of
#: its lexical hits (~60 rows of 512) are such a block.
MIN_LOADED_VALUES = 1 << 14

#: Where set-up costs are put off (start_cost.py), the values of blocks from MIN_VALUES numpy
#: converts before onnxruntime is loaded for the next ones: ~0.03-0.15 s of numpy's cast
#: (1-4.4 ns a value), what the load costs. A one-shot frame converts far fewer (a 336-item
#: home: 95,232; a 100k-item one: ~1.5 M).
DEFERRED_LOAD_VALUES = 1 << 25

_lock = threading.Lock()
_session: Any = None  # None: not tried yet; False: onnxruntime is not usable here
_converted_first = 0  # values of large blocks numpy converted while the load was put off


def to_float32(rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``rows`` as float32 (float16 rows converted exactly, others by numpy): a new array, or
    written into ``out`` (float32, C-contiguous, of ``rows``' shape) and returned. A caller that
    converts blocks of the same few sizes frame after frame passes one ``out`` it keeps: each
    new block onnxruntime returns is a fresh allocation of a few MB, and the C heap they are
    carved from stays at its largest (~40 MB more resident at 100k items)."""
    if (rows.dtype != np.float16 or rows.ndim != 2 or rows.size < MIN_LOADED_VALUES
            or ((_session is None or _session is False)
                and (rows.size < MIN_VALUES or _load_put_off(rows.size)))):
        if out is None:
            return np.asarray(rows, dtype=np.float32)
        out[...] = rows
        return out
    session = _cast_session()
    if session is False:
        if out is None:
            return rows.astype(np.float32)
        out[...] = rows
        return out
    rows = np.ascontiguousarray(rows)
    if out is None:
        return session.run(None, {"x": rows})[0]
    binding = session.io_binding()
    binding.bind_cpu_input("x", rows)
    binding.bind_output("y", "cpu", 0, np.float32, list(out.shape), out.ctypes.data)
    session.run_with_iobinding(binding)
    return out


def _load_put_off(values: int) -> bool:
    """Whether a block of ``values`` converts with numpy because loading onnxruntime is put
    off (start_cost.py) and has not yet paid for itself; counts them when it does. A process
    that already loaded onnxruntime (a MiniLM home) only builds the cast session."""
    global _converted_first
    if (not deferred() or "onnxruntime" in sys.modules
            or _converted_first >= DEFERRED_LOAD_VALUES):
        return False
    _converted_first += values
    return True


def _cast_session() -> Any:
    global _session
    if _session is None:
        with _lock:
            if _session is None:
                try:
                    import onnxruntime as ort

                    options = ort.SessionOptions()
                    options.intra_op_num_threads = 1  # no worker thread to wait for on a busy machine
                    options.inter_op_num_threads = 1
                    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
                    options.enable_cpu_mem_arena = False  # keep no buffer of the largest block
                    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                    _session = ort.InferenceSession(cast_model(), options,
                                                    providers=["CPUExecutionProvider"])
                except Exception:  # noqa: BLE001 - any failure: numpy's cast gives the same numbers
                    _session = False
    return _session


# -- the model: one Cast node, written as ONNX protobuf bytes (the onnx package is not needed) --
def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, value: int | str | bytes) -> bytes:
    """One protobuf field: a varint for an int, length-delimited for text or a message."""
    if isinstance(value, int):
        return _varint(number << 3) + _varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _matrix_info(name: str, elem_type: int) -> bytes:
    """ValueInfoProto of a 2-D tensor with symbolic dimensions (n rows of d values)."""
    shape = _field(1, _field(2, "n")) + _field(1, _field(2, "d"))
    tensor = _field(1, elem_type) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor))


def cast_model() -> bytes:
    """An ONNX model (IR 8, opset 13): ``y = Cast(x, to=FLOAT)`` for a float16 matrix ``x``."""
    float32, float16, attribute_int = 1, 10, 2
    to = _field(1, "to") + _field(3, float32) + _field(20, attribute_int)
    node = _field(1, "x") + _field(2, "y") + _field(3, "cast") + _field(4, "Cast") + _field(5, to)
    graph = (_field(1, node) + _field(2, "half_to_float") + _field(11, _matrix_info("x", float16))
             + _field(12, _matrix_info("y", float32)))
    return _field(1, 8) + _field(8, _field(1, "") + _field(2, 13)) + _field(7, graph)
