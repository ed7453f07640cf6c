"""How many receipts a home keeps: the newest ``receipts_kept`` of each reader (config.json).

Every frame stores its receipt (2-16 KB); unpruned, a grantee asking within their server
share, or an agent's hooks, grew ``receipts/`` by gigabytes a day. Each reader (the owner, and
each grantee) has a list of their receipt ids in ``receipts/<reader>.kept`` (the owner's is
``receipts/.owner.kept``: no principal's name starts with a dot), oldest first; when a save
makes it longer than the cap, the oldest receipts' files are deleted, so one reader's frames
never push out another's receipts. What a read was stays in the audit log (its line names the
receipt id); only the receipt file goes.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

#: Receipts kept per reader when config.json does not say (``receipts_kept``).
DEFAULT_KEPT = 1000

_OWNER_LIST = ".owner.kept"


def kept_per_reader(home: Path) -> int | None:
    """The home's ``receipts_kept`` (None: keep every receipt)."""
    from .errors import HomeError
    from .home import read_config

    try:
        config = read_config(home)
    except HomeError:
        return DEFAULT_KEPT  # the home opened with it; a config broken since keeps the default
    return config.get("receipts_kept", DEFAULT_KEPT)


def note_saved(home: Path, receipt: dict[str, Any]) -> None:
    """Add a just-saved receipt to its reader's list and prune that reader's oldest receipts
    past the cap."""
    cap = kept_per_reader(home)
    reader = receipt.get("reader")
    folder = home / "receipts"
    listing = folder / (f"{reader}.kept" if isinstance(reader, str) and reader else _OWNER_LIST)
    rid = str(receipt["id"])
    with open(listing, "a", encoding="utf-8") as out:  # one short line: an atomic append
        out.write(rid + "\n")
    if cap is None:
        return
    ids = listing.read_text(encoding="utf-8").split()
    if len(ids) <= cap:
        return
    # newest last; a frame made again (the same id) counts once, at its latest place
    kept = list(dict.fromkeys(reversed(ids)))[:cap][::-1]
    keep = set(kept)
    for old in dict.fromkeys(ids):
        if old not in keep:
            try:
                (folder / f"{old}.json").unlink()
            except FileNotFoundError:
                pass  # pruned by another process, or erased
    tmp = listing.with_name(f"{listing.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_text("".join(i + "\n" for i in kept), encoding="utf-8")
    tmp.replace(listing)
