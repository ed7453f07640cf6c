"""``atc remember``, ``atc mcp``, ``atc hook ...`` and ``atc install|uninstall claude-code``.

Each command is a few lines over the library in this package; :data:`COMMANDS` is mounted on
``atc`` by :mod:`attention_cloud.cli`.
"""
from __future__ import annotations

import functools
import shlex
import sys
from pathlib import Path
from typing import Any, Callable

import click

from ..api_args import MAX_BUDGET
from ..cli_base import command, group
from ..errors import InputError, UsageError
from ..schema_option import schema_option
from .kinds import REMEMBER_KINDS

# attention_cloud.cli mounts these commands while it is being imported, so its helpers are
# looked up when a command runs (as attention/cli.py does), never imported at load time.


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The host CLI's error handling (one line, exit code)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..cli import fail_cleanly as host_fail_cleanly

        return host_fail_cleanly(fn)(*args, **kwargs)

    return wrapper


def home_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--home``, as every command has it."""
    return click.option("--home", envvar="ATC_HOME", type=click.Path(file_okay=False),
                        default=None, show_envvar=True,
                        help="Memory home directory [default: ~/.attention-cloud].")(fn)


@command()
@schema_option("remember")
@click.argument("text")
@click.option("--kind", type=click.Choice(list(REMEMBER_KINDS)), default="note",
              show_default=True, help="What sort of memory it is.")
@click.option("--segment", default="default", show_default=True,
              help="Namespace the item goes into.")
@click.option("--goal", default=None, help="The goal it was remembered under [default: the text].")
@click.option("--no-curate", is_flag=True,
              help="Only write the item; `atc curate` builds its rungs and vectors later.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def remember(text: str, kind: str, segment: str, goal: str | None, no_curate: bool, fmt: str,
             home: str | None) -> None:
    """Add one memory by hand: TEXT becomes a journal item (- reads it from stdin).

    Remembering the same text again changes nothing. The verbatim record goes to
    remembered.jsonl in the home (`atc show HANDLE --source` prints it).

    Example: atc remember "the staging DB is read-only on Fridays" --kind note
    """
    from ..cli import emit_json, open_memory

    if text == "-":
        from .remember import MAX_REMEMBER_CHARS, MAX_REMEMBER_STDIN_BYTES

        data = sys.stdin.buffer.read(MAX_REMEMBER_STDIN_BYTES + 1)
        if len(data) > MAX_REMEMBER_STDIN_BYTES:
            raise InputError(f"stdin holds more than {MAX_REMEMBER_STDIN_BYTES:,} bytes; the "
                             f"text to remember is at most {MAX_REMEMBER_CHARS:,} characters "
                             "(ingest a file for longer material): nothing remembered")
        try:   # the bytes, not the locale's reading of them: a binary file piped by mistake
            text = data.decode("utf-8")   # was a traceback, or garbage remembered as U+FFFD
        except UnicodeDecodeError as exc:
            raise InputError(f"stdin is not UTF-8 text ({exc.reason} at byte {exc.start}): "
                             "nothing remembered") from None
    mem = open_memory(home)
    try:
        done = mem.remember(text, kind=kind, segment=segment, goal=goal, curate=not no_curate)
    except BaseException:
        mem.close()
        raise
    _close_after_commit(mem, done.handle)
    if fmt == "json":
        emit_json(done.as_dict())
        return
    verb = "remembered" if done.new else "already remembered"
    click.echo(f"{verb} {done.handle} ({done.kind}, segment {done.segment}) <- {done.source}")
    if not done.curated:
        click.echo("atc: note: not curated yet: `atc curate` builds its rungs and vectors",
                   err=True)


def _close_after_commit(mem: Any, handle: str) -> None:
    """Close the home once the item is committed (journal, BM25 and vectors fsynced). What a
    close writes then, a snapshot of the journal or an index when one is due, only makes the
    next open faster: a disk that refuses it (full, a quota) loses nothing, so the command
    says what was not written and succeeds, rather than exit 1 for an item that is kept (a
    caller retrying it got "already remembered"; one not retrying believed it lost)."""
    try:
        mem.close()
    except OSError as exc:
        what = f" {exc.filename}" if exc.filename else ""
        click.echo(f"atc: note: {handle} is kept, but closing the home did not write{what}: "
                   f"{exc.strerror or exc}; a later command writes it once the disk has room",
                   err=True)


#: Every command of this package, for the host CLI to mount.
COMMANDS: dict[str, click.Command] = {"remember": remember}


# -- mcp ------------------------------------------------------------------------------------
@command()
@click.option("--http", "http", is_flag=True,
              help="Serve streamable HTTP on 127.0.0.1 (path /mcp) instead of stdio.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port for --http (0: a free one, named in the serving line on stderr; the "
                   "server binds to 127.0.0.1 only and answers only requests bearing its "
                   "token).")
@home_option
@fail_cleanly
def mcp(http: bool, port: int, home: str | None) -> None:
    """Serve memory to MCP clients (Claude Code, Claude Desktop, ...) over stdio.

    Tools: hydrate, receipt, query, remember, forget, attend, claim, show; resources:
    receipt://{id}, receipts://recent. Memory opens on the first call and the write lock is
    held only while a tool writes, so `atc ingest` and `atc curate` can run beside the server.

    With --http every request needs `Authorization: Bearer TOKEN`: $ATC_MCP_TOKEN when set
    (16+ characters), else the token kept in HOME/mcp-token (made on the first start, mode 0600).

    Example: claude mcp add attention-cloud -- atc mcp
    """
    if not http:
        from .mcp_sdk import import_for_stdio

        import_for_stdio()      # before mcp_server, which imports the SDK's types at its top
    from .mcp_server import serve

    serve(home, http=http, port=port)


# -- hook -----------------------------------------------------------------------------------
# Called bare, no help: a hook's stdout goes into the model's context (UserPromptSubmit), so
# `atc hook` with no event is a refusal the hook guard logs ("Missing command."), exit 0.
@group(no_args_is_help=False)
def hook() -> None:
    """Claude Code hook commands (read the hook's JSON payload on stdin; never fail)."""


def _hook_home(home: str | None) -> Any:
    from ..home import resolve_home

    return resolve_home(home)


@hook.command("user-prompt")
@click.option("--budget", type=click.IntRange(min=1, max=MAX_BUDGET), default=800, show_default=True,
              help="Token budget of the injected frame.")
@click.option("--plane", default="default", show_default=True)
@click.option("--segment", "segments", multiple=True,
              help="Segments to recall from [default: the project's, plus default].")
@click.option("--min-score", type=click.FloatRange(0, 1), default=None,
              help="Bar for the best new fact's score [default: by embedder].")
@home_option
def hook_user_prompt(budget: int, plane: str, segments: tuple[str, ...],
                     min_score: float | None, home: str | None) -> None:
    """UserPromptSubmit: print a frame for the prompt as additional context, or nothing.

    Answered by the home's warm recall server when one runs (started on first use; exits
    after 30 idle minutes; ATC_HOOK_SERVER=off never uses one).

    Example (what Claude Code runs): echo '{"session_id": "s1", "prompt": "...",
    "cwd": "/work/app", ...}' | atc hook user-prompt
    """
    from .hooks import MAX_PAYLOAD_BYTES
    from .recall_server import recall

    raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    out = recall(raw, _hook_home(home), budget=budget, plane=plane, segments=segments,
                 min_score=min_score)
    if out:
        click.echo(out)


def _capture_command(event: str) -> click.Command:
    @click.option("--foreground", is_flag=True,
                  help="Do the work before returning (default: a detached background process).")
    @home_option
    def capture_event(foreground: bool, home: str | None) -> None:
        from .hook_guard import HookNotice
        from .hooks import MAX_PAYLOAD_BYTES, capture

        raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
        notice = capture(raw, _hook_home(home), event=event, foreground=foreground)
        if notice:
            raise HookNotice(notice)

    capture_event.__doc__ = (f"{'Stop' if event == 'stop' else 'SessionEnd'}: ingest and curate "
                             "the session's transcript into the project's segment (incremental).")
    return command(event)(capture_event)


hook.add_command(_capture_command("stop"))
hook.add_command(_capture_command("session-end"))


# -- install / uninstall --------------------------------------------------------------------
def _scope_options(fn: Any) -> Any:
    """``--user`` (the default) or ``--project``, passed on as ``scope``. Both at once is an
    error: as one flag pair the last one given won, and the other file was written."""

    @fail_cleanly
    @functools.wraps(fn)
    def with_scope(user: bool, project: bool, **kwargs: Any) -> Any:
        if user and project:
            raise UsageError("--user and --project name two settings files: give one")
        return fn(scope="project" if project else "user", **kwargs)

    with_scope = click.option("--project", is_flag=True,
                              help="This project's .claude/settings.json.")(with_scope)
    return click.option("--user", is_flag=True,
                        help="Your ~/.claude/settings.json [default].")(with_scope)


@group()
def install() -> None:
    """Connect an agent to memory."""


@install.command("claude-code")
@_scope_options
@click.option("--yes", "-y", is_flag=True, help="Write without asking.")
@click.option("--home", default=None, type=click.Path(file_okay=False),
              help="Memory home the hooks use [default: theirs, $ATC_HOME or ~/.attention-cloud].")
@fail_cleanly
def install_claude_code(scope: str, yes: bool, home: str | None) -> None:
    """Add the recall and capture hooks to Claude Code's settings.json (shown first, written
    when confirmed; other settings and hooks are kept).

    Example: atc install claude-code --project --yes
    """
    from .install import atc_command, install as write, plan_install, settings_path

    home = _installed_home(home)
    plan = plan_install(settings_path(scope), atc_command(home))
    if not plan.added:
        click.echo(f"already installed in {plan.path}")
        return
    click.echo(plan.diff(), nl=False)
    if not yes and not click.confirm(f"Write {plan.path}?", default=False):
        click.echo("nothing written")
        return
    write(plan)
    # the commands printed are the ones that apply: a project install is removed with
    # --project (plain uninstall looks at the user's file), another home is named to MCP too
    scope_flag = " --project" if scope == "project" else ""
    click.echo(f"installed in {plan.path} ({', '.join(plan.added)}); "
               f"`atc uninstall claude-code{scope_flag}` removes it")
    env = (f" -e ATC_HOME={shlex.quote(str(Path(home).expanduser().resolve()))}" if home else "")
    # the same atc as the hooks: by its absolute path, which works where PATH lacks the venv
    click.echo(f"MCP tools too: claude mcp add attention-cloud{env} -- {atc_command()} mcp")


def _installed_home(home: str | None) -> str | None:
    """The home the hooks are to use: this command's --home, else the one given before the
    command (`atc --home DIR install ...`, which every other command reads through
    $ATC_HOME, a variable install leaves to the hooks' own environment), else None (theirs);
    an empty name is refused as every command refuses it."""
    from ..home import resolve_home

    if home is None:
        home = click.get_current_context().find_root().params.get("group_home")
    return None if home is None else str(resolve_home(home))


@group()
def uninstall() -> None:
    """Disconnect an agent from memory."""


@uninstall.command("claude-code")
@_scope_options
@fail_cleanly
def uninstall_claude_code(scope: str) -> None:
    """Remove exactly what `atc install claude-code` added.

    Example: atc uninstall claude-code --project
    """
    from .install import settings_path, uninstall as remove

    click.echo(remove(settings_path(scope)))


COMMANDS.update({"mcp": mcp, "hook": hook, "install": install, "uninstall": uninstall})
