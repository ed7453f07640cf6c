"""Whether a home has cells, and how many: one Prolog call each, apart from :mod:`.api` (and
numpy) so that `atc stats` and `Memory.stats` do not import the partitioning code."""
from __future__ import annotations

from typing import Any

from ..api_lock import serialised
from ..bridge import Var, to_plain


@serialised
def cells_exist(mem: Any) -> bool:
    """Whether memory holds a partition."""
    return mem.pl.succeeds("atc_cells:cells_exist")


@serialised
def cells_stats(mem: Any) -> dict[str, Any]:
    """Counts: cells, members, links, largest and smallest cell."""
    (stats,) = mem.pl.once("atc_cells:cells_stats", Var())
    return to_plain(stats)
