#!/usr/bin/env python3
"""A real Claude Code session resumed into a new file whose old file is in another folder: is
anything held twice, and do the new records keep the old goal.

The real session ``fa812bfe…`` of ``../shared/data/claude-code-real`` is cut where its user
typed "continue until all are done", as ``claude --resume`` would leave it
(``tests/claude_code_21.py:resumed_real_session``), in a temp folder: the old file moved to
``backup/``, the new one in ``project/`` holding the records again rewritten with the new id
(``rewritten``) or only the records from the cut on (``none``). Each file is ingested alone,
in the order given, then both again; printed: items, texts held twice, items superseded, new
items on the second ingest, and the goals of the new session's items.

    nice .venv/bin/python scripts/bench/claude_code_resumed.py
    PYTHONPATH=<another tree>/host nice .venv/bin/python scripts/bench/claude_code_resumed.py
"""
from __future__ import annotations

import collections
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from bench_data import CLAUDE_CODE_REAL  # noqa: E402
from claude_code_21 import resumed_real_session  # noqa: E402

NEW = "9e75e551-0000-4000-8000-000000000002"
CASES = (("rewritten", "old first"), ("rewritten", "new first"), ("none", "old first"))


def main() -> None:
    from attention_cloud import Memory

    real = CLAUDE_CODE_REAL / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
    for copies, order in CASES:
        root = Path(tempfile.mkdtemp())
        old, new = resumed_real_session(real, root / "project", NEW, copies)
        backup = root / "backup" / old.name
        backup.parent.mkdir()
        old.rename(backup)
        first, second = (backup, new) if order == "old first" else (new, backup)
        with Memory.open(root / "home") as mem:
            one, two = mem.ingest([str(first)]), mem.ingest([str(second)])
            again = mem.ingest([str(backup), str(new)])
            rows = mem.query("item_text(H, T), item_session(H, S), item_goal(H, G)",
                             limit=100_000).rows
        twice = sum(1 for n in collections.Counter(r["T"] for r in rows).values() if n > 1)
        goals = collections.Counter(r["G"][:40] for r in rows if r["S"] == NEW)
        print(f"{copies}, {order}: items {one.new} + {two.new} = {len(rows)}, texts twice "
              f"{twice}, superseded {two.superseded}, again new {again.new}, goals of the new "
              f"session {dict(goals.most_common(2))}")


if __name__ == "__main__":
    main()
