#!/usr/bin/env python3
"""Which vectors of an item should the jump compare with a question? LongMemEval, item rankings.

For each scored LongMemEval instance (abstentions have no evidence) the haystack is ingested and
curated exactly as ``longmemeval.py`` does (same vector cache); then every item is ranked for
the question by ``(1 - s) * cosine + s * bm25 / max`` (``s``: BM25's share, 0.2 in the product)
with the cosine taken from

* ``text``: the item's text vector only (the product before distillation vectors);
* ``max(text, L2)``: the better of its text and distillation vectors (the product now);
* ``max(text, L1)``: the better of its text and its one-sentence summary (L1, embedded here);
* ``max(text, L1, L2)``: the best of the three;

* ``max(text, L2 over N)`` (``--l2-from N ...``): the distillation vector only for items whose
  text is longer than N word pieces (what embedding fewer distillations would cost); its row
  also says what share of the word pieces the product embeds for items (texts and
  distillations, MiniLM's tokenizer, at most 256 each) the variant would leave out;

and the share of the question's evidence turns among the top 5 / 10 / 20 / 40 items is
averaged over instances. No priors, arcs or walk: this separates which vectors an item has
from everything hydrate does with the ranking (``longmemeval.py`` measures the whole product).
``--no-l1`` leaves the L1 variants out (they embed every item's L1, uncached: slow).

    .venv/bin/python scripts/bench/lme_rankings.py                    # all 94 scored instances
    .venv/bin/python scripts/bench/lme_rankings.py --limit 12 --shares 0.4 0.2
    .venv/bin/python scripts/bench/lme_rankings.py --limit 50 --shares 0.2 --no-l1 --l2-from 32 64 255
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from bench_env import CACHE, markdown_table, progress, run_header  # noqa: E402
from bench_data import require_data  # noqa: E402
from longmemeval import DEFAULT_DATA, CachedEmbedder, item_map, load_instances, write_sessions  # noqa: E402

DEPTHS = (5, 10, 20, 40)
VARIANTS = ("text", "max(text, L2)", "max(text, L1)", "max(text, L1, L2)")


def rung_texts(mem: Any, handles: list[str], level: str, fallback: dict[str, str]) -> list[str]:
    from attention_cloud.bridge import Atom, Var

    out = []
    for handle in handles:
        found = mem.pl.once("atc_ladder:rung", Atom(handle), Atom(level), Var())
        out.append(str(found[0]) if found else fallback[handle])
    return out


def word_pieces(texts: list[str]) -> np.ndarray:
    """Word pieces MiniLM reads of each text ([CLS] and [SEP] included, at most 256)."""
    from attention_cloud.embed.onnx_model import DEFAULT_VOCAB, MINILM_MAX_LENGTH
    from attention_cloud.embed.wordpiece import WordPieceTokenizer

    global _TOKENIZER
    if _TOKENIZER is None:
        _TOKENIZER = WordPieceTokenizer.from_file(DEFAULT_VOCAB, max_length=MINILM_MAX_LENGTH)
    return np.array([len(_TOKENIZER.encode(t)) for t in texts], dtype=np.int64)


_TOKENIZER: Any = None


def instance_ranks(inst: Any, shares: list[float], embedder_spec: str, cache: Path | None,
                   workdir: Path, l2_from: list[int], with_l1: bool
                   ) -> tuple[dict[str, list[int]], dict[str, tuple[int, int]]]:
    """Rank of each evidence item per (variant, share) key, for one instance; and per
    ``--l2-from`` variant, (word pieces it leaves out, word pieces the product embeds)."""
    from attention_cloud import Memory
    from attention_cloud.embed import LexicalIndex
    from attention_cloud.home import write_config
    from attention_cloud.jump import distillation_key

    folder = workdir / inst.qid
    stems = write_sessions(inst, folder / "sessions")
    home = folder / "home"
    home.mkdir()
    write_config(home, {"embedder": embedder_spec})
    mem = Memory.open(home)
    try:
        embedder = mem.jump.embedder
        if cache is not None:
            mem.jump._embedder = embedder = CachedEmbedder(embedder, cache)
        mem.ingest([folder / "sessions"])
        mem.curate()
        where, texts = item_map(mem, stems)
        handles = sorted(texts)
        evidence = [i for i, h in enumerate(handles) if where[h] in inst.evidence]
        store = mem.jump.vectors
        text_vec = np.stack([store.vector(h) for h in handles])
        has_l2 = np.array([store.has(distillation_key(h)) for h in handles])
        l2_vec = np.stack([store.vector(distillation_key(h)) if has_l2[i] else store.vector(h)
                           for i, h in enumerate(handles)])
        query = embedder.embed([inst.question])[0]
        text, l2 = text_vec @ query, l2_vec @ query
        cosines = {"text": text, "max(text, L2)": np.maximum(text, l2)}
        if with_l1:
            l1 = embedder.embed(rung_texts(mem, handles, "l1", texts)) @ query
            cosines["max(text, L1)"] = np.maximum(text, l1)
            cosines["max(text, L1, L2)"] = np.maximum(np.maximum(text, l1), l2)
        left_out: dict[str, tuple[int, int]] = {}
        if l2_from:
            text_pieces = word_pieces([texts[h] for h in handles])
            l2_pieces = np.where(has_l2, word_pieces(rung_texts(mem, handles, "l2", texts)), 0)
            embedded = int(text_pieces.sum() + l2_pieces.sum())
            for least in l2_from:
                kept = has_l2 & (text_pieces > least)
                cosines[l2_variant(least)] = np.where(kept, np.maximum(text, l2), text)
                left_out[l2_variant(least)] = (int(l2_pieces[has_l2 & ~kept].sum()), embedded)
        lexical = LexicalIndex()
        lexical.add(handles, [texts[h] for h in handles])
        scores = lexical.scores(inst.question)
        best = max(scores.values(), default=0.0) or 1.0
        bm25 = np.array([scores.get(h, 0.0) / best for h in handles])
        ranks: dict[str, list[int]] = {}
        for variant, cosine in cosines.items():
            for share in shares:
                order = np.argsort(-((1 - share) * cosine + share * bm25), kind="stable")
                position = np.empty(len(order), dtype=np.int64)
                position[order] = np.arange(len(order))
                ranks[f"{variant}@{share}"] = [int(position[i]) for i in evidence]
        return ranks, left_out
    finally:
        mem.close()
        shutil.rmtree(folder, ignore_errors=True)


def l2_variant(least: int) -> str:
    return f"max(text, L2 over {least})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="LongMemEval instances (default ../shared/data/longmemeval-dev)")
    parser.add_argument("--limit", type=int, help="use N instances, question-type mix kept")
    parser.add_argument("--shares", type=float, nargs="+", default=[0.2, 0.4],
                        help="BM25 shares of the fused score (default 0.2 0.4)")
    parser.add_argument("--embedder", default="minilm", help="minilm (default), hash or any spec")
    parser.add_argument("--cache", type=Path, default=CACHE / "lme-vectors",
                        help="vector cache shared with longmemeval.py")
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None)
    parser.add_argument("--l2-from", type=int, nargs="+", default=[], metavar="N",
                        help="also rank with distillation vectors only for items over N word pieces")
    parser.add_argument("--no-l1", dest="l1", action="store_false",
                        help="leave out the L1 variants (they embed every item's L1)")
    args = parser.parse_args(argv)
    header = run_header("Item rankings on LongMemEval by the vectors an item has")
    # with --limit, the instances longmemeval.py --limit N takes (question-type mix kept; its
    # vector cache holds them), less the abstentions
    instances = [inst for inst in load_instances(require_data(args.data, parser), args.limit)
                 if not inst.abstention and inst.evidence]
    started = time.perf_counter()
    per_instance: list[dict[str, list[int]]] = []
    left_out = {l2_variant(least): [0, 0] for least in args.l2_from}
    with tempfile.TemporaryDirectory(prefix="lme-rank-") as tmp:
        for number, inst in enumerate(instances, start=1):
            ranks, pieces = instance_ranks(inst, args.shares, args.embedder, args.cache, Path(tmp),
                                           args.l2_from, args.l1)
            per_instance.append(ranks)
            for variant, (out, embedded) in pieces.items():
                left_out[variant][0] += out
                left_out[variant][1] += embedded
            progress(f"{number}/{len(instances)} {inst.qid}")
    variants = [v for v in VARIANTS if args.l1 or "L1" not in v]
    variants += [l2_variant(least) for least in args.l2_from]
    rows = []
    for variant in variants:
        for share in args.shares:
            key = f"{variant}@{share}"
            found = [float(np.mean([np.mean([rank < depth for rank in ranks[key]]) for ranks in per_instance]))
                     for depth in DEPTHS]
            out, embedded = left_out.get(variant, (0, 0))
            rows.append([variant, f"{share:.1f}", *[f"{v:.3f}" for v in found],
                         f"{out / embedded:.3f}" if embedded else "—"])
    table = markdown_table(["cosine of an item", "BM25 share", *[f"top {d}" for d in DEPTHS],
                            "word pieces left out"], rows)
    print(header + "\n" + f"{len(instances)} instances, embedder `{args.embedder}`; {time.perf_counter() - started:.0f} s.\n\n"
          + table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
