"""Mounts: grants of other homes read by reference, and frames drawn from them.

A mount is a name, the URL of another home's ``atc serve`` and the environment variable that
holds this principal's token there (the token itself is never stored). ``atc hydrate`` in a
home with mounts splits the budget evenly between its own memory and each mount, asks each
mount's server for a frame within its share, and renders one frame: every fact from a mount
says so in the receipt (``"mount": NAME``, and its segment ``NAME:SEGMENT`` as the frame's
heading and the receipt's budget name it). Nothing a mount returns is stored as memory here
(only the merged receipt, as for any frame). A mount that cannot be reached, answers nothing
within :data:`TIMEOUT` seconds (all of the answer, not each read), answers more than
:data:`MAX_ANSWER_BYTES` or anything but a frame leaves its share unused, and the receipt's
``mounts`` and ``notes`` say why; what it answers is checked field by field before any of it
enters the frame, and its facts are kept only while their text fits the mount's share.
"""
from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import threading
import time
from typing import Any

from ..errors import UsageError
from ..bridge import Var
from ..hydration import (ESTIMATOR, Frame, FrameFact, excerpt_fields, frame_framing,
                         framing_estimates, render_text, save_receipt,
                         segment_framing_estimate)
from .policy import add_mount, check_mount_url, sharing_state

#: A frame claims no more relevance than its weakest part (as hydrate.pl's overall path).
PATH_RANK = {"recency": 0, "lexical": 1, "semantic": 2, "hybrid": 3}

#: Seconds a mount's server may take to answer, all of it: a server that sent a byte now and
#: then (each read within the socket's timeout) held the frame for as long as it liked.
TIMEOUT = 30.0

#: The most bytes of a mount's answer read: a frame of the largest budget is far less, and a
#: server answering without end grew this process's memory without end.
MAX_ANSWER_BYTES = 32 * 1024 * 1024

#: The most bytes of an error answer's body read (its one line of why).
MAX_ERROR_BYTES = 64 * 1024


class MountError(Exception):
    """A mount could not be read (unreachable, refused, or a bad answer)."""


def call_mount(url: str, token: str | None, path: str, payload: dict[str, Any] | None = None,
               *, timeout: float | None = None) -> dict[str, Any]:
    """One request to a mount's server: GET, or POST of ``payload`` as JSON; the answer's JSON.
    The whole answer must come within ``timeout`` seconds (default :data:`TIMEOUT`) and hold
    at most :data:`MAX_ANSWER_BYTES`. Raises MountError with one line saying why it failed."""
    import urllib.request

    limit = TIMEOUT if timeout is None else timeout
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(url.rstrip("/") + path, data=data,
                                     method="GET" if payload is None else "POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def fetch() -> None:
        try:
            outcome["body"] = _fetch(request, limit)
        except BaseException as exc:   # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc
        finally:
            done.set()

    # the socket's timeout bounds each read, not the answer: the request runs on a daemon
    # thread this call stops waiting for at the deadline (the process may exit beside it)
    threading.Thread(target=fetch, name="atc-mount", daemon=True).start()
    if not done.wait(limit):
        raise MountError(f"no whole answer within {limit:g} s")
    if "error" in outcome:
        raise outcome["error"]
    body = outcome["body"]
    if not isinstance(body, dict):
        raise MountError("the server's answer is not a JSON object")
    return body


@functools.cache
def _opener() -> Any:
    """Opens a mount's URL: http and https only (no file:, ftp: or data: handler), no
    redirects. Built at the first request: urllib's HTTP client (http.client, ssl, email)
    cost every `atc hydrate` ~0.1 s of CPU at import, with no mount to read."""
    import urllib.request

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        """A redirect is answered as it is, never followed: urllib re-sends every header of
        the request, the bearer token among them, to whatever host the Location names."""

        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                             newurl: str) -> None:
            raise MountError(f"HTTP {code}: the server redirects to {_one_line(newurl, 200)}; "
                             "the token is not sent there (mount that URL if it is the same "
                             "home)")

    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.UnknownHandler(), urllib.request.HTTPHandler(),
                    urllib.request.HTTPSHandler(), urllib.request.HTTPDefaultErrorHandler(),
                    urllib.request.HTTPErrorProcessor(), NoRedirects()):
        opener.add_handler(handler)
    return opener


def _fetch(request: Any, timeout: float) -> Any:
    """The JSON of the answer to ``request`` (a ``urllib.request.Request``); MountError with
    one line otherwise."""
    import urllib.error

    try:
        with _opener().open(request, timeout=timeout) as response:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
                raise MountError(f"the server's answer is larger than {MAX_ANSWER_BYTES:,} bytes")
            raw = response.read(MAX_ANSWER_BYTES + 1)
            if len(raw) > MAX_ANSWER_BYTES:
                raise MountError(f"the server's answer is larger than {MAX_ANSWER_BYTES:,} bytes")
        return json.loads(raw.decode("utf-8"))
    except MountError:
        raise
    except urllib.error.HTTPError as exc:
        try:
            why = json.loads(exc.read(MAX_ERROR_BYTES).decode("utf-8")).get("error", exc.reason)
        except (ValueError, AttributeError, RecursionError, OSError):
            why = exc.reason
        raise MountError(f"HTTP {exc.code}: {_one_line(why)}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):   # the socket's read timeout: the same deadline
            raise MountError(f"no whole answer within {timeout:g} s") from None
        raise MountError(f"unreachable ({_one_line(reason)})") from None
    except (ValueError, RecursionError):   # RecursionError: JSON nested too deep
        raise MountError("the server's answer is not JSON") from None
    except Exception as exc:   # noqa: BLE001 - http.client's own (a malformed status line, ...)
        raise MountError(f"the server's answer is not HTTP ({_one_line(exc)})") from None


def _one_line(value: Any, limit: int = 300) -> str:
    """What a server said, on one line of at most ``limit`` characters."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


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
    check_mount_url(url)          # before anything is sent there
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
    parts = len(mounts) + (1 if has_local else 0)
    share = budget // parts
    # Each part writes the frame's head (the envelope, the goal's and the budget's lines) into
    # a frame of its own and pays for it there; this one frame writes it once, so each part
    # is given its share of the heads it will not write: without it a 200-token frame of local
    # memory and one mount was two heads and two headings, and no fact.
    # A part planned alone writes no segment heading (its frame's second line says the
    # same), and this frame writes one for each of its parts: each is given that much less.
    estimates = framing_estimates(goal, plane, "", budget)
    heading = segment_framing_estimate("default", budget) - estimates[-1]
    extra = max(0, estimates[0] * (parts - 1) // parts - heading)
    if has_local:
        local = mem.hydrate(goal, budget=budget - share * len(mounts) + extra, plane=plane,
                            segments=segments, ceiling=ceiling, rules=rules, walk=walk, now=now,
                            cells=cells, bridge=bridge, excerpt=excerpt)
    else:  # nothing here yet: the mounts share the whole budget
        local = Frame(receipt_id="", facts=(), text="", receipt={
            "goal": goal, "plane": plane, "budget": {"total": budget, "spent": 0, "framing": 0,
                                                      "segments": {}},
            "ceiling": ceiling.upper(), "path": "recency", "anchor": None, "now": None,
            "tokens": {"estimated": True, "estimator": ESTIMATOR},
            "facts": [], "beyond": [], "suppressed": [], "bridged": []})
    receipt = {k: v for k, v in local.receipt.items() if k != "id"}
    receipt["budget"] = {**receipt["budget"], "total": budget,
                         "segments": _without_head(receipt["budget"]["segments"], extra)}
    facts = list(local.facts)
    receipt["facts"] = list(receipt["facts"])
    receipt["beyond"] = list(receipt["beyond"])
    receipt["suppressed"] = list(receipt.get("suppressed", []))
    receipt["mounts"] = []
    paths = [receipt["path"]] if has_local else []
    notes = list(receipt.get("notes", []))
    # why each part held no fact (a budget too small, no grant reaching the reader, ...)
    empties = [str(receipt.pop("empty"))] if receipt.get("empty") else []
    for m in mounts:
        name = m["name"]
        entry: dict[str, Any] = {"name": name, "url": m["url"], "budget": share + extra}
        try:
            answer = call_mount(m["url"], mount_token(m["token_env"]), "/v1/hydrate",
                                {"goal": goal, "budget": share + extra, "plane": plane,
                                 "ceiling": ceiling, **({"now": now} if now is not None else {})})
            remote = remote_frame(answer, share + extra)
        except MountError as exc:
            entry.update(status="failed", error=str(exc), spent=0)
            notes.append(f"mount {name} failed: {exc}; the frame holds local memory and the "
                         "other mounts only")
            receipt["mounts"].append(entry)
            continue
        entry.update(status="ok", spent=remote["spent"], receipt=remote["id"])
        if remote["dropped"]:
            entry["dropped"] = remote["dropped"]
            notes.append(f"mount {name} answered {remote['dropped']} records past its share "
                         f"of {share + extra} tokens; they were left out")
        paths.append(remote["path"])
        if remote["empty"]:
            empties.append(f"mount {name}: {remote['empty']}")
        receipt["mounts"].append(entry)
        # every record of a mount is named by the segment its heading writes, NAME:SEGMENT,
        # in the facts, breadcrumbs, near-duplicates and budget alike (and says its mount)
        for seg, meta in _without_head(remote["segments"], extra).items():
            receipt["budget"]["segments"][f"{name}:{seg}"] = meta
        receipt["budget"]["spent"] += remote["spent"]
        for fact, text in remote["facts"]:
            fact = {**fact, "segment": f"{name}:{fact['segment']}", "mount": name}
            receipt["facts"].append(fact)
            facts.append(_frame_fact(fact, text))
        for key in ("beyond", "suppressed"):
            receipt[key].extend({**r, "segment": f"{name}:{r['segment']}", "mount": name}
                                for r in remote[key])
    if notes:
        receipt["notes"] = notes
    receipt["path"] = min(paths, key=lambda p: PATH_RANK.get(p, 0)) if paths else "recency"
    receipt["created"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    # the frame's own lines as this one frame writes them: one head, not one per mount; each
    # part priced the head at its longest, so the sum is near the budget: past it, the last
    # facts (a mount's least relevant) are left out until the frame fits
    if empties and not receipt["facts"] and not receipt["beyond"]:
        receipt["empty"] = "; ".join(empties)
    empty = str(receipt.get("empty", ""))
    framing, per_segment = frame_framing({**receipt, "id": "r_0123456789abcdef"}, tuple(facts),
                                         empty)
    while facts and receipt["budget"]["spent"] + framing > budget and \
            len(receipt["facts"]) == len(facts):
        left = receipt["facts"].pop()
        facts.pop()
        receipt["budget"]["spent"] -= int(left["tokens"])
        seg = receipt["budget"]["segments"].get(left["segment"])
        if seg is not None:
            seg["spent"] = max(0, int(seg["spent"]) - int(left["tokens"]))
        framing, per_segment = frame_framing({**receipt, "id": "r_0123456789abcdef"},
                                             tuple(facts), empty)
    receipt["budget"]["framing"] = framing
    receipt["budget"]["segments"] = {k: {**v, "framing": per_segment.get(k, v.get("framing", 0))}
                                     for k, v in receipt["budget"]["segments"].items()}
    rid = "r_" + hashlib.sha256(json.dumps(receipt, sort_keys=True).encode()).hexdigest()[:16]
    receipt = {"id": rid, **receipt}
    text = render_text(receipt, tuple(facts), empty=empty)
    save_receipt(mem.home, receipt)
    return Frame(receipt_id=rid, facts=tuple(facts), receipt=receipt, text=text)


def _without_head(segments: dict[str, Any], extra: int) -> dict[str, Any]:
    """A part's segments (copied) with the ``extra`` tokens it was given for the head it does
    not write taken off their budgets, in proportion to them (what rounding leaves, off the
    largest): the segments of the whole frame then add up to its budget."""
    out = {k: dict(v) for k, v in segments.items()}
    total = sum(int(v["budget"]) for v in out.values())
    if not out or total <= 0 or extra <= 0:
        return out
    cut = {k: extra * int(v["budget"]) // total for k, v in out.items()}
    largest = max(out, key=lambda k: int(out[k]["budget"]))
    cut[largest] += min(extra, total) - sum(cut.values())
    for k, v in out.items():
        v["budget"] = max(0, int(v["budget"]) - cut[k])
    return out


# -- what a mount answered, checked before any of it enters the frame -----------------------------
_LEVELS = ("L0", "L1", "L2", "L3")
#: A handle, a segment, a receipt id: one line of printable text (a newline in a segment's
#: name would write lines of the server's choosing into the frame's own).
_NAME = re.compile(r"[^\x00-\x1f\x7f\u2028\u2029]{1,200}")


def remote_frame(answer: Any, share: int) -> dict[str, Any]:
    """A mount's ``/v1/hydrate`` answer, checked: ``facts`` as (receipt fact, text) pairs and
    the ``beyond`` breadcrumbs, kept while their text fits ``share`` tokens (each counted here,
    at least what the server said; ``dropped`` counts the rest), ``suppressed``, ``segments``
    (each one's budget, its ``spent`` on what was kept, framing and path), ``spent``, ``path``
    and ``id``. MountError naming the first field that is not what a frame holds."""
    from ..curate.tokens import estimate_tokens

    def bad(where: str, what: str) -> MountError:
        return MountError(f"the server's answer is not a frame: {where} must be {what}")

    def field(record: Any, key: str, kind: type | tuple[type, ...], where: str,
              default: Any = ...) -> Any:
        value = record.get(key, default) if isinstance(record, dict) else default
        if value is ...:
            raise bad(f"{where}{key}", "present")
        if isinstance(value, bool) or not isinstance(value, kind):
            raise bad(f"{where}{key}", _KIND_WORDS.get(kind, "of another type"))
        if isinstance(value, float) and not math.isfinite(value):
            raise bad(f"{where}{key}", "a finite number")
        if kind is str and key in ("handle", "segment", "id") and not _NAME.fullmatch(value):
            raise bad(f"{where}{key}", "one line of at most 200 characters")
        return value

    if not isinstance(answer, dict):
        raise bad("the answer", "a JSON object")
    receipt = field(answer, "receipt", dict, "")
    listed = field(answer, "facts", list, "")
    rid = field(receipt, "id", str, "receipt.", "")
    empty = _one_line(field(receipt, "empty", str, "receipt.", ""))
    path = _path(field(receipt, "path", str, "receipt.", "recency"), "receipt.path", bad)
    budget = field(receipt, "budget", dict, "receipt.", {})
    segments = {}
    for seg, meta in field(budget, "segments", dict, "receipt.budget.", {}).items():
        where = f"receipt.budget.segments[{json.dumps(seg)[:40]}]."
        field({"segment": seg}, "segment", str, where)
        field(meta, "spent", int, where, 0)    # counted again below, from what is kept
        segments[seg] = {"budget": max(0, field(meta, "budget", int, where, 0)), "spent": 0,
                         "framing": max(0, field(meta, "framing", int, where, 0)),
                         "path": _path(field(meta, "path", str, where, path), f"{where}path",
                                       bad)}
    facts, spent, dropped = [], 0, 0
    for i, fact in enumerate(listed):
        where = f"facts[{i}]."
        if not isinstance(fact, dict):
            raise bad(f"facts[{i}]", "an object")
        text = field(fact, "text", str, where, "")
        level = field(fact, "level", str, where)
        if level.upper() not in _LEVELS:
            raise bad(f"{where}level", "one of L0, L1, L2, L3")
        checked = {**{k: v for k, v in fact.items() if k != "text"},
                   "handle": field(fact, "handle", str, where),
                   "segment": field(fact, "segment", str, where),
                   "level": level.upper(),
                   "seeded_by": field(fact, "seeded_by", str, where),
                   "score": float(field(fact, "score", (int, float), where, 0.0)),
                   "hops": field(fact, "hops", int, where, 0),
                   "source": field(fact, "source", str, where, ""),
                   "time": _time(field(fact, "time", str, where, ""), f"{where}time", bad)}
        excerpt = fact.get("excerpt")
        try:
            excerpt_fields(excerpt)
        except (TypeError, ValueError, KeyError, AttributeError):
            raise bad(f"{where}excerpt", "an excerpt record") from None
        # what the text costs here, whatever the server said it cost
        checked["tokens"] = max(field(fact, "tokens", int, where, 0), estimate_tokens(text))
        if checked["segment"] not in segments:
            raise bad(f"{where}segment", "one of the receipt's budget segments")
        if spent + checked["tokens"] > share:
            dropped += 1
            continue
        spent += checked["tokens"]
        segments[checked["segment"]]["spent"] += checked["tokens"]
        facts.append((checked, text))
    records: dict[str, list[dict[str, Any]]] = {}
    for key in ("beyond", "suppressed"):
        records[key] = []
        for i, record in enumerate(field(receipt, key, list, "receipt.", [])):
            where = f"receipt.{key}[{i}]."
            if not isinstance(record, dict):
                raise bad(f"receipt.{key}[{i}]", "an object")
            field(record, "handle", str, where)
            seg = field(record, "segment", str, where)
            if seg not in segments:
                raise bad(f"{where}segment", "one of the receipt's budget segments")
            if key == "beyond":   # a breadcrumb's text is paid for, as a fact's
                if field(record, "level", str, where).upper() not in _LEVELS:
                    raise bad(f"{where}level", "one of L0, L1, L2, L3")
                tokens = max(field(record, "tokens", int, where, 0),
                             estimate_tokens(field(record, "text", str, where, "")))
                if spent + tokens > share:
                    dropped += 1
                    continue
                spent += tokens
                segments[seg]["spent"] += tokens
                record = {**record, "tokens": tokens,
                          "source": field(record, "source", str, where, ""),
                          "text": field(record, "text", str, where, "")}
            else:
                record = _near_duplicate(record, where, field, bad)
                # a repeat of a fact the share left out repeats nothing the frame holds
                if record["like"] not in {f["handle"] for f, _ in facts}:
                    continue
            records[key].append(record)
    return {"id": rid, "path": path, "empty": empty, "segments": segments, "facts": facts,
            "dropped": dropped, "spent": spent, **records}


def _path(path: str, where: str, bad: Any) -> str:
    """``path`` if a frame's receipt may say it (the receipt's contract), else MountError."""
    if path not in PATH_RANK:
        raise bad(where, "one of " + ", ".join(sorted(PATH_RANK, key=PATH_RANK.get,
                                                      reverse=True)))
    return path


def _time(stamp: str, where: str, bad: Any) -> str:
    """``stamp`` if a fact's ``time`` may be it (empty, or the receipt schema's ISO 8601
    time), else MountError: a frame's heading writes it, and scripts parse it."""
    from ..schemas import stamp_pattern

    if stamp and not stamp_pattern().fullmatch(stamp):
        raise bad(where, "empty or an ISO 8601 time")
    return stamp


def _near_duplicate(record: dict[str, Any], where: str, field: Any, bad: Any) -> dict[str, Any]:
    """A mount's ``suppressed`` entry as the receipt's contract has it: its kind, the fact it
    repeats and a similarity from 0 to 1, else MountError naming the field."""
    if field(record, "suppressed", str, where) not in ("redundant", "covered"):
        raise bad(f"{where}suppressed", "one of redundant, covered")
    field(record, "like", str, where)
    similarity = field(record, "similarity", (int, float), where)
    if not 0 <= similarity <= 1:
        raise bad(f"{where}similarity", "a number from 0 to 1")
    return {**record, "similarity": float(similarity)}


_KIND_WORDS = {dict: "an object", list: "a list", str: "text", int: "an integer",
               (int, float): "a number"}


def _frame_fact(fact: dict[str, Any], text: str) -> FrameFact:
    return FrameFact(handle=str(fact.get("handle", "")), segment=str(fact["segment"]),
                     level=str(fact.get("level", "")).lower(),
                     seeded_by=str(fact.get("seeded_by", "")),
                     score=float(fact.get("score", 0.0)), tokens=int(fact.get("tokens", 0)),
                     hops=int(fact.get("hops", 0)), source=str(fact.get("source", "")),
                     text=text, time=str(fact.get("time", "")),
                     **excerpt_fields(fact.get("excerpt")))
