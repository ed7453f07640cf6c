"""The owner's ledger: one append-only JSON-lines file, ``HOME/audit.jsonl``.

Every read a grantee makes (a frame, a query, ``show``, a receipt), every declassification and
every audited erasure appends one line: an object with ``event``, ``time`` (ISO 8601 UTC) and
the event's own keys (``reader``, ``op``, ``goal``, ``facts`` of ``{"handle", "level"}`` for a
read; ``who`` and ``why`` for a declassification). The log holds handles, goals and reasons,
never the text of an item. ``atc audit`` reads it. A read naming many records names them by
number over its reader's index (:mod:`.audit_index`); :func:`read_events` lists them again.
A text the caller chose (a grantee's goal, up to 32,768 characters) is kept to its first
:data:`AUDIT_TEXT_CHARS` characters, with the whole text's length and SHA-256 beside it
(``goal_chars``, ``goal_sha256``): a goal kept whole grew the log by 32 KB a call.

Example::

    append_event(home, {"event": "read", "reader": "bob", "op": "hydrate", "goal": "...",
                        "facts": [{"handle": "it_...", "level": "L2"}]})
    [e for e in read_events(home, reader="bob")]
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from .errors import UsageError
from .audit_index import PLAIN_FACTS_MAX, ReaderIndexes, expand_events
from .line_files import append_composed, append_line

AUDIT_FILE = "audit.jsonl"
#: Each audit log's readers' indexes in this process, by the log's path.
_INDEXES: dict[str, ReaderIndexes] = {}
#: The most of one text of an event (a goal, an error, a reason) the log keeps: the owner can
#: read what was asked, and a longer text is known by its length and SHA-256 beside it.
AUDIT_TEXT_CHARS = 1_000


def utc_now() -> str:
    """The present as ISO 8601 UTC with a ``Z``, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def append_event(home: Path, event: dict[str, Any]) -> dict[str, Any]:
    """Append one event to the home's audit log (one line, fsynced before returning);
    ``time`` is added when missing; a text longer than :data:`AUDIT_TEXT_CHARS` is cut
    (:func:`bounded_texts`). Returns the event as written."""
    record = bounded_texts({"time": utc_now(), **event})
    path = Path(home) / AUDIT_FILE
    facts = record.get("facts")
    if record.get("event") == "read" and isinstance(facts, list) and \
            len(facts) > PLAIN_FACTS_MAX:
        # many records: named once per reader in the log, by number after (audit_index)
        indexes = _INDEXES.setdefault(str(path.resolve()), ReaderIndexes())
        compact = {k: v for k, v in record.items() if k != "facts"}

        def compose() -> bytes:
            indexes.catch_up(path)
            return indexes.lines_for(compact, facts)

        append_composed(path, compose)
        return record
    line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
    append_line(path, line)
    return record


def bounded_texts(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with each text value longer than :data:`AUDIT_TEXT_CHARS` characters cut to
    that many, its whole length and SHA-256 (hex, of its UTF-8) added as ``KEY_chars`` and
    ``KEY_sha256``: each call of a grantee's wrote their whole goal, so goals of 32 KB sent
    within their share of the server's time grew the owner's log by gigabytes a day."""
    out: dict[str, Any] = {}
    for key, value in event.items():
        if isinstance(value, str) and len(value) > AUDIT_TEXT_CHARS:
            out[key] = value[:AUDIT_TEXT_CHARS]
            out[f"{key}_chars"] = len(value)
            out[f"{key}_sha256"] = hashlib.sha256(value.encode("utf-8", "surrogatepass")
                                                  ).hexdigest()
        else:
            out[key] = value
    return out


def read_events(home: Path, *, reader: str | None = None,
                since: str | None = None) -> Iterator[dict[str, Any]]:
    """The log's events, oldest first; ``reader`` keeps a principal's reads (and the events
    that name them as ``who``), ``since`` (ISO 8601) the events at or after that time. A
    torn last line (a crash mid-write) is skipped."""
    path = Path(home) / AUDIT_FILE
    if since is not None:
        since = normalise_time(since)
    if not path.exists():
        return
    with path.open(encoding="utf-8") as fh:
        for event in expand_events(_parsed_lines(fh)):
            if reader is not None and reader not in (event.get("reader"), event.get("who")):
                continue
            if since is not None and str(event.get("time", "")) < since:
                continue
            yield event


def logged_forgets(home: Path) -> set[str]:
    """The handles the log holds a ``forget`` event of (an erasure finished: its record is
    written as the erasure's last step). Only lines naming ``"forget"`` are parsed: the log's
    reads make up nearly all of it."""
    path = Path(home) / AUDIT_FILE
    if not path.exists():
        return set()
    with path.open(encoding="utf-8", errors="replace") as fh:
        return {str(event["handle"]) for event in _parsed_lines(l for l in fh if '"forget"' in l)
                if event.get("event") == "forget" and "handle" in event}


def _parsed_lines(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Each line that holds a JSON object, parsed (a torn or garbled line is skipped)."""
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


def normalise_time(text: str) -> str:
    """A time in any form the host reads (ISO 8601, a date, RFC 2822, ...) or Unix epoch
    seconds (0 included; milliseconds above 10^11), as ISO 8601 UTC; UsageError naming it
    otherwise."""
    from .ingest.timefmt import is_year_alone, read_typed_time

    value = read_typed_time(str(text))
    if not value and is_year_alone(str(text)):
        raise UsageError(f"{text!r} is a year, which names no moment (give a date such as "
                         f"{str(text).strip()}-01-01, ISO 8601 such as 2026-05-01T12:00:00Z, "
                         "or Unix epoch seconds; four digits are read as a year, never as "
                         "seconds)")
    if not value:
        raise UsageError(f"{text!r} is not a time (give ISO 8601, e.g. 2026-05-01T12:00:00Z, "
                         "or Unix epoch seconds)")
    return value


def describe_event(event: dict[str, Any]) -> str:
    """One line of ``atc audit``'s text output for an event of any kind."""
    kind = event.get("event", "?")
    when = event.get("time", "")
    if kind == "read":
        facts = event.get("facts", [])
        shown = ", ".join(f"{f.get('handle')}@{f.get('level')}" for f in facts[:8])
        more = f" (+{len(facts) - 8} more)" if len(facts) > 8 else ""
        goal = f" {json.dumps(event['goal'], ensure_ascii=False)}" if event.get("goal") else ""
        if event.get("goal_chars"):
            goal += (f" (cut: {event['goal_chars']:,} characters, "
                     f"sha256 {str(event.get('goal_sha256', ''))[:16]}…)")
        return (f"{when}  read  {event.get('reader')}  {event.get('op')}{goal}  "
                f"{len(facts)} record{'s' if len(facts) != 1 else ''}"
                f"{': ' + shown + more if facts else ''}")
    rest = {k: v for k, v in event.items() if k not in ("event", "time", "who")}
    who = event.get("who", "")
    return f"{when}  {kind}  {who}  {json.dumps(rest, ensure_ascii=False)}"
