#!/usr/bin/env python3
"""Distil the static embedding table from the pinned MiniLM model (see attention_cloud.embed.static).

Example:
    python scripts/distill_static.py                  # writes to the default cache path
    python scripts/distill_static.py --out /tmp/t.npy
Then use the embedder spec ``static`` (or ``static:/tmp/t.npy``).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))

from attention_cloud.embed.static import default_static_path, distill_static_table  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help=f"default: {default_static_path()}")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    path = distill_static_table(args.out or default_static_path())
    print(f"wrote {path} in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
