"""``atc watch PATH...``: follow transcript folders, ingesting and curating what changes.

Mounted on the ``atc`` group by :mod:`attention_cloud.cli`; ``atc ingest --watch`` runs the
same watcher without curation (:func:`run_watcher`).
"""
from __future__ import annotations

import json
import signal
import time
from typing import TYPE_CHECKING, Any, Callable

import click

from ..cli import schema_option
from ..cli_base import command
from ..formats import FORMATS

if TYPE_CHECKING:      # imported where used: `atc --help` mounts this command too
    from .watcher import EventLog, WatchOptions


def _clock() -> str:
    return time.strftime("%H:%M:%SZ", time.gmtime())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 'es' if word.endswith('ch') else 's'}"


def text_log(interval: float) -> EventLog:
    """Events as one short line each on stdout (batches that add nothing stay quiet)."""
    from ..ingest.source import one_line as escaped  # a file name kept to its one log line

    def log(e: dict[str, Any]) -> None:
        kind = e["event"]
        if kind == "start":
            how = ("inotify events" if e["mode"] == "events" else
                   f"polling every {interval:g} s" + (f" ({e['why']})" if e.get("why") else ""))
            line = f"watching {', '.join(escaped(p) for p in e['paths'])} with {how}"
        elif kind == "polling":
            line = f"polling every {interval:g} s from now: {e['why']}"
        elif kind == "batch":
            for f in e["files_skipped"]:
                click.echo(f"{_clock()} skipped {escaped(f['file'])}: {f['reason']}", err=True)
            for n in e.get("notes", ()):   # how a file was read, as atc ingest says it
                click.echo(f"{_clock()} note {escaped(n['file'])}: {n['note']}", err=True)
            if not (e["new"] or e["superseded"] or e["updated"] or e["lines_skipped"]
                    or e["curated"]):
                return
            line = (f"ingested {_plural(e['files'], 'file')}: {_plural(e['new'], 'new item')}, "
                    f"{e['unchanged']} unchanged"
                    # a grown file read again whole (README, Identity): what it read otherwise
                    + (f", {e['superseded']} superseded" if e["superseded"] else "")
                    + (f", {e['updated']} updated" if e["updated"] else "")
                    + (f", {_plural(e['lines_skipped'], 'line')} skipped" if e["lines_skipped"] else "")
                    + (f"; curated {e['curated']}" if e["curated"] else "")
                    + f" ({e['seconds']:.2f} s)")
        elif kind == "skipped":
            click.echo(f"{_clock()} skipped {escaped(e['path'])}: {e['reason']}", err=True)
            return
        elif kind == "took_over":
            line = f"{e['path']} named pid {e['pid']}, no longer running: this watcher takes over"
        elif kind == "waiting":
            line = f"waiting: {e['why']}"
        elif kind == "error":
            click.echo(f"{_clock()} error: {e['message']} (retrying in {e['retry_in_s']:g} s)",
                       err=True)
            return
        elif kind == "status":
            line = (f"status: {_plural(e['followed'], 'file')} followed, {e['pending']} pending; "
                    f"{_plural(e['batches'], 'batch')}, {_plural(e['new'], 'new item')}, "
                    f"curated {e['curated']}; write lock held at most {e['lock_held_max_s']:g} s")
        elif kind == "stop":
            line = (f"stopped ({e['why']}) after {e['seconds']:g} s: "
                    f"{_plural(e['batches'], 'batch')}, {_plural(e['new'], 'new item')}, "
                    f"curated {e['curated']}")
        else:
            return
        click.echo(f"{_clock()} {line}")

    return log


def json_log(e: dict[str, Any]) -> None:
    """Events as one JSON object per line on stdout."""
    click.echo(json.dumps({k: v for k, v in e.items() if k not in ("report", "curate_report")},
                          ensure_ascii=False))


def run_watcher(home: str | None, paths: tuple[str, ...], options: WatchOptions,
                log: EventLog, *, progress: Any = None,
                reported: list[tuple[str, str]] | None = None,
                open_memory: Callable[..., Any] | None = None) -> None:
    """Open the home, watch ``paths`` until SIGTERM/SIGINT, close the home."""
    from ..cli import open_memory as default_open
    from ..closed_output import stop_when_output_closes
    from .watcher import Watcher

    stop_when_output_closes()    # a supervisor reading the events has gone: stop, not run blind
    # Opening a big home takes seconds, before the watcher takes the signals over: one that
    # came then ended the process with Python's own handlers (killed by SIGTERM, exit 143;
    # Ctrl-C as `atc: interrupted`, exit 130). It is noted instead, and the watcher starts
    # stopped; a second one stops it at once, as later.
    early: list[str] = []

    def note(signum: int, _frame: Any) -> None:
        if early:
            raise KeyboardInterrupt
        early.append(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, note)
    mem = (open_memory or default_open)(home)
    try:
        watcher = Watcher(mem, paths, options, log, progress=progress, reported=reported or ())
        watcher.install_signal_handlers()
        if early:
            watcher.stop(early[0])
        watcher.run()
    finally:
        mem.close()


@command("watch")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default=None,
              help="Transcript format [default: detected per file; atc ingest --list-formats "
                   "names them].")
@click.option("--segment", default="default", show_default=True,
              help="Namespace the items go into.")
@click.option("--item-budget", type=click.IntRange(min=1), default=None,
              help="Most items kept per session (each kind keeps a fixed share).")
@click.option("--max-file-bytes", type=click.IntRange(min=1), default=None,
              help="Largest file read [default: max_file_bytes in config.json, else 256 MiB].")
@click.option("--no-curate", is_flag=True, help="Ingest only; curate later with atc curate.")
@click.option("--poll", is_flag=True,
              help="Poll instead of using inotify events (network file systems, containers).")
@click.option("--interval", type=click.FloatRange(min=0.05), default=2.0, show_default=True,
              help="Seconds between polls when polling.")
@click.option("--debounce", type=click.FloatRange(min=0), default=0.5, show_default=True,
              help="Seconds a file must stay quiet after a change before it is read.")
@click.option("--max-delay", type=click.FloatRange(min=0.1), default=10.0, show_default=True,
              help="A file written without pause is still read this often (seconds).")
@click.option("--settle", type=click.FloatRange(min=0), default=10.0, show_default=True,
              help="Seconds unchanged after which an unfinished last line is read too.")
@click.option("--rescan", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="Seconds between full walks in event mode (a lost event is caught then).")
@click.option("--format-output", "out", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Log lines as text, or one JSON object per event.")
@click.option("--home", envvar="ATC_HOME", type=click.Path(file_okay=False), default=None,
              show_envvar=True, help="Memory home directory [default: ~/.attention-cloud].")
@schema_option("watch")
def watch(paths: tuple[str, ...], fmt: str | None, segment: str, item_budget: int | None,
          max_file_bytes: int | None, no_curate: bool, poll: bool, interval: float,
          debounce: float, max_delay: float, settle: float, rescan: float, out: str,
          home: str | None) -> None:
    """Follow transcript files and folders: ingest and curate what they gain, until stopped.

    Runs for days: filesystem events (inotify) tell it what changed, or it polls (--poll, or
    by itself when inotify is unavailable or its watches run out); a file is read once it has
    been quiet for --debounce seconds, a half-written last line only once it is complete.
    Rotated, truncated, rewritten, new and deleted files are followed. Each batch takes the
    home's write lock and gives it back, so other writers wait at most one batch. SIGTERM or
    Ctrl-C stops it at the next checkpoint of the batch in progress (exit 0); SIGUSR1 logs its
    status.

    Example: atc watch ~/.claude/projects/ --segment work
    """
    from ..cli import fail_cleanly
    from .watcher import WatchOptions

    options = WatchOptions(format=fmt, segment=segment, item_budget=item_budget,
                           max_file_bytes=max_file_bytes, curate=not no_curate, poll=poll,
                           interval=interval, debounce=debounce, max_delay=max_delay,
                           settle=settle, rescan=rescan)
    log = json_log if out == "json" else text_log(interval)
    fail_cleanly(run_watcher)(home, paths, options, log)
