#!/usr/bin/env python3
"""Questions about real agent work, scored by evidence in the frame: one tree against another.

The real Claude Code sessions (``../shared/data/claude-code-real``: two long sessions with their
subagents, 800 items, most of them tool output) and the SWE-agent trajectory
(``../shared/data/agent-trajectories``) are ingested and curated with ``--embedder`` (default
``minilm``) in a fresh process per tree (``--before DIR``, then this checkout), and each question
of ``agent_questions.json`` is hydrated at each budget. A question holds when one of its
evidence items (handles, each an item that answers it, chosen by reading the sessions) is in the
frame, at any rung. Beside the frames, the ranking by vector alone: the items ordered by their
best vector (text or distillation) against the question's, and the rank of the first evidence
item (recall@5/10/20, MRR): what a change to the vectors moves before fusion hides it.

The questions were written by hand from the transcripts (what failed and why, which version,
which file, what a tool printed); nothing was tuned on them.

    nice .venv/bin/python scripts/bench/agent_questions.py --before /work/main
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data import CLAUDE_CODE_REAL, SHARED_DATA  # noqa: E402

QUESTIONS = Path(__file__).resolve().parent / "agent_questions.json"
TRAJECTORIES = SHARED_DATA / "agent-trajectories"

_WORKER = r"""
import json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import numpy as np
from attention_cloud import Memory
from attention_cloud.home import write_config
corpora, spec, budgets = json.loads(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
out = []
for corpus in corpora:
    home = Path(tempfile.mkdtemp(prefix="agent-questions-")) / "home"
    home.mkdir()
    write_config(home, {"embedder": spec})
    with Memory.open(home) as mem:
        mem.ingest([Path(p) for p in corpus["paths"]], strict=False)
        started = time.perf_counter()
        report = mem.curate()
        seconds = time.perf_counter() - started
        store = mem.jump.vectors
        keys = [k for k in store.keys() if k.startswith("it_")]
        _, matrix = store.vectors(keys)
        matrix = np.asarray(matrix, dtype=np.float32)
        items = sorted({k.split("#")[0] for k in keys})
        row_of = {h: i for i, h in enumerate(items)}
        owner = np.array([row_of[k.split("#")[0]] for k in keys])
        for goal, gold in corpus["questions"]:
            missing = [g for g in gold if not any(h.startswith("it_" + g) for h in items)]
            if missing:
                raise SystemExit(f"evidence {missing} of {goal!r} is not an item of this home")
            hits = {}
            for budget in budgets:
                frame = mem.hydrate(goal, budget=budget)
                hits[budget] = any(f.handle[3:3 + 8] in gold for f in frame.facts)
            best = np.full(len(items), -9.0, dtype=np.float32)
            np.maximum.at(best, owner, matrix @ mem.jump.embedder.embed([goal])[0])
            order = np.argsort(-best, kind="stable")
            rank = next(i for i, j in enumerate(order) if items[j][3:11] in gold) + 1
            out.append({"corpus": corpus["name"], "goal": goal, "hits": hits, "rank": rank})
        out.append({"corpus": corpus["name"], "curate": {"items": report.items,
                    "vectors": report.embedded, "seconds": round(seconds, 1)}})
print(json.dumps(out))
"""


def corpora(data: Path, trajectories: Path) -> list[dict]:
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    found = [{"name": "claude-code-real", "questions": questions["claude-code-real"],
              "paths": [str(p) for p in sorted(data.glob("*.jsonl")) + sorted(data.glob("*/subagents"))]}]
    if trajectories.is_dir():
        found.append({"name": "agent-trajectories", "questions": questions["agent-trajectories"],
                      "paths": [str(p) for p in sorted(trajectories.glob("*.traj"))]})
    return found


def run_tree(tree: Path, found: list[dict], spec: str, budgets: list[int]) -> list[dict]:
    done = subprocess.run([sys.executable, "-c", _WORKER, str(tree / "host"), json.dumps(found),
                           spec, json.dumps(budgets)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(rows: list[dict], corpus: str, budgets: list[int]) -> str:
    scored = [r for r in rows if r["corpus"] == corpus and "goal" in r]
    curate = next(r["curate"] for r in rows if r["corpus"] == corpus and "curate" in r)
    ranks = [r["rank"] for r in scored]
    cells = [f"{sum(r['hits'][str(b)] for r in scored) / len(scored):.3f}" for b in budgets]
    cells += [f"{sum(k <= n for k in ranks) / len(ranks):.2f}" for n in (5, 10, 20)]
    cells.append(f"{sum(1 / k for k in ranks) / len(ranks):.3f}")
    cells.append(str(curate["vectors"]))
    return " | ".join(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=CLAUDE_CODE_REAL)
    parser.add_argument("--trajectories", type=Path, default=TRAJECTORIES)
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout to compare with (its host/ is imported)")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000])
    args = parser.parse_args(argv)
    if not any(args.data.glob("*.jsonl")):
        parser.error(f"no Claude Code sessions (*.jsonl) in {args.data}; give --data FOLDER")
    found = corpora(args.data, args.trajectories)
    trees = ([("before", args.before.resolve())] if args.before else []) + [("after", ROOT)]
    print(f"embedder {args.embedder}; cpus {os.cpu_count()}; load {os.getloadavg()[0]:.1f} at start")
    results = {name: run_tree(tree, found, args.embedder, args.budgets) for name, tree in trees}
    header = ([f"evidence in frame @{b}" for b in args.budgets]
              + ["vector rank ≤5", "≤10", "≤20", "MRR", "vectors"])
    for corpus in [c["name"] for c in found]:
        count = len(next(c for c in found if c["name"] == corpus)["questions"])
        print(f"\n{corpus} ({count} questions)\n\n| tree | {' | '.join(header)} |\n"
              f"|---|{'---|' * len(header)}")
        for name, rows in results.items():
            print(f"| {name} | {summary(rows, corpus, args.budgets)} |")
    if args.before:
        print("\nquestions that differ (before -> after: frame hits per budget, vector rank):")
        for old, new in zip(results["before"], results["after"]):
            if "goal" in old and (old["hits"] != new["hits"] or old["rank"] != new["rank"]):
                print(f"  {old['goal']!r}: {old['hits']} -> {new['hits']}, rank {old['rank']} -> {new['rank']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
