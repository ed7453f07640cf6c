"""Where the benchmarks' data sets live: beside the repository, in ``../shared/data`` (resolved
from the repository root, not the working folder), or wherever ``--data`` says.

    LONGMEMEVAL_DEV   ../shared/data/longmemeval-dev: LongMemEval instances, one JSON file each
    CLAUDE_CODE_REAL  ../shared/data/claude-code-real: real Claude Code sessions (JSONL)
    require_data      the folder, or the parser's one-line error saying what is missing
"""
from __future__ import annotations

import argparse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = ROOT.parent / "shared" / "data"
LONGMEMEVAL_DEV = SHARED_DATA / "longmemeval-dev"
CLAUDE_CODE_REAL = SHARED_DATA / "claude-code-real"


def shown(path: Path) -> str:
    """``path`` relative to the repository root when it lies beside it (for help texts)."""
    try:
        return str(Path("..") / path.relative_to(ROOT.parent))
    except ValueError:
        return str(path)


def require_data(path: Path, parser: argparse.ArgumentParser, flag: str = "--data",
                 pattern: str = "*.json") -> Path:
    """``path`` when it is a folder holding ``pattern`` files; otherwise exit through
    ``parser.error`` (status 2) naming the folder and the flag that chooses another."""
    if not path.is_dir():
        parser.error(f"no data folder {path} (LongMemEval instances, one JSON file each); "
                     f"put it there or give {flag} FOLDER")
    if not any(path.glob(pattern)):
        parser.error(f"data folder {path} holds no {pattern} files; give {flag} FOLDER")
    return path
