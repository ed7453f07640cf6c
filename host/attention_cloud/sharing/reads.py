"""Reads a grantee makes, each through the policy and each appended to the owner's audit log.

The same functions serve the server (a grantee's token) and the owner's own checks
(``--as PRINCIPAL`` on ``hydrate``, ``query``, ``show`` and ``receipt``). Every one goes
through Prolog's visible/3: a frame via ``api_reader_hydrate/4``, a goal in a user module whose
vocabulary is the filtered view (``api_reader_query/5``), ``show`` via
``api_reader_describe/4``; a receipt is returned only to the reader it was made for.
"""
from __future__ import annotations

import re
from typing import Any

from .. import api_args as args
from ..api_lock import serialised
from ..audit import append_event
from ..bridge import Atom, Term, Var, to_plain
from ..errors import BadArgument, InputError, PrologError, UsageError, one_line
from ..jump import MAX_QUERY_CHARS
from ..memory import MAX_RULES_BYTES, QueryResult
from .policy import RESERVED_NAMES

#: The most records one query's audit entry names (a goal may read every text of a large
#: home; the entry stays a line of about a MB at most).
MAX_AUDITED_READS = 20_000
#: The longest goal a grantee may give, in characters: the most of a text any search reads
#: (jump.MAX_QUERY_CHARS). Each of their frames is kept as a receipt and each read is a line
#: of the audit log, both holding the goal whole, in the owner's home: a goal of megabytes
#: (a server's body may be 8 MB) grew the owner's disk by as much at every request.
MAX_GRANTEE_GOAL_CHARS = MAX_QUERY_CHARS

#: Handles of records a reader can be shown: items, arcs, session rollups and cells.
_HANDLE = re.compile(r"(?:it|arc|ses|cell)_[0-9a-f]{6,}")


def require_principal(mem: Any, reader: str) -> None:
    """BadArgument unless ``reader`` is a principal of this home."""
    args.text("reader", reader)
    if not mem.pl.succeeds("atc_grants:principal", Atom(reader), Var()):
        raise BadArgument(f"{reader}: no such principal in this home (sharing_state(mem) "
                          "lists them)").told(
            cli=f"{reader}: no such principal in this home (atc principal list)")
    if reader in RESERVED_NAMES:    # added by an older atc: it would read as the owner
        raise UsageError(f"{reader}: a reserved name, read as the home's owner; it reads "
                         "nothing (remove it and add the principal under another name)")


def _grantee_goal(goal: Any) -> str:
    """``goal`` when it is text of at most MAX_GRANTEE_GOAL_CHARS characters."""
    args.text("goal", goal)
    if len(goal) > MAX_GRANTEE_GOAL_CHARS:
        raise UsageError(f"goal is {len(goal):,} characters long; a grantee's goal is at "
                         f"most {MAX_GRANTEE_GOAL_CHARS:,} characters")
    return goal


def _rules_module(mem: Any, rules_text: str | None, rules_source: str | None, *,
                  saved: bool = True) -> str | None:
    """The grantee user module with the saved rules (unless ``saved`` is false) and
    ``rules_text`` loaded, as the owner's are: a predicate (a plane) the text defines is the
    text's alone, and an error in it names ``rules_source`` (the --rules file) and its line;
    None, and that module emptied, when there are none."""
    # errors name no owner's directory
    sources = mem.saved_rule_sources(named_in_home=True) if saved else []
    if rules_text:
        if len(rules_text.encode("utf-8")) > MAX_RULES_BYTES:
            raise UsageError(f"rules text is larger than {MAX_RULES_BYTES} bytes")
        sources.append(Term("-", [rules_source or "rules", rules_text]))
    if not sources:
        # grantees share one rules module: emptied, so that no call reaches the rules the
        # last one loaded (another grantee's) through hydrate/3's `rules: grantee_rules`
        mem.pl.once("atc_api:api_reader_rules", [], Var())
        return None
    with mem._limits():
        (module,) = mem.pl.once("atc_api:api_reader_rules", sources,
                                {"last_wins": Atom("true" if rules_text else "false")}, Var())
    return str(module)


def _log_read(mem: Any, reader: str, op: str, goal: str, facts: list[dict[str, Any]],
              via: str, **extra: Any) -> None:
    append_event(mem.home, {"event": "read", "reader": reader, "op": op, "goal": goal,
                            "facts": facts, "via": via, **extra})


@serialised
def reader_hydrate(mem: Any, reader: str, goal: str, *, budget: int = 2000,
                   plane: str = "default", ceiling: str = "L0", now: str | float | None = None,
                   walk: str | None = None, rules_text: str | None = None,
                   rules_source: str | None = None,
                   segments: dict[str, int] | None = None, via: str = "cli",
                   mount: str | list[str] | None = None, depth: int = 1,
                   cells: bool | None = None,
                   bridge: bool = True, excerpt: bool = True) -> Any:
    """A frame of ``mem`` for ``reader``: only what their grants let them see, each fact at
    most at their ceiling; logged (reader, goal, handles and rungs). ``segments``, ``mount``
    (cells and their region to ``depth``), ``cells``, ``bridge`` and ``excerpt`` shape the
    frame as they do the owner's (the owner's check; the server takes none of them).
    Without ``rules_text`` the frame runs the owner's saved planes and walk rules (whose
    answers pass the policy); ``rules_text`` (the reader's own rules) loads alone, the saved
    rules not beside it, since a rule of theirs could call a saved predicate and carry what
    it says out in a score; ``rules_source`` is the file it came from, which its errors
    name."""
    from ..hydration import hydrate

    require_principal(mem, reader)
    _grantee_goal(goal)
    args.text("rules_text", rules_text, optional=True)
    args.text("rules_source", rules_source, optional=True)
    args.text("walk", walk, optional=True)
    mounts = args.texts("mount", mount) if mount is not None else None
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise UsageError(f"depth must be a whole number of links, 0 or more, not {depth!r}")
    # rules of their own load alone: beside the owner's saved rules, their walk rule could
    # call a saved predicate and carry its text out in the scores it gives records they see
    module = _rules_module(mem, rules_text, rules_source, saved=not rules_text)
    try:
        with mem._limits(), mem.jump.queries_of(reader):
            frame = hydrate(mem, goal, budget=budget, plane=plane, ceiling=ceiling, now=now,
                            rules=module, walk_rule=walk, reader=reader, segments=segments,
                            mount=mounts or None,
                            depth=depth, cells=cells,
                            bridge=bridge, excerpt=excerpt)
    except PrologError as exc:
        raise _saved_walk_error_withheld(exc, reader, own_rules=bool(rules_text)) from None
    facts = [{"handle": f["handle"], "level": f["level"]} for f in frame.receipt["facts"]]
    facts += [{"handle": c["handle"], "level": c["level"], "beyond": True}
              for c in frame.receipt["beyond"]]
    _log_read(mem, reader, "hydrate", goal, facts, via, receipt=frame.receipt_id)
    return frame


def _saved_walk_error_withheld(exc: PrologError, reader: str, *,
                               own_rules: bool) -> PrologError:
    """``exc``, or when a saved rule run in ``reader``'s frame (as its walk, or a plane's
    settings) raised it, the same error without what it said: the owner's text, which a rule
    that is no walk rule (`pin(_, 'the vault pin is 4711')` named as the walk) or a plane's
    bad setting (`seeds='the vault pin is 4711'`) gave in the error's words."""
    text = str(exc)
    walk = re.match(r"walk rule (\S+) failed: ", text)
    plane = re.match(r"plane (\S+): ", text)
    if own_rules or not (walk or plane):
        return exc
    what = f"walk rule {walk.group(1)} failed" if walk else f"plane {plane.group(1)} is broken"
    return PrologError(f"{what} (a rule saved in the owner's home: what it raised is not "
                       f"shown to {reader})")


@serialised
def reader_query(mem: Any, reader: str, goal: str, *, limit: int = 100,
                 time_limit: float | None = None, rules_text: str | None = None,
                 rules_source: str | None = None,
                 via: str = "cli") -> QueryResult:
    """Solutions of ``goal`` as ``reader`` sees memory (every vocabulary predicate filtered);
    logged with the records the answers name. ``rules_text`` (the grantee's own rules) and
    ``rules_source`` as for :func:`reader_hydrate`, but loaded alone: the owner's saved rules
    are not part of a grantee's goals (a predicate only they define is unknown there)."""
    require_principal(mem, reader)
    _grantee_goal(goal)
    args.whole("limit", limit, minimum=1)
    args.seconds("time_limit", time_limit, optional=True)
    args.text("rules_text", rules_text, optional=True)
    args.text("rules_source", rules_source, optional=True)
    mem.jump  # nearest/3 needs the host's search registered
    # the owner's saved rules stay out of a grantee's goal: a goal calls any predicate they
    # define, and what a rules file writes as facts (plane_segment(P, S, W) naming a segment
    # the grantee cannot read, any literal) would answer it; their frames run them, where
    # every record a plane or walk rule gives passes the policy
    module = _rules_module(mem, rules_text, rules_source, saved=False)
    options: dict[str, Any] = {"limit": limit, "module": Atom(module or "grantee_query")}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    try:
        with mem._limits(), mem.jump.queries_of(reader):
            (solutions, more) = mem.pl.once("atc_api:api_reader_query", Atom(reader), goal,
                                            options, Var(), Var())
    except PrologError as exc:
        _log_read(mem, reader, "query", goal, _read_facts(mem, reader, set()), via,
                  error=one_line(exc))
        raise
    rows = [{str(p.args[0]): to_plain(p.args[1]) for p in sol} for sol in solutions]
    handles = {h for row in rows for h in _handles_in(row)}
    _log_read(mem, reader, "query", goal, _read_facts(mem, reader, handles), via,
              answers=len(rows))
    return QueryResult(rows=rows, more=str(more) == "true", variables=list(rows[0]) if rows else [])


def _read_facts(mem: Any, reader: str, answered: set[str]) -> list[dict[str, Any]]:
    """The audit's facts of a query: the records its answers name and those whose text it read
    (the filtered view notes them: `rung(_, l2, T)` answers no handle), each at the reader's
    ceiling for it; past MAX_AUDITED_READS, the first of them in handle order."""
    (read,) = mem.pl.once("atc_grantee_view:grantee_view_reads", Var())
    handles = sorted(answered | {str(h) for h in read})[:MAX_AUDITED_READS]
    # every level in one call: a call a record cost a goal reading 716 items ~45 ms
    (levels,) = mem.pl.once("atc_api:api_visible_levels", Atom(reader),
                            [Atom(h) for h in handles], Var())
    return [{"handle": h, "level": None if str(level) == "none" else str(level).upper()}
            for h, level in zip(handles, levels)]


def _handles_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(_HANDLE.findall(value))
    if isinstance(value, dict):
        return {h for v in value.values() for h in _handles_in(v)}
    if isinstance(value, (list, tuple)):
        return {h for v in value for h in _handles_in(v)}
    return set()


def _max_level(mem: Any, reader: str, handle: str) -> str | None:
    found = mem.pl.once("atc_api:api_visible", Atom(reader), Atom(handle), Var())
    return str(found[0]).upper() if found else None


@serialised
def reader_show(mem: Any, reader: str, handle: str, level: str | None = None, *,
                via: str = "cli") -> dict[str, Any]:
    """One record at ``level`` as ``reader`` may see it (fields of the filtered view); with
    no ``level``, at the reader's ceiling for it (the most detail they may see). InputError
    when they do not see it, UsageError for a level above their ceiling for it."""
    require_principal(mem, reader)
    args.text("handle", handle)
    args.text("level", level, optional=True)
    if level is None:
        ceiling = _max_level(mem, reader, handle)
        if ceiling is None:
            raise BadArgument(f"{handle}: no such item, arc or rollup visible to {reader}")
        level = ceiling
    if level.lower() not in ("l0", "l1", "l2", "l3"):  # else "L9 is above bob's ceiling"
        raise UsageError(f"level must be one of L0, L1, L2, L3, not {level!r}")
    try:
        (record,) = mem.pl.once("atc_api:api_reader_describe", Atom(reader), Atom(handle),
                                Atom(level.lower()), Var())
    except PrologError as exc:
        text = str(exc)
        if "permission" in text or "No permission" in text:
            ceiling = _max_level(mem, reader, handle)
            raise UsageError(f"{handle}: {level.upper()} is above {reader}'s ceiling for it "
                             f"({ceiling})") from None
        raise BadArgument(f"{handle}: no such item, arc or rollup visible to {reader}") from None
    from ..show import rung_named

    out = rung_named(to_plain(record))
    out["ceiling"] = str(out["ceiling"]).upper()
    _log_read(mem, reader, "show", "", [{"handle": handle, "level": out["level"]}], via)
    return out


@serialised
def reader_receipt(mem: Any, reader: str, receipt_id: str, *, via: str = "cli") -> dict[str, Any]:
    """A stored receipt, only when it was made for ``reader`` (an owner's receipt, or another
    grantee's, does not exist for them)."""
    from ..hydration import load_receipt

    require_principal(mem, reader)
    args.text("receipt_id", receipt_id)
    try:
        receipt = load_receipt(mem.home, receipt_id)
    except InputError:
        receipt = None
    if not receipt or receipt.get("reader") != reader:
        raise BadArgument(f"{receipt_id}: no such receipt for {reader}")
    _log_read(mem, reader, "receipt", "", [], via, receipt=receipt_id)
    return receipt
