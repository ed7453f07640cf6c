"""What every ``atc`` command is made of: its errors as one line, and a group called bare.

**One line per error.** Every error an ``atc`` command line ends with is one line on stderr,
``atc: PROBLEM``, with the exit status it earned (:class:`OneLineError`). A command line the
parser refuses also names the command and the help to read: ``atc: grant add: No such option:
--bogus (try atc grant add --help)``, exit 2, where click printed three lines (the usage,
``Try 'atc ... --help' for help.``, then ``Error: ...``) and a script or an agent reading the
last line of stderr, or the first, got half of it. The words after the command are click's
message, unchanged, so the hook guard (agents/hook_guard.py), which logs
``format_message()``, says the same words.

**A group called bare** (``atc``, ``atc grant``, ``atc rules``) prints its help on stdout and
exits 0, as ``--help`` does: nothing was refused, the user asked what the group holds.
click 8.2 on answered it as an error (the help on stderr, exit 2), click 8.1 as help.

Every command and group of ``atc`` is an :class:`AtcCommand` or an :class:`AtcGroup`
(:func:`command`, :func:`group`; a group's subcommands are made so by default), so that a
refusal click raises without saying which command's parser raised it (``Option '--segment'
requires an argument.``) is told with its command all the same.
"""
from __future__ import annotations

import contextlib
import functools
from typing import IO, Any, Iterator

import click

from .errors import one_line


class OneLineError(click.ClickException):
    """An error of an ``atc`` command line, shown as one line on stderr: ``atc: PROBLEM``; given
    the context of the command a refused command line was for (``ctx``), ``atc: COMMAND:
    PROBLEM (try COMMAND --help)``."""

    def __init__(self, message: str, exit_code: int = 1,
                 ctx: click.Context | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.ctx = ctx

    def line(self) -> str:
        """The error's one line, without its newline."""
        return error_line(self.format_message(), self.ctx)

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(self.line(), file=file, err=file is None)


def error_line(message: str, ctx: click.Context | None = None) -> str:
    """The one line for an error: ``atc:``, the command (its words after ``atc``; none for
    ``atc`` itself, nor without ``ctx``), the problem, and with ``ctx`` the help to read."""
    hint = ""
    if ctx is not None and ctx.command.get_help_option(ctx) is not None:
        help_name = max(ctx.command.get_help_option_names(ctx), key=len)
        hint = f" (try {ctx.command_path} {help_name})"
    words: list[str] = []
    while ctx is not None and ctx.parent is not None:     # the root's name may be a path
        words.insert(0, ctx.info_name or "")
        ctx = ctx.parent
    named = f"{' '.join(words)}: " if words else ""
    return f"atc: {named}{one_line(click.ClickException(message))}{hint}"


@contextlib.contextmanager
def errors_in_one_line() -> Iterator[None]:
    """Run the body; a click error it raises (a refused command line, a file click could not
    open) is re-raised as a :class:`OneLineError` with its exit status."""
    try:
        yield
    except OneLineError:
        raise
    except click.UsageError as exc:
        raise OneLineError(exc.format_message(), exc.exit_code, exc.ctx) from exc
    except click.ClickException as exc:
        raise OneLineError(exc.format_message(), exc.exit_code) from exc


@contextlib.contextmanager
def _naming_the_command(ctx: click.Context) -> Iterator[None]:
    """A usage error raised in the body with no context gets ``ctx``'s: click's parser raises
    some (``Option '--kind' requires an argument.``) without one, and a command's own
    ``click.UsageError("...")`` has none."""
    try:
        yield
    except click.UsageError as exc:
        if exc.ctx is None:
            exc.ctx = ctx
        raise


class AtcCommand(click.Command):
    """A command whose refusals name it (see the module's docstring)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        with _naming_the_command(ctx):
            return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        with _naming_the_command(ctx):
            return super().invoke(ctx)


class AtcGroup(click.Group):
    """A group whose refusals name it, and which, called bare, prints its help and exits 0;
    its subcommands and subgroups are an :class:`AtcCommand` and an :class:`AtcGroup`."""

    command_class = AtcCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        with _naming_the_command(ctx):
            return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        with _naming_the_command(ctx):
            return super().invoke(ctx)


AtcGroup.group_class = AtcGroup

#: ``@command(...)``: :func:`click.command` making an :class:`AtcCommand`.
command = functools.partial(click.command, cls=AtcCommand)
#: ``@group(...)``: :func:`click.group` making an :class:`AtcGroup`.
group = functools.partial(click.group, cls=AtcGroup)
