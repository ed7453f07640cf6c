#!/usr/bin/env python3
"""What keeping long messages and tool outputs whole as L0 costs and keeps, per item.

Ingests ``--data`` (default: the real Claude Code transcripts of ``claude-code-real``, their
subagents included) into a fresh home with the ``hash`` embedder and curates it, with the
attention_cloud code of ``--host`` (another checkout's ``host`` folder gives a before), and
prints: items; L0 characters per item (mean, largest); items whose L0 is longer than the old
head-and-tail cut (2,003 characters) and items the ``max_item_chars`` bound cut; the share of
every message's and output's characters that L0 holds; and the bytes per item of the journal
after ingest and after curation. ``--keep DIR`` leaves the home there (for
``scripts/bench/item_bytes.py --home DIR``).

    nice .venv/bin/python scripts/bench/long_texts.py
    nice .venv/bin/python scripts/bench/long_texts.py --host OTHER_CHECKOUT/host   # before
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "claude-code-real"
OLD_CUT = 1200 + 800 + 3
MARK = "characters cut here (over the"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="transcripts (a file or folder)")
    parser.add_argument("--host", type=Path, default=ROOT / "host",
                        help="the attention_cloud code to measure (another checkout's: a before)")
    parser.add_argument("--keep", type=Path, default=None, help="leave the home here")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.host))
    from attention_cloud import Memory
    from attention_cloud.home import write_config

    work = Path(tempfile.mkdtemp(prefix="long-texts-"))
    home = args.keep or work / "home"
    home.mkdir(parents=True)
    write_config(home, {"embedder": "hash"})
    with Memory.open(home) as mem:
        started = time.perf_counter()
        report = mem.ingest([args.data], strict=False)
        ingest_s = time.perf_counter() - started
        journal_ingest = (home / "journal.pl").stat().st_size
        (rows,) = [r["X"] for r in mem.query("findall(T, (item(H), item_text(H, T)), X)",
                                             limit=1).rows]
        started = time.perf_counter()
        mem.curate()
        curate_s = time.perf_counter() - started
    journal_curated = (home / "journal.pl").stat().st_size
    n = len(rows)
    lengths = [len(t) for t in rows]
    print(f"code: {args.host}; data: {args.data}; {report.files} files, {n} items "
          f"(ingest {ingest_s:.1f} s, curate {curate_s:.1f} s)")
    print(json.dumps({
        "items": n,
        "l0_chars_per_item": round(sum(lengths) / n, 1),
        "l0_chars_largest": max(lengths),
        "l0_utf8_bytes_per_item": round(sum(len(t.encode("utf-8")) for t in rows) / n, 1),
        "items_longer_than_old_cut": sum(1 for x in lengths if x > OLD_CUT),
        "items_with_old_cut_mark": sum(1 for t in rows if " … " in t),
        "items_cut_by_max_item_chars": sum(1 for t in rows if MARK in t),
        "journal_bytes_per_item_after_ingest": round(journal_ingest / n),
        "journal_bytes_per_item_after_curate": round(journal_curated / n),
    }, indent=1))
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
