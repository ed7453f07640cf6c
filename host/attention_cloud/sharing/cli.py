"""The sharing commands: ``atc principal|team|grant|mount|label|declassify|serve|audit``.

Each is a few lines over attention_cloud.sharing; ``--as`` on the reading commands lives with
those commands in cli.py and calls sharing/reads.py.
"""
from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..cli import (LevelChoice, emit_json, fail_cleanly, for_terminal, home_option, not_blank, note,
                   open_memory)
from ..cli_base import command, group
from ..schema_option import schema_option
from ..errors import UsageError
from .limits import DEFAULT_BURST, DEFAULT_SHARE


def _print_token(name: str, token: str | None) -> None:
    if token is None:
        return
    click.echo(f"token for {name} (shown once; the home keeps only its hash):")
    click.echo(token)


# -- principals -----------------------------------------------------------------------------------
@group()
def principal() -> None:
    """People and teams this home knows (grantees, and its owner)."""


@principal.command("add")
@click.argument("name")
@click.option("--kind", type=click.Choice(["person", "team"]), default="person", show_default=True)
@click.option("--owner", is_flag=True,
              help="This principal owns the home (one per home; a team makes it a pool).")
@home_option
@fail_cleanly
def principal_add(name: str, kind: str, owner: bool, home: str | None) -> None:
    """Add a principal and print its bearer token (once).

    Example: atc principal add bob
    """
    from . import policy

    with open_memory(home) as mem:
        token = policy.add_principal(mem, name, kind=kind, owner=owner)
    click.echo(f"added {kind} {name}{' (owner of this home)' if owner else ''}")
    _print_token(name, token)


@principal.command("list")
@schema_option("principals")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def principal_list(fmt: str, home: str | None) -> None:
    """List principals, their kind and teams."""
    from . import policy

    state = policy.stored_sharing_state(home)   # the journal's grants alone: no store loaded
    if fmt == "json":
        emit_json({"owner": state.owner, "principals": state.principals})
        return
    for p in state.principals:
        owner = "  owner" if p["name"] == state.owner else ""
        teams = f"  teams: {', '.join(p['teams'])}" if p["teams"] else ""
        click.echo(f"{p['name']}  {p['kind']}{owner}{teams}")


@principal.command("remove")
@click.argument("name")
@home_option
@fail_cleanly
def principal_remove(name: str, home: str | None) -> None:
    """Remove a principal: its tokens stop working and the grants to it are revoked."""
    from . import policy

    with open_memory(home, create=False) as mem:
        revoked = policy.remove_principal(mem, name)
    click.echo(f"removed {name}" + (f"; revoked {', '.join(revoked)}" if revoked else ""))


# -- teams ----------------------------------------------------------------------------------------
@group()
def team() -> None:
    """Teams: grantees whose grants reach every member, read at each read."""


@team.command("add")
@click.argument("name")
@home_option
@fail_cleanly
def team_add(name: str, home: str | None) -> None:
    """Add a team (a principal of kind team) and print its token (a pool's identity).

    Example: atc team add platform
    """
    from . import policy

    with open_memory(home) as mem:
        token = policy.add_principal(mem, name, kind="team")
    click.echo(f"added team {name}")
    _print_token(name, token)


@team.command("join")
@click.argument("person")
@click.argument("team_name", metavar="TEAM")
@home_option
@fail_cleanly
def team_join(person: str, team_name: str, home: str | None) -> None:
    """PERSON joins TEAM; the team's grants reach them from their next read.

    Example: atc team join bob platform
    """
    from . import policy

    with open_memory(home, create=False) as mem:
        policy.join_team(mem, person, team_name)
    click.echo(f"{person} joined {team_name}")


@team.command("leave")
@click.argument("person")
@click.argument("team_name", metavar="TEAM")
@home_option
@fail_cleanly
def team_leave(person: str, team_name: str, home: str | None) -> None:
    """PERSON leaves TEAM; the team's grants stop reaching them at their next read."""
    from . import policy

    with open_memory(home, create=False) as mem:
        policy.leave_team(mem, person, team_name)
    click.echo(f"{person} left {team_name}")


# -- grants ---------------------------------------------------------------------------------------
@group()
def grant() -> None:
    """Grants: a segment of this home, to a grantee, up to a ceiling of detail."""


@grant.command("add")
@click.argument("grantee")
@click.option("--ceiling", type=LevelChoice(),
              default="L2", show_default=True, help="Most detailed level the grantee may see.")
@click.option("--segment", "segments", multiple=True, callback=not_blank,
              help="Only this segment (repeatable: any of them).")
@click.option("--session", "sessions", multiple=True, callback=not_blank,
              help="Only this session (repeatable).")
@click.option("--tag", "tags", multiple=True, callback=not_blank,
              help="Only items with this tag (repeatable).")
@click.option("--entity", "entities", multiple=True, callback=not_blank,
              help="Only items naming this entity (repeatable).")
@click.option("--since", default=None, metavar="TIME", callback=not_blank,
              help="Only items written at or after TIME.")
@click.option("--until", default=None, metavar="TIME", callback=not_blank,
              help="Only items written before TIME.")
@click.option("--expires", default=None, metavar="TIME", callback=not_blank,
              help="The grant ends at TIME.")
@home_option
@fail_cleanly
def grant_add(grantee: str, ceiling: str, segments: tuple[str, ...], sessions: tuple[str, ...],
              tags: tuple[str, ...], entities: tuple[str, ...], since: str | None,
              until: str | None, expires: str | None, home: str | None) -> None:
    """Grant GRANTEE (a person or team) records of this home up to a ceiling.

    Example: atc grant add platform --segment payments --ceiling L2
    """
    from . import policy

    with open_memory(home, create=False) as mem:
        gid = policy.add_grant(mem, grantee, ceiling=ceiling, segments=segments,
                               sessions=sessions, tags=tags, entities=entities, since=since,
                               until=until, expires=expires)
        unknown = _names_memory_lacks(mem, "segment", segments) + _names_memory_lacks(mem, "session", sessions)
    click.echo(gid)
    for kind, name in unknown:  # a grant may name what is yet to come, but mostly it is a typo
        note(f"no item is in {kind} {name} yet")
    if expires:
        import time

        from ..audit import normalise_time

        end = normalise_time(expires)
        if end <= time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()):  # granted dead: a typo
            note(f"--expires {end} is past: the grant reaches no one")


def _names_memory_lacks(mem: Any, kind: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(kind, name)`` for each of ``names`` no live item has as its segment or session."""
    if not names:
        return []
    rows = mem.query(f"setof(N, H^item_{kind}(H, N), Ns)", limit=1).rows
    known = {str(n) for n in rows[0]["Ns"]} if rows else set()
    return [(kind, name) for name in names if name not in known]


@grant.command("list")
@schema_option("grants")
@click.option("--grantee", default=None, callback=not_blank,
              help="Only the grants that reach this principal.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def grant_list(grantee: str | None, fmt: str, home: str | None) -> None:
    """List grants (revoked and expired ones too, marked)."""
    from . import policy

    if grantee:
        with open_memory(home, create=False) as mem:
            from .reads import require_principal

            require_principal(mem, grantee)   # an unknown name is a typo, not "no grants"
            grants = policy.grants_for(mem, grantee)
    else:
        grants = policy.stored_sharing_state(home).grants
    if fmt == "json":
        emit_json([g.as_dict() for g in grants])
        return
    for g in grants:
        state = ("revoked " + g.revoked) if g.revoked else ("live" if g.live else "expired")
        scope = " ".join(g.filter) or "everything"
        until = f"  until {g.expiry}" if g.expiry else ""
        click.echo(f"{g.id}  {g.owner} -> {g.grantee}  {g.ceiling.upper()}  {scope}{until}  {state}")


@grant.command("revoke")
@click.argument("grant_id", callback=not_blank)
@home_option
@fail_cleanly
def grant_revoke(grant_id: str, home: str | None) -> None:
    """Revoke a grant from now on (what was read stays in the audit log)."""
    from . import policy

    with open_memory(home, create=False) as mem:
        owner = policy.sharing_state(mem).owner or "owner"
        policy.revoke_grant(mem, grant_id, who=owner)
    click.echo(f"revoked {grant_id}")


# -- labels ---------------------------------------------------------------------------------------
@command()
@schema_option("labels")
@click.argument("handles", nargs=-1, required=True, callback=not_blank)
@click.option("--reader", "readers", multiple=True, callback=not_blank,
              help="Only this principal or team may read it (repeatable).")
@click.option("--restrict", "restrictions", multiple=True, metavar="private|pii|team:NAME",
              callback=not_blank, help="A restriction (repeatable).")
@click.option("--retain-until", "retention", default=None, metavar="TIME", callback=not_blank,
              help="No grantee sees it after TIME.")
@click.option("--show", "show_only", is_flag=True,
              help="Print the labels in force and change nothing.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True,
              help="text: `set N labels`, then a `HANDLE  {labels as JSON}` line per record; "
                   "json: one document (--schema).")
@home_option
@fail_cleanly
def label(handles: tuple[str, ...], readers: tuple[str, ...], restrictions: tuple[str, ...],
          retention: str | None, show_only: bool, fmt: str, home: str | None) -> None:
    """Tighten the labels of records (labels only tighten; `atc declassify` loosens).

    Example: atc label it_50a40759a4205f7e --restrict pii --reader bob
    """
    from . import policy

    if not show_only and not (readers or restrictions or retention):
        raise UsageError("give at least one of --reader, --restrict, --retain-until")
    with open_memory(home, create=False) as mem:
        n = 0
        if not show_only:
            n = policy.label(mem, handles, readers=readers, restrictions=restrictions,
                             retention=retention)
        labels = {h: policy.record_labels(mem, h) for h in handles}
    if fmt == "json":
        emit_json({"set": n, "records": [{"handle": h, **found} for h, found in labels.items()]})
        return
    if not show_only:
        click.echo(f"set {n} label{'s' if n != 1 else ''}")
    for h, found in labels.items():
        click.echo(f"{h}  {json.dumps(found)}")


@command()
@click.argument("handles", nargs=-1, required=True, callback=not_blank)
@click.option("--why", required=True, help="Why (recorded in the audit log).")
@click.option("--restriction", "restrictions", multiple=True, metavar="private|pii|team:NAME",
              callback=not_blank, help="Lift this restriction (repeatable).")
@click.option("--reader", "readers", multiple=True, callback=not_blank,
              help="Add a reader (repeatable).")
@click.option("--all-readers", is_flag=True, help="Lift the readers list.")
@click.option("--retain-until", "retention", default=None, metavar="TIME|none",
              callback=not_blank, help="A later retention date, or none.")
@home_option
@fail_cleanly
def declassify(handles: tuple[str, ...], why: str, restrictions: tuple[str, ...],
               readers: tuple[str, ...], all_readers: bool, retention: str | None,
               home: str | None) -> None:
    """Loosen labels: the one way down, recorded in the audit log with who and why.

    Example: atc declassify arc_9f21 --restriction pii --why "reviewed: no personal data"
    """
    from . import policy

    if not (restrictions or readers or all_readers or retention):
        raise UsageError("give at least one of --restriction, --reader, --all-readers, "
                         "--retain-until")
    with open_memory(home, create=False) as mem:
        done = policy.declassify(mem, handles, why=why, restrictions=restrictions,
                                 readers=readers, all_readers=all_readers, retention=retention)
    for d in done:
        click.echo(f"declassified {d['record']}: {d['key']} {d['value']}")


# -- mounts ---------------------------------------------------------------------------------------
@group()
def mount() -> None:
    """Grants of other homes, read by reference at every frame (nothing is copied here)."""


@mount.command("add")
@click.argument("name")
@click.argument("url")
@click.option("--token-env", required=True, metavar="VAR",
              help="Environment variable holding your token for that home.")
@home_option
@fail_cleanly
def mount_add(name: str, url: str, token_env: str, home: str | None) -> None:
    """Mount the grants URL's home gives you, under NAME (checked against the server).

    Example: atc mount add alice http://127.0.0.1:8765 --token-env ALICE_TOKEN
    """
    from .mounts import mount_add_checked

    with open_memory(home) as mem:
        who = mount_add_checked(mem, name, url, token_env)
    grants = who.get("grants", [])
    click.echo(f"mounted {name}: {url} as {who.get('principal')} "
               f"({len(grants)} grant{'s' if len(grants) != 1 else ''} of {who.get('owner')})")


@mount.command("list")
@schema_option("mounts")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def mount_list(fmt: str, home: str | None) -> None:
    """List mounts."""
    from . import policy

    mounts = policy.stored_sharing_state(home).mounts
    if fmt == "json":
        emit_json(mounts)
        return
    for m in mounts:
        click.echo(f"{m['name']}  {m['url']}  token from ${m['token_env']}")


@mount.command("remove")
@click.argument("name")
@home_option
@fail_cleanly
def mount_remove(name: str, home: str | None) -> None:
    """Remove a mount."""
    from . import policy

    with open_memory(home, create=False) as mem:
        policy.remove_mount(mem, name)
    click.echo(f"removed mount {name}")


# -- serve / audit --------------------------------------------------------------------------------
@command()
@click.option("--host", "bind", default="127.0.0.1", show_default=True,
              help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (0: a free one, printed).")
@click.option("--share", type=click.FloatRange(0, 1, min_open=True), default=DEFAULT_SHARE,
              show_default=True,
              help="The most of the server's time one principal may take over a while "
                   "(past it: 429 and Retry-After).")
@click.option("--burst", type=click.FloatRange(0, min_open=True), default=DEFAULT_BURST,
              show_default=True, metavar="SECONDS",
              help="Server seconds one principal may take at once before --share applies.")
@home_option
@fail_cleanly
def serve(bind: str, port: int, share: float, burst: float, home: str | None) -> None:
    """Serve this home's grants over HTTP to the principals' bearer tokens.

    Example: atc serve --port 8765
    """
    from .server import serve as run_server

    def announce(url: str) -> None:
        click.echo(f"serving on {url}")
        sys.stdout.flush()              # a script waiting for the address reads it now

    run_server(home, host=bind, port=port, announce=announce, share=share, burst=burst)


@command()
@schema_option("audit")
@click.option("--reader", default=None, callback=not_blank,
              help="Only this principal's reads (and acts).")
@click.option("--since", default=None, metavar="TIME", help="Only events at or after TIME.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@home_option
@fail_cleanly
def audit(reader: str | None, since: str | None, fmt: str, home: str | None) -> None:
    """The owner's ledger: who read what, when, at which rung; declassifications; erasures.

    Example: atc audit --reader bob --since 2026-05-01
    """
    from ..audit import describe_event, read_events
    from ..home import require_home, resolve_home

    path = require_home(resolve_home(home))
    events = list(read_events(path, reader=reader, since=since))
    if reader is not None and not events and not any(read_events(path, reader=reader)):
        _require_known_reader(home, reader)
    if fmt == "json":
        emit_json(events)
        return
    for e in events:
        click.echo(for_terminal(describe_event(e)))   # a grantee's goal is their text


def _require_known_reader(home: str | None, reader: str) -> None:
    """UsageError unless ``reader`` is a principal of the home: a name neither the ledger nor
    the home knows is a typo, which an empty answer would pass off as a clean ledger (a
    removed principal's reads stay in the ledger, so the log is asked first)."""
    from . import policy

    with open_memory(home, create=False) as mem:
        names = {p["name"] for p in policy.sharing_state(mem).principals}
    if reader not in names:
        raise UsageError(f"{reader}: no such principal in this home, and no event of the "
                         "audit log names it (atc principal list)")


COMMANDS: dict[str, Any] = {"principal": principal, "team": team, "grant": grant, "mount": mount,
                            "label": label, "declassify": declassify, "serve": serve,
                            "audit": audit}
