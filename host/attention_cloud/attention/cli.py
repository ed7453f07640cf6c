"""``atc belief|source|goal|attend|inspect|claim|trace``: the attention controller's commands.

Each command is a few lines over :class:`~attention_cloud.attention.Controller`. They use the
memory home given by ``--home`` (or a Memory passed as the click context object), the scope
given by ``--scope`` (default ``default``, env ``ATC_SCOPE``) and the clock given by ``--now``
(Unix seconds, env ``ATC_NOW``, default the current time; tests and replays pin it).

The attention seed's worked example, end to end::

    atc source add registry --type dependency_version --kind package_registry
    atc source add matrix --type compatibility --kind compatibility_matrix
    atc belief add ver --type dependency_version --subject libfoo --value 4.1 \\
        --confidence 0.9 --age 21600 --volatility package_release
    atc belief add compat --type compatibility --subject deploy --value A \\
        --confidence 0.9 --age 21600 --volatility config_docs --supports ver
    atc attend --goal deploy --depends-on compat --loss 1 --budget 3   # -> inspect registry
    atc inspect attn-1 --result 4.2                                   # compat goes dirty
    atc attend --goal deploy --budget 2                                # -> inspect matrix
    atc inspect attn-2 --result B                                     # decision A -> B
    atc attend --goal deploy --budget 1                                # -> stop
"""
from __future__ import annotations

import functools
import json
import math
import os
import time
import unicodedata
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

import click

from ..cli_base import command, group
from ..errors import UsageError
from ..json_values import strict_json
from ..schema_option import schema_option
if TYPE_CHECKING:      # imported where used: `atc --help` mounts these commands too
    from .controller import Controller
    from .results import AttendResult, Candidate


def fail_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The host CLI's error handling (one line, exit code), looked up when a command runs:
    ``attention_cloud.cli`` imports this module while it is being imported itself."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from ..cli import fail_cleanly as host_fail_cleanly

        return host_fail_cleanly(fn)(*args, **kwargs)

    return wrapper


def _not_blank(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """An empty name refused as the host CLI refuses one (``Error: Invalid value for
    'BELIEF_ID': must not be empty``, exit 2): an empty belief, source, goal or candidate id
    reached Prolog and came back as "Domain error: `non_empty_text' expected, found `""'",
    naming no argument, and an empty ``trace --goal`` filtered every event out unsaid."""
    values = value if isinstance(value, tuple) else (value,)
    if "" in values:
        raise click.BadParameter("must not be empty", ctx=ctx, param=param)
    # a blank one (spaces) is refused by the id's own check, in one line: "needs a visible
    # character and no control characters"
    return value


class _Finite(click.ParamType):
    """A float that is a number: click's FLOAT lets ``nan`` and ``inf`` through, which reached
    Prolog and came back as "found `1.5NaN'"."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


FINITE = _Finite()


class _Moment(click.ParamType):
    """A moment as Unix seconds: a number (any, as before), or a time written as every other
    option that takes one reads it (``atc hydrate --now``, ``grant --since``: ISO 8601, a
    date, RFC 2822, ...). ``--now 2026-03-20T09:00:00Z`` was "is not a valid float" here
    while ``atc hydrate --now`` took it and refused nothing but a bare year. Digits that
    write a date or a year (``20260320``, ``2024``) are read as that reader reads them (the
    date; a year is refused), not as seconds of 1970."""

    name = "time"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        if _may_write_a_date(str(value)):
            seconds = self._read(value, param, ctx)
        else:
            try:
                seconds = FINITE.convert(value, param, ctx)
            except click.BadParameter:
                seconds = self._read(value, param, ctx)
        if not 0 <= seconds <= _LAST_SECOND:
            # the controller's times are Unix seconds from 1970 (atc_attention_checks): what
            # lay outside came back from Prolog as "Domain error: `time_seconds' expected"
            self.fail(f"{value!r} is outside the attention clock, which runs from 1970 "
                      f"to 5138 (Unix seconds 0 to {_LAST_SECOND:,.0f})", param, ctx)
        return seconds

    def _read(self, value: Any, param: click.Parameter | None,
              ctx: click.Context | None) -> float:
        from ..audit import normalise_time

        try:
            iso = normalise_time(str(value))
        except UsageError as exc:
            self.fail(str(exc), param, ctx)
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def _may_write_a_date(text: str) -> bool:
    """``text`` is digits that write a year or a date (``2024``, ``20260320``), which every
    time option reads so, never as seconds (the date reader, with dateutil, is imported only
    for four or eight digits: a count of seconds, a replay's clock, does not pay for it)."""
    text = text.strip()
    if not (text.isascii() and text.isdigit() and len(text) in (4, 8)):
        return False
    from ..ingest.timefmt import is_date_digits

    return is_date_digits(text)


#: The last Unix second the attention rules take (rules/attention_checks.pl, time_seconds).
_LAST_SECOND = 1.0e11


MOMENT = _Moment()

def _env_set_empty(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Refuse an option's environment variable set to nothing (a script exporting a variable
    it never filled), as an empty ``$ATC_HOME`` is refused: click reads an empty variable as
    unset, so ``ATC_SCOPE=`` wrote into the default scope and ``ATC_NOW=`` ran at the
    present instead of the pinned clock, without a word."""
    envvar = param.envvar if isinstance(param.envvar, str) else None
    if (envvar and ctx.get_parameter_source(param.name or "") is
            click.core.ParameterSource.DEFAULT):
        raw = os.environ.get(envvar)
        if raw is not None and not raw.strip():
            raise click.BadParameter(f"${envvar} is set but empty: give it a value, or unset "
                                     "it for the default", ctx=ctx, param=param)
    return value


def _common(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option("--now", type=MOMENT, default=None, envvar="ATC_NOW", show_envvar=True,
                      callback=_env_set_empty,
                      help="The current time: Unix seconds or a date and time such as "
                           "2026-03-20T09:00:00Z [default: now].")(fn)
    fn = click.option("--scope", envvar="ATC_SCOPE", default="default", show_default=True,
                      show_envvar=True, callback=_env_set_empty,
                      help="Namespace of beliefs, goals and trace.")(fn)
    return click.option("--home", envvar="ATC_HOME", type=click.Path(file_okay=False),
                        default=None, show_envvar=True,
                        help="Memory home directory [default: ~/.attention-cloud].")(fn)


def _format_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
                        show_default=True)(fn)


def _controller(ctx: click.Context, home: str | None, scope: str, *,
                create: bool = True) -> Controller:
    """The controller over the home (``create=False``: a command that only reads refuses a
    folder that holds no memory rather than making an empty one there)."""
    memory = ctx.obj if hasattr(ctx.obj, "pl") and hasattr(ctx.obj, "home") else None
    if memory is None and scope.startswith("bench-"):
        # Such a scope lives in this process only: the next command would find nothing.
        raise UsageError(f"--scope {scope}: bench-* scopes are never journalled, so what this "
                         "command changed would be gone when it exits; choose another name")
    if memory is None:
        from ..bridge import get_prolog
        from ..cli import note_made_home
        from ..memory import Memory
        from .controller import ensure_loaded

        # Load the attention rules before the home's journal is replayed into them.
        ensure_loaded(get_prolog())
        if create:
            note_made_home(home)      # taken away again if the command is refused
        memory = Memory.open(home, create=create)
    from .controller import Controller

    return Controller(memory.pl, scope, memory=memory)


def _now(now: float | None) -> float:
    return time.time() if now is None else now


def _json(value: Any) -> None:
    """``value`` as strict JSON, as every ``--format json`` writes it: a float JSON cannot hold
    (one an older home stored) is the string ``"nan"``, ``"inf"`` or ``"-inf"``, never the
    bare ``NaN``/``Infinity`` that jq and ``JSON.parse`` refuse."""
    click.echo(json.dumps(strict_json(value), ensure_ascii=False, indent=2, default=str,
                          allow_nan=False))


#: Unicode categories of characters a table cell writes as escapes: controls (C0, DEL, C1)
#: and the line and paragraph separators.
_LINE_BREAKERS = frozenset({"Cc", "Zl", "Zp"})


def _shown(value: Any) -> str:
    """Free text (a subject, a value, a reading) as one table cell: a control character is
    written as its escape (``\\n``), so a subject holding a newline cannot split its row in
    two, the second half passing for a row of its own. JSON keeps the text as written."""
    text = str(value)
    if text.isprintable():
        return text
    # Only what breaks or hides a line: a format character (a joiner inside an emoji) is kept.
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in _LINE_BREAKERS else c
                   for c in text)


def _cause(cause: dict[str, Any]) -> str:
    """Why a belief went dirty, in words (see atc_tms:dirt_cause_dict/2 for the fields)."""
    kind = cause.get("kind")
    if kind == "superseded":
        text = f"{cause['belief']} superseded by {cause['by']}"
    elif kind == "belief_revised":
        text = f"{cause['belief']} revised"
    elif kind == "via":
        text = f"via {cause['belief']} (dirty)"
    elif kind == "source_changed":
        text = f"source {cause['source']} changed"
    elif kind == "item_changed":
        text = f"item {cause['item']} changed"
    else:
        text = f"{kind} {' '.join(str(a) for a in cause.get('args', []))}".strip()
    return _shown(text)


def _num(value: Any, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


# -- belief -----------------------------------------------------------------------------------
@group()
def belief() -> None:
    """Beliefs with justifications: add, show, why, list."""


@belief.command("add")
@click.argument("belief_id", callback=_not_blank)
@click.option("--type", "claim_type", required=True, help="Claim type, e.g. deploy_state.",
              callback=_not_blank)
@click.option("--subject", required=True, help="What the claim is about.")
@click.option("--value", required=True, help="The believed value.")
@click.option("--confidence", type=FINITE, required=True, help="Confidence in [0,1].")
@click.option("--observed-at", type=MOMENT, default=None,
              help="When it was observed: Unix seconds or a date and time.")
@click.option("--age", type=FINITE, default=None, help="Or: how many seconds ago.")
@click.option("--volatility", required=True, callback=_not_blank,
              help="Volatility class, e.g. deploy_state, or a hazard rate per second.")
@click.option("--supports", multiple=True, help="Belief, it_ item, source or inspection id.",
              callback=_not_blank)
@click.option("--source", default=None, help="The source this belief is a reading of.",
              callback=_not_blank)
@_common
@click.pass_context
@fail_cleanly
def belief_add(ctx: click.Context, belief_id: str, claim_type: str, subject: str, value: str,
               confidence: float, observed_at: float | None, age: float | None,
               volatility: str, supports: tuple[str, ...], source: str | None,
               home: str | None, scope: str, now: float | None) -> None:
    """Record a belief and why it is held.

    Example: atc belief add ver --type dependency_version --subject libfoo --value 4.1
    --confidence 0.9 --age 21600 --volatility package_release --source summary
    """
    if observed_at is not None and age is not None:
        raise UsageError("--observed-at and --age both say when it was observed; give one")
    at = observed_at if observed_at is not None else _observed_at(_now(now), age or 0.0)
    _controller(ctx, home, scope).add_belief(
        belief_id, claim_type=claim_type, subject=subject, value=value, confidence=confidence,
        observed_at=at, volatility=_volatility(volatility), supports=supports, source=source)
    click.echo(f"belief {belief_id}: {claim_type} {subject} = {value}")


def _observed_at(now: float, age: float) -> float:
    """When a belief ``age`` seconds old was observed; a negative age (the future) or one
    reaching before 1970 is refused naming --age, not the time computed from it."""
    if age < 0:
        raise UsageError(f"--age {age:g}: an age is seconds ago, 0 or more")
    if age > now:
        raise UsageError(f"--age {age:g}: more seconds ago than since 1970 (now is {now:.0f})")
    return now - age


def _volatility(text: str) -> str | float:
    """A class name stays text; a number is a hazard rate per second."""
    try:
        hazard = float(text)
    except ValueError:
        return text
    if not math.isfinite(hazard):
        raise UsageError(f"--volatility {text}: neither a volatility class nor a hazard rate")
    return hazard


@belief.command("show")
@schema_option("belief")
@click.argument("belief_id", callback=_not_blank)
@_format_option
@_common
@click.pass_context
@fail_cleanly
def belief_show(ctx: click.Context, belief_id: str, fmt: str, home: str | None, scope: str,
                now: float | None) -> None:
    """Show a belief: value, age, P(stale), dirt, and what superseded it."""
    info = _controller(ctx, home, scope, create=False).belief(belief_id, now=_now(now))
    if fmt == "json":
        _json(info)
        return
    click.echo(_belief_line(info))
    for dirt in info["dirt"]:
        click.echo(f"  dirty: {_cause(dirt['cause'])} (at {_num(dirt['at'], 0)})")
    if info["superseded_by"]:
        click.echo(f"  superseded by {info['superseded_by']}")
    labels = info.get("labels") or {}
    readers, retention = labels.get("readers"), labels.get("retention")
    if labels.get("restrictions") or readers is not None or retention is not None:
        click.echo(f"  labels (from its items): readers {', '.join(readers or ['anyone'])}; "
                   f"restrictions {', '.join(labels.get('restrictions', [])) or '-'}; "
                   f"retention {retention or 'none'}")


def _belief_line(info: dict[str, Any]) -> str:
    status = "DIRTY" if info["dirty"] else ("superseded" if not info["live"] else "clean")
    by_age = info.get("p_stale_by_age", info["p_stale"])
    # A dirty belief's P(stale) is the controller's floor for it; its age alone says less.
    stale = _num(info["p_stale"]) + (f" (dirty; by age {_num(by_age)})"
                                     if info["dirty"] and by_age != info["p_stale"] else "")
    return (f"{info['id']}: {info['claim_type']} {_shown(info['subject'])} = "
            f"{_shown(info['value'])} [{status}] confidence {_num(info['confidence'], 2)}, "
            f"age {_num(info['age_s'], 0)} s, P(stale) {stale}, "
            f"source {info['source'] or '-'}")


@belief.command("why")
@schema_option("why")
@click.argument("belief_id", callback=_not_blank)
@_format_option
@_common
@click.pass_context
@fail_cleanly
def belief_why(ctx: click.Context, belief_id: str, fmt: str, home: str | None, scope: str,
               now: float | None) -> None:
    """Show why a belief is held: its justification tree."""
    tree = _controller(ctx, home, scope, create=False).why(belief_id)
    if fmt == "json":
        _json(tree)
        return
    _print_why(tree, 0)


def _print_why(node: dict[str, Any], depth: int) -> None:
    pad = "  " * depth
    causes = "; ".join(_cause(d["cause"]) for d in node["dirt"])
    dirt = f"  DIRTY: {causes}" if node["dirt"] else ""
    click.echo(f"{pad}{node['id']}: {node['claim_type']} {_shown(node['subject'])} = "
               f"{_shown(node['value'])}{dirt}")
    for support in node["supports"]:
        if support["kind"] == "belief" and support.get("why"):
            _print_why(support["why"], depth + 1)
        elif support.get("deeper"):
            click.echo(f"{pad}  belief {support['id']} (deeper: atc belief why {support['id']})")
        else:
            click.echo(f"{pad}  {support['kind']} {support['id']}")


@belief.command("list")
@schema_option("beliefs")
@click.option("--dirty", is_flag=True, help="Only dirty beliefs.")
@_format_option
@_common
@click.pass_context
@fail_cleanly
def belief_list(ctx: click.Context, dirty: bool, fmt: str, home: str | None, scope: str,
                now: float | None) -> None:
    """List the beliefs of the scope."""
    infos = _controller(ctx, home, scope, create=False).beliefs(now=_now(now))
    infos = [i for i in infos if i["dirty"] or not dirty]
    if fmt == "json":
        _json(infos)
        return
    for info in infos:
        click.echo(_belief_line(info))


# -- source -----------------------------------------------------------------------------------
@group()
def source() -> None:
    """Sources: add, changed (dirties dependants), event (interruptions and the like)."""


@source.command("add")
@click.argument("name", callback=_not_blank)
@click.option("--type", "claim_type", required=True, help="The claim type it answers.",
              callback=_not_blank)
@click.option("--kind", default=None, help="Registry kind [default: NAME].", callback=_not_blank)
@click.option("--authority", type=FINITE, default=None, help="Override the registry.")
@click.option("--cost", type=FINITE, default=1.0, show_default=True,
              help="What one inspection of it costs (the VOC weighs it).")
@click.option("--switch-cost", type=FINITE, default=0.0, show_default=True,
              help="What turning to it costs the work in hand.")
@click.option("--untrusted", is_flag=True, help="Its events cannot set priority.")
@_common
@click.pass_context
@fail_cleanly
def source_add(ctx: click.Context, name: str, claim_type: str, kind: str | None,
               authority: float | None, cost: float, switch_cost: float, untrusted: bool,
               home: str | None, scope: str, now: float | None) -> None:
    """Register a source for a claim type.

    Example: atc source add health --type live_system_state --kind live_health_endpoint
    """
    ctl = _controller(ctx, home, scope)
    ctl.add_source(name, claim_type=claim_type, authority=authority, cost=cost,
                   trusted=not untrusted, kind=kind, switch_cost=switch_cost)
    info = ctl.source(name)
    click.echo(f"source {name}: {info['claim_type']} authority {_num(info['authority'], 2)}")


@source.command("changed")
@click.argument("name", callback=_not_blank)
@_common
@click.pass_context
@fail_cleanly
def source_changed(ctx: click.Context, name: str, home: str | None, scope: str,
                   now: float | None) -> None:
    """A source changed: mark every belief depending on it, transitively, dirty."""
    # a source a home holds: a missing home is a mistyped --home, not a new one to make
    dirtied = _controller(ctx, home, scope, create=False).source_changed(name, now=_now(now))
    click.echo(f"dirtied {len(dirtied)}: {', '.join(dirtied) or '-'}")


@source.command("event")
@click.argument("kind", type=click.Choice(["interruption", "failed_action", "state_change",
                                           "claim_drafted"]))
@click.option("--from", "origin", required=True, help="The source reporting the event.",
              callback=_not_blank)
@click.option("--target", required=True, help="What it is about.")
@click.option("--payload", default="", help="Free text; kept, never interpreted.")
@click.option("--priority", type=FINITE, default=None, help="Honoured from trusted sources only.")
@_common
@click.pass_context
@fail_cleanly
def source_event(ctx: click.Context, kind: str, origin: str, target: str, payload: str,
                 priority: float | None, home: str | None, scope: str,
                 now: float | None) -> None:
    """Report an event; it becomes a candidate, never an automatic switch."""
    receipt = _controller(ctx, home, scope).add_event(
        kind, source=origin, target=target, payload_text=payload, trusted_priority=priority,
        now=_now(now))
    click.echo(f"event {receipt.event_id or '-'}: {receipt.status}")


# -- goal -------------------------------------------------------------------------------------
@command()
@click.argument("goal_id", callback=_not_blank)
@click.option("--depends-on", multiple=True, required=True, help="Belief ids the decision needs.",
              callback=_not_blank)
@click.option("--loss", type=FINITE, required=True, help="Loss if the decision is wrong.")
@click.option("--deadline-s", type=FINITE, default=None, help="Seconds until the deadline.")
@click.option("--irreversible", is_flag=True,
              help="The action cannot be undone: its evidence must be fresh (a floor).")
@click.option("--safety-critical", is_flag=True,
              help="A wrong decision is unsafe: its invariant is checked first (a floor).")
@click.option("--decides", default=None, help="The belief whose value is the decision.",
              callback=_not_blank)
@_common
@click.pass_context
@fail_cleanly
def goal(ctx: click.Context, goal_id: str, depends_on: tuple[str, ...], loss: float,
         deadline_s: float | None, irreversible: bool, safety_critical: bool,
         decides: str | None, home: str | None, scope: str, now: float | None) -> None:
    """Set a goal and the beliefs its next decision depends on."""
    _controller(ctx, home, scope).add_goal(
        goal_id, depends_on=depends_on, loss_if_wrong=loss, deadline_s=deadline_s,
        irreversible=irreversible, safety_critical=safety_critical, decides=decides,
        now=_now(now))
    click.echo(f"goal {goal_id}: depends on {', '.join(depends_on)}")


# -- attend / inspect -------------------------------------------------------------------------
@command()
@schema_option("attend")
@click.option("--goal", "goal_id", required=True, help="The goal to attend to.",
              callback=_not_blank)
@click.option("--budget", type=int, default=3, show_default=True, help="Inspections left.")
@click.option("--current", default=None, help="Candidate being worked on (hysteresis).",
              callback=_not_blank)
@click.option("--depends-on", multiple=True, help="Set the goal first: its dependencies.",
              callback=_not_blank)
@click.option("--loss", type=FINITE, default=1.0, show_default=True,
              help="With --depends-on: loss if the decision is wrong.")
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True,
              help="Candidates to list.")
@_format_option
@_common
@click.pass_context
@fail_cleanly
def attend(ctx: click.Context, goal_id: str, budget: int, current: str | None,
           depends_on: tuple[str, ...], loss: float, top: int, fmt: str, home: str | None,
           scope: str, now: float | None) -> None:
    """Rank candidate computations by predicted VOC and decide: inspect one, or stop.

    Example: atc attend --goal deploy --budget 3
    """
    # a goal the home holds, unless --depends-on sets it here
    ctl = _controller(ctx, home, scope, create=bool(depends_on))
    at = _now(now)
    # Checked before the goal is set: refused after it, the command failed and still changed
    # memory (the goal was journalled). Without a goal to set, the same words.
    largest = ctl.max_budget()
    if not 0 <= budget <= largest:
        raise UsageError(f"--budget {budget}: inspections left, 0 to {largest}")
    if depends_on:
        ctl.check_attend(budget=budget, current=current)
        ctl.add_goal(goal_id, depends_on=depends_on, loss_if_wrong=loss, now=at)
    result = ctl.attend(goal_id, budget=budget, now=at, current=current)
    if fmt == "json":
        _json(result.as_dict())
        return
    _print_result(result, top)


def _print_result(result: AttendResult, top: int) -> None:
    click.echo(f"{'rank':>4}  {'candidate':<10} {'kind':<20} {'target':<18} {'about':<12} "
               f"{'trigger':<22} {'P(chg)':>6} {'VOC':>6} {'net':>7}  floor")
    for cand in result.ranked[:top]:
        click.echo(_candidate_row(cand))
    if len(result.ranked) > top:
        click.echo(f"  ... {len(result.ranked) - top} more")
    if result.saturation_alarm:
        click.echo("ALARM: priorities cluster at the maximum (possible priority inflation)")
    if result.decision == "inspect" and result.chosen is not None:
        chosen = result.chosen
        about = f" about {_shown(chosen.subject)}" if chosen.subject not in (None, "") else ""
        click.echo(f"decision: inspect {chosen.candidate_id} ({chosen.kind} "
                   f"{_shown(chosen.target)}"
                   f"{about}), reason {result.reason}")
    else:
        click.echo(f"decision: stop, reason {result.reason}")
    gd = result.goal_decision or {}
    if gd:
        dirty = " (DIRTY)" if gd.get("dirty") else ""
        click.echo(f"goal decision: {_shown(gd.get('value'))} from belief {gd.get('belief')}"
                   f"{dirty}")


def _candidate_row(c: Candidate) -> str:
    """One ranked candidate; ``about`` is the subject a source is read about (one source may
    answer several: without it two rows named the same source and nothing else told them
    apart, and a reading given to the wrong one was taken for the other subject)."""
    flag = "" if c.eligible else f" [held: {c.skip_reason}]"
    floor = c.floor if c.floor else "-"
    about = "-" if c.subject in (None, "") else _shown(c.subject)
    return (f"{c.rank:>4}  {c.candidate_id:<10} {c.kind:<20} {_shown(c.target):<18} {about:<12} "
            f"{c.trigger:<22} {c.p_decision_changes:>6.3f} {c.predicted_voc:>6.3f} "
            f"{c.net_voc:>7.3f}  {floor}{flag}")


@command()
@schema_option("inspect")
@click.argument("candidate_id", callback=_not_blank)
@click.option("--result", "value", default=None,
              help="What the inspection returned (required for a source's reading, "
                   "unless --failed).")
@click.option("--failed", is_flag=True, help="The inspection could not be carried out.")
@click.option("--cost", type=FINITE, default=None, help="Actual cost [default: the source's].")
@_format_option
@_common
@click.pass_context
@fail_cleanly
def inspect(ctx: click.Context, candidate_id: str, value: str | None, failed: bool,
            cost: float | None, fmt: str, home: str | None, scope: str,
            now: float | None) -> None:
    """Record the outcome of a candidate; updates beliefs and may dirty dependants.

    Example: atc inspect attn-1 --result 4.2
    """
    if failed and value is not None:
        raise UsageError("--result and --failed: an inspection that failed returned nothing; "
                         "give one of them")
    ctl = _controller(ctx, home, scope, create=False)   # a candidate an attend proposed
    if value is None and not failed and ctl.candidate(candidate_id).get("kind") == "inspect_source":
        # Without it the empty text was recorded as the source's reading, and superseded
        # the belief it was read about (libfoo = "").
        raise UsageError(f"{candidate_id} reads a source: give --result VALUE (what it "
                         "returned) or --failed")
    out = ctl.inspect(candidate_id, result="" if value is None else value, now=_now(now),
                      succeeded=not failed, cost=cost)
    if fmt == "json":
        _json(out.__dict__)
        return
    what = "belief changed" if out.belief_changed else "belief unchanged"
    click.echo(f"inspection {out.inspection_id or '-'}: {what}"
               + (f", new belief {out.new_belief}" if out.new_belief else "")
               + (", CONTRADICTION" if out.contradiction else "")
               + (", decision changed" if out.decision_changed else ""))
    if out.dirtied:
        click.echo(f"dirtied: {', '.join(out.dirtied)}")


# -- claim / trace ----------------------------------------------------------------------------
@command()
@schema_option("claim")
@click.argument("text")
@click.option("--type", "claim_type", required=True, help="Claim type of the claim.",
              callback=_not_blank)
@click.option("--evidence", multiple=True, help="Inspection or belief id cited.",
              callback=_not_blank)
@click.option("--subject", default=None, help="What the claim is about [default: any].")
@click.option("--mode", type=click.Choice(["attention-only", "production"]),
              default="attention-only", show_default=True,
              help="production blocks a claim whose evidence falls short; attention-only "
                   "logs it and lets it through.")
@_format_option
@_common
@click.pass_context
@fail_cleanly
def claim(ctx: click.Context, text: str, claim_type: str, evidence: tuple[str, ...],
          subject: str | None, mode: str, fmt: str, home: str | None, scope: str,
          now: float | None) -> None:
    """Check a claim's evidence; in production mode a claim without it is blocked (exit 1).

    Example: atc claim "deploy B" --type compatibility --evidence insp-2 --mode production
    """
    # Checked against what a home holds (sources, beliefs, inspections): a missing home is a
    # mistyped --home, which made an empty one and judged the claim against nothing.
    ctl = _controller(ctx, home, scope, create=False)
    verdict = ctl.claim(text, claim_type=claim_type, evidence=evidence, mode=mode, now=_now(now),
                        subject=subject)
    if fmt == "json":
        _json(verdict.__dict__)
    elif verdict.allowed and not verdict.violations:
        click.echo(f"{verdict.claim_id}: allowed")
    elif verdict.allowed:
        click.echo(f"{verdict.claim_id}: allowed, violation logged ({verdict.failure_code})")
        for why in verdict.violations:
            click.echo(f"  missing: {why}")
    else:
        click.echo(f"{verdict.claim_id}: BLOCKED ({verdict.failure_code})")
        for why in verdict.violations:
            click.echo(f"  missing: {why}")
    if not verdict.allowed:
        # the verdict above is the command's output (stdout, parseable with --format json);
        # the failure is said on stderr as every other non-zero exit says it
        click.echo(f"atc: claim {verdict.claim_id} blocked ({verdict.failure_code}): "
                   f"{len(verdict.violations)} requirement"
                   f"{'s' if len(verdict.violations) != 1 else ''} of its claim type unmet "
                   "in production mode", err=True)
        ctx.exit(1)


@command()
@schema_option("trace")
@click.option("--goal", "goal_id", default=None, help="Only this goal's events.",
              callback=_not_blank)
@click.option("--category", type=click.Choice(["attention", "validator"]), default=None)
@click.option("--event", default=None, help="Only this event type.", callback=_not_blank)
@_format_option
@_common
@click.pass_context
@fail_cleanly
def trace(ctx: click.Context, goal_id: str | None, category: str | None, event: str | None,
          fmt: str, home: str | None, scope: str, now: float | None) -> None:
    """Show the attention trace: selections (written before outcomes) and resolutions."""
    events = _controller(ctx, home, scope, create=False).trace(goal_id, category=category, event=event)
    if fmt == "json":
        _json(events)
        return
    skip = {"seq", "time", "event", "category"}
    for ev in events:
        rest = " ".join(f"{k}={_field(v)}" for k, v in sorted(ev.items())
                        if k not in skip and v is not None)
        click.echo(f"{ev['seq']:>5} {_num(ev['time'], 0)} {ev['event']:<34} {rest}")


def _field(value: Any) -> str:
    """A trace field's value in a text row: true/false and lists as JSON says them (Python's
    reprs, ``floor=False`` and ``triggers=['goal_dependency']``, told another story than
    ``--format json``), a list comma-joined, free text one line (:func:`_shown`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_field(v) for v in value) or "-"
    if isinstance(value, dict):
        return _shown(json.dumps(value, ensure_ascii=False, default=str))
    return _shown(_num(value))


#: Every command of this package, for the host CLI to mount.
COMMANDS = {"belief": belief, "source": source, "goal": goal, "attend": attend,
            "inspect": inspect, "claim": claim, "trace": trace}
