#!/usr/bin/env python3
"""What goal-focused excerpts cost a frame: hydrate.pl's excerpt phase on LongMemEval homes.

For each instance of ``--ids`` (default: the dev split's single-session-assistant questions of
``--limit 70``, whose haystacks hold long assistant answers), the haystack is ingested and
curated as ``longmemeval.py`` does (``--cache``: the bench's vector cache), then its question is
hydrated ``--repeat`` times per budget through ``hydrate.py``'s instrumented ``hydrate/3`` (each
goal of ``hydrate_segment_/6`` clocked by thread CPU time); the *excerpt* phase is
``excerpts_/5`` (choosing the long facts left below L0, a call of the host per fact that splits
and scores its sentences, ``attention_cloud.excerpt``, and the excerpts it puts in place). Printed: p50 and p95 CPU
ms of the excerpt phase and of all phases, per budget, and how many frames hold an excerpt.

    .venv/bin/python scripts/bench/excerpt_cost.py --cache /work/coord/cache/lme-vectors
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import longmemeval as lme  # noqa: E402
from bench_env import markdown_table, percentile_ms, run_header  # noqa: E402
from hydrate import load_phases  # noqa: E402


def measure(inst: lme.Instance, args: argparse.Namespace, workdir: Path,
            cpu: dict[int, dict[str, list[float]]], excerpted: dict[int, int]) -> None:
    """Build the instance's home and clock its question's frames (see module doc)."""
    from attention_cloud import Memory
    from attention_cloud.bridge import Atom, Var, to_plain
    from attention_cloud.home import write_config

    folder = workdir / inst.qid
    lme.write_sessions(inst, folder / "sessions")
    home = folder / "home"
    home.mkdir()
    write_config(home, {"embedder": args.embedder})
    mem = Memory.open(home)
    try:
        if args.cache is not None and not mem.jump.disabled:
            mem.jump._embedder = lme.CachedEmbedder(mem.jump.embedder, args.cache)
        mem.ingest([folder / "sessions"])
        mem.curate()
        mem.jump  # the host's predicates (search, excerpts) registered
        load_phases(mem)
        for budget in args.budgets:
            options = {"budget": budget, "plane": Atom("default"), "ceiling": Atom("l0"), "segments": []}
            for _ in range(args.repeat):
                (frame, times) = mem.pl.once("bench_hydrate_phases:timed_hydrate", inst.question,
                                             options, Var(), Var())
                seen = {str(t.args[0]): float(t.args[2]) for t in times}
                cpu[budget]["excerpt"].append(seen.get("excerpt", 0.0))
                cpu[budget]["all"].append(sum(seen.values()))
            meta = to_plain(frame.args[0])
            excerpted[budget] += any(s["excerpted"] for s in meta["segments"])
    finally:
        mem.close()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--data", type=Path, default=lme.DEFAULT_DATA)
    parser.add_argument("--ids", nargs="+", help="question ids (default: the single-session-assistant "
                                                 "ones of --limit 70)")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--repeat", type=int, default=5, help="frames per question and budget (default 5)")
    parser.add_argument("--cache", type=Path, default=lme.CACHE / "lme-vectors")
    parser.add_argument("--no-cache", dest="cache", action="store_const", const=None)
    args = parser.parse_args(argv)
    instances = lme.load_instances(args.data, None if args.ids else 70, args.ids)
    if not args.ids:
        instances = [i for i in instances if i.qtype == "single-session-assistant"]
    cpu = {b: {"excerpt": [], "all": []} for b in args.budgets}
    excerpted = {b: 0 for b in args.budgets}
    with tempfile.TemporaryDirectory(prefix="excerpt-cost-") as tmp:
        for inst in instances:
            measure(inst, args, Path(tmp), cpu, excerpted)
    rows = [[f"{b}", f"{len(cpu[b]['all'])}", f"{excerpted[b]} of {len(instances)}",
             f"{percentile_ms(cpu[b]['excerpt'], 50):.2f}", f"{percentile_ms(cpu[b]['excerpt'], 95):.2f}",
             f"{percentile_ms(cpu[b]['all'], 50):.1f}", f"{percentile_ms(cpu[b]['all'], 95):.1f}"]
            for b in args.budgets]
    print(run_header("Excerpt cost per frame") + "\n"
          + markdown_table(["budget", "frames", "questions whose frame holds an excerpt",
                            "excerpt phase CPU ms p50", "p95", "all phases CPU ms p50", "p95"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
