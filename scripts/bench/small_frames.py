#!/usr/bin/env python3
"""Small frames over several segments, and frames of mounted cells: how much of the budget they
spend, and how many hold nothing.

Two homes, curated with ``--embedder`` (hash by default: no model), built in a temporary folder:

- **work / chats / recipes**: the bundled sample sessions in segment ``work``, a dated text chat
  of named people in ``chats`` and a short unnamed recipe chat in ``recipes`` (the shape
  ``tests/test_frame_budget_property.py`` draws frames from);
- **sample / chats / agents**: the sample in ``default``, the dated text chat and an OpenAI chat
  with names in ``chats``, and a SWE-agent trajectory and a real Claude Code session in
  ``agents`` when ``--data`` holds them (``agent-trajectories/swe-agent__test-repo-i1.traj``,
  ``claude-code-real/short.jsonl``).

For each home: five goals at every budget from ``--low`` to ``--high`` tokens (every ``--step``,
default plane), counting the frames that hold no fact or breadcrumb (and of those, the ones whose
receipt says memory holds nothing, which is untrue of these homes) and the mean share of the
budget a frame costs as written (:func:`written`: its facts' and breadcrumbs' text and its own
lines), over the frames that hold something and over all (an empty frame 0, as round 24's table
counted); then the five goals over a mount of the home's smallest and largest cell (depth 0) at
``--mount-budgets``.

    nice .venv/bin/python scripts/bench/small_frames.py
    nice .venv/bin/python scripts/bench/small_frames.py --embedder minilm --step 2
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_env import markdown_table, run_header  # noqa: E402

from attention_cloud import Memory  # noqa: E402
from attention_cloud.cells import cells_list  # noqa: E402
from attention_cloud.curate import estimate_tokens  # noqa: E402
from attention_cloud.home import write_config  # noqa: E402
from attention_cloud.samples import sample_paths  # noqa: E402

CHAT = """\
[2023-05-01 09:12] Priya: I signed up for a pottery class at the Clayhouse studio, first session is on Thursday.
[2023-05-01 09:14] Tomás: Nice! Is that the one near the river? I took a glazing workshop there in 2021.
[2023-05-04 19:40] Priya: The pottery class was great yesterday, we made bowls. Bring an apron next time.
[2023-05-10 08:05] Tomás: I'm flying to Lisbon on May 20 for the Halvorsen & Kim job interview.
[2023-05-22 21:30] Tomás: The interview went well last week, they offered me the job.
"""
RECIPES = """\
**user**: A quick dinner with chickpeas and spinach?
**assistant**: Try a chickpea curry with coconut milk, it takes twenty minutes.
**user**: Can I use frozen spinach?
**assistant**: Yes, thaw it and squeeze the water out first.
"""
TRIP = [
    ("user", "dana", "2024-02-10T08:01:00Z",
     "I want to plan a 5 day trip to Kyoto in April. Budget is 2000 dollars."),
    ("assistant", "guide", "2024-02-10T08:01:30Z",
     "Day 1 Fushimi Inari early, day 2 Arashiyama, day 3 Kiyomizu-dera and Gion, day 4 Nara, "
     "day 5 Nishiki market. Cherry blossoms peak in early April, so book hotels now."),
    ("user", "dana", "2024-02-11T10:00:00Z", "Can you recommend a ryokan under 200 dollars a night?"),
    ("assistant", "guide", "2024-02-11T10:00:40Z",
     "Try Ryokan Shimizu near Kyoto Station (about 120 dollars) or Hiiragiya Bekkan (around 190)."),
]
GOALS = ["why did charges fail when the processor timed out",
         "When did Priya start the pottery class?",
         "what did Tomás say about Lisbon last week",
         "chickpea curry", "zzz nothing matches qqq"]
DATA = Path("/work/shared/data")


def build_homes(root: Path, embedder: str, data: Path) -> dict[str, Path]:
    """The two homes, curated; their names as the table writes them."""
    (root / "friends.txt").write_text(CHAT, encoding="utf-8")
    (root / "recipes.md").write_text(RECIPES, encoding="utf-8")
    (root / "kyoto.json").write_text(json.dumps(
        [{"role": r, "name": n, "timestamp": t, "content": c} for r, n, t, c in TRIP]),
        encoding="utf-8")
    agents = [p for p in (data / "agent-trajectories" / "swe-agent__test-repo-i1.traj",
                          data / "claude-code-real" / "short.jsonl") if p.exists()]
    shapes = {
        "work / chats / recipes": [(sample_paths(), "work"), ([root / "friends.txt"], "chats"),
                                   ([root / "recipes.md"], "recipes")],
        "sample / chats / agents": [(sample_paths(), "default"),
                                    ([root / "friends.txt", root / "kyoto.json"], "chats"),
                                    *([(agents, "agents")] if agents else [])],
    }
    homes = {}
    for number, (name, parts) in enumerate(shapes.items()):
        home = root / f"home{number}"
        home.mkdir()
        write_config(home, {"embedder": embedder})
        with Memory.open(home) as mem:
            for paths, segment in parts:
                mem.ingest(list(paths), segment=segment)
            mem.curate()
        homes[name] = home
    return homes


def written(frame) -> int:
    """What a frame costs as written: its facts' and breadcrumbs' text counted as the frame
    writes them, and its own lines (the receipt's ``framing``, which counts the lines written).
    Not the receipt's ``spent``: before qa106 it counted a fact's name, rung and date note
    apart, each rounded up, and said more than the frame held."""
    return (sum(estimate_tokens(f.text) for f in frame.facts)
            + sum(estimate_tokens(" ".join(c["text"].split())) for c in frame.receipt["beyond"])
            + frame.receipt["budget"]["framing"])


def measure(home: Path, budgets: list[int], mount_budgets: list[int]) -> dict[str, object]:
    """One home's figures (see the module's docstring)."""
    with Memory.open(home) as mem:
        empty = untrue = 0
        shares: list[float] = []   # frames that hold something
        held: list[float] = []     # every frame, an empty one 0
        facts: list[int] = []
        for goal in GOALS:
            for budget in budgets:
                frame = mem.hydrate(goal, budget=budget)
                r = frame.receipt
                if not (r["facts"] or r["beyond"]):
                    empty += 1
                    untrue += not r.get("empty")   # no reason given: "memory holds nothing"
                    held.append(0.0)
                    continue
                shares.append(written(frame) / budget)
                held.append(shares[-1])
                facts.append(len(r["facts"]))
        rows = cells_list(mem)
        mounted = {}
        if rows:
            small = min(rows, key=lambda row: row["size"])["id"]
            big = max(rows, key=lambda row: row["size"])["id"]
            for budget in mount_budgets:
                frames = [mem.hydrate(goal, budget=budget, mount=[small, big], depth=0)
                          for goal in GOALS]
                mounted[budget] = sum(written(f) / budget for f in frames) / len(frames)
    return {"frames": len(GOALS) * len(budgets), "empty": empty, "said_nothing": untrue,
            "share": sum(shares) / len(shares) if shares else 0.0,
            "all": sum(held) / len(held) if held else 0.0,
            "facts": sum(facts) / len(facts) if facts else 0.0, "mounted": mounted}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="hash", help="hash (default) or minilm, or any spec")
    parser.add_argument("--low", type=int, default=100, help="smallest budget (default 100)")
    parser.add_argument("--high", type=int, default=200, help="largest budget (default 200)")
    parser.add_argument("--step", type=int, default=4, help="budget step (default 4)")
    parser.add_argument("--mount-budgets", type=int, nargs="+", default=[900, 1500, 3000])
    parser.add_argument("--data", type=Path, default=DATA,
                        help=f"where the agent transcripts are (default {DATA})")
    args = parser.parse_args(argv)
    budgets = list(range(args.low, args.high + 1, args.step))
    started = time.perf_counter()
    print(run_header(f"small_frames.py --embedder {args.embedder} budgets {args.low}-{args.high} "
                     f"every {args.step}, mounts at {' '.join(map(str, args.mount_budgets))}"))
    with tempfile.TemporaryDirectory(prefix="atc-small-frames-") as tmp:
        homes = build_homes(Path(tmp), args.embedder, args.data)
        table = []
        for name, home in homes.items():
            m = measure(home, budgets, args.mount_budgets)
            mounted = m["mounted"]
            table.append([name, f"{m['empty']} of {m['frames']} ({m['said_nothing']} said memory "
                                f"held nothing)", f"{m['share']:.3f}", f"{m['all']:.3f}",
                          f"{m['facts']:.1f}",
                          *(f"{mounted[b]:.3f}" if b in mounted else "-"
                            for b in args.mount_budgets)])
    print(markdown_table(["home", "empty frames", f"written / budget, {args.low}-{args.high}",
                          "the same, an empty frame 0", "facts a frame", *(f"mounted @{b}" for b in args.mount_budgets)], table))
    print(f"\nwhole run {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
