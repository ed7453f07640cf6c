"""``atc forget``: erase items from memory (the library side is :mod:`attention_cloud.erasure`)."""
from __future__ import annotations

import sys

import click

from .cli import _Fail, emit_json, fail_cleanly, home_option, open_memory


@click.command()
@click.argument("handles", nargs=-1)
@click.option("--session", help="Forget every item of this session.")
@click.option("--query", "goal", metavar="GOAL",
              help="Forget the items the goal's first variable binds (sandboxed, as atc query).")
@click.option("--reason", default="forgotten by request", show_default=True,
              help="Why, kept in the audit record.")
@click.option("--as", "who", metavar="WHO", help="Who asked [default: the OS user].")
@click.option("--dry-run", is_flag=True, help="List what would be forgotten; change nothing.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def forget(handles: tuple[str, ...], session: str | None, goal: str | None, reason: str,
           who: str | None, dry_run: bool, yes: bool, fmt: str, home: str | None) -> None:
    """Erase items so that no file of the memory home holds their text.

    Each item keeps only an audit record (handle, digest, time, who, reason); what was
    derived from it is rebuilt without it; receipts are redacted; the journal is compacted.
    The list is printed first: confirm at the prompt, or pass --yes (needed when stdin is not
    a terminal); --dry-run only lists.

    Example: atc forget it_3fa2c1d09e8b7a65 --reason "contained a secret" --yes
    """
    mem = open_memory(home, create=False)
    try:
        preview = mem.forget(list(handles), session=session, query=goal, reason=reason,
                             who=who, dry_run=True)
        if fmt == "text":
            _print_list(preview, "would forget" if dry_run else "to forget:")
        if dry_run:
            if fmt == "json":
                emit_json(preview.as_dict())
            return
        if not yes:
            if not sys.stdin.isatty():
                raise _Fail("not forgetting without confirmation: pass --yes "
                            "(or --dry-run to only list)", 2)
            if not click.confirm(f"Forget {len(preview.handles)} items?", default=False):
                raise _Fail("nothing forgotten", 1)
        report = mem.forget(preview.handles, reason=reason, who=who)
    finally:
        mem.close()
    if fmt == "json":
        emit_json(report.as_dict())
        return
    click.echo(f"forgot {len(report.handles) - len(report.already)} items "
               f"({len(report.already)} already forgotten); rebuilt "
               f"{report.rebuilt.get('arcs', 0)} arcs and {report.rebuilt.get('rollups', 0)} "
               f"rollups without them; {len(report.regoaled)} items' goal is now [forgotten]; "
               f"{report.receipts_redacted} receipts redacted; journal compacted "
               f"({report.journal_bytes[0]} -> {report.journal_bytes[1]} bytes)")
    for source in report.sources:
        click.echo(f"atc: note: {source} still holds the text: memory keeps no copy, "
                   "but the transcript on your disk does; delete or edit it yourself", err=True)


def _print_list(report, verb: str) -> None:  # noqa: ANN001 - a ForgetReport
    click.echo(f"{verb} {len(report.handles)} items:")
    for item in report.items:
        click.echo(f"  {item['handle']}  {item['kind']}  session {item['session']}  "
                   f"{item['source']}")
    for handle in report.already:
        click.echo(f"  {handle}  (already forgotten)")
