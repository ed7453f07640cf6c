"""Timestamps of any usual spelling to ISO 8601 UTC with second precision."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

# Claude Code writes "2026-01-02T03:04:05.678Z"; the common case needs no datetime at all.
_UTC_Z = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\Z")
_MS_THRESHOLD = 100_000_000_000  # epoch numbers above this are milliseconds (after 1973 in ms)


def iso_utc(value: Any) -> str:
    """Return ``value`` as ``YYYY-MM-DDTHH:MM:SSZ`` in UTC, or ``""`` when it is not a time.

    Accepts ISO 8601 strings (with ``Z``, an offset, or naive, read as UTC), and Unix epoch
    seconds or milliseconds as numbers or digit strings.
    """
    if isinstance(value, str):
        text = value.strip()
        if _UTC_Z.match(text):
            return text[:19] + "Z"
        if text.isdigit():
            return _from_epoch(int(text))
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T", 1))
        except ValueError:
            return ""
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _from_epoch(value)
    return ""


def _from_epoch(number: float) -> str:
    if number != number or number < 0:  # NaN or before 1970: not a transcript time
        return ""
    seconds = number / 1000 if number > _MS_THRESHOLD else number
    try:
        moment = datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return ""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
