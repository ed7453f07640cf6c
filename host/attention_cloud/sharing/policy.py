"""Principals, teams, grants, labels and mounts: the host side of rules/grants.pl.

The policy lives in Prolog (``visible/3`` and the facts it reads); this module turns calls into
durable changes (``atc_api:api_sharing_change/2``, one fsynced batch each), issues bearer
tokens and checks them. A token is shown once, when its principal is added; the home keeps
only a salted scrypt hash of it.

Example::

    with Memory.open(home) as mem:
        add_principal(mem, "alice", owner=True)
        token = add_principal(mem, "bob")          # give this to Bob, once
        add_principal(mem, "platform", kind="team")
        join_team(mem, "bob", "platform")
        gid = add_grant(mem, "platform", ceiling="L2", segments=["payments"])
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Iterable

from ..audit import append_event, normalise_time
from ..bridge import Atom, Term, Var, to_plain
from ..errors import BadArgument, InputError, PrologError, UsageError
from .. import api_args as args
from ..api_lock import serialised
from ..store import sync_journal

#: scrypt parameters for token hashes (about 30 ms a check; 16 MiB of memory).
SCRYPT = {"n": 2 ** 14, "r": 8, "p": 1, "dklen": 32}

_TOKEN = re.compile(r"atc_([0-9a-f]{16})\.([A-Za-z0-9_-]{20,100})")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
LEVELS = ("l0", "l1", "l2", "l3")
#: Names no principal may take: a frame's `reader` option reads `none` (its default) and `null`
#: (an option left unset) as no reader at all, the home's owner (rules/hydrate.pl).
RESERVED_NAMES = ("none", "null")
RESTRICTIONS = ("private", "pii")


@dataclass(frozen=True)
class Grant:
    """A grant as ``atc grant list`` shows it."""

    id: str
    owner: str
    grantee: str
    filter: tuple[str, ...]
    ceiling: str
    expiry: str | None
    revoked: str | None
    live: bool

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"id": self.id, "owner": self.owner, "grantee": self.grantee,
                "filter": list(self.filter), "ceiling": self.ceiling.upper(),
                "expiry": self.expiry, "revoked": self.revoked, "live": self.live}


@dataclass(frozen=True)
class SharingState:
    """Everything the sharing policy of one home holds (never a token or its hash)."""

    owner: str | None
    principals: list[dict[str, Any]] = field(default_factory=list)
    grants: list[Grant] = field(default_factory=list)
    mounts: list[dict[str, str]] = field(default_factory=list)

    def kind_of(self, name: str) -> str | None:
        """``person`` or ``team`` for a known principal, else None."""
        return next((p["kind"] for p in self.principals if p["name"] == name), None)


def check_name(name: str, what: str = "principal") -> str:
    """A principal's, team's or mount's name, or UsageError: an ASCII letter, then ASCII
    letters, digits, ``-``, ``_`` or ``.`` (at most 64). The error says ASCII: 'Zoë' or 'Łukasz'
    was refused as not starting with "a letter" and holding other than "letters"."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise UsageError(f"{what} name {name!r} must start with an ASCII letter (A-Z, a-z) and "
                         "hold only ASCII letters, digits, '-', '_' or '.' (at most 64)")
    return name


def level(value: str) -> str:
    """``L0``..``L3`` (any case) as the Prolog level atom, or UsageError."""
    low = str(value).lower()
    if low not in LEVELS:
        raise UsageError(f"ceiling must be one of L0, L1, L2, L3, not {value!r}")
    return low


#: What the policy's refusals mean, said as a user would ("No permission to create principal
#: `alice'" did not say that alice exists): (action, type) of a permission_error -> message.
_REFUSALS = {
    ("create", "principal"): "{}: already a principal of this home (atc principal list)",
    ("create", "owner"): "this home already has an owner, {}",
    ("grant", "principal"): "{} owns this home and reads all of it: a grant is for someone else",
    ("remove", "owner"): "{} owns this home and cannot be removed",
    ("join", "team"): "{} is a team, and a team holds persons only (no team in a team)",
}


def _change(mem: Any, change: Term | list[Term]) -> Any:
    mem.lock.acquire()
    try:
        (result,) = mem.pl.once("atc_api:api_sharing_change", change, Var())
    except PrologError as exc:
        raise _refusal(exc) or _missing(exc) or _not_a_team(exc) or exc
    sync_journal(mem.home)
    return result


#: What the policy's ``existence_error(Kind, Name)`` says, by kind (a name it names plainly).
_MISSING = {"grant": "{}: no such grant in this home",
            "principal": "{}: no such principal in this home",
            "mount": "{}: no such mount in this home",
            "record": "{}: no such item, arc or rollup in this memory"}


def _missing(exc: PrologError) -> InputError | None:
    """The policy's ``existence_error`` (a grant, principal, mount, record or membership that
    is not there) as one plain line, as every other "no such" is; None for any other error."""
    missing = exc.existence()
    if missing is None:
        return None
    kind, culprit = missing
    if kind == "label" and isinstance(culprit, Term) and len(culprit.args) == 3:
        return BadArgument(_missing_label(*(_label_text(arg) for arg in culprit.args)))
    if kind == "membership" and isinstance(culprit, Term) and len(culprit.args) == 2:
        return BadArgument(f"{culprit.args[0]} is not a member of {culprit.args[1]}")
    if kind in _MISSING and not isinstance(culprit, Term):
        return BadArgument(_MISSING[kind].format(culprit))
    return None


def _missing_label(record: str, key: str, value: str) -> str:
    """What declassifying a label ``record`` does not carry says (grants_declassify/4)."""
    if key == "restriction":
        return f"{record}: carries no restriction {value} to lift"
    verb = "widen" if key == "reader" else "lift"
    return f"{record}: names no readers to {verb} (anyone a grant reaches reads it)"


def _not_a_team(exc: PrologError) -> UsageError | None:
    """The policy's ``type_error(team, Name)`` (a person named where a team goes) in words."""
    formal = exc.term.args[0] if isinstance(exc.term, Term) and exc.term.args else None
    if (isinstance(formal, Term) and formal.name == "type_error" and len(formal.args) == 2
            and str(formal.args[0]) == "team"):
        return UsageError(f"{formal.args[1]} is a person, not a team (atc team add NAME "
                          "makes a team)")
    return None


def _refusal(exc: PrologError) -> UsageError | None:
    """The policy's ``permission_error`` as a :data:`_REFUSALS` message, else None."""
    formal = exc.term.args[0] if isinstance(exc.term, Term) and exc.term.args else None
    if not (isinstance(formal, Term) and formal.name == "permission_error"
            and len(formal.args) == 3):
        return None
    action, kind, culprit = (str(arg) for arg in formal.args)
    pair = formal.args[2]
    if (action, kind) == ("loosen", "label") and isinstance(pair, Term) and len(pair.args) == 2:
        key, value = (str(arg) for arg in pair.args)
        return UsageError(_LOOSENING.get(key, "{} would widen the label").format(value))
    message = _REFUSALS.get((action, kind))
    return UsageError(message.format(culprit)) if message else None


#: A label change refused because it would widen what the record's label allows, by key.
_LOOSENING = {
    "reader": "{}: the record already names its readers, and labels only narrow them "
              "(atc declassify --reader widens)",
    "retention": "retention {} is later than the one in force, and labels only shorten it "
                 "(atc declassify --retain-until sets a later one)",
}


# -- state ----------------------------------------------------------------------------------------
@serialised
def sharing_state(mem: Any) -> SharingState:
    """Principals (name, kind, teams), grants, mounts and the owner of ``mem``'s home."""
    (state,) = mem.pl.once("atc_api:api_sharing_state", Var())
    return _state_of(to_plain(state))


def stored_sharing_state(home: Any = None) -> SharingState:
    """:func:`sharing_state` of ``home`` (a path; None: the default home) without opening it:
    the principals, grants and mounts as its journal's committed batches leave them, read
    alone (loading a 100k-item home to list its principals took seconds and hundreds of MB).
    A missing home is a HomeError."""
    from .. import api_lock
    from ..bridge import get_prolog
    from ..home import check_not_foreign, require_home, resolve_home
    from ..journal_lines import committed_changes

    path = resolve_home(args.path("home", home, optional=True))
    require_home(path)
    check_not_foreign(path)
    changes = committed_changes(path / "journal.pl", "atc_grants")
    with api_lock.held():
        (state,) = get_prolog().once("atc_api:api_sharing_state_stored", changes, Var())
        return _state_of(to_plain(state))


def _state_of(plain: dict[str, Any]) -> SharingState:
    grants = [Grant(id=str(g["id"]), owner=str(g["owner"]), grantee=str(g["grantee"]),
                    filter=tuple(str(f) for f in g["filter"]), ceiling=str(g["ceiling"]),
                    expiry=None if str(g["expiry"]) == "none" else str(g["expiry"]),
                    revoked=None if g["revoked"] in (None, "null") else str(g["revoked"]),
                    live=str(g["live"]) == "true")
              for g in plain["grants"]]
    owner = plain["owner"]
    return SharingState(owner=None if owner in (None, "null") else str(owner),
                        principals=[{"name": str(p["name"]), "kind": str(p["kind"]),
                                     "teams": [str(t) for t in p["teams"]]}
                                    for p in plain["principals"]],
                        grants=grants,
                        mounts=[{k: str(v) for k, v in m.items()} for m in plain["mounts"]])


# -- principals and tokens ------------------------------------------------------------------------
@serialised
def add_principal(mem: Any, name: str, *, kind: str = "person", owner: bool = False) -> str | None:
    """Add a person or team; with ``owner`` it becomes the home's owner. Returns the bearer
    token issued to it (None for the owner, whose CLI needs none). The token is shown only
    here; the home keeps its salted hash."""
    check_name(name)
    if name in RESERVED_NAMES:
        raise UsageError(f"{name}: a reserved name (a frame reads it as the home's owner); "
                         "choose another")
    if kind not in ("person", "team"):
        raise UsageError(f"kind must be person or team, not {kind!r}")
    _change(mem, Term("principal_add", [Atom(name), Atom(kind), Atom("true" if owner else "false")]))
    if owner:
        return None
    return issue_token(mem, name)


@serialised
def issue_token(mem: Any, name: str) -> str:
    """A new bearer token for principal ``name`` (its salted hash is stored)."""
    token_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, **SCRYPT)
    _change(mem, Term("token_add", [Atom(token_id), Atom(name), Atom(salt.hex()),
                                    Atom(digest.hex())]))
    return f"atc_{token_id}.{secret}"


@serialised
def authenticate(mem: Any, token: str | None) -> str | None:
    """The principal a bearer token was issued to, or None (malformed, unknown or wrong).
    The secret is compared with hmac.compare_digest against its scrypt hash."""
    claim = token_claim(mem, token)
    return claim.principal if claim is not None and claim.holds() else None


@dataclass(frozen=True)
class TokenClaim:
    """A well-formed bearer token and the record its id names (principal None, and a salt and
    hash nothing matches, when there is none: it costs the same scrypt either way)."""

    secret: str
    principal: str | None
    salt: str
    stored: str

    def holds(self) -> bool:
        """Whether the secret hashes to the stored hash (scrypt, ~30 ms and 16 MiB; a caller
        may run it on another thread: it touches no memory home)."""
        digest = hashlib.scrypt(self.secret.encode(), salt=bytes.fromhex(self.salt), **SCRYPT)
        return self.principal is not None and hmac.compare_digest(digest.hex(), self.stored)


@serialised
def token_claim(mem: Any, token: str | None) -> TokenClaim | None:
    """What ``token`` claims to be, from the home's token records, without checking its
    secret (:meth:`TokenClaim.holds` does); None when it is no token at all."""
    if not args.text("token", token, optional=True):
        return None
    found = _TOKEN.fullmatch(token.strip())
    if not found:
        return None
    token_id, secret = found.groups()
    rows = mem.pl.solutions("atc_grants:principal_token", Atom(token_id), Var(), Var(), Var())
    if not rows:
        return TokenClaim(secret, None, "30" * 16, "")
    principal, salt, stored = (str(v) for v in rows[0])
    return TokenClaim(secret, principal, salt, stored)


def tokens_issued(mem: Any) -> bool:
    """Whether any principal of ``mem``'s home holds a bearer token (``atc serve`` answers
    every request 401 while none does)."""
    return mem.pl.once("atc_grants:principal_token", Var(), Var(), Var(), Var()) is not None


@serialised
def remove_principal(mem: Any, name: str) -> list[str]:
    """Remove a principal (its tokens and memberships); returns the grants to it that were
    revoked. The owner cannot be removed."""
    check_name(name)
    revoked = _change(mem, Term("principal_remove", [Atom(name)]))
    return [str(r) for r in revoked]


@serialised
def join_team(mem: Any, person: str, team: str) -> None:
    """``person`` joins ``team``: the team's grants reach them from the next read."""
    _change(mem, Term("join", [Atom(check_name(person)), Atom(check_name(team, "team"))]))


@serialised
def leave_team(mem: Any, person: str, team: str) -> None:
    """``person`` leaves ``team``: the team's grants stop reaching them at the next read."""
    _change(mem, Term("leave", [Atom(check_name(person)), Atom(check_name(team, "team"))]))


# -- grants ---------------------------------------------------------------------------------------
@serialised
def add_grant(mem: Any, grantee: str, *, ceiling: str = "L2", segments: Iterable[str] = (),
              sessions: Iterable[str] = (), tags: Iterable[str] = (),
              entities: Iterable[str] = (), since: str | None = None, until: str | None = None,
              expires: str | None = None) -> str:
    """Grant ``grantee`` the records the filter matches, down to ``ceiling``. Filter: any of
    the values given per kind, every kind given (no kind: the whole home); ``since``/``until``
    bound the items' times; ``expires`` ends the grant. Returns the grant's id: that of the
    unrevoked grant already granting exactly this, when there is one (nothing is added)."""
    _owner_or_fail(mem)  # else Prolog's existence_error(owner, home): "owner `home' does not exist"
    # one value or several: segments="payments" is that segment, not the segments p, a, y...
    conditions = [Term(key, [Atom(v)]) for key, name, values in
                  (("segment", "segments", segments), ("session", "sessions", sessions),
                   ("tag", "tags", tags), ("entity", "entities", entities))
                  for v in args.texts(name, values)]
    for name, value in (("since", since), ("until", until), ("expires", expires)):
        args.text(name, value, optional=True)
    start = normalise_time(since) if since else None
    end = normalise_time(until) if until else None
    if start and end and start > end:     # ISO 8601 UTC text: ordered as the times are
        raise UsageError(f"since {start} is after until {end}: the grant would reach no "
                         "item (swap them?)")
    if start:
        conditions.append(Term("from", [Atom(start)]))
    if end:
        conditions.append(Term("to", [Atom(end)]))
    expiry = Atom(normalise_time(expires)) if expires else Atom("none")
    grant_id = "g_" + secrets.token_hex(6)
    made = _change(mem, Term("grant_add", [Atom(grant_id), Atom(check_name(grantee)),
                                           conditions, Atom(level(ceiling)), expiry]))
    return str(made)                    # an unrevoked twin's id when one exists: no second grant


@serialised
def revoke_grant(mem: Any, grant_id: str, *, who: str = "owner") -> None:
    """Revoke a grant from now on (reads before it stay in the audit log)."""
    args.text("grant_id", grant_id)
    args.text("who", who)
    _change(mem, Term("grant_revoke", [Atom(grant_id), Atom(who)]))


@serialised
def grants_for(mem: Any, principal: str) -> list[Grant]:
    """The live grants that reach ``principal`` (directly or through a team): what the
    server shows a grantee about themselves, and nothing about other grantees."""
    args.text("principal", principal)
    reaching = {str(g) for (g,) in mem.pl.solutions("atc_grants:grant_reaches", Var(),
                                                   Atom(principal))}
    return [g for g in sharing_state(mem).grants if g.id in reaching]


# -- labels ---------------------------------------------------------------------------------------
def _restriction(value: str) -> Term | Atom:
    if value in RESTRICTIONS:
        return Atom(value)
    if value.startswith("team:") and len(value) > 5:
        return Term("team", [Atom(check_name(value[5:], "team"))])
    raise UsageError(f"restriction must be private, pii or team:NAME, not {value!r}")


@serialised
def label(mem: Any, handles: Iterable[str], *, readers: Iterable[str] = (),
          restrictions: Iterable[str] = (), retention: str | None = None) -> int:
    """Tighten the labels of records (items, arcs, rollups): add readers (only to a record
    without readers yet: adding to a list widens it, which only declassify may do),
    restrictions (private, pii, team:NAME), or an earlier retention date. All handles are
    changed in one batch or none. Returns the number of labels set."""
    handles, readers = args.texts("handles", handles), args.texts("readers", readers)
    restrictions = args.texts("restrictions", restrictions)
    args.text("retention", retention, optional=True)
    changes = []
    named = sorted({check_name(r) for r in readers})
    for h in handles:
        if named:   # together: one at a time, the second would widen the list the first made
            changes.append(Term("label", [Atom(h), Atom("readers"), [Atom(r) for r in named]]))
        for x in restrictions:
            changes.append(Term("label", [Atom(h), Atom("restriction"), _restriction(x)]))
        if retention:
            changes.append(Term("label", [Atom(h), Atom("retention"),
                                          Atom(normalise_time(retention))]))
    if not changes:
        raise UsageError("give at least one of readers, restrictions or retention")
    for change in changes:
        _known_record(mem, str(change.args[0]))
    _change(mem, changes)
    return len(handles) * (len(named) + len(restrictions) + bool(retention))


def _known_record(mem: Any, handle: str) -> None:
    if not mem.pl.succeeds("atc_grants:visible", Atom(_owner_or_fail(mem)), Atom(handle), Var()):
        raise BadArgument(f"{handle}: no such item, arc or rollup in this memory")


def _owner_or_fail(mem: Any) -> str:
    owner = sharing_state(mem).owner
    if owner is None:
        raise UsageError("this home has no owner yet: add_principal(mem, NAME, owner=True) "
                         "names it").told(
            cli="this home has no owner yet: `atc principal add NAME --owner` names it")
    return owner


@serialised
def declassify(mem: Any, handles: Iterable[str], *, why: str, restrictions: Iterable[str] = (),
               readers: Iterable[str] = (), all_readers: bool = False,
               retention: str | None = None) -> list[dict[str, Any]]:
    """The one way down: loosen labels of records, recorded in the audit log with who (the
    home's owner) and why. Lift restrictions, add readers, lift the readers list, or set a
    later retention (``none`` lifts it). Returns what changed, one dict per change."""
    if not args.text("why", why) or not why.strip():
        raise UsageError("declassify needs why: a declassification is recorded with its reason")
    handles, readers = args.texts("handles", handles), args.texts("readers", readers)
    restrictions = args.texts("restrictions", restrictions)
    args.text("retention", retention, optional=True)
    who = _owner_or_fail(mem)
    changes: list[Term] = []
    for h in handles:
        for x in restrictions:
            changes.append(Term("declassify", [Atom(h), Atom("restriction"), _restriction(x)]))
        for r in readers:
            changes.append(Term("declassify", [Atom(h), Atom("reader"), Atom(check_name(r))]))
        if all_readers:
            changes.append(Term("declassify", [Atom(h), Atom("readers"), Atom("all")]))
        if retention:
            value = "none" if retention == "none" else normalise_time(retention)
            changes.append(Term("declassify", [Atom(h), Atom("retention"), Atom(value)]))
    if not changes:
        raise UsageError("give at least one of restrictions, readers, all_readers or retention")
    for change in changes:
        _known_record(mem, str(change.args[0]))
    # the audit line is written (fsynced) inside the batch, before its commit: a kill between
    # the two leaves the labels as they were and a line for a declassification not made, never
    # a label lifted with no record of who lifted it or why
    mem.lock.acquire()
    try:
        found = mem.pl.once("atc_api:api_sharing_begin", changes, Var())
    except PrologError as exc:
        raise _refusal(exc) or _missing(exc) or exc
    if not found:  # a change that failed: undone, as api_sharing_change's batch would be
        raise InputError("declassify changed nothing: a label named could not be loosened")
    (results,) = found
    try:
        done = []
        for change, result in zip(changes, results):
            plain = to_plain(result)
            done.append({"record": str(plain["record"]), "key": str(plain["key"]),
                         "value": _label_text(change.args[2]),
                         "derived": str(plain["derived"]) == "true"})
        append_event(mem.home, {"event": "declassify", "who": who, "why": why, "changes": done})
    except BaseException:
        mem.pl.once("atc_api:api_batch_abort")
        raise
    mem.pl.once("atc_api:api_batch_commit")
    sync_journal(mem.home)
    return done


def _label_text(value: Any) -> str:
    if isinstance(value, Term):
        return f"{value.name}:{value.args[0]}"
    return str(value)


@serialised
def record_labels(mem: Any, handle: str) -> dict[str, Any]:
    """The labels in force on a record: ``readers`` (None: anyone a grant reaches),
    ``restrictions`` and ``retention`` (derived records: the union over their sources).
    InputError when memory holds no such item, arc or rollup."""
    args.text("handle", handle)
    h = Atom(handle)
    # record_labels/2 answers for any handle: a typo got an unlabelled record's labels
    if (mem.pl.once("atc_journal:item", h) is None and mem.pl.once("atc_ladder:arc", h) is None
            and mem.pl.once("atc_ladder:rollup", h, Var()) is None):
        raise BadArgument(f"{handle}: no such item, arc or rollup in this memory")
    found = mem.pl.once("atc_grants:record_labels", h, Var())
    if found is None:
        raise BadArgument(f"{handle}: no such record")
    readers, restrictions, retention = found[0].args
    return {"readers": None if str(readers) == "all" else [str(r) for r in readers],
            "restrictions": [_label_text(x) for x in restrictions],
            "retention": None if str(retention) == "none" else str(retention)}


# -- mounts ---------------------------------------------------------------------------------------
def check_mount_url(url: str) -> str:
    """``url`` when it is an http:// or https:// URL; UsageError otherwise."""
    args.text("url", url)
    if not re.fullmatch(r"https?://[^\s]+", url):
        raise UsageError(f"mount URL must be http:// or https://, not {url!r}")
    return url


@serialised
def add_mount(mem: Any, name: str, url: str, token_env: str) -> None:
    """Record a mount (by reference: its URL and the variable that holds the token)."""
    check_name(name, "mount")
    args.text("url", url)
    args.text("token_env", token_env)
    check_mount_url(url)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", token_env):
        raise UsageError(f"token_env (--token-env) must name an environment variable, "
                         f"not {token_env!r}")
    _change(mem, Term("mount_add", [Atom(name), Atom(url.rstrip("/")), Atom(token_env)]))


@serialised
def remove_mount(mem: Any, name: str) -> None:
    """Forget a mount (nothing of it was stored here)."""
    _change(mem, Term("mount_remove", [Atom(check_name(name, "mount"))]))
