#!/usr/bin/env python3
"""Budgeted ambient recall on LongMemEval: does the prompt hook inject memory, and is it right?

For each instance (a subset of the dev split; MiniLM curation costs ~100 s an instance on the
2-core machine, so homes are built once into ``--homes`` and reused):

1. the haystack is ingested and curated into a home, as ``scripts/bench/longmemeval.py`` does
   (one OpenAI-style transcript per session);
2. **positive**: the instance's own question is sent through the prompt hook's decision
   (:func:`attention_cloud.agents.hooks.ambient_recall`, the very function
   ``atc hook user-prompt`` runs) in a fresh hook session: we record whether it injects, and
   when it does, the share of the question's evidence turns whose item is in the injected frame
   (any rung) — *evidence recall when injecting*;
3. **negative control**: the question of another instance (unrelated to this memory) is sent
   the same way: it should decline;
4. **novelty**: the instance's question is sent a second time in the same hook session: the
   facts injected the first time are not injected again, so it should decline or inject only
   new facts.

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
    from attention_cloud import Memory
    from attention_cloud.agents.hooks import ambient_recall

    instances = load_instances(args.data, args.limit)
    rows = []
    for number, inst in enumerate(instances):
        started = time.perf_counter()
        home = build_home(inst, args.homes, args.embedder)
        built_s = time.perf_counter() - started
        other = instances[(number + 1) % len(instances)]
        with Memory.open(home, create=False) as mem:
            evidence = set() if inst.abstention else evidence_handles(mem, inst, args.homes / inst.qid)
            session = f"bench-{inst.qid}"
            pos = ambient_recall(mem, inst.question, session_id=session, budget=args.budget)
            again = ambient_recall(mem, inst.question, session_id=session, budget=args.budget)
            neg = ambient_recall(mem, other.question, session_id=f"bench-neg-{inst.qid}",
                                 budget=args.budget)
            got = frame_items(mem, pos.frame) if pos.inject else set()
            recall = (len(got & evidence) / len(evidence)) if (pos.inject and evidence) else None
            again_new = len(frame_items(mem, again.frame) & got) if again.inject else 0
        row = {"qid": inst.qid, "qtype": inst.qtype, "abstention": inst.abstention,
               "inject": pos.inject, "reason": pos.decision["reason"],
               "best": pos.decision.get("best_score"), "evidence_recall": recall,
               "negative_inject": neg.inject, "negative_best": neg.decision.get("best_score"),
               "negative_reason": neg.decision["reason"],
               "repeat_inject": again.inject, "repeat_overlap": again_new,
               "repeat_reason": again.decision["reason"], "build_s": round(built_s, 1)}
        rows.append(row)
        print(f"{inst.qid:<16} {inst.qtype:<26} inject={str(pos.inject):<5} "
              f"best={row['best']!s:<6} recall={'-' if recall is None else f'{recall:.2f}':<5} "
              f"neg={str(neg.inject):<5} negbest={row['negative_best']!s:<6} "
              f"again={str(again.inject):<5} ({row['build_s']} s)", flush=True)
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in rows if not r["abstention"]]
    injected = [r for r in answerable if r["inject"]]
    recalls = [r["evidence_recall"] for r in injected if r["evidence_recall"] is not None]
    summary = {
        "instances": len(rows),
        "inject_share": round(len(injected) / len(answerable), 3) if answerable else None,
        "evidence_recall_when_injecting": round(sum(recalls) / len(recalls), 3) if recalls else None,
        "negative_inject_share": round(sum(r["negative_inject"] for r in rows) / len(rows), 3),
        "repeat_inject_share": round(sum(r["repeat_inject"] for r in rows) / len(rows), 3),
        "repeat_reinjected_facts": sum(r["repeat_overlap"] for r in rows),
        "rows": rows,
    }
    print()
    for key, value in summary.items():
        if key != "rows":
            print(f"{key}: {value}")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=LONGMEMEVAL_DEV)
    parser.add_argument("--limit", type=int, default=12)
    parser.add_argument("--embedder", default="minilm")
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
        for inst in load_instances(args.data, args.limit):
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
