#!/usr/bin/env python3
"""A batch per core against one session splitting each batch, on the texts ``atc curate`` embeds
for the real transcripts (``minilm_forms.py``'s texts), and what one text per pass does to
``minilm-q8``'s vectors.

For each form (``exact`` is what ``minilm`` runs, ``q8`` is ``minilm-q8``), rounds alternating:
*one session* runs the length-sorted batches one after another on the session with one
intra-op thread per core (the path before the workers); *workers* is ``embed()``, a batch per
core on a one-thread session. Texts/s wall and per CPU-second, and the largest coordinate
difference between the two (0.0 for the float32 form: each row is computed alone). Then the
q8 form's mean cosine to the float32 vectors, batched by 64 against one text per pass, and a
15-word goal's latency on one thread against two.

    nice .venv/bin/python scripts/bench/embed_workers.py --rounds 3
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from minilm_forms import DATA, curated_texts, embedder  # noqa: E402

GOAL = "fix the flaky retry test in the billing service after the timeout change"


def one_session(model, texts: list[str]) -> np.ndarray:
    """The batches of ``model.embed`` run one after another on its multi-threaded session."""
    from attention_cloud.embed.onnx_model import _length_batches

    encoded = [model.tokenizer.encode(t) for t in texts]
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    out = np.zeros((len(texts), model.dim), dtype=np.float32)
    rows = min(64, model.rows_per_batch or 64)
    for batch in _length_batches(order, encoded, rows, model.token_budget):
        out[batch] = model._run(model._session, [encoded[i] for i in batch], model.tokenizer.pad_id)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def timed(fn, texts: list[str]) -> tuple[float, float, np.ndarray]:
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = fn(texts)
    return time.perf_counter() - wall, time.process_time() - cpu, vectors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=1, help="keep every N-th text")
    args = parser.parse_args(argv)
    texts = curated_texts(args.data)[:: max(1, args.sample)]
    print(f"{len(texts)} texts; load {__import__('os').getloadavg()[0]:.1f}", flush=True)
    print("| form | path | round | texts/s wall | texts per CPU-s |")
    print("|---|---|---|---|---|")
    for form in ("exact", "q8"):
        model = embedder(form, 256, 2)
        if form == "q8":
            model.rows_per_batch = 1  # as minilm-q8 runs it
        paths = [("one session", lambda t, m=model: one_session(m, t)), ("workers", model.embed)]
        last: dict[str, np.ndarray] = {}
        for round_ in range(args.rounds):
            for name, fn in (paths if round_ % 2 == 0 else paths[::-1]):
                wall, cpu, last[name] = timed(fn, texts)
                print(f"| {form} | {name} | {round_ + 1} | {len(texts) / wall:.1f} | "
                      f"{len(texts) / cpu:.1f} |", flush=True)
        print(f"{form}: largest difference, one session vs workers: "
              f"{float(np.abs(last['one session'] - last['workers']).max()):.2e}")
    exact = embedder("exact", 256, 2).embed(texts)
    q8 = embedder("q8", 256, 2)
    batched = (q8.embed(texts, batch_size=64) * exact).sum(axis=1)
    q8.rows_per_batch = 1
    alone = (q8.embed(texts) * exact).sum(axis=1)
    print(f"q8 cosine to float32: batched by 64 mean {batched.mean():.5f} min {batched.min():.4f}; "
          f"a text per pass mean {alone.mean():.5f} min {alone.min():.4f}")
    for threads in (1, 2):
        model = embedder("exact", 256, threads)
        model.embed([GOAL])
        times = []
        for _ in range(30):
            start = time.perf_counter()
            model.embed([GOAL])
            times.append(time.perf_counter() - start)
        print(f"goal latency, {threads} thread(s): p50 {np.median(times) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
