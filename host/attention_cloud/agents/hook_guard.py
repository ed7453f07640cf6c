"""``atc ... hook ...`` never exits non-zero, not even on a command line click refuses.

Claude Code reads a hook's exit status: 2 is a *blocking* error. On ``UserPromptSubmit`` it
blocks the prompt and erases it; on ``Stop`` it keeps Claude going with stderr as the reason.
click answers a command line it refuses (``--budget 0``, an option this ``atc`` does not know,
``ATC_HOME`` naming a file) with exactly that status, so a settings entry with one bad option
blocked every prompt. For a hook call, such an error is one line in ``hooks.log`` (when the
home is a folder) and on stderr, which Claude Code does not show for status 0, and the status
is 0: the hook ran nothing, as for any other error it meets. The one exception is a
:class:`HookNotice`, status 1: Claude Code's non-blocking error, shown to the user.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn

#: Root options of ``atc`` that take a value (the one before ``hook`` is skipped with it).
_ROOT_VALUE_OPTIONS = ("--home",)


class HookNotice(Exception):
    """A line the user must see (a capture that failed: :mod:`.missed_captures`), which the
    hook prints on stderr with :data:`STATUS`: Claude Code shows a hook's stderr to the user
    for a status other than 0 and 2 and goes on (a *non-blocking* error)."""

    STATUS = 1


def is_hook_call(args: list[str]) -> bool:
    """Whether ``args`` (``atc``'s arguments) run the ``hook`` command group."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _ROOT_VALUE_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg == "hook"
    return False


def _home_named(args: list[str]) -> Path | None:
    """The home the command line (else ``ATC_HOME``, else the default) names, as best it can
    be read from a command line click refused."""
    from ..home import resolve_home

    named = os.environ.get("ATC_HOME") or None
    for at, arg in enumerate(args):
        if arg == "--home" and at + 1 < len(args):
            named = args[at + 1]
        elif arg.startswith("--home="):
            named = arg[len("--home="):]
    try:
        return resolve_home(named)
    except Exception:  # noqa: BLE001 - only where to log is at stake
        return None


def run_hook_call(main: Callable[..., Any], args: list[str], **options: Any) -> NoReturn:
    """Run ``main`` (the ``atc`` group) on a hook command line and exit 0 whatever happens; a
    refused command line is logged (one line) rather than answered with status 2."""
    import click

    from ..cli_base import OneLineError
    from ..errors import AtcError, one_line
    from .hooks import log

    options.pop("standalone_mode", None)    # the caller's (CliRunner's) is replaced
    try:
        main(args, standalone_mode=False, **options)
    except click.ClickException as exc:
        message = one_line(exc.format_message())
        home = _home_named(args)
        if home is not None:
            log(home, "hook", f"error: {message} (`atc {' '.join(args)}` ran nothing)")
        click.echo(exc.line() if isinstance(exc, OneLineError) else f"atc: {message}", err=True)
    except AtcError as exc:   # raised before the hook's own guard runs (an empty $ATC_HOME,
        # an ATC_* value that cannot be read): logged too, where a home is named, as stderr
        # is seldom seen from a hook
        message = one_line(exc, 'cli')
        home = _home_named(args)
        if home is not None:
            log(home, "hook", f"error: {message} (`atc {' '.join(args)}` ran nothing)")
        click.echo(f"atc: {message}", err=True)
    except HookNotice as exc:
        click.echo(str(exc), err=True)
        sys.exit(HookNotice.STATUS)
    except (click.Abort, SystemExit):
        pass
    sys.exit(0)
