"""Reading a home's cells: list, show one, the hot ones.

Only Prolog is read (rules/cells.pl): `atc cells list|show|hot` need neither numpy nor the
partitioning code that :mod:`.api` imports to build cells (~0.2 s of CPU a command).

Contents:
    cells_list, cell_show, hot_cells
"""
from __future__ import annotations

from typing import Any

from .. import api_args
from ..api_lock import serialised
from ..bridge import Atom, Var, to_plain
from ..errors import BadArgument

__all__ = ["cells_list", "cell_show", "hot_cells"]


@serialised
def cells_list(mem: Any) -> list[dict[str, Any]]:
    """Every cell, largest first: id, size, span, entities, tags, segments, neighbours, l1."""
    (rows,) = mem.pl.once("atc_cells:cells_rows", Var())
    return [_row(r) for r in rows]


@serialised
def cell_show(mem: Any, cell: str) -> dict[str, Any]:
    """One cell: its aggregates, neighbours, ladder (L1..L3) and members (sorted);
    InputError when there is no such cell, UsageError when ``cell`` is not a string."""
    api_args.text("cell", cell)
    for row in cells_list(mem):
        if row["id"] == cell:
            break
    else:
        # to a program, the call that names them (the CLI's reader gets its command), as
        # Memory.hydrate's mount does; an empty id is said to be empty, not shown as nothing
        what = repr(cell) if not cell.strip() else cell
        raise BadArgument(f"{what}: no such cell (attention_cloud.cells.cells_list(mem) names "
                          "them)").told(cli=f"{what}: no such cell (atc cells list names them)")
    (members,) = mem.pl.once("atc_cells:cells_members", Atom(cell), Var())
    row["members"] = [str(h) for h in members]
    (central,) = mem.pl.once("atc_cells:cell_info", Atom(cell), Atom("central"), Var()) or ([],)
    row["central"] = [str(h) for h in central]
    row["ladder"] = {}
    for level in ("l1", "l2", "l3"):
        found = mem.pl.once("atc_ladder:rung", Atom(cell), Atom(level), Var())
        row["ladder"][level.upper()] = found[0] if found else ""
    return row


@serialised
def hot_cells(mem: Any, limit: int | None = 10) -> list[dict[str, Any]]:
    """The cells recent frames drew from, hottest first (see rules/cells.pl cell_hot/2), the
    first ``limit`` (every one: None); UsageError for a limit not a whole number of at least 1."""
    api_args.whole("limit", limit, minimum=1, optional=True)
    mem.jump  # registers the receipt reader
    rows = mem.pl.solutions("atc_cells:cell_hot", Var(), Var(), limit=limit)
    sizes = {r["id"]: r for r in cells_list(mem)} if rows else {}
    return [{"id": str(c), "score": float(s), "size": sizes.get(str(c), {}).get("size", 0),
             "l1": sizes.get(str(c), {}).get("l1", "")} for c, s in rows]


def _row(term: Any) -> dict[str, Any]:
    d = to_plain(term)
    d["id"] = str(d["id"])
    d["neighbours"] = [{"cell": str(c), "weight": float(w)} for c, w in d["neighbours"]]
    d["segments"] = [str(s) for s in d["segments"]]
    d["entities"] = [str(e) for e in d["entities"]]
    d["tags"] = [str(t) for t in d["tags"]]
    d["span"] = [str(t) for t in d["span"]]
    return d
