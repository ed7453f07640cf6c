"""The ``atc`` command line: a thin layer over :class:`attention_cloud.Memory`.

Every command opens the memory home given by ``--home`` (after the command, or before it as in
``atc --home H hydrate ...``; or ``$ATC_HOME``, default ``~/.attention-cloud``); every library
error becomes one line on stderr and a non-zero exit. Reading commands never create a home.
"""
from __future__ import annotations

import errno
import functools
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import click

from .api_args import MAX_BUDGET
from .cli_base import AtcGroup, OneLineError, errors_in_one_line
from .closed_output import (flush_quietly, keep_working_when_output_closes,
                            stopping_quietly_when_output_closes)
from .errors import AtcError, UsageError, one_line, write_refused
from .formats import FORMAT_DESCRIPTIONS, UNDETECTED
from .json_values import strict_json
from .progress import ProgressDisplay
from .schema_option import schema_option

if TYPE_CHECKING:
    from .memory import Memory


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn library errors (and interrupted runs) into one clear line and an exit code; a home
    the failed command made and left untouched is taken away again (home_undo.py)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return _explaining_errors(fn, *args, **kwargs)
        except click.exceptions.Exit as exc:
            if exc.exit_code:
                _undo_made_home()
            raise
        except SystemExit as exc:
            if exc.code not in (0, None):     # a watcher stopped by a signal exits 0: no failure
                _undo_made_home()
            raise
        except BaseException:
            _undo_made_home()
            raise

    return wrapper


def _explaining_errors(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except AtcError as exc:
        refused = write_refused(exc)
        if refused:
            raise OneLineError(_storage_message(refused), 1) from exc
        raise OneLineError(one_line(exc, "cli"), exc.exit_code) from exc
    except KeyboardInterrupt:
        raise OneLineError("interrupted", 130) from None
    except OSError as exc:
        if exc.errno in _PERMISSION_ERRNOS and exc.filename:
            raise OneLineError(_permission_message(exc), 1) from exc
        refused = write_refused(exc)
        if not refused:
            raise
        raise OneLineError(_storage_message(refused), 1) from exc


#: Where open_memory notes the folders it is about to make (the click context's meta, which
#: every context of one command line shares), for fail_cleanly to take back on a failure.
_MADE_HOME = "attention_cloud.made_home"


def note_made_home(home: str | os.PathLike[str] | None) -> None:
    """Before a command opens ``home`` to write: note the folders opening it will make, so
    that a failure of the command takes them away again (:func:`fail_cleanly`)."""
    from .home import resolve_home
    from .home_undo import folders_to_make

    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    try:
        made = folders_to_make(resolve_home(home))
    except AtcError:
        return                            # Memory.open says what is wrong with the name
    if made:
        ctx.meta[_MADE_HOME] = made


def _undo_made_home() -> None:
    ctx = click.get_current_context(silent=True)
    made = ctx.meta.pop(_MADE_HOME, None) if ctx is not None else None
    if not made:
        return
    from .home_undo import undo_made_home
    from .memory import current

    mem = current()
    if mem is not None and mem.home == made[-1]:
        mem.close()                       # its lock and journal stream, before they go
    undo_made_home(made)


def _storage_message(reason: str) -> str:
    return (f"{reason} (what was committed before is kept; run the command again once the "
            "file system takes writes)")


#: A file of the home this user may not open (a home made by another user, or with sudo):
#: one line naming it. Checked before any write, so the journal is as it was.
_PERMISSION_ERRNOS = frozenset({errno.EACCES, errno.EPERM})


def _permission_message(exc: OSError) -> str:
    return (f"{exc.filename}: {exc.strerror or 'Permission denied'} (this user may not read or "
            "write that file of the memory home: check its owner and mode)")


def not_blank(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A click callback refusing an empty value (one, or any of several) of an argument or
    option that names something (a handle, an id, a principal, a cell, a path): a shell
    variable that expanded to nothing was looked up as a record no one has, its message
    naming nothing (``atc: : no such item``), or read as no value at all (``--as ""`` read
    as the owner)."""
    values = value if isinstance(value, tuple) else (value,)
    if any(isinstance(v, str) and not v.strip() for v in values):
        raise click.BadParameter("must not be empty", ctx=ctx, param=param)
    return value


class LevelChoice(click.Choice):
    """A rung of the ladder, ``L0``..``L3``, as help, errors and output name it; ``l2`` is
    taken too, as the Prolog vocabulary writes it (``--ceiling``, ``--level``)."""

    def __init__(self) -> None:
        super().__init__(["L0", "L1", "L2", "L3"])

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.upper() in self.choices:
            value = value.upper()
        return super().convert(value, param, ctx)   # a refusal names the value as typed


def home_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--home`` for every command that touches memory."""
    return click.option("--home", envvar="ATC_HOME", type=click.Path(file_okay=False),
                        default=None, show_envvar=True,
                        help="Memory home directory [default: ~/.attention-cloud].")(fn)


def open_memory(home: str | None, *, create: bool = True) -> Memory:
    """The home for a command; reading commands pass ``create=False`` (a missing home is an
    error, not a new empty one)."""
    from .home import config_warnings
    from .memory import Memory

    if create:
        note_made_home(home)
    mem = Memory.open(home, create=create)
    for line in config_warnings(mem.config):
        note(f"{mem.home / 'config.json'}: {line}")
    return mem


def note(message: str) -> None:
    """One ``atc: note: ...`` line on stderr: something the user should know, not an error."""
    click.echo(f"atc: note: {message}", err=True)


def emit_json(value: Any, *, compact: bool = False) -> None:
    """``value`` as strict JSON: a float JSON cannot hold (Prolog's ``inf``, ``nan``) is written
    as the string ``"inf"``, ``"-inf"`` or ``"nan"``, never as a bare ``Infinity``/``NaN``
    that JSON parsers reject. Indented, or with ``compact`` on one line: what a stream of
    reports prints, one JSON object a line."""
    click.echo(json.dumps(strict_json(value), ensure_ascii=False, indent=None if compact else 2,
                          allow_nan=False))


class _LazyGroup(AtcGroup):
    """A group whose subcommands are imported only when used (they pull in heavy packages)."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def main(self, args: Any = None, **options: Any) -> Any:
        """As click's, except that a hook call never exits non-zero (agents/hook_guard.py:
        Claude Code takes status 2, click's answer to a refused command line, as a block)."""
        from .agents.hook_guard import is_hook_call, run_hook_call

        argv = list(sys.argv[1:] if args is None else args)
        if is_hook_call(argv):
            run_hook_call(super().main, argv, **options)
        return super().main(args, **options)

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        """As click's; an eager option's output (``--help``, ``--version``) read by a reader
        that stops early ends quietly (closed_output.py), and a refused command line is one
        line (cli_base.py)."""
        with stopping_quietly_when_output_closes(), errors_in_one_line():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        """As click's, except that output read by a reader that stops early (``| head -1``),
        where the command did not keep working (closed_output.py: ``atc watch``, or ``main``
        called by another program), ends it quietly with status 0, not click's silent status 1;
        a refused command line of a subcommand (parsed here) is one line (cli_base.py)."""
        with stopping_quietly_when_output_closes(), errors_in_one_line():
            return super().invoke(ctx)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            module, _, attr = self.lazy[name].partition(":")
            return getattr(__import__(module, fromlist=[attr]), attr)
        return super().get_command(ctx, name)


#: Commands defined in other packages, imported when used: `atc watch` pulls in the watcher
#: and every parser, the sharing commands the grant policy and the server's limits, the
#: attention commands their controller, so that a hook process (`atc hook user-prompt`, on
#: every prompt) and any other command start without them (each package's COMMANDS lists
#: its own; tests/test_cli_light_start.py checks the two agree).
SUBCOMMANDS = {
    "watch": "attention_cloud.watch.cli:watch",
    **{name: f"attention_cloud.attention.cli:{name}"
       for name in ("belief", "source", "goal", "attend", "inspect", "claim", "trace")},
    **{name: f"attention_cloud.sharing.cli:{name}"
       for name in ("principal", "team", "grant", "mount", "label", "declassify", "serve",
                    "audit")},
    **{name: f"attention_cloud.agents.cli:{name}"
       for name in ("remember", "mcp", "hook", "install", "uninstall")},
}


@click.group(cls=_LazyGroup, lazy=SUBCOMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="attention-cloud")
@click.option("--home", "group_home", type=click.Path(file_okay=False), default=None,
              help="Memory home for the command (as the command's own --home; that one wins).")
@click.pass_context
def main(ctx: click.Context, group_home: str | None) -> None:
    """Attention Cloud: agent memory as a Prolog journal, rendered into frames with receipts."""
    if group_home is not None:
        # Every command, its subgroups' included, reads --home or else $ATC_HOME: setting the
        # variable for this invocation makes `atc --home H CMD` mean `atc CMD --home H`, and the
        # command's own --home (given on the command line) still wins over it.
        previous = os.environ.get("ATC_HOME")
        os.environ["ATC_HOME"] = group_home
        ctx.call_on_close(functools.partial(_restore_env, "ATC_HOME", previous))


def _restore_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


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
        raise OneLineError("a required component is missing, or the home or its config.json is "
                    "unusable (see above)", 1)


# -- ingest ---------------------------------------------------------------------------------------
def _list_formats(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--list-formats``: every format name with what it reads, then exit."""
    if not value or ctx.resilient_parsing:
        return
    width = max(len(name) for name in FORMAT_DESCRIPTIONS)
    for name, description in FORMAT_DESCRIPTIONS.items():
        click.echo(f"{name.ljust(width)}  {description}")
    ctx.exit(0)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(), callback=not_blank)
@click.option("--format", "fmt", type=click.Choice(list(FORMAT_DESCRIPTIONS)),
              default=None, help="Transcript format [default: detected per file; "
                                 "--list-formats names them].")
@click.option("--list-formats", is_flag=True, is_eager=True, expose_value=False,
              callback=_list_formats, help="Print every format name with what it reads, and exit.")
@schema_option("ingest")
@click.option("--segment", default="default", show_default=True,
              help="Namespace the items go into.")
@click.option("--source", default=None, help="Source name recorded for a single input file.")
@click.option("--item-budget", type=click.IntRange(min=1), default=None,
              help="Most items kept per session (each kind keeps a fixed share).")
@click.option("--watch", is_flag=True,
              help="Keep following the paths and ingest what changes (atc watch without "
                   "curation).")
@click.option("--interval", type=click.FloatRange(min=0.1), default=None,
              help="With --watch: seconds between polls when inotify events are unavailable "
                   "[default: 2].")
@click.option("--curate", "curate_too", is_flag=True,
              help="With --watch: curate what each batch ingested (the lock is given back "
                   "between batches, so atc curate and other writers run beside it).")
@click.option("--format-output", "out", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Report format.")
@click.option("--strict", is_flag=True,
              help="All or nothing: any file that cannot be ingested fails the call, and the "
                   "journal is left as it was.")
@click.option("--max-file-bytes", type=click.IntRange(min=1), default=None,
              help="Largest file read [default: max_file_bytes in config.json, else 256 MiB].")
@home_option
@fail_cleanly
def ingest(paths: tuple[str, ...], fmt: str | None, segment: str, source: str | None,
           item_budget: int | None, watch: bool, interval: float | None, curate_too: bool, out: str,
           strict: bool, max_file_bytes: int | None, home: str | None) -> None:
    """Ingest transcripts (files or directories) into the journal.

    Re-ingesting is an upsert: unchanged files are skipped, grown files add only new items.
    A file that cannot be ingested (no recognised format, empty, not a regular file, too
    large) is skipped and named on stderr, and the others are ingested; the exit status is
    non-zero only when files named on the command line failed and nothing was ingested.
    --strict makes any such file fail the whole call instead.

    Example: atc ingest ~/.claude/projects/myproj/ --segment work
    """
    if curate_too and not watch:
        raise UsageError("--curate goes with --watch (otherwise run atc curate after ingesting)")
    if interval is not None and not watch:
        raise UsageError("--interval goes with --watch (how often a watch polls)")
    if source is not None and watch:
        raise UsageError("--source names a file ingested once; it does not go with --watch")
    if watch:
        _refuse_missing_paths(paths)
        interval = 2.0 if interval is None else interval
        from .watch.cli import run_watcher
        from .watch.watcher import WatchOptions

        run_watcher(home, paths, WatchOptions(format=fmt, segment=segment, item_budget=item_budget,
                                              max_file_bytes=max_file_bytes, curate=curate_too,
                                              interval=interval, debounce=min(interval, 0.5)),
                    _ingest_watch_log(out))
        return
    _refuse_missing_paths(paths)
    mem = open_memory(home)
    options: dict[str, Any] = {"format": fmt, "segment": segment, "source": source,
                               "item_budget": item_budget, "strict": strict,
                               "max_file_bytes": max_file_bytes}
    try:
        report = _ingest_with_progress(mem, paths, options, fail_when_empty=True)
        _print_ingest(report, out)
    finally:
        mem.close()


def _print_curate(report: dict[str, Any], out: str) -> None:
    """A curate report after an ingest batch (``ingest --watch --curate``), in JSON on one line."""
    if out == "json":
        emit_json({"curate": report}, compact=True)
    else:
        click.echo("curate: " + "  ".join(f"{k}: {v}" for k, v in report.items() if k != "cells"))


def _ingest_watch_log(out: str) -> Callable[[dict[str, Any]], None]:
    """``ingest --watch`` prints the first batch's report, then one per batch that adds or
    skips something (each skipped file once), as the polling loop it replaced did; with
    ``--curate`` the curate report of each batch that curated."""
    first = [True]

    def log(event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "batch":
            report = event["report"]
            if first[0] or report.new or report.skipped or report.files_skipped:
                _print_ingest(report, out, compact=True)  # a stream: one JSON object a line
            first[0] = False
            if event.get("curate_report") is not None:
                _print_curate(event["curate_report"].as_dict(), out)
        elif kind == "skipped":
            _print_skipped_files([(event["path"], event["reason"])])
        elif kind in ("waiting", "polling"):
            note(event["why"])
        elif kind == "error":
            click.echo(f"atc: {event['message']} (retrying in {event['retry_in_s']:g} s)", err=True)

    return log


def _ingest_with_progress(mem: Memory, paths: tuple[str, ...], options: dict[str, Any], *,
                          fail_when_empty: bool) -> Any:
    with ProgressDisplay() as show:  # a bar on a terminal, else one line on stderr
        report = mem.ingest(paths, **options, progress=show)
        if fail_when_empty:  # inside: a failed call prints its error alone, no progress line
            _fail_when_nothing_ingested(report, paths)
    return report


def _refuse_missing_paths(paths: tuple[str, ...]) -> None:
    """Fail before the home is opened (and, for a new one, made) when a path named does not
    exist: a mistyped path must not leave an empty home that later commands read as one of 0
    items. Exit 2, bad usage, as for ``atc watch`` and ``atc rules add`` of a path that does
    not exist; beside paths that exist too, where the ingest would fail whole on it (exit 1,
    which a script could not tell from a file that failed to parse)."""
    missing = [p for p in paths if not os.path.lexists(p)]
    if not missing:
        return
    if len(missing) == 1:
        raise OneLineError(f"{one_line(missing[0])}: no such file or directory", 2)
    raise OneLineError(f"nothing ingested: no such file or directory: {one_line(', '.join(missing))}", 2)


def _fail_when_nothing_ingested(report: Any, paths: tuple[str, ...]) -> None:
    """Exit non-zero when a file named on the command line failed and nothing was ingested:
    a folder's unreadable files are reported, not fatal, but a named file is what was asked."""
    named = {str(Path(p)) for p in paths if not Path(p).is_dir()}
    failed_named = [(f, r) for f, r in report.files_skipped if f in named]
    if not failed_named or report.files > len(report.files_skipped):
        return
    if len(report.files_skipped) == 1:
        file, reason = report.files_skipped[0]
        hint = f" ({_FORMATS_HINT})" if reason == UNDETECTED else ""
        raise OneLineError(f"{_printable(file)}: {reason}{hint}", 1)
    _print_skipped_files(report.files_skipped)
    _note_undetected(report.files_skipped)
    raise OneLineError(f"nothing ingested: {len(report.files_skipped)} files could not be "
                "ingested (listed above)", 1)


#: What a user whose file was "cannot detect format" does next.
_FORMATS_HINT = "atc ingest --list-formats names the formats read; --format NAME reads a file as one"


def _note_undetected(skipped: list[tuple[str, str]]) -> None:
    """One note after the skipped files' lines when some were in no format detection knows:
    the per-file line says only that, not which formats there are."""
    count = sum(reason == UNDETECTED for _file, reason in skipped)
    if count:
        note(f"{count} file{'s' if count > 1 else ''} in no format atc detects: {_FORMATS_HINT}")


#: Characters a terminal acts on rather than shows, tab and newline aside: C0 controls (ESC
#: starts the sequences that set its title, clear it or write the clipboard, OSC 52), DEL and
#: the C1 controls (U+009B is a CSI of its own), each mapped to its escape (``\\x1b``).
_TERMINAL_CONTROLS = {code: ascii(chr(code))[1:-1]
                      for code in (*range(0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0))}


def for_terminal(text: str) -> str:
    """``text`` to write to stdout: as it is for a pipe or a file (the stored text, byte for
    byte), with its control characters escaped for a terminal, since a transcript's text may
    hold escape sequences that would act on it (a CRLF line end stays a line end)."""
    try:
        terminal = sys.stdout.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if not terminal:
        return text
    return text.replace("\r\n", "\n").translate(_TERMINAL_CONTROLS)


def _printable(name: str) -> str:
    """A file name as a report line shows it: control characters escaped (``\\n``,
    ``\\x1b``), so a name holding a newline keeps its line one line and an escape sequence
    never reaches the terminal."""
    from .ingest.source import one_line as escaped

    return escaped(name)


def _print_skipped_files(skipped: list[tuple[str, str]]) -> None:
    for file, reason in skipped[:50]:
        click.echo(f"  skipped {_printable(file)}: {reason}", err=True)
    if len(skipped) > 50:
        click.echo(f"  ... and {len(skipped) - 50} more skipped files", err=True)


def _print_ingest(report: Any, out: str, *, compact: bool = False) -> None:
    if out == "json":
        emit_json(report.as_dict(), compact=compact)
        if not compact:                  # a --watch stream says each skipped file as it comes
            _note_undetected(report.files_skipped)
        return
    click.echo(f"files: {report.files} ({report.files_unchanged} unchanged, "
               f"{len(report.files_skipped)} skipped)  "
               f"records: {report.records}  new: {report.new}  unchanged: {report.unchanged}  "
               + (f"forgotten: {report.forgotten}  " if report.forgotten else "") +
               f"evicted: {report.evicted}  "
               + (f"superseded: {report.superseded}  " if report.superseded else "")
               + (f"updated: {report.updated}  " if report.updated else "") +
               f"envelopes stripped: {report.envelopes_stripped}  "
               f"lines skipped: {len(report.skipped)}  times unread: {len(report.unread_times)}")
    _print_skipped_files(report.files_skipped)
    for file, line, reason in report.skipped[:50]:
        click.echo(f"  skipped {_printable(file)}:{line}: {reason}", err=True)
    if len(report.skipped) > 50:
        click.echo(f"  ... and {len(report.skipped) - 50} more skipped lines", err=True)
    if report.ignored:
        click.echo("ignored (no item by design): " + ", ".join(
            f"{kind} {count}" for kind, count in sorted(report.ignored.items())))
    for file, agent in report.goals_unresolved:
        click.echo(f"  goal unresolved {_printable(file)}: subagent {agent} (its parent session is neither "
                   "in this call, nor in memory, nor beside it; items kept with no goal)", err=True)
    for file, line, written in report.unread_times[:50]:
        click.echo(f"  time unread {_printable(file)}:{line}: {written!r} (item kept without a time)",
                   err=True)
    if len(report.unread_times) > 50:
        click.echo(f"  ... and {len(report.unread_times) - 50} more unread times", err=True)
    for file, said in report.notes:
        click.echo(f"  note {_printable(file)}: {said}", err=True)
    if not compact:
        _note_undetected(report.files_skipped)


# -- curate ---------------------------------------------------------------------------------------
@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--reembed", is_flag=True,
              help="Embed every curated record again, beside the current vectors (which keep "
                   "serving), and switch to the new ones when complete; resumable.")
@click.option("--embedder", "embedder_spec", default=None, metavar="SPEC",
              callback=not_blank,
              help="With --reembed: the embedder to move to (config.json is updated at the "
                   "switch); default the configured one.")
@schema_option("curate")
@home_option
@fail_cleanly
def curate(fmt: str, reembed: bool, embedder_spec: str | None, home: str | None) -> None:
    """Build the ladder (L1-L3), arcs and session rollups; embed what is new; mark echoes.

    Incremental: a second run with nothing new does no work.

    Example: atc curate
    """
    if embedder_spec is not None and not reembed:
        raise UsageError("--embedder goes with --reembed (to move the home to that embedder)")
    mem = open_memory(home, create=False)   # a mistyped --home is said, not made empty
    try:
        moved = None
        with ProgressDisplay() as show:  # bars on a terminal, else a line per phase on stderr
            if reembed:
                moved = mem.reembed(embedder_spec, progress=show)
            report = mem.curate(progress=show)
    finally:
        mem.close()
    out = report.as_dict()
    if moved is not None:
        out["reembed"] = moved.as_dict()
    if report.model_failed:  # said on stderr in either format: the rungs are not the model's
        click.echo(f"atc: note: the model curator did not answer {report.model_failed} "
                   f"batch{'es' if report.model_failed != 1 else ''} usably; their items kept "
                   f"extractive rungs (last error: {report.model_error})", err=True)
    if fmt == "json":
        emit_json(out)
    else:
        click.echo("  ".join(f"{k}: {_plain(v)}" for k, v in out.items()
                             if k != "reembed" and not (k == "model_error" and v is None)))
        if moved is not None:
            click.echo("reembed: " + "  ".join(f"{k}: {v}" for k, v in moved.as_dict().items()))


def _plain(value: Any) -> Any:
    """A report's nested counts as text (``cells 4, items 38, ...``), as ``atc stats`` shows
    them, not as a Python dict."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items()) or "-"
    return value


# -- query ----------------------------------------------------------------------------------------
@main.command()
@click.argument("goal")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False), default=None,
              callback=not_blank, help="A Prolog file of extra rules (checked by library(sandbox)).")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), default=30.0,
              show_default=True, help="Seconds the goal may run (catch/3 cannot extend it).")
# `text` as every other command names its text output (a script passing `--format text` to
# each command failed here alone); `table` is what it prints, and stays its name too.
@click.option("--format", "fmt", type=click.Choice(["table", "text", "json"]), default="table",
              show_default=True, help="table (or text): columns; json: an array of objects.")
@click.option("--as", "as_principal", default=None, metavar="PRINCIPAL", callback=not_blank,
              help="Read as this grantee sees it (the owner's own check; logged in atc audit).")
@schema_option("query")
@home_option
@fail_cleanly
def query(goal: str, rules_file: str | None, limit: int, time_limit: float, fmt: str,
          as_principal: str | None, home: str | None) -> None:
    """Solutions of a Prolog GOAL over memory.

    Example: atc query 'item_kind(H, error), item_goal(H, G)' --format json
    """
    mem = open_memory(home, create=False)
    try:
        if as_principal:
            from .sharing.reads import reader_query

            result = reader_query(mem, as_principal, goal, limit=limit, time_limit=time_limit,
                                  rules_text=_read_rules(rules_file), rules_source=rules_file,
                                  via="cli --as")
        else:
            result = mem.query(goal, limit=limit, time_limit=time_limit, rules=rules_file)
    finally:
        mem.close()
    if fmt == "json":
        emit_json(result.rows)
        if result.more:  # stdout stays the bare array consumers parse; the cut is said aside
            note(f"stopped at --limit {limit} (more solutions exist)")
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


def _read_rules(path: str | None) -> str | None:
    """The text of a --rules file for a grantee's read: a missing, oversized or non-regular
    one (exit 2) or an unreadable one (exit 1) is the one line the owner's read gives."""
    if path is None:
        return None
    from .memory import MAX_RULES_BYTES, read_rules_file

    try:
        return read_rules_file(path, f"{path}: rules file is larger than {MAX_RULES_BYTES} bytes")
    except AtcError as exc:
        raise OneLineError(one_line(exc, "cli"), exc.exit_code) from None


def _print_table(columns: list[str], rows: list[dict[str, Any]]) -> None:
    cells = [[_cell(r.get(c)) for c in columns] for r in rows]
    widths = [min(60, max(len(c), *(len(row[i]) for row in cells))) for i, c in enumerate(columns)]
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    for row in cells:
        click.echo("  ".join(_fit(v, w) for v, w in zip(row, widths)))


def _fit(text: str, width: int) -> str:
    """``text`` in a column ``width`` wide: a longer value ends in "…" where it is cut, so a
    text cut at the column's edge is not read as the whole text (``--format json`` has it all)."""
    if len(text) > width:
        return text[:width - 1] + "…"
    return text.ljust(width)


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return for_terminal(" ".join(text.split()))


# -- hydrate / receipt ----------------------------------------------------------------------------
def _one_goal(positional: str | None, option: str | None) -> str:
    """The goal given as GOAL or as --goal (the same text both ways is accepted)."""
    if positional is None and option is None:
        raise click.UsageError("give the goal: atc hydrate \"GOAL\" (or --goal \"GOAL\")")
    if positional is not None and option is not None and positional != option:
        raise click.UsageError("the goal is given twice, as GOAL and as --goal: give it once")
    return positional if positional is not None else str(option)


def _segment_budgets(values: tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for raw in values:
        name, sep, num = raw.partition("=")
        if not sep or not name or not num.strip().isdigit():
            raise click.BadParameter(f"{raw!r} is not SEGMENT=TOKENS", param_hint="--segment")
        if name.strip() in out:  # the later one silently won: which budget was meant?
            raise click.BadParameter(f"{name.strip()!r} is given twice", param_hint="--segment")
        out[name.strip()] = int(num)
    return out


@main.command()
@schema_option("frame")
@click.argument("goal_text", metavar="[GOAL]", required=False)
@click.option("--goal", default=None, help="What the agent is trying to do now (or give it as GOAL).")
@click.option("--budget", type=click.IntRange(min=0, max=MAX_BUDGET), default=2000, show_default=True,
              help="Total token budget (estimated tokens), at most 10,000,000.")
@click.option("--plane", default="default", show_default=True,
              help="default, execution, exploration, or one from a rules file.")
@click.option("--segment", "segments", multiple=True, metavar="SEGMENT=TOKENS",
              help="Budget for one segment (repeatable); overrides the plane's split.")
@click.option("--ceiling", type=LevelChoice(),
              default="L0", show_default=True, help="Most detailed level allowed in the frame.")
@click.option("--rules", "rules_file", type=click.Path(dir_okay=False), default=None,
              callback=not_blank,
              help="Extra rules file (walk rules, planes), checked by library(sandbox).")
@click.option("--walk", default=None, callback=not_blank,
              help="Name of a walk rule to use instead of the plane's.")
@click.option("--now", default=None, metavar="TIME",
              help='The present a goal\'s "two weeks ago" is read against (default: the newest '
                   'item\'s time): ISO 8601, a date, or Unix epoch seconds, as --since reads it.')
@click.option("--mount", "mounts", multiple=True, metavar="CELL", callback=not_blank,
              help="Draw the frame only from this cell and its neighbourhood (repeatable: "
                   "each mount renders with its share of the budget, merged into one frame).")
@click.option("--depth", type=click.IntRange(min=0), default=1, show_default=True,
              help="How many links around a mounted cell its region reaches.")
@click.option("--cells/--no-cells", "cells", default=None,
              help="Walk through cell adjacency (default when memory holds cells) or the entity graph.")
@click.option("--bridge/--no-bridge", "bridge", default=True, show_default=True,
              help="Bring in items of other sessions that share a seed's rare named thing (the second hop).")
@click.option("--excerpt/--no-excerpt", "excerpt", default=True, show_default=True,
              help="Show a record too long for its share of the budget as a verbatim excerpt "
                   "of its sentences nearest the goal (else its summary).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "envelope", "html"]),
              default="text", show_default=True,
              help="html: one self-contained page picturing the fovea and the receipt.")
@click.option("--output", "-o", "output",
              type=click.Path(dir_okay=False, writable=True, allow_dash=True), default=None,
              callback=not_blank,
              help="Write the frame to this file instead of stdout (- is stdout).")
@click.option("--as", "as_principal", default=None, metavar="PRINCIPAL", callback=not_blank,
              help="Read as this grantee sees it (the owner's own check; logged in atc audit).")
@home_option
@fail_cleanly
def hydrate(goal_text: str | None, goal: str | None, budget: int, plane: str,
            segments: tuple[str, ...], ceiling: str,
            rules_file: str | None, walk: str | None, now: str | None, mounts: tuple[str, ...],
            depth: int, cells: bool | None, bridge: bool, excerpt: bool, fmt: str,
            output: str | None,
            as_principal: str | None, home: str | None) -> None:
    """Render a frame of memory for GOAL within a token budget, with its receipt.

    Example: atc hydrate "why do payment retries fail" --budget 1500 --plane execution

    Example: atc hydrate --goal "retry policy" --format html --output frame.html
    """
    goal = _one_goal(goal_text, goal)
    if not mounts and click.get_current_context().get_parameter_source("depth") \
            is not click.core.ParameterSource.DEFAULT:
        raise UsageError("--depth goes with --mount (how many links around a mounted cell "
                         "the frame reaches)")
    budgets = _segment_budgets(segments)
    if output == "-":
        output = None             # stdout, as `-` is stdin to rules add and remember
    if output is not None:
        _check_writable(output)   # before the frame: a frame stores its receipt in the home
    mem = open_memory(home, create=False)
    try:
        if as_principal:
            from .sharing.reads import reader_hydrate

            frame = reader_hydrate(mem, as_principal, goal, budget=budget, plane=plane,
                                   ceiling=ceiling, now=now, walk=walk, segments=budgets,
                                   rules_text=_read_rules(rules_file), rules_source=rules_file,
                                   via="cli --as",
                                   mount=list(mounts), depth=depth, cells=cells,
                                   bridge=bridge, excerpt=excerpt)
        elif mounts:  # cells of this memory: a frame drawn from their region only
            frame = mem.hydrate(goal, budget=budget, plane=plane, segments=budgets,
                                ceiling=ceiling, rules=rules_file, walk=walk, now=now,
                                mount=mounts, depth=depth, cells=cells, bridge=bridge,
                                excerpt=excerpt)
        else:
            from .sharing.mounts import hydrate_with_mounts

            frame = hydrate_with_mounts(mem, goal, budget=budget, plane=plane, segments=budgets,
                                        ceiling=ceiling, rules=rules_file, walk=walk, now=now,
                                        cells=cells, bridge=bridge, excerpt=excerpt)
    finally:
        mem.close()
    for line in frame.receipt.get("notes", []):
        note(line)
    if fmt == "json":
        rendered = json.dumps(frame.as_json(), ensure_ascii=False, indent=2)
    elif fmt == "envelope":
        rendered = frame.envelope
    elif fmt == "html":
        rendered = frame.html.rstrip("\n")
    else:
        rendered = frame.text
    if output is None:
        click.echo(rendered if fmt in ("json", "html") else for_terminal(rendered))
        return
    try:
        Path(output).write_text(rendered + "\n", encoding="utf-8")
    except OSError as exc:
        raise OneLineError(f"{output}: cannot write ({exc.strerror or exc})", 1) from None


def _check_writable(output: str) -> None:
    """Refuse an --output file that cannot be written (its folder not there or not writable)
    with the one line a failed write gives, before anything is done."""
    folder = Path(output).parent
    if not folder.is_dir():
        raise OneLineError(f"{output}: cannot write ({os.strerror(errno.ENOENT)})", 1)
    if not Path(output).exists() and not os.access(folder, os.W_OK):
        raise OneLineError(f"{output}: cannot write ({os.strerror(errno.EACCES)})", 1)


@main.command()
@click.argument("receipt_id", required=False, callback=not_blank)
@click.option("--as", "as_principal", default=None, metavar="PRINCIPAL", callback=not_blank,
              help="Read as this grantee sees it (the owner's own check; logged in atc audit).")
@click.option("--schema", type=click.Choice(["receipt", "frame"]), is_flag=False,
              flag_value="receipt", default=None,
              help="Print the JSON Schema of a receipt (or, --schema frame, of "
                   "`atc hydrate --format json`) instead of a receipt.")
@home_option
@fail_cleanly
def receipt(receipt_id: str | None, as_principal: str | None, schema: str | None,
            home: str | None) -> None:
    """Print a stored hydration receipt (JSON), or the receipt's JSON Schema.

    Example: atc receipt r_3f9a2c41d0b7e815; atc receipt --schema
    """
    from .hydration import load_receipt
    from .home import require_home, resolve_home

    if schema is not None:
        if receipt_id is not None:
            raise click.UsageError("give a receipt id or --schema, not both")
        from .schemas import frame_schema, receipt_schema

        emit_json(receipt_schema() if schema == "receipt" else frame_schema())
        return
    if receipt_id is None:
        raise click.UsageError("give a receipt id (RID), or --schema")

    if as_principal:
        from .sharing.reads import reader_receipt

        with open_memory(home, create=False) as mem:
            emit_json(reader_receipt(mem, as_principal, receipt_id, via="cli --as"))
        return
    emit_json(load_receipt(require_home(resolve_home(home)), receipt_id))


# -- rules ----------------------------------------------------------------------------------------
@main.group()
def rules() -> None:
    """Traversal rules saved in the memory home (checked by library(sandbox))."""


@rules.command("add")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--name", default=None, help="Name to save it under [default: the file's stem].")
@home_option
@fail_cleanly
def rules_add(file: str, name: str | None, home: str | None) -> None:
    """Check and save a rules FILE (or - for stdin); it applies to the next query or frame.

    Example: atc rules add fixes.pl
    """
    from .memory import MAX_RULES_BYTES, RULE_NAME, RULE_NAME_WORDS, read_rules_file

    if name is None:
        if file == "-":
            raise click.BadParameter("--name is required when reading from stdin")
        name = Path(file).stem
        if not RULE_NAME.fullmatch(name):
            # the stem is no rule name (a quote, a space, a dot): say how to name it
            raise UsageError(f"{file}: its stem {name!r} is no rule name ({RULE_NAME_WORDS}): "
                             "give one with --name NAME")
    # read as --rules reads (no further than the limit: a FIFO or /dev/zero is refused
    # unread), then checked and saved as the API checks a text
    text = read_rules_file(file, f"rule {name} rejected: rules text is larger than "
                                 f"{MAX_RULES_BYTES:,} bytes")
    mem = open_memory(home)
    try:
        mem.rules_add(text, name, source="<stdin>" if file == "-" else file)
    finally:
        mem.close()
    click.echo(f"saved rule {name}")


@rules.command("list")
@schema_option("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def rules_list(fmt: str, home: str | None) -> None:
    """List saved rules and the predicates they define."""
    from .memory import list_saved_rules

    listed = list_saved_rules(home)   # the rules' files alone: the journal is not loaded
    if fmt == "json":
        emit_json(listed)
        return
    for r in listed:
        if "error" in r:
            click.echo(f"{r['name']}: cannot be read ({r['error']})")
        else:
            click.echo(f"{r['name']}: {', '.join(r['predicates'])}")


@rules.command("remove")
@click.argument("name")
@home_option
@fail_cleanly
def rules_remove(name: str, home: str | None) -> None:
    """Delete a saved rule."""
    mem = open_memory(home, create=False)
    try:
        mem.rules_remove(name)
    finally:
        mem.close()
    click.echo(f"removed rule {name.removesuffix('.pl')}")


# -- forget (library side: attention_cloud.erasure) ---------------------------------------------
@main.command()
@click.argument("handles", nargs=-1, callback=not_blank)
@schema_option("forget")
@click.option("--session", callback=not_blank, help="Forget every item of this session.")
@click.option("--query", "goal", metavar="GOAL",
              help="Forget the items the goal's first variable binds (sandboxed, as atc query).")
@click.option("--reason", default="forgotten by request", show_default=True,
              help="Why, kept in the audit record.")
@click.option("--as", "who", metavar="WHO", callback=not_blank,
              help="Who asked [default: the OS user].")
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

    Example: atc forget it_50a40759a4205f7e --reason "contained a secret" --yes
    """
    if not (handles or session or goal):
        raise UsageError("name what to forget: handles, --session or --query")
    mem = open_memory(home, create=False)
    try:
        if not dry_run:
            # the writer now (or one line saying who is, before the list says "forgetting")
            mem.acquire()
            # the same command run again after a kill: finish what it left first
            finished = mem.finish_erasure()
            if finished is not None:
                note(f"finished an interrupted erasure of {len(finished.handles)} items")
        preview = mem.forget(list(handles), session=session, query=goal, reason=reason,
                             who=who, dry_run=True)
        if fmt == "text":
            _print_list(preview, "would forget" if dry_run else "forgetting")
        if dry_run:
            if fmt == "json":
                emit_json(preview.as_dict())
            return
        if not yes:
            if not sys.stdin.isatty():
                raise OneLineError("not forgetting without confirmation: pass --yes "
                            "(or --dry-run to only list)", 2)
            mem.release()  # not held while the prompt waits for a person
            if not click.confirm(f"Forget {len(preview.handles)} items?", default=False):
                raise OneLineError("nothing forgotten", 1)
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
        note(f"{source} still holds the text: memory keeps no copy, but the transcript "
             "on your disk does; delete or edit it yourself")


def _print_list(report, verb: str) -> None:  # noqa: ANN001 - a ForgetReport
    count = len(report.handles)
    click.echo(f"{verb} {count} item{'' if count == 1 else 's'}:")
    for item in report.items:
        click.echo(f"  {item['handle']}  {item['kind']}  session {item['session']}  "
                   f"{item['source']}")
    for handle in report.already:
        click.echo(f"  {handle}  (already forgotten)")


# -- show / stats ---------------------------------------------------------------------------------
@main.command()
@click.argument("handle", callback=not_blank)
@schema_option("show")
@click.option("--level", type=LevelChoice(),
              default=None, help="Rung of the ladder to print [default: L0; with --as, the "
                                 "reader's ceiling for the record].")
@click.option("--source", "verbatim", is_flag=True,
              help="Print the verbatim source record the item points to.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--as", "as_principal", default=None, metavar="PRINCIPAL", callback=not_blank,
              help="Read as this grantee sees it (the owner's own check; logged in atc audit).")
@home_option
@fail_cleanly
def show(handle: str, level: str, verbatim: bool, fmt: str, as_principal: str | None,
         home: str | None) -> None:
    """Print one item, arc, session rollup or cell at a level of detail, or an item's
    verbatim source. An arc, rollup or cell also lists its members.

    Example: atc show it_50a40759a4205f7e --level L2
    """
    from .show import show_record

    mem = open_memory(home, create=False)
    try:
        if as_principal:
            from .sharing.reads import reader_show

            if verbatim:
                raise click.BadParameter("--source is the owner's alone", param_hint="--as")
            record = reader_show(mem, as_principal, handle, level and level.lower(),
                                 via="cli --as")
        else:
            record = show_record(mem, handle, (level or "L0").lower(), verbatim)
    finally:
        mem.close()
    if fmt == "json":
        emit_json(record)
    elif verbatim:
        click.echo(for_terminal(record["verbatim"]))
    else:
        click.echo(for_terminal(record["text"]))
        if record.get("members"):
            click.echo(f"members ({len(record['members'])}): {' '.join(record['members'])}")


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@schema_option("stats")
@home_option
@fail_cleanly
def stats(fmt: str, home: str | None) -> None:
    """Counts of items, kinds, sessions and relations in the memory home.

    Example: atc stats --format json
    """
    mem = open_memory(home, create=False)
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


@main.group(cls=_LazyGroup, lazy={"attention": "attention_cloud.benchmark.cli:bench_attention"})
def bench() -> None:
    """Benchmarks that ship with the product (the attention suite)."""


@main.group(cls=_LazyGroup, lazy={name: f"attention_cloud.cells.cli:cells_{name}"
                                  for name in ("list", "show", "hot", "rebuild")})
def cells() -> None:
    """Cells: neighbourhoods of related items, with adjacency, aggregates and a ladder each."""


def run() -> None:
    """The ``atc`` program: :func:`main`, with Ctrl-C reaching a long Prolog call at once
    (bridge/interrupts.py; a program calling ``main`` itself keeps its own SIGINT handling),
    its work never cut short by a reader of its output that stopped early
    (closed_output.py), and one-time set-up costs put off until they pay for themselves
    (start_cost.py: a command's process ends after its work)."""
    from .bridge.interrupts import want_forwarding
    from .start_cost import defer

    want_forwarding()
    defer()
    keep_working_when_output_closes()
    try:
        main()
    finally:
        flush_quietly()       # output still buffered when a reader stopped early: no traceback


if __name__ == "__main__":  # pragma: no cover
    # `python -m attention_cloud.cli`: run the package's own module, whose sharing commands
    # (which import it) register against it rather than against this copy.
    from attention_cloud.cli import run as package_run

    sys.exit(package_run())
