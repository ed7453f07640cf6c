#!/usr/bin/env python3
"""What one echo search costs on a home's vector store: ``search_many`` as curation's echo
detection calls it (a chunk of item vectors, k = 8, filtered to items), and without the filter.

Opens ``--vectors`` (a home's ``vectors`` folder) read-only, takes ``--queries`` stored item
vectors as the chunk, and prints the open time, the index kind and milliseconds per query; then,
for each ``--nprobe`` (IVF lists visited; the store's default is 16), the time a query and the
share of the default's hits at cosine >= 0.92 (echo candidates) that it still finds.

    .venv/bin/python scripts/bench/echo_search.py --vectors HOME/vectors [--queries 512] [--nprobe 16 4 2 1]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))


def main(argv: list[str] | None = None) -> int:
    from attention_cloud.curate.echoes import ECHO_CANDIDATES
    from attention_cloud.embed.store import VectorStore

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vectors", type=Path, required=True, help="a home's vectors folder (read only)")
    parser.add_argument("--queries", type=int, default=512, help="item vectors in the chunk (curation: 512)")
    parser.add_argument("--nprobe", type=int, nargs="*", default=[16, 4, 2, 1], help="IVF lists visited")
    args = parser.parse_args(argv)
    manifest = json.loads((args.vectors / "manifest.json").read_text(encoding="utf-8"))
    started = time.perf_counter()
    store = VectorStore.open(args.vectors, embedder_id=manifest["embedder_id"], dim=manifest["dim"],
                             read_only=True)
    kind = store.wait_for_index()
    print(f"open {time.perf_counter() - started:.1f} s, index {kind}, {len(store):,} vectors")
    keys = [k for k in store.keys()[:50 * args.queries] if "#" not in k and not k.startswith("arc")]
    matrix = np.stack([store.vector(k) for k in keys[: args.queries]])
    for label, meta in (("filtered to items (curation)", {"record": "item"}), ("unfiltered", None)):
        started = time.perf_counter()
        store.search_many(matrix, ECHO_CANDIDATES, filter_meta=meta)
        print(f"{label}: {(time.perf_counter() - started) / len(matrix) * 1000:.2f} ms a query")
    store.close()
    from attention_cloud.embed.faiss_index import IndexPolicy

    reference: set[tuple[int, str]] | None = None
    for nprobe in args.nprobe:
        store = VectorStore.open(args.vectors, embedder_id=manifest["embedder_id"], dim=manifest["dim"],
                                 read_only=True, policy=IndexPolicy(ivf_nprobe=nprobe))
        store.wait_for_index()
        started = time.perf_counter()
        hits = store.search_many(matrix, ECHO_CANDIDATES, filter_meta={"record": "item"})
        ms = (time.perf_counter() - started) / len(matrix) * 1000
        close = {(i, key) for i, row in enumerate(hits) for key, score in row
                 if score >= 0.92 and key != keys[i]}
        reference = close if reference is None else reference
        kept = len(close & reference) / max(1, len(reference))
        print(f"nprobe {nprobe}: {ms:.2f} ms a query, {len(close)} pairs at cosine >= 0.92, "
              f"{kept:.3f} of nprobe {args.nprobe[0]}'s")
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
