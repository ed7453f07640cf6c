"""The freeze record (§22.2): what exactly was evaluated, so a result can be reproduced.

It names the code (a hash over the Python package and the Prolog rules and facts, plus the git
commit when there is one), the generator version, the benchmark settings and where the seeds came
from — a hash of the seed list, never the seeds of a sealed run.
"""
from __future__ import annotations

import hashlib
import platform
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .generator import GENERATOR_VERSION

#: Version of the metric definitions and report layout.
BENCHMARK_VERSION = "attention-bench/1.0.0"

_PACKAGE = Path(__file__).resolve().parent.parent      # host/attention_cloud


def _code_files() -> list[Path]:
    files = sorted(p for p in _PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    root = _PACKAGE.parent.parent
    for sub in ("rules", "facts"):
        files += sorted((root / sub).glob("*.pl")) if (root / sub).is_dir() else []
    return files


def code_hash(files: Iterable[Path] | None = None) -> str:
    """SHA-256 over the relative paths and bytes of the evaluated code."""
    digest = hashlib.sha256()
    base = _PACKAGE.parent.parent
    for path in files if files is not None else _code_files():
        try:
            rel = path.resolve().relative_to(base)
        except ValueError:
            rel = Path(path.name)
        digest.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def git_revision() -> str | None:
    """``<commit>`` or ``<commit>-dirty`` for the checkout the package runs from, if any."""
    root = _PACKAGE.parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "host",
                                "rules", "facts"], capture_output=True, text=True, timeout=10,
                               check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}-dirty" if dirty else head


def seeds_hash(seeds: Iterable[int]) -> str:
    return hashlib.sha256(",".join(str(s) for s in seeds).encode()).hexdigest()[:16]


def freeze_record(settings: dict[str, Any]) -> dict[str, Any]:
    """The record printed at the top of every report and stored in the JSON output."""
    return {
        "benchmark_version": BENCHMARK_VERSION,
        "generator_version": GENERATOR_VERSION,
        "code_hash": code_hash(),
        "git_commit": git_revision(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "settings": settings,
    }
