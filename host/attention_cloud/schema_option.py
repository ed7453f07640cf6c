"""``--schema`` on every command that prints JSON: the JSON Schema of that output
(:mod:`attention_cloud.schemas`), printed before any argument is required or any home opened.

A module of its own so that command packages imported while :mod:`attention_cloud.cli` is
itself loading (the attention commands) can take it without importing the CLI."""
from __future__ import annotations

from typing import Any, Callable

import click


def schema_option(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--schema``: print the JSON Schema named ``name`` (the command's JSON output, with the
    schemas it refers to embedded, so it validates alone), then exit (before any argument is required or any home opened)."""
    def print_schema(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if not value or ctx.resilient_parsing:
            return
        from .cli import emit_json
        from .schemas import standalone

        emit_json(standalone(name))
        ctx.exit(0)

    return click.option("--schema", is_flag=True, is_eager=True, expose_value=False,
                        callback=print_schema,
                        help="Print the JSON Schema of the JSON output, and exit.")
