#!/usr/bin/env python3
"""What one curated item costs, by component: Prolog facts, atoms, vectors, BM25, Python tables.

Builds (or reuses, ``--home``) a home of ``--items`` synthetic items (scripts/bench/gen_corpus.py)
curated in the default configuration (echoes and distillation vectors on) with the ``hash``
embedder, then opens it in a fresh process and measures, dividing by the live items:

* **Prolog**, per dynamic predicate of the memory modules: clauses and bytes
  (``predicate_property(P, size(B))``: clauses, their strings and the clause indexes), grouped
  into items/relations (journal), rungs and distillations (ladder), arcs/rollups/echoes and the
  rest, plus the atom table (``statistics(atom_space)``);
* **vectors**: rows in the store and bytes of the vector log (memory-mapped; float16 rows, or
  float32 in an older store) and of the faiss index held in memory (none while searches scan
  the log exactly; the compressed IVF index from 50k vectors), and the latency of 200 searches
  (k = 10, stored vectors as queries) with their recall@10 against exact search of the same rows;
* **BM25**: bytes of its log and snapshot arrays on disk, and the Python heap its open index
  holds (tracemalloc, after importing the modules both indexes need: before round 4's
  "after" table the imports were counted in, ~13 MB);
* **process**: resident set size after opening the home, after opening BM25 and after opening
  the vectors (RSS deltas, so Python tables and mapped pages count where they are touched).

    nice .venv/bin/python scripts/bench/item_bytes.py --items 10000
    nice .venv/bin/python scripts/bench/item_bytes.py --items 10000 --host OTHER_CHECKOUT/host   # before

``--home`` measures an existing home instead (opened as a writer: an older store's float32 vector
log is migrated to float16 on that open, so measure such a home twice to see both states).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

_SIZES_PL = """
:- module(atc_bench_bytes, [pred_sizes/1, atom_bytes/2]).
pred_sizes(Rows) :-
    findall(row(M, N, A, C, B),
            ( member(M, [atc_journal, atc_ladder, atc_store, atc_jump, atc_cells, atc_grants,
                         atc_attention_state]),
              current_predicate(M:N/A), functor(H, N, A),
              \\+ predicate_property(M:H, imported_from(_)),
              predicate_property(M:H, dynamic),
              predicate_property(M:H, number_of_clauses(C)), C > 0,
              predicate_property(M:H, size(B)) ),
            Rows).
atom_bytes(Atoms, Bytes) :-
    statistics(atoms, Atoms),
    statistics(atom_space, Bytes).
"""

_MEASURE = r"""
import json, sys, tracemalloc
sys.path.insert(0, sys.argv[1])
from pathlib import Path
def rss(field="VmRSS:"):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    return 0
base = rss()
from attention_cloud import Memory
from attention_cloud.bridge import Var
imported = rss()
mem = Memory.open(sys.argv[2], create=False)
opened = rss()
mem.pl.consult(sys.argv[3])
(rows,) = mem.pl.once("atc_bench_bytes:pred_sizes", Var())
atoms, atom_space = mem.pl.once("atc_bench_bytes:atom_bytes", Var(), Var())
(stats,) = mem.pl.once("atc_journal:journal_stats", Var())
# import what the two indexes need first: module objects are not the indexes' heap
import faiss, numpy
import attention_cloud.embed.lexical, attention_cloud.embed.store, attention_cloud.embed.terms
tracemalloc.start()
lexical = mem.jump.lexical
lex_heap = tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
after_lexical = rss()
tracemalloc.start()
vectors = mem.jump.vectors
vec_heap = tracemalloc.get_traced_memory()[0]
tracemalloc.stop()
vectors.wait_for_index()
vectors.search(vectors.vector(vectors.keys()[0]), 10)
after_vectors = rss()
import time
import numpy as np
keys = vectors.keys()
rng = np.random.default_rng(1)
asked = [keys[i] for i in rng.choice(len(keys), size=min(200, len(keys)), replace=False)]
seconds, found = [], []
for key in asked:
    query = vectors.vector(key)
    started = time.perf_counter()
    found.append(vectors.search(query, 11))
    seconds.append(time.perf_counter() - started)
after_searches = rss()
anonymous, file_mapped = rss("RssAnon:"), rss("RssFile:")
index = getattr(vectors, "_index", None)
index_bytes = 0
if index is not None:
    try:
        import faiss
        index_bytes = len(faiss.serialize_index(index))
    except Exception:
        index_bytes = 0
present, matrix = vectors.vectors(keys)
matrix = np.ascontiguousarray(matrix, dtype=np.float32)
row_of = {key: i for i, key in enumerate(keys)}
queries = matrix[[row_of[key] for key in asked]]
exact_scores = queries @ matrix.T
# a hit counts when its exact score reaches the exact 10th best (identical texts tie exactly)
tenth = -np.sort(-exact_scores, axis=1)[:, 10:11]   # [:, 0] is the query's own row
row_dtype = str(getattr(vectors, "_dtype", "float32"))
recall16 = None
if row_dtype == "float32":  # what float16 rows would lose (an older store's float32 log)
    half = matrix.astype(np.float16).astype(np.float32)
    half_top = np.argsort(-(queries.astype(np.float16).astype(np.float32) @ half.T), axis=1)[:, 1:11]
    recall16 = float(np.mean(np.take_along_axis(exact_scores, half_top, axis=1) >= tenth - 1e-6))
store_hits = np.array([[row_of[k] for k, _ in hits if k != key][:10] for key, hits in zip(asked, found)])
recall_store = float(np.mean(np.take_along_axis(exact_scores, store_hits, axis=1) >= tenth - 1e-6))
ms = np.array(seconds) * 1000
print(json.dumps({
    "recall10_float16": recall16, "recall10_store": recall_store, "row_dtype": row_dtype,
    "search_p50_ms": float(np.percentile(ms, 50)), "search_p95_ms": float(np.percentile(ms, 95)),
    "live": stats["live"],
    "preds": [[str(r.args[0]), str(r.args[1]), int(r.args[2]), int(r.args[3]), int(r.args[4])]
              for r in rows],
    "atoms": atoms, "atom_space": atom_space,
    "rss": {"python": imported - base, "open": opened - imported,
            "bm25": after_lexical - opened, "vectors": after_vectors - after_lexical,
            "searches": after_searches - after_vectors, "total": after_searches,
            "anonymous": anonymous, "file_mapped": file_mapped},
    "bm25_heap": lex_heap, "vector_heap": vec_heap, "bm25_docs": len(lexical),
    "vector_rows": len(vectors), "vector_dim": vectors.dim, "index_bytes": index_bytes,
    "index_kind": vectors.index_kind,
}))
"""

GROUPS = {
    "journal: items": ("atc_journal", ("item_",)),
    "journal: relations": ("atc_journal", ("relation_",)),
    "ladder: rungs": ("atc_ladder", ("rung_",)),
    "ladder: distilled": ("atc_ladder", ("distill_",)),
    "ladder: provenance": ("atc_ladder", ("provenance_",)),
    # since the packed form: one record_/11 per curated record (rungs, distillation, implied
    # provenance, curator, L0 tokens) and the entity index; the three rows above then hold
    # only what a home still has in the first forms
    "ladder: records (record_/11)": ("atc_ladder", ("record_",)),
    # a fact per occurrence (entity_/3) until a snapshot writes a group per entity (entity_ids_/2)
    "ladder: entity index (entity_/3, entity_ids_/2)": ("atc_ladder", ("entity_",)),  # a prefix of both
}


def build(home: Path, items: int, data: Path) -> dict:
    from attention_cloud import Memory
    from attention_cloud.home import write_config
    from gen_corpus import generate

    generate(items, data, seed=1)
    home.mkdir(parents=True)
    write_config(home, {"embedder": "hash"})
    figures = {}
    with Memory.open(home) as mem:
        started = time.perf_counter()
        figures["ingested"] = mem.ingest([data]).new
        figures["ingest_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        figures["curate"] = mem.curate().as_dict()
        figures["curate_s"] = round(time.perf_counter() - started, 1)
        mem.snapshot()
    return figures


def disk(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--home", type=Path, default=None,
                        help="an existing curated home to measure (else one is built)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--host", type=Path, default=ROOT / "host",
                        help="the attention_cloud code to build and measure with (another checkout's: a before)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.host))
    work = Path(tempfile.mkdtemp(prefix="item-bytes-"))
    home = args.home
    built = {}
    if home is None:
        home = work / "home"
        built = build(home, args.items, work / "data")
        print("built:", json.dumps(built), flush=True)
    helper = work / "atc_bench_bytes.pl"
    helper.write_text(_SIZES_PL, encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(args.host), str(home), str(helper)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"measuring failed:\n{out.stderr[-3000:]}")
    m = json.loads(out.stdout.strip().splitlines()[-1])
    live = m["live"]
    rows: list[tuple[str, int, int]] = []  # component, count, bytes
    grouped = {name: [0, 0] for name in GROUPS}
    other = [0, 0]
    for module, name, _, clauses, size in m["preds"]:
        for group, (gm, prefixes) in GROUPS.items():
            if module == gm and name.startswith(prefixes):
                grouped[group][0] += clauses
                grouped[group][1] += size
                break
        else:
            other[0] += clauses
            other[1] += size
    rows += [(g, c, b) for g, (c, b) in grouped.items()]
    rows.append(("prolog: other facts (arcs, echoes, marks, ...)", other[0], other[1]))
    rows.append(("prolog: atom table", m["atoms"], m["atom_space"]))
    vec_disk = disk(home / "vectors")
    dtype = m.get("row_dtype", "float32")
    rows.append((f"vectors: {dtype} rows (mapped log)", m["vector_rows"],
                 m["vector_rows"] * m["vector_dim"] * (2 if dtype == "float16" else 4)))
    rows.append((f"vectors: faiss index in memory ({m['index_kind']})", m["vector_rows"], m["index_bytes"]))
    rows.append(("vectors: Python tables (keys, rows, meta)", m["vector_rows"], m["vector_heap"]))
    rows.append(("BM25: Python heap of the open index", m["bm25_docs"], m["bm25_heap"]))
    print(f"\nhome {home}: {live} live items; disk: journal+snapshot "
          f"{(disk(home) - vec_disk - disk(home / 'lexical')) / 1e6:.1f} MB, vectors {vec_disk / 1e6:.1f} MB, "
          f"BM25 {disk(home / 'lexical') / 1e6:.1f} MB\n")
    print("| component | records | records/item | bytes | bytes/item |")
    print("|---|---|---|---|---|")
    for name, count, size in rows:
        print(f"| {name} | {count:,} | {count / live:.1f} | {size / 1e6:.1f} MB | {size / live:,.0f} |")
    facts = sum(c for _, c, _ in rows[:len(GROUPS) + 1])
    prolog = sum(b for _, _, b in rows[:len(GROUPS) + 2])
    print(f"| **Prolog total** | {facts:,} facts | {facts / live:.1f} | {prolog / 1e6:.1f} MB | {prolog / live:,.0f} |")
    r = m["rss"]
    print("\nRSS (fresh process; anonymous and file_mapped split the total): "
          + ", ".join(f"{k} {v / 1e6:.0f} MB" for k, v in r.items())
          + f"; per item after open {(r['total'] - r['python']) / live:,.0f} bytes")
    print(f"vector search ({m['index_kind']}, {dtype} rows): p50 {m['search_p50_ms']:.2f} ms, "
          f"p95 {m['search_p95_ms']:.2f} ms; recall@10 against exact search of the stored rows "
          f"{m['recall10_store']:.4f} (200 stored vectors as queries)")
    if m.get("recall10_float16") is not None:
        print(f"float16 rows instead (half the bytes): recall@10 against float32 exact search "
              f"{m['recall10_float16']:.4f}")
    if args.json:
        args.json.write_text(json.dumps({"built": built, "measured": m}, indent=1))
    if args.home is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
