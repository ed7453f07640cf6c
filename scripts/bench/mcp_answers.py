#!/usr/bin/env python3
"""What an MCP client's model reads: for each tool of ``atc mcp``, the characters and tokens
(the project's counter, :func:`attention_cloud.curate.estimate_tokens`) of an answer's text
content, which a model is shown, and of its structured content (compact JSON), which programs
read, beside the baseline: the text the SDK writes by default, the structured result as
indented JSON (every tool's text before qa128); ``hydrate`` at several budgets.

The home is built in a temporary folder from real Claude Code sessions (``--data``, by default
``../shared/data/claude-code-real``), ingested and curated with ``--embedder`` (hash: no
model); the answers come from a real ``atc mcp`` process through the SDK's own stdio client::

    nice .venv/bin/python scripts/bench/mcp_answers.py
    nice .venv/bin/python scripts/bench/mcp_answers.py --budgets 500 2000 8000 --embedder minilm
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_data import CLAUDE_CODE_REAL, shown  # noqa: E402
from bench_env import markdown_table, run_header  # noqa: E402

from attention_cloud.curate import estimate_tokens  # noqa: E402

ATC = str(Path(sys.executable).parent / "atc")
GOALS = ["why did the pre-commit check fail and how was it fixed", "why did git push fail"]


def build_home(home: Path, data: Path, embedder: str) -> None:
    """``data`` ingested and curated into ``home`` by the CLI, as a user would."""
    home.mkdir(parents=True)
    (home / "config.json").write_text(json.dumps({"embedder": embedder}), encoding="utf-8")
    for args in (["ingest", str(data)], ["curate"]):
        subprocess.run([ATC, *args, "--home", str(home)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def sizes(result: Any) -> tuple[int, ...]:
    """Characters and tokens of a tool result's text content; of its structured content as
    compact JSON; and of the text the SDK wrote by default (the result as indented JSON, what
    every tool's text was before qa128), the baseline: (0, 0) when it has none."""
    import pydantic_core

    text = "".join(getattr(block, "text", "") for block in result.content)
    data = result.structured_content
    structured = ("" if data is None else
                  json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    indented = "" if data is None else pydantic_core.to_json(data, indent=2).decode()
    return (len(text), estimate_tokens(text), len(structured), estimate_tokens(structured),
            len(indented), estimate_tokens(indented))


async def measure(home: Path, budgets: list[int]) -> list[list[Any]]:
    """One row per call: tool, its arguments in short, then :func:`sizes`."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    rows: list[list[Any]] = []
    params = StdioServerParameters(command=ATC, args=["mcp"],
                                   env={**os.environ, "ATC_HOME": str(home)})
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = {tool.name for tool in (await session.list_tools()).tools}

                async def call(name: str, args: dict[str, Any], label: str) -> Any:
                    result = await session.call_tool(name, args)
                    if result.is_error:
                        raise SystemExit(f"{name} {label}: {result.content[0].text}")
                    rows.append([name, label, *sizes(result)])
                    return result.structured_content

                handle = receipt_id = None
                for budget in budgets:
                    for n, goal in enumerate(GOALS):
                        frame = await call("hydrate", {"goal": goal, "budget": budget},
                                           f"goal {n + 1}, budget {budget}")
                        receipt_id = frame["receipt_id"]
                        facts = frame["receipt"]["facts"]
                        handle = handle or (facts[0]["handle"] if facts else None)
                if "receipt" in tools and receipt_id:
                    await call("receipt", {"receipt_id": receipt_id}, "the last frame's")
                await call("query", {"goal": "item_kind(H, error), item_goal(H, G)"},
                           "errors and their goals, limit 100")
                await call("query", {"goal": "item_kind(H, K)", "limit": 10}, "limit 10")
                if handle:
                    await call("show", {"handle": handle}, "a frame's first fact, L0")
                    await call("show", {"handle": handle, "source": True},
                               "the same, with its source")
                    await call("show", {"handle": handle, "level": "L2"}, "the same, L2")
                await call("remember", {"text": "the staging DB is read-only on Fridays"},
                           "a note")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=CLAUDE_CODE_REAL,
                        help="a folder of Claude Code sessions "
                             f"(default {shown(CLAUDE_CODE_REAL)})")
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--budgets", type=int, nargs="+", default=[500, 2000, 8000])
    args = parser.parse_args()
    if not args.data.exists():
        parser.error(f"no data at {args.data}; give --data FOLDER (Claude Code sessions)")
    import anyio

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        build_home(home, args.data, args.embedder)
        rows = anyio.run(measure, home, args.budgets)
    print(run_header("What an MCP client reads, tool by tool"))
    print(f"Home: {shown(args.data)} ingested and curated (embedder {args.embedder}).\n")
    print(markdown_table(["tool", "call", "text chars", "text tokens", "structured chars",
                          "structured tokens", "SDK default text chars",
                          "SDK default text tokens"], rows))


if __name__ == "__main__":
    main()
