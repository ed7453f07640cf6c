"""Ctrl-C during embedding stops it after the batches in hand, not after the whole call.

`atc curate` and `atc curate --reembed` embed thousands of texts per call, one batch per core
at once. A Ctrl-C reaches the main thread, which waits on the workers; they went on through
every batch of the call before `atc: interrupted` (minutes with MiniLM on a busy machine).
The real batch runner is driven here with a stand-in for the model's forward pass.
"""
from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from attention_cloud.embed.onnx_model import OnnxEmbedder


class _Tokenizer:
    pad_id = 0


@pytest.mark.serial  # Ctrl-C answered within 1 s of wall time: alone, not beside workers
def test_ctrl_c_stops_the_embedding_workers_after_their_current_batch():
    embedder = object.__new__(OnnxEmbedder)
    embedder.threads = 2
    embedder._bulk_session = object()  # the workers' shared session (never loaded here)
    embedder.tokenizer = _Tokenizer()
    ran = []
    interrupted = threading.Event()

    def forward(session, sequences, pad_id):
        ran.append(interrupted.is_set())
        if len(ran) == 4:  # a few batches in: the user presses Ctrl-C
            interrupted.set()
            os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.02)
        return np.ones((len(sequences), 4), dtype=np.float32)

    embedder._run = forward
    batches = [[i] for i in range(200)]  # 200 one-row batches: ~2 s of work on two workers
    out = np.zeros((200, 4), dtype=np.float32)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        embedder._run_batches(batches, [[1, 2]] * 200, out)
    assert sum(ran) <= embedder.threads  # each worker finished the batch it was running, no more
    assert time.monotonic() - started < 1.0
