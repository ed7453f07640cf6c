"""A command line the parser refuses, told in one line: ``atc: grant add: No such option: --bogus
(try atc grant add --help)`` on stderr, exit 2, the form of every other ``atc`` error.

Click's own answer is three lines (the usage, ``Try 'atc ... --help' for help.``, then
``Error: ...``); a script or an agent reading the last line of stderr, or the first, got
half of it. The wording after the command is click's message, unchanged, so the hook guard
(agents/hook_guard.py), which logs ``format_message()``, says the same words.
"""
from __future__ import annotations

import contextlib
from typing import IO, Any, Iterator

import click

from .errors import one_line


class OneLineUsageError(click.UsageError):
    """A :class:`click.UsageError` shown as one ``atc: COMMAND: PROBLEM (try ... --help)``
    line; its message is the refused error's."""

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(usage_line(self.format_message(), self.ctx), file=file, err=file is None)


def usage_line(message: str, ctx: click.Context | None) -> str:
    """The one line for a refused command line: the command (its words after ``atc``; none for
    ``atc`` itself), the problem, and the help to read."""
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


#: click 8.2 on: a group called bare raises this to print its help (8.1 prints it and exits).
_HELP_FOR_NOTHING = getattr(click.exceptions, "NoArgsIsHelpError", OneLineUsageError)


@contextlib.contextmanager
def usage_errors_in_one_line() -> Iterator[None]:
    """Run the body; a usage error it raises is re-raised as a :class:`OneLineUsageError`.
    Help asked for by giving nothing (a group called bare) stays help."""
    try:
        yield
    except (OneLineUsageError, _HELP_FOR_NOTHING):
        raise
    except click.UsageError as exc:
        raise OneLineUsageError(exc.format_message(), exc.ctx or _context_raised_in(exc)) \
            from exc


def _context_raised_in(exc: BaseException) -> click.Context | None:
    """The innermost click context on the way ``exc`` came up: the command whose parser raised
    it, for the parser errors click raises without one (``Option '--segment' requires an
    argument.``), which would otherwise name no command."""
    found = None
    frame = exc.__traceback__
    while frame is not None:
        ctx = frame.tb_frame.f_locals.get("ctx")
        found = ctx if isinstance(ctx, click.Context) else found
        frame = frame.tb_next
    return found
