"""README's tables as the README tests read them."""
from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def first_cells(header: str) -> list[str]:
    """The first cell of each row of the README table whose header line is ``header``
    (``| command | what it does |``), as written (backticks and ``\\|`` kept)."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(header)
    cells = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells.append(line.split(" | ")[0])
    return cells
