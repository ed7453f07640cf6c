#!/usr/bin/env python3
"""Budgeted ambient recall on LongMemEval: does the prompt hook inject memory, and is it right?

For each instance (a subset of the dev split; MiniLM curation costs ~100 s an instance on the
2-core machine, so homes are built once into ``--homes`` and reused):

1. the haystack is ingested and curated into a home, as ``scripts/bench/longmemeval.py`` does
   (one OpenAI-style transcript per session);
2. **positive**: the instance's own question is sent through the prompt hook's decision
   (:func:`attention_cloud.agents.hooks.ambient_recall`, the very function
   ``atc hook user-prompt`` runs) in a fresh hook session, with no bar: we record the best new
   fact's score and the share of the question's evidence turns whose item is in the frame it
   would inject (any rung);
3. **negative control**: the question of the next instance (about another person's history)
   is sent the same way; its best score is recorded;
4. a bar injects when the best score reaches it: the table gives, per bar, the share of own
   questions injected, the evidence recall among them, and the share of negative-control
   prompts injected (which should be low); the default bar is marked;
5. **novelty**: the instance's question is sent a second time in the same hook session, with
   the default bar: the facts injected the first time are not injected again.

    .venv/bin/python scripts/bench/ambient.py --limit 12 --embedder minilm
    .venv/bin/python scripts/bench/ambient.py --limit 12 --embedder hash --homes /tmp/amb-hash

Prints a table and a summary; ``--json PATH`` writes every decision.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data import LONGMEMEVAL_DEV  # noqa: E402
from bench_env import CACHE  # noqa: E402
from longmemeval import POINTER, Instance, load_instances, write_sessions  # noqa: E402


def build_home(inst: Instance, root: Path, embedder: str) -> Path:
    """The instance's curated home under ``root`` (built once; reused when complete)."""
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    folder = root / inst.qid
    home = folder / "home"
    if (folder / "done").exists():
        return home
    if folder.exists():
        import shutil

        shutil.rmtree(folder)
    stems = write_sessions(inst, folder / "sessions")
    (folder / "stems.json").write_text(json.dumps(stems), encoding="utf-8")
    home.mkdir()
    write_config(home, {"embedder": embedder})
    with Memory.open(home) as mem:
        mem.ingest([folder / "sessions"], segment="default")
        mem.curate()
    (folder / "done").write_text("ok\n", encoding="utf-8")
    return home


def evidence_handles(mem: Any, inst: Instance, folder: Path) -> set[str]:
    """Handles of the items holding the instance's evidence turns."""
    stems = json.loads((folder / "stems.json").read_text(encoding="utf-8"))
    evidence = inst.evidence
    found: set[str] = set()
    for row in mem.query("item(H), item_source(H, P)", limit=1_000_000).rows:
        m = POINTER.match(row["P"])
        if m and (stems.get(Path(m["file"]).stem), int(m["turn"])) in evidence:
            found.add(row["H"])
    return found


def frame_items(mem: Any, frame: Any) -> set[str]:
    """Items a frame holds at any rung: its items, and the members of its arcs."""
    out: set[str] = set()
    for fact in frame.receipt["facts"]:
        handle = fact["handle"]
        if handle.startswith("it_"):
            out.add(handle)
        else:
            out.update(r["H"] for r in mem.query(f"arc_member({json.dumps(handle)}, H)").rows)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every instance's decisions. The positive and negative prompts run with no bar
    (``min_score=0``), so each records its best new fact's score and what the frame would
    inject; :func:`summarise` then applies each bar of the sweep, the default among them."""
    from attention_cloud import Memory
    from attention_cloud.agents.ambient import default_min_score
    from attention_cloud.agents.hooks import ambient_recall

    instances = pick(args)
    rows = []
    for number, inst in enumerate(instances):
        started = time.perf_counter()
        home = build_home(inst, args.homes, args.embedder)
        built_s = time.perf_counter() - started
        other = instances[(number + 1) % len(instances)]
        with Memory.open(home, create=False) as mem:
            bar = default_min_score(args.embedder)
            evidence = set() if inst.abstention else evidence_handles(mem, inst, args.homes / inst.qid)
            session = f"bench-{inst.qid}-{time.time()}"
            pos = ambient_recall(mem, inst.question, session_id=session, budget=args.budget,
                                 min_score=0.0)
            again = ambient_recall(mem, inst.question, session_id=session, budget=args.budget,
                                   min_score=bar)
            neg = ambient_recall(mem, other.question, session_id=f"neg-{session}",
                                 budget=args.budget, min_score=0.0, record=False)
            got = frame_items(mem, pos.frame) if pos.inject else set()
            recall = (len(got & evidence) / len(evidence)) if (pos.inject and evidence) else None
            repeated = frame_items(mem, again.frame) & got if again.inject else set()
        row = {"qid": inst.qid, "qtype": inst.qtype, "abstention": inst.abstention,
               "best": pos.decision.get("best_score"), "evidence_recall": recall,
               "facts": pos.decision.get("kept"),
               "tokens": pos.frame.receipt["budget"]["spent"],
               "negative_best": neg.decision.get("best_score"),
               "repeat_inject": again.inject, "repeat_reinjected": len(repeated),
               "repeat_reason": again.decision["reason"], "build_s": round(built_s, 1)}
        rows.append(row)
        print(f"{inst.qid:<16} {inst.qtype:<26} best={row['best']!s:<7} "
              f"recall={'-' if recall is None else f'{recall:.2f}':<5} facts={row['facts']:<3} "
              f"negbest={row['negative_best']!s:<7} again={str(again.inject):<5} "
              f"({row['build_s']} s)", flush=True)
    return summarise(rows, default_min_score(args.embedder))


def pick(args: argparse.Namespace) -> list[Instance]:
    """The instances: ``--limit`` of them round-robin over question types, after the first
    ``--offset`` of that order (a held-out set beside the one the bars were chosen on)."""
    return load_instances(args.data, args.limit + args.offset)[args.offset:]


def summarise(rows: list[dict[str, Any]], default_bar: float) -> dict[str, Any]:
    """Inject share, evidence recall when injecting and negative-control inject share per bar."""
    answerable = [r for r in rows if not r["abstention"]]
    sweep = []
    bars = sorted({round(b / 100, 2) for b in range(20, 71, 5)} | {default_bar})
    for bar in bars:
        injected = [r for r in answerable if (r["best"] or 0) >= bar]
        recalls = [r["evidence_recall"] for r in injected if r["evidence_recall"] is not None]
        sweep.append({
            "bar": bar, "default": bar == default_bar,
            "inject_share": round(len(injected) / len(answerable), 3) if answerable else None,
            "evidence_recall_when_injecting": round(sum(recalls) / len(recalls), 3)
            if recalls else None,
            "negative_inject_share": round(sum((r["negative_best"] or 0) >= bar for r in rows)
                                           / len(rows), 3),
            "abstention_inject": sum((r["best"] or 0) >= bar for r in rows if r["abstention"]),
        })
    summary = {"instances": len(rows), "answerable": len(answerable),
               "repeat_inject_share": round(sum(r["repeat_inject"] for r in rows) / len(rows), 3),
               "repeat_reinjected_facts": sum(r["repeat_reinjected"] for r in rows),
               "sweep": sweep, "rows": rows}
    print()
    print("| bar | inject share (own question) | evidence recall when injecting | "
          "negative control: inject share |")
    print("|---|---|---|---|")
    for row in sweep:
        mark = " (default)" if row["default"] else ""
        print(f"| {row['bar']:.2f}{mark} | {row['inject_share']} | "
              f"{row['evidence_recall_when_injecting']} | {row['negative_inject_share']} |")
    print(f"\nsame question again in the same session: injected {summary['repeat_inject_share']}"
          f" of the time, {summary['repeat_reinjected_facts']} facts injected twice")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=LONGMEMEVAL_DEV)
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--offset", type=int, default=0,
                        help="Skip the first N instances of the round-robin order (12: the "
                             "instances after those the default bars were chosen on).")
    parser.add_argument("--budget", type=int, default=800)
    parser.add_argument("--homes", type=Path, default=None,
                        help="Where the curated homes are built and kept "
                             "[default: .local/bench-cache/ambient-EMBEDDER].")
    parser.add_argument("--build-only", action="store_true", help="Only build the homes.")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    args.homes = args.homes or CACHE / f"ambient-{args.embedder}"
    args.homes.mkdir(parents=True, exist_ok=True)
    if args.build_only:
        for inst in pick(args):
            started = time.perf_counter()
            build_home(inst, args.homes, args.embedder)
            print(f"{inst.qid}: {time.perf_counter() - started:.1f} s", flush=True)
        return 0
    summary = run(args)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
