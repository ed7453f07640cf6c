"""Where a home keeps its cells' files, and dropping the cached ones.

What an erasure needs of the cells: the paths of the feature-sum cache and of the copies of the
members' vector rows, to delete them (they hold the forgotten items' vectors). Kept apart from
:mod:`.api` and :mod:`.rows`, which import numpy to build and read them: `atc forget` needs
neither.

Contents:
    STATE_FILE, ROWS_META, PENDING, drop
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["STATE_FILE", "ROWS_META", "PENDING", "drop"]

#: Each cell's feature sum and count (cells/api.py), recomputed from the facts when missing.
STATE_FILE = Path("cells") / "state.npz"
#: The copies of the cells' member rows: what files they are in (cells/rows.py).
ROWS_META = Path("cells") / "rows.json"
#: Cells whose copies a killed cells step left to write again (cells/rows.py).
PENDING = Path("cells") / "rows.pending"


def drop(home: Path) -> None:
    """Delete the cell rows files (erasure: they hold copies of forgotten items' vectors)."""
    folder = home / ROWS_META.parent
    (home / ROWS_META).unlink(missing_ok=True)
    (home / PENDING).unlink(missing_ok=True)  # the next sync writes every cell
    for path in list(folder.glob("rows-*")) if folder.exists() else []:
        path.unlink(missing_ok=True)
