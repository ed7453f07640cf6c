"""The ``atc`` command line: a thin layer over :class:`attention_cloud.Memory`.

Every command opens the memory home given by ``--home`` (or ``$ATC_HOME``, default
``~/.attention-cloud``); every library error becomes one line on stderr and a non-zero exit.
"""
from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import click

from .errors import AtcError
from .memory import Memory


class _Fail(click.ClickException):
    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: Any = None) -> None:
        click.echo(f"atc: {self.format_message()}", err=True)


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors (and interrupted runs) into one clear line and an exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AtcError as exc:
            raise _Fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__,
                        exc.exit_code) from exc
        except KeyboardInterrupt:
            raise _Fail("interrupted", 130) from None

    return wrapper


def home_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--home`` for every command that touches memory."""
    return click.option("--home", envvar="ATC_HOME", type=click.Path(file_okay=False),
                        default=None, show_envvar=True,
                        help="Memory home directory [default: ~/.attention-cloud].")(fn)


def open_memory(home: str | None) -> Memory:
    return Memory.open(home)


def emit_json(value: Any) -> None:
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="attention-cloud")
def main() -> None:
    """Attention Cloud: agent memory as a Prolog journal, rendered into frames with receipts."""


# -- doctor ---------------------------------------------------------------------------------------
@main.command()
@home_option
@fail_cleanly
def doctor(home: str | None) -> None:
    """Check SWI-Prolog, the bridge backend and the memory home.

    Example: atc doctor
    """
    from .doctor import run_doctor

    ok, lines = run_doctor(home)
    for line in lines:
        click.echo(line)
    if not ok:
        raise _Fail("a required component is missing (see above)", 1)


# -- ingest ---------------------------------------------------------------------------------------
@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--format", "fmt", type=click.Choice(["claude-code", "openai", "text"]),
              default=None, help="Transcript format [default: detected per file].")
@click.option("--segment", default="default", show_default=True,
              help="Namespace the items go into.")
@click.option("--source", default=None, help="Source name recorded for a single input file.")
@click.option("--item-budget", type=click.IntRange(min=1), default=None,
              help="Most items kept per session (each kind keeps a fixed share).")
@click.option("--watch", is_flag=True, help="Keep polling the paths and ingest what grows.")
@click.option("--interval", type=click.FloatRange(min=0.1), default=2.0, show_default=True,
              help="Seconds between polls with --watch.")
@click.option("--format-output", "out", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Report format.")
@home_option
@fail_cleanly
def ingest(paths: tuple[str, ...], fmt: str | None, segment: str, source: str | None,
           item_budget: int | None, watch: bool, interval: float, out: str,
           home: str | None) -> None:
    """Ingest transcripts (files or directories) into the journal.

    Re-ingesting is an upsert: unchanged files are skipped, grown files add only new items.

    Example: atc ingest ~/.claude/projects/myproj/ --segment work
    """
    mem = open_memory(home)
    try:
        while True:
            report = mem.ingest(paths, format=fmt, segment=segment, source=source,
                                item_budget=item_budget)
            _print_ingest(report, out)
            if not watch:
                break
            time.sleep(interval)
    finally:
        mem.close()


def _print_ingest(report: Any, out: str) -> None:
    if out == "json":
        emit_json(report.as_dict())
        return
    click.echo(f"files: {report.files} ({report.files_unchanged} unchanged)  "
               f"records: {report.records}  new: {report.new}  unchanged: {report.unchanged}  "
               f"evicted: {report.evicted}  envelopes stripped: {report.envelopes_stripped}  "
               f"lines skipped: {len(report.skipped)}")
    for file, line, reason in report.skipped[:50]:
        click.echo(f"  skipped {file}:{line}: {reason}", err=True)
    if len(report.skipped) > 50:
        click.echo(f"  ... and {len(report.skipped) - 50} more skipped lines", err=True)


# -- query ----------------------------------------------------------------------------------------
@main.command()
@click.argument("goal")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False), default=None,
              help="A Prolog file of extra rules (checked by library(sandbox)).")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@home_option
@fail_cleanly
def query(goal: str, rules_file: str | None, limit: int, fmt: str, home: str | None) -> None:
    """Solutions of a Prolog GOAL over memory.

    Example: atc query 'item_kind(H, error), item_goal(H, G)' --format json
    """
    mem = open_memory(home)
    try:
        result = mem.query(goal, limit=limit, rules=rules_file)
    finally:
        mem.close()
    if fmt == "json":
        emit_json(result.rows)
        return
    if not result.rows:
        click.echo("false.")
        return
    if not result.variables:
        click.echo("true.")
        return
    _print_table(result.variables, result.rows)
    if result.more:
        click.echo(f"(stopped at --limit {limit})", err=True)


def _print_table(columns: list[str], rows: list[dict[str, Any]]) -> None:
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [min(60, max(len(c), *(len(row[i]) for row in cells))) for i, c in enumerate(columns)]
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        click.echo("  ".join(v[:w].ljust(w) for v, w in zip(row, widths)))


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return " ".join(text.split())


# -- show / stats ---------------------------------------------------------------------------------
@main.command()
@click.argument("handle")
@click.option("--level", type=click.Choice(["L0", "L1", "L2", "L3", "l0", "l1", "l2", "l3"]),
              default="L0", show_default=True, help="Rung of the ladder to print.")
@click.option("--source", "verbatim", is_flag=True,
              help="Print the verbatim source record the item points to.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def show(handle: str, level: str, verbatim: bool, fmt: str, home: str | None) -> None:
    """Print one item (or arc) at a level of detail, or its verbatim source.

    Example: atc show it_3fa2c1d09e8b7a65 --level L2
    """
    from .show import show_record

    mem = open_memory(home)
    try:
        record = show_record(mem, handle, level.lower(), verbatim)
    finally:
        mem.close()
    if fmt == "json":
        emit_json(record)
    elif verbatim:
        click.echo(record["verbatim"])
    else:
        click.echo(record["text"])


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def stats(fmt: str, home: str | None) -> None:
    """Counts of items, kinds, sessions and relations in the memory home.

    Example: atc stats --format json
    """
    mem = open_memory(home)
    try:
        data = mem.stats()
    finally:
        mem.close()
    if fmt == "json":
        emit_json(data)
        return
    for key, value in data.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items()) or "-"
        click.echo(f"{key}: {value}")


def _mount_optional_commands() -> None:
    """Attach command groups that live in their own packages."""
    for module, names in (("attention_cloud.attention.cli", ("belief", "source", "attend", "inspect",
                                                              "claim", "trace")),):
        try:
            mod = __import__(module, fromlist=list(names))
        except ImportError:
            continue
        for name in names:
            cmd = getattr(mod, name, None)
            if isinstance(cmd, click.Command):
                main.add_command(cmd, name)


_mount_optional_commands()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
