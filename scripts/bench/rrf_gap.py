#!/usr/bin/env python3
"""Why a plain RRF frame holds evidence the product's frame does not: the frames, read.

``conversational.py`` lists the instance-budgets where the RRF frame (MiniLM + BM25 fused by
reciprocal rank, whole items at L0 while they fit) holds more evidence than the product's
frame. This runs the same benchmark, through its own code and with the same arguments (every
``conversational.py`` option: ``--shapes``, ``--short-turns``, ``--ids``, ``--budgets``,
``--cache``, ...), and for each such instance-budget (``--all``: every instance-budget with
evidence) prints what a reader needs to tell why:

- each evidence item: its rank in the product's own jump order (``seed_ranking/5``, 600 deep,
  priors included, the goal read at the newest item's time where the frame reads it at the
  question's date), in the cosine list, the BM25 list and the RRF list; whether the RRF frame
  holds it; where the product's frame holds it (its rung, whether as an excerpt, its tokens),
  whether the receipt left it out as a near-duplicate or points at it as a breadcrumb;
- where each frame's tokens went (``CAP``): the product frame's facts and tokens by what
  brought them in (``longmemeval.fact_source``), its breadcrumbs, its framing; the RRF frame's
  items and their text tokens, the first RRF rank it had to skip (an item too long for what was
  left) and how many items it placed after that skip;
- unless ``--summary``: the product frame's facts in order (rung, score, what seeded them,
  their RRF rank, the start of their text; an evidence excerpt whole), what the receipt left
  out as near-duplicates, and the RRF frame's best-ranked items the product's frame lacks.

The benchmark's own report follows, unchanged. Nothing of the product is changed; the lines
come from wrapping the benchmark's functions (``rrf_order``, ``frame_sources``,
``bm25_frame``, ``jump_ranking``, ``run_questions``) for the run.

    .venv/bin/python scripts/bench/rrf_gap.py --shapes dev --ids 352ab8bd --cache DIR
    .venv/bin/python scripts/bench/rrf_gap.py --all --summary --short-turns --shapes conversational \\
        --budgets 2000 --ids 2c63a862 --cache DIR
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import conversational as conv  # noqa: E402
import longmemeval as lme  # noqa: E402

#: how deep the product's own jump order is read for an evidence item's rank
PRODUCT_DEPTH = 600


class Reader:
    """Wraps the benchmark's functions for one run and prints each instance-budget's lines
    once both frames of that budget are built (the second ``bm25_frame`` call of a budget is
    the RRF frame's, after the product's frame and its ``frame_sources``)."""

    def __init__(self, every: bool, summary: bool, out: Any = None) -> None:
        self.every, self.summary, self.out = every, summary, out
        self.state: dict[str, Any] = {}
        self.saved: dict[str, Any] = {}

    def install(self) -> None:
        """Wrap the benchmark's functions (undone by :meth:`remove`)."""
        for name in ("rrf_order", "frame_sources", "bm25_frame", "jump_ranking", "run_questions"):
            self.saved[name] = getattr(lme, name)
            setattr(lme, name, getattr(self, name))

    def remove(self) -> None:
        for name, fn in self.saved.items():
            setattr(lme, name, fn)

    def run_questions(self, questions: list[Any], *args: Any, **kw: Any) -> Any:
        self.state.update(qid=questions[0].qid, question=questions[0].question)
        return self.saved["run_questions"](questions, *args, **kw)

    def jump_ranking(self, mem: Any, question: str) -> list[str]:
        from attention_cloud.bridge import Atom, Var

        found = mem.pl.once("atc_hydrate:seed_ranking", question, Atom("default"), PRODUCT_DEPTH,
                            Var(), Var())
        self.state["product"] = [str(s.args[0]) for s in found[1]] if found else []
        return self.saved["jump_ranking"](mem, question)

    def rrf_order(self, *rankings: list[str], **kw: Any) -> list[str]:
        fused = self.saved["rrf_order"](*rankings, **kw)
        self.state.update(rankings=rankings, fused=fused)
        return fused

    def frame_sources(self, frame: Any, evidence_items: set[str]) -> Any:
        self.state.update(frame=frame, evidence=evidence_items, baselines=0)
        return self.saved["frame_sources"](frame, evidence_items)

    def bm25_frame(self, order: list[str], texts: dict[str, str], budget: int, *args: Any,
                   **kw: Any) -> set[str]:
        kept = self.saved["bm25_frame"](order, texts, budget, *args, **kw)
        self.state["baselines"] = self.state.get("baselines", 0) + 1
        if self.state["baselines"] == 2 and "frame" in self.state:
            self.report(budget, kept, texts)
        return kept

    def report(self, budget: int, rrf_kept: set[str], texts: dict[str, str]) -> None:
        """The lines of one instance-budget (see the module doc)."""
        from attention_cloud.curate import estimate_tokens

        frame, evidence, s = self.state["frame"], self.state["evidence"], self.state
        l0 = {f.handle for f in frame.facts if f.level.lower() == "l0" and not f.excerpt_spans}
        if not evidence or (not self.every and not (evidence & rrf_kept) - l0):
            return
        cosine, bm25 = s["rankings"][0], s["rankings"][-1]
        fused, product = s["fused"], s.get("product", [])
        receipt = frame.receipt
        p = lambda line: print(line, file=self.out or sys.stdout)  # noqa: E731
        p(f"\n=== {s['qid']} @{budget}: evidence {len(evidence)}, product L0 {len(evidence & l0)}, "
          f"RRF {len(evidence & rrf_kept)}")
        p(f"   question: {s['question']}")
        for h in sorted(evidence):
            shown = next((f for f in frame.facts if f.handle == h), None)
            where = (f"{shown.level}{' excerpt' if shown.excerpt_spans else ''} {shown.tokens} tokens"
                     if shown else "absent")
            left = [x.get("suppressed") for x in receipt.get("suppressed", []) if x.get("handle") == h]
            crumb = any(c.get("handle") == h for c in receipt.get("beyond", []))
            p(f"  evidence {h}: product #{_rank(product, h)} cosine #{_rank(cosine, h)} "
              f"BM25 #{_rank(bm25, h)} RRF #{_rank(fused, h)}; RRF frame {'holds' if h in rrf_kept else 'lacks'} it; "
              f"product frame: {where}{'; left out as ' + ','.join(map(str, left)) if left else ''}"
              f"{'; a breadcrumb' if crumb else ''}; {estimate_tokens(texts.get(h, ''))} tokens whole")
            p(f"      {texts.get(h, '')[:240]!r}")
        bridged = {str(b["handle"]) for b in receipt.get("bridged", [])}
        facts, tokens = Counter(), Counter()
        for f in frame.facts:
            src = lme.fact_source(f, bridged)
            facts[src] += 1
            tokens[src] += int(f.tokens)
        crumbs = receipt.get("beyond", [])
        skip = next((i for i, h in enumerate(fused) if h not in rrf_kept), len(fused))
        after = sum(1 for i, h in enumerate(fused) if h in rrf_kept and i > skip)
        p(f"  CAP @{budget}: product {len(frame.facts)} facts ("
          + ", ".join(f"{k} {facts[k]}/{tokens[k]}" for k in facts)
          + f"), breadcrumbs {len(crumbs)}/{sum(int(c.get('tokens', 0)) for c in crumbs)}, "
          f"framing {receipt['budget']['framing']} | RRF {len(rrf_kept)} items, "
          f"{sum(estimate_tokens(texts[h]) for h in rrf_kept)} text tokens, "
          + (f"first skip at RRF #{skip + 1}, {after} placed after it" if skip < len(fused)
             else "none skipped"))
        if self.summary:
            return
        p("  product frame, in order:")
        for f in frame.facts:
            mark = "EV" if f.handle in evidence else "  "
            text = f.text if (mark == "EV" and f.excerpt_spans) else f.text[:90]
            p(f"   {mark} {f.handle[:22]:22} {f.level} score {f.score} {f.seeded_by} hops {f.hops} "
              f"{f.tokens} tokens{' excerpt' if f.excerpt_spans else ''} RRF #{_rank(fused, f.handle)} | {text!r}")
        p("  left out as near-duplicates: " + ", ".join(
            f"{x.get('handle')} ({x.get('suppressed')} of {x.get('like')})" for x in receipt.get("suppressed", [])))
        shown_ids = {f.handle for f in frame.facts}
        p("  RRF frame's best items the product frame lacks (RRF rank): " + ", ".join(
            f"#{i + 1} {h}" for i, h in enumerate(fused[:80]) if h in rrf_kept and h not in shown_ids))


def _rank(order: list[str], handle: str) -> str:
    try:
        return str(order.index(handle) + 1)
    except ValueError:
        return "-"


def main(argv: list[str] | None = None) -> int:
    """``conversational.py``'s run with the lines above; ``--all`` and ``--summary`` are this
    script's, every other argument is passed on."""
    args = list(sys.argv[1:] if argv is None else argv)
    every, summary = "--all" in args, "--summary" in args
    args = [a for a in args if a not in ("--all", "--summary")]
    reader = Reader(every, summary)
    reader.install()
    try:
        return conv.main(args)
    finally:
        reader.remove()


if __name__ == "__main__":
    sys.exit(main())
