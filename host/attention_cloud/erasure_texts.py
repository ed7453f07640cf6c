"""The texts of items to be forgotten whose L0 retention dropped, read again from their files.

Erasure keeps a digest of an item's text, and of its lines, so that no later reading of its file
gives the text back (whole, gone on below, or in parts). An item whose L0 ``retention`` dropped
has no text in memory: without this its audit record had no digest, and once its file grew the
turn that went on came back with the forgotten text in it. Its transcript, when it is still
there and still gives the item (the same handle), says the text again. The texts live only in
this process, for the erasure at hand: never written to a file (the pending plan stays handles
only), so a resumed erasure reads them again.
"""
from __future__ import annotations

from typing import Any, Iterable

from .errors import AtcError
from .ingest.item_limits import DEFAULT_MAX_ITEM_CHARS


def dropped_texts(items: Iterable[dict[str, Any]], source_file: Any,
                  max_item_chars: int = DEFAULT_MAX_ITEM_CHARS) -> dict[str, str]:
    """Handle -> text for the ``items`` (erasure plan entries) whose text is empty, read from
    their transcripts as ingest reads them (format detected); those a file no longer gives
    (edited, gone, another format than detected, a subagent's) are left out."""
    wanted: dict[str, set[str]] = {}
    for item in items:
        if item.get("forgotten") or item.get("text") or not item.get("source"):
            continue
        wanted.setdefault(source_file(item["source"]), set()).add(item["handle"])
    found: dict[str, str] = {}
    if not wanted:
        return found          # every text is in memory: no reader (nor dateutil) to import
    from .ingest.api import parse_path

    for path, handles in wanted.items():
        try:
            parsed = parse_path(path, max_item_chars=max_item_chars)
        except (AtcError, OSError):
            continue                  # gone or unreadable: nothing more can be known
        found.update((i.handle, i.text) for i in parsed.items if i.handle in handles)
    return found
