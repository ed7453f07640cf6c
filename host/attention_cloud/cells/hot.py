"""Hot cells: which regions of memory recent frames drew from, read from the stored receipts.

Every ``atc hydrate`` stores its receipt under ``home/receipts/``. The newest ``RECEIPTS`` of
them are read: the files written last (the prompt hook stores one per prompt, so a home holds
thousands, and reading each to learn its time cost ~0.1 ms a file), ranked by their
``created`` time, then file name; each fact a receipt
lists counts ``HALF_LIFE``-halving weight by the receipt's rank (the newest counts 1, the
``HALF_LIFE``-th 0.5). Prolog maps the facts to cells (cell_hot/2 in rules/cells.pl), so
rules ask for hot cells mid-proof; this module only reads the files, and caches what it read
until the folder changes. The owner's hot cells count every receipt; a grantee's only the
receipts of their own frames (what others read is not theirs to see).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..bridge import Atom, Term

RECEIPTS = 50
HALF_LIFE = 10


def receipt_touches(home: Path, reader: str | None = None) -> list[tuple[str, float]]:
    """``(handle, weight)`` for every fact of the newest receipts (see the module doc); with
    ``reader``, of the newest receipts made for that grantee."""
    dated = []
    for path in _newest_first(home / "receipts"):
        try:
            receipt = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(receipt, dict):
            continue
        if reader is not None and receipt.get("reader") != reader:
            continue
        dated.append((str(receipt.get("created", "")), path.name, receipt))
        if len(dated) == RECEIPTS:
            break
    dated.sort(key=lambda entry: (entry[0], entry[1]), reverse=True)
    touches: dict[str, float] = {}
    for rank, (_, _, receipt) in enumerate(dated[:RECEIPTS]):
        weight = 0.5 ** (rank / HALF_LIFE)
        for fact in receipt.get("facts", []):
            handle = str(fact.get("handle", ""))
            if handle:
                touches[handle] = touches.get(handle, 0.0) + weight
    return sorted(touches.items())


def _newest_first(folder: Path) -> list[Path]:
    """The receipt files of ``folder``, the last written first (then by name)."""
    entries = []
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                if entry.name.endswith(".json"):
                    try:
                        entries.append((-entry.stat().st_mtime_ns, entry.name))
                    except OSError:
                        continue  # deleted meanwhile (an erasure)
    except OSError:
        return []
    entries.sort()
    return [folder / name for _, name in entries]


class ReceiptReader:
    """``atc_cells:receipt_touches(+Reader, -Touches)`` for one home (Reader ``none`` for the
    owner, else a grantee), cached per reader until the receipts folder changes."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._key: Any = None
        self._values: dict[str, list[Term]] = {}

    def __call__(self, reader: Any) -> list[Term]:
        folder = self.home / "receipts"
        try:
            stat = folder.stat()
            key = (stat.st_mtime_ns, stat.st_size, len(list(folder.iterdir())))
        except OSError:
            key = None
        if key != self._key:
            self._values = {}
            self._key = key
        name = str(reader)
        if name not in self._values:
            touches = receipt_touches(self.home, None if name == "none" else name)
            self._values[name] = [Term("-", [Atom(h), float(w)]) for h, w in touches]
        return self._values[name]

    def register(self, pl: Any) -> None:
        """Make this home's receipts what cell_hot/2 reads."""
        pl.register("receipt_touches", 2, self, module="atc_cells")
