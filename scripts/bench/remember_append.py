"""What one `remember` pays to append its record to remembered.jsonl, by how many notes the
file already holds: per-call ms of ``_append_record`` (fsync included), the best of three runs
of 100 calls. ``--before REV`` loads the function as it was at git revision REV and measures
it in the same run, alternating with the current one (a ratio on the same disk and load).

    nice .venv/bin/python scripts/bench/remember_append.py --notes 100 10000 100000 --before HEAD~1
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
MODULE = "host/attention_cloud/agents/remember.py"


def _function_at(rev: str) -> Callable[..., int]:
    """``_append_record`` as REV's remember.py had it (its relative imports made absolute)."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{MODULE}"], check=True,
                            capture_output=True, text=True).stdout
    source = source.replace("from ..", "from attention_cloud.").replace(
        "from .kinds", "from attention_cloud.agents.kinds")
    path = Path(tempfile.mkdtemp()) / "remember_before.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("remember_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module            # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module._append_record


def _filled(n: int) -> Path:
    path = Path(tempfile.mkdtemp()) / "remembered.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"handle": f"it_{i:016x}", "kind": "note", "segment": "default",
                                 "role": "user", "time": "2026-01-01T00:00:00Z", "goal": "g",
                                 "text": "a note of some words " * 12 + str(i)}) + "\n")
    return path


def _per_call_ms(append: Callable[..., int], n: int, calls: int = 100) -> float:
    path = _filled(n)
    append(path, {"handle": "warm", "text": "w", "time": "t"})
    started = time.perf_counter()
    for i in range(calls):
        append(path, {"handle": f"new{i}", "kind": "note", "text": f"x{i}", "time": "t"})
    return (time.perf_counter() - started) / calls * 1000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, nargs="+", default=[100, 10_000, 100_000])
    parser.add_argument("--before", metavar="REV", help="also measure REV's function")
    args = parser.parse_args(argv)
    from attention_cloud.agents.remember import _append_record

    versions: dict[str, Any] = {"now": _append_record}
    if args.before:
        versions = {f"at {args.before}": _function_at(args.before), **versions}
    print(f"`{' '.join([Path(sys.argv[0]).name, *(argv or sys.argv[1:])])}`\n")
    print("| notes in the file | " + " | ".join(f"{v} ms/call" for v in versions) + " |")
    print("|---|" + "---|" * len(versions))
    for n in args.notes:
        best = {v: min(_per_call_ms(fn, n) for _ in range(3)) for v, fn in versions.items()}
        print(f"| {n:,} | " + " | ".join(f"{ms:.2f}" for ms in best.values()) + " |")


if __name__ == "__main__":
    main()
