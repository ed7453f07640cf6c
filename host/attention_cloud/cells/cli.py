"""``atc cells list|show|hot|rebuild``: the map of memory from the command line.

The ``cells`` group is declared in :mod:`attention_cloud.cli`, which loads these commands
when one is used (so the ``atc`` module never imports this one while it is itself loading).
"""
from __future__ import annotations

from typing import Any, Callable

import click

from ..cli import emit_json, fail_cleanly, for_terminal, home_option, not_blank, open_memory
from ..cli_base import command
from ..schema_option import schema_option
from . import listing

_FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                       show_default=True)


@command("list")
@schema_option("cells")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Show the N largest.")
@_FORMAT
@home_option
@fail_cleanly
def cells_list(limit: int | None, fmt: str, home: str | None) -> None:
    """Every cell, largest first: size, time span, top entities and tags, neighbours.

    Example: atc cells list --limit 5
    """
    rows, cells_on = _with_memory(home, lambda mem: (listing.cells_list(mem),
                                                     mem.config.get("cells", True)))
    rows = rows[:limit]
    if fmt == "json":
        emit_json(rows)
        return
    if not rows:
        click.echo("no cells yet (atc curate builds them)" if cells_on else
                   'no cells: "cells": false in config.json keeps atc curate from building '
                   "them (atc cells rebuild builds them once)")
    for r in rows:
        click.echo(for_terminal(
            f"{r['id']}  {r['size']} items  {_span(r['span'])}  "
            f"entities: {', '.join(r['entities'][:4]) or '-'}  "
            f"neighbours: {', '.join(n['cell'] for n in r['neighbours'][:3]) or '-'}"))


@command("show")
@schema_option("cell")
@click.argument("cell", callback=not_blank)
@_FORMAT
@home_option
@fail_cleanly
def cells_show(cell: str, fmt: str, home: str | None) -> None:
    """One cell: aggregates, neighbours by weight, its ladder (L1..L3) and its members.

    Example: atc cells show cell_3fa2b9c04d1e
    """
    row = _with_memory(home, lambda mem: listing.cell_show(mem, cell))
    if fmt == "json":
        emit_json(row)
        return
    click.echo(f"{row['id']}: {row['size']} items, {_span(row['span'])}")
    click.echo(f"segments: {', '.join(row['segments'])}")
    click.echo(for_terminal(f"entities: {', '.join(row['entities']) or '-'}"))
    click.echo(for_terminal(f"tags: {', '.join(row['tags']) or '-'}"))
    click.echo("neighbours: " + (", ".join(f"{n['cell']} ({n['weight']:.2f})"
                                           for n in row["neighbours"]) or "-"))
    for level, text in row["ladder"].items():
        click.echo(f"{level}: " + "\n    ".join(for_terminal(text).splitlines()))
    click.echo(f"members ({len(row['members'])}): {' '.join(row['members'])}")


@command("hot")
@schema_option("hot_cells")
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True)
@_FORMAT
@home_option
@fail_cleanly
def cells_hot(limit: int, fmt: str, home: str | None) -> None:
    """The cells recent frames drew from (the newest stored receipts), hottest first.

    Example: atc cells hot --format json
    """
    rows = _with_memory(home, lambda mem: listing.hot_cells(mem, limit))
    if fmt == "json":
        emit_json(rows)
        return
    if not rows:
        click.echo("no hot cells (no stored receipt drew on a cell)")
    for r in rows:
        click.echo(for_terminal(f"{r['id']}  heat {r['score']:.3f}  {r['size']} items  {r['l1']}"))


@command("rebuild")
@schema_option("cells_rebuild")
@_FORMAT
@home_option
@fail_cleanly
def cells_rebuild(fmt: str, home: str | None) -> None:
    """Partition every curated item anew (curation otherwise keeps the cells up to date),
    starting from the cells there are: regions that persist keep their ids.

    Example: atc cells rebuild
    """
    from . import api  # numpy and the partitioning: only to build

    report = _with_memory(home, api.rebuild)
    if fmt == "json":
        emit_json(report.as_dict())
    else:
        click.echo(f"cells: {report.cells}  items: {report.items}  in {report.seconds:.2f} s")


def _with_memory(home: str | None, read: Callable[[Any], Any]) -> Any:
    """``read(mem)`` on the home (never created here), closed afterwards."""
    mem = open_memory(home, create=False)
    try:
        return read(mem)
    finally:
        mem.close()


def _span(span: Any) -> str:
    first, last = (span + ["", ""])[:2]
    if not first:
        return "no times"
    return first[:10] if first[:10] == last[:10] else f"{first[:10]}..{last[:10]}"
