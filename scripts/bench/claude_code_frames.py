#!/usr/bin/env python3
"""What a frame built from real Claude Code sessions is worth: is the line that answers a
developer's question in it, against BM25's frame of the same budget.

The real sessions (``../shared/data/claude-code-real``: two long sessions with their subagents
and three short ones) are ingested and curated (``--embedder``, ``hash`` by default: no model)
in a fresh home, and each goal of :data:`GOALS` is hydrated at each budget. A goal holds when
one of its evidence lines (a diagnostic, a decision, a subagent's finding, written down by
reading the sessions, never tuned on) is in the frame's text, matched without regard to case or
runs of white space; BM25's frame holds the top items by BM25 over their L0 text, whole, while
they fit the same budget (``longmemeval.bm25_frame``, paying the product's framing lines).

Beside the hits, for each frame: facts of a subagent's files and how many of them say so
(``subagent:`` on the fact, or the prompt of the main agent), pairs of near-identical facts
(the same tool output twice: word-set Jaccard of 0.8 or more), and facts shown as an excerpt
of a longer L0 (what a huge tool result is cut to).

    nice .venv/bin/python scripts/bench/claude_code_frames.py
    nice .venv/bin/python scripts/bench/claude_code_frames.py --show 3 --budgets 500
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data import CLAUDE_CODE_REAL  # noqa: E402
from bench_env import markdown_table, run_header  # noqa: E402

#: (goal, evidence lines): a goal holds when any of its lines is in the frame
GOALS: list[tuple[str, tuple[str, ...]]] = [
    ("why did the pre-commit check fail when committing the OTEL dependencies",
     ("[FORMAT] Code is not formatted.",)),
    ("which function did credo say was too complex",
     ("Function is too complex (cyclomatic complexity is 13, max is 9)",
      "hooks_controller.ex:144:7 #(SpotterWeb.HooksController.tool_call)")),
    ("what did dialyzer report about otel_trace_helpers.ex",
     ("otel_trace_helpers.ex:57:13:pattern_match",
      "get_current_trace_id()` always returns `:error`")),
    ("why did git push fail",
     ("fatal: The current branch spotter-a0y has no upstream branch.",)),
    ("how was the branch spotter-a0y finally pushed to origin",
     ("git push --set-upstream origin spotter-a0y",)),
    ("which test failed in sync_transcripts_test and why",
     ("assert length(db_messages) == result.ingested_messages",
      "test sync_session_file/2 is idempotent — repeated sync does not duplicate messages")),
    ("why could spotter.css not be added to the commit",
     ("The following paths are ignored by one of your .gitignore files:",
      "spotter.css` is gitignored")),
    ("what did we decide about committing spotter.css given the gitignore",
     ("git add -f priv/static/assets/spotter.css",
      "changes to it need to be staged explicitly")),
    ("which files did the subagent read to understand the session hook controllers",
     # files only the subagent read (the main agent read the others too)
     ("read lib/spotter/services/review_token_store.ex", "read lib/spotter_web/channels/user_socket.ex",
      "read lib/spotter_web/endpoint.ex", "read spotter-plugin/scripts/lib/trace_context.sh",
      "read test/spotter/services/review_session_registry_test.exs")),
    ("what version constraint did the subagent recommend for opentelemetry_api",
     ("**Recommended Constraint:** `~> 1.5`",)),
    ("why did git add of the message upsert migration fail",
     ("is beyond a symbolic link",)),
    ("which code quality tools did I choose to set up",
     ("Credo + Dialyxir + mix_audit",)),    # the user's answer to the agent's question
    ("why does scrolling in xterm.js not work inside the page",
     ("xterm.js capturing all scroll events, preventing page scrolling",
      "it may prevent scroll events from bubbling up to parent elements")),
    # what a check run after an edit reported (a PostToolUse hook's context: qa203)
    ("what did credo flag in sync_transcripts.ex after the edit",
     ("Function body is nested too deep (max depth is 2, was 3)",)),
    ("why did pane_list_live.ex fail to compile",
     ("undefined function session_status_badge/1",)),
]

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


def normal(text: str) -> str:
    """``text`` in lower case with each run of white space one space (a frame re-wraps
    nothing, but its lines are indented and a label may stand before them)."""
    return _SPACE.sub(" ", text).strip().lower()


def holds(text: str, evidence: tuple[str, ...]) -> bool:
    """Whether any evidence line is in ``text``."""
    flat = normal(text)
    return any(normal(line) in flat for line in evidence)


def near_duplicates(texts: list[str], threshold: float = 0.8) -> int:
    """Pairs among ``texts`` whose word sets overlap by ``threshold`` (Jaccard) or more."""
    sets = [set(_WORD.findall(t.lower())) for t in texts]
    return sum(1 for i, a in enumerate(sets) for b in sets[i + 1:]
               if a and b and len(a & b) / len(a | b) >= threshold)


@dataclass
class Row:
    goal: str
    hits: dict[int, bool] = field(default_factory=dict)
    bm25: dict[int, bool] = field(default_factory=dict)
    facts: dict[int, int] = field(default_factory=dict)
    subagent: dict[int, tuple[int, int]] = field(default_factory=dict)  # (facts, labelled)
    repeats: dict[int, int] = field(default_factory=dict)
    excerpts: dict[int, int] = field(default_factory=dict)


def sessions(data: Path) -> list[Path]:
    """The session files and the subagent folders of ``data``."""
    return sorted(data.glob("*.jsonl")) + sorted(data.glob("*/subagents"))


def run(data: Path, embedder: str, budgets: list[int], show: int) -> tuple[list[Row], str]:
    from attention_cloud import Memory
    from attention_cloud.bridge import Var
    from attention_cloud.vector_texts import indexed_text
    from attention_cloud.embed import LexicalIndex
    from attention_cloud.home import write_config
    from longmemeval import baseline_framing, bm25_frame

    with tempfile.TemporaryDirectory(prefix="claude-code-frames-") as scratch:
        home = Path(scratch) / "home"
        home.mkdir()
        write_config(home, {"embedder": embedder})
        rows: list[Row] = []
        with Memory.open(home) as mem:
            started = time.perf_counter()
            report = mem.ingest(sessions(data))
            mem.curate()
            built = (f"{report.new} items from {data} (ingest + curate {time.perf_counter() - started:.1f} s, "
                     f"embedder {embedder})")
            texts = {str(h): str(t) for h, t in mem.pl.solutions("atc_journal:item_text", Var(), Var())}
            in_subagent = {str(r["H"]) for r in mem.query("relation(H, agent, _)").rows}
            lexical = LexicalIndex()
            handles = sorted(texts)
            lexical.add(handles, [indexed_text(texts[h], None) for h in handles])
            for goal, evidence in GOALS:
                row = Row(goal)
                scores = lexical.scores(goal)
                order = sorted(scores, key=lambda h: (-scores[h], h))
                for budget in budgets:
                    frame = mem.hydrate(goal, budget=budget)
                    row.hits[budget] = holds(frame.text, evidence)
                    kept = bm25_frame(order, texts, budget, baseline_framing(goal, budget))
                    row.bm25[budget] = holds("\n".join(texts[h] for h in kept), evidence)
                    row.facts[budget] = len(frame.facts)
                    sub = [f for f in frame.facts if f.handle in in_subagent]
                    labelled = sum(1 for f in sub if f.text.lstrip().startswith(("subagent", "assistant")))
                    row.subagent[budget] = (len(sub), labelled)
                    row.repeats[budget] = near_duplicates([f.text for f in frame.facts])
                    row.excerpts[budget] = sum(1 for f in frame.facts if f.excerpt_spans)
                    if show > 0 and budget == budgets[0] and not row.hits[budget]:
                        print(f"\n--- {goal!r} @{budget}: evidence not in frame\n{frame.text[:4000]}")
                        show -= 1
                rows.append(row)
        return rows, built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=CLAUDE_CODE_REAL)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--show", type=int, default=0,
                        help="print the first N frames (at the first budget) that miss")
    args = parser.parse_args(argv)
    if not any(args.data.glob("*.jsonl")):
        parser.error(f"no Claude Code sessions (*.jsonl) in {args.data}; give --data FOLDER")
    print(run_header("claude_code_frames"))
    rows, built = run(args.data, args.embedder, args.budgets, args.show)
    print(built)
    header = ["goal"] + [h for b in args.budgets for h in (
        f"@{b} frame", f"@{b} BM25", f"@{b} facts", f"@{b} subagent (labelled)",
        f"@{b} near-duplicate pairs", f"@{b} excerpts")]
    table = []
    for r in rows:
        cells = [r.goal]
        for b in args.budgets:
            n, labelled = r.subagent[b]
            cells += ["yes" if r.hits[b] else "no", "yes" if r.bm25[b] else "no", str(r.facts[b]),
                      f"{n} ({labelled})", str(r.repeats[b]), str(r.excerpts[b])]
        table.append(cells)
    total = ["**evidence in frame**"]
    for b in args.budgets:
        total += [f"{sum(r.hits[b] for r in rows)}/{len(rows)}",
                  f"{sum(r.bm25[b] for r in rows)}/{len(rows)}",
                  str(sum(r.facts[b] for r in rows)),
                  "{} ({})".format(*map(sum, zip(*(r.subagent[b] for r in rows)))),
                  str(sum(r.repeats[b] for r in rows)), str(sum(r.excerpts[b] for r in rows))]
    print(markdown_table(header, table + [total]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
