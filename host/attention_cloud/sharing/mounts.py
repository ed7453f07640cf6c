"""Mounts: grants of other homes read by reference, and frames drawn from them.

A mount is a name, the URL of another home's ``atc serve`` and the environment variable that
holds this principal's token there (the token itself is never stored). ``atc hydrate`` in a
home with mounts splits the budget evenly between its own memory and each mount, asks each
mount's server for a frame within its share, and renders one frame: every fact from a mount
says so in the receipt (``"mount": NAME``). Nothing a mount returns is stored as memory here
(only the merged receipt, as for any frame). A mount that cannot be reached leaves its share
unused, and the receipt's ``mounts`` and ``notes`` say why.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.request
from typing import Any

from ..errors import UsageError
from ..bridge import Var
from ..hydration import (ESTIMATOR, Frame, FrameFact, excerpt_fields, frame_framing, render_text,
                         save_receipt)
from .policy import add_mount, sharing_state

#: A frame claims no more relevance than its weakest part (as hydrate.pl's overall path).
PATH_RANK = {"recency": 0, "lexical": 1, "semantic": 2, "hybrid": 3}

#: Seconds a mount's server may take to answer.
TIMEOUT = 30.0


class MountError(Exception):
    """A mount could not be read (unreachable, refused, or a bad answer)."""


def call_mount(url: str, token: str | None, path: str, payload: dict[str, Any] | None = None,
               *, timeout: float = TIMEOUT) -> dict[str, Any]:
    """One request to a mount's server: GET, or POST of ``payload`` as JSON; the answer's JSON.
    Raises MountError with one line saying why it failed."""
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(url.rstrip("/") + path, data=data,
                                     method="GET" if payload is None else "POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        try:
            why = json.loads(exc.read().decode("utf-8")).get("error", exc.reason)
        except (ValueError, AttributeError):
            why = exc.reason
        raise MountError(f"HTTP {exc.code}: {why}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise MountError(f"unreachable ({reason})") from None
    except ValueError:
        raise MountError("the server's answer is not JSON") from None
    if not isinstance(body, dict):
        raise MountError("the server's answer is not a JSON object")
    return body


def mount_token(token_env: str) -> str:
    """The token a mount's variable holds; MountError when it is unset."""
    token = os.environ.get(token_env, "").strip()
    if not token:
        raise MountError(f"${token_env} is not set (it must hold the token for this mount)")
    return token


def mount_add_checked(mem: Any, name: str, url: str, token_env: str) -> dict[str, Any]:
    """Check a mount against its server (the token works; a pool never mounts a pool) and
    record it. Returns the server's whoami answer."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", token_env or ""):
        raise UsageError(f"mount {name}: --token-env must name an environment variable "
                         f"(letters, digits and '_'), not {token_env!r}")
    try:
        who = call_mount(url, mount_token(token_env), "/v1/whoami")
    except MountError as exc:
        raise UsageError(f"mount {name}: {exc}") from None
    state = sharing_state(mem)
    here_is_pool = state.owner is not None and state.kind_of(state.owner) == "team"
    if here_is_pool and who.get("home_kind") == "team":
        raise UsageError(f"mount {name}: a pool cannot mount another pool")
    add_mount(mem, name, url, token_env)
    return who


def hydrate_with_mounts(mem: Any, goal: str, *, budget: int = 2000, plane: str = "default",
                        segments: dict[str, int] | None = None, ceiling: str = "L0",
                        rules: str | None = None, walk: str | None = None,
                        now: str | float | None = None, cells: bool | None = None,
                        bridge: bool = True, excerpt: bool = True) -> Frame:
    """A frame from this home's memory and every mount, each with an even share of
    ``budget``; the receipt names the mount of each fact and what each mount did. ``cells``,
    ``bridge`` and ``excerpt`` are Memory.hydrate's (the walk through this memory's cells or
    its entity graph; the second hop across sessions; excerpts of long records)."""
    mounts = sharing_state(mem).mounts
    if not mounts:
        return mem.hydrate(goal, budget=budget, plane=plane, segments=segments, ceiling=ceiling,
                           rules=rules, walk=walk, now=now, cells=cells, bridge=bridge,
                           excerpt=excerpt)
    has_local = mem.pl.once("atc_journal:journal_segment", Var()) is not None
    share = budget // (len(mounts) + (1 if has_local else 0))
    if has_local:
        local = mem.hydrate(goal, budget=budget - share * len(mounts), plane=plane,
                            segments=segments, ceiling=ceiling, rules=rules, walk=walk, now=now,
                            cells=cells, bridge=bridge, excerpt=excerpt)
    else:  # nothing here yet: the mounts share the whole budget
        local = Frame(receipt_id="", facts=(), text="", receipt={
            "goal": goal, "plane": plane, "budget": {"total": budget, "spent": 0, "framing": 0,
                                                      "segments": {}},
            "ceiling": ceiling.upper(), "path": "recency", "anchor": None,
            "tokens": {"estimated": True, "estimator": ESTIMATOR},
            "facts": [], "beyond": [], "suppressed": []})
    receipt = {k: v for k, v in local.receipt.items() if k != "id"}
    receipt["budget"] = {**receipt["budget"], "total": budget,
                         "segments": dict(receipt["budget"]["segments"])}
    facts = list(local.facts)
    render_facts = list(local.facts)
    render_receipt_beyond = list(receipt["beyond"])
    receipt["facts"] = list(receipt["facts"])
    receipt["beyond"] = list(receipt["beyond"])
    receipt["mounts"] = []
    paths = [receipt["path"]] if has_local else []
    notes = list(receipt.get("notes", []))
    for m in mounts:
        name = m["name"]
        entry: dict[str, Any] = {"name": name, "url": m["url"], "budget": share}
        try:
            answer = call_mount(m["url"], mount_token(m["token_env"]), "/v1/hydrate",
                                {"goal": goal, "budget": share, "plane": plane,
                                 "ceiling": ceiling, **({"now": now} if now is not None else {})})
            remote = answer["receipt"]
            remote_facts = answer["facts"]
        except (MountError, KeyError, TypeError) as exc:
            why = str(exc) if isinstance(exc, MountError) else "the server's answer lacks a frame"
            entry.update(status="failed", error=why, spent=0)
            notes.append(f"mount {name} failed: {why}; the frame holds local memory and the "
                         "other mounts only")
            receipt["mounts"].append(entry)
            continue
        spent = int(remote.get("budget", {}).get("spent", 0))
        entry.update(status="ok", spent=spent, receipt=remote.get("id"))
        paths.append(str(remote.get("path", "recency")))
        receipt["mounts"].append(entry)
        for seg, meta in remote.get("budget", {}).get("segments", {}).items():
            receipt["budget"]["segments"][f"{name}:{seg}"] = meta
        receipt["budget"]["spent"] += spent
        for fact in remote_facts:
            text = str(fact.pop("text", ""))
            receipt["facts"].append({**fact, "mount": name})
            render_facts.append(_frame_fact(fact, text, f"{name}:{fact.get('segment', '')}"))
            facts.append(_frame_fact(fact, text, str(fact.get("segment", ""))))
        for crumb in remote.get("beyond", []):
            receipt["beyond"].append({**crumb, "mount": name})
            render_receipt_beyond.append({**crumb, "segment": f"{name}:{crumb.get('segment', '')}"})
    if notes:
        receipt["notes"] = notes
    receipt["path"] = min(paths, key=lambda p: PATH_RANK.get(p, 0)) if paths else "recency"
    receipt["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    # the frame's own lines as this one frame writes them: one head, not one per mount
    shown = {**receipt, "id": "r_0123456789abcdef", "beyond": render_receipt_beyond}
    framing, per_segment = frame_framing(shown, tuple(render_facts))
    receipt["budget"]["framing"] = framing
    receipt["budget"]["segments"] = {k: {**v, "framing": per_segment.get(k, v.get("framing", 0))}
                                     for k, v in receipt["budget"]["segments"].items()}
    rid = "r_" + hashlib.sha256(json.dumps(receipt, sort_keys=True).encode()).hexdigest()[:16]
    receipt = {"id": rid, **receipt}
    text = render_text({**receipt, "beyond": render_receipt_beyond}, tuple(render_facts))
    save_receipt(mem.home, receipt)
    return Frame(receipt_id=rid, facts=tuple(facts), receipt=receipt, text=text)


def _frame_fact(fact: dict[str, Any], text: str, segment: str) -> FrameFact:
    return FrameFact(handle=str(fact.get("handle", "")), segment=segment,
                     level=str(fact.get("level", "")).lower(),
                     seeded_by=str(fact.get("seeded_by", "")),
                     score=float(fact.get("score", 0.0)), tokens=int(fact.get("tokens", 0)),
                     hops=int(fact.get("hops", 0)), source=str(fact.get("source", "")),
                     text=text, time=str(fact.get("time", "")),
                     **excerpt_fields(fact.get("excerpt")))
