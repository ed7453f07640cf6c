"""How many receipts a home keeps: the newest ``receipts_kept`` of each reader (config.json).

Every frame stores its receipt (2-16 KB); unpruned, a grantee asking within their server
share, or an agent's hooks, grew ``receipts/`` by gigabytes a day. Each reader (the owner, and
each grantee) has a list of their receipt ids in ``receipts/<reader>.kept`` (the owner's is
``receipts/.owner.kept``: no principal's name starts with a dot), oldest first; when a save
makes it longer than the cap, the oldest receipts' files are deleted, so one reader's frames
never push out another's receipts. What a read was stays in the audit log (its line names the
receipt id); only the receipt file goes.

The lists are changed under one lock (``receipts/.kept.lock``, flock): two processes pruning
one reader's list at once each rewrote it from what they had read, losing the id the other
had appended in between, and that receipt was never pruned. The first save under this
version puts each receipt on no list (saved before lists existed) on its reader's list, by
its time, and leaves ``receipts/.kept.adopted`` to say it is done.
"""
from __future__ import annotations

import fcntl
import json
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

#: Receipts kept per reader when config.json does not say (``receipts_kept``).
DEFAULT_KEPT = 1000

_OWNER_LIST = ".owner.kept"
_LOCK = ".kept.lock"
_ADOPTED = ".kept.adopted"


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
    folder = home / "receipts"
    listing = folder / _list_name(receipt.get("reader"))
    with _lists_locked(folder):
        if not (folder / _ADOPTED).exists():
            _adopt_unlisted(folder)
        with open(listing, "a", encoding="utf-8") as out:
            out.write(str(receipt["id"]) + "\n")
        if cap is not None:
            _prune(folder, listing, cap)


def _list_name(reader: Any) -> str:
    return f"{reader}.kept" if isinstance(reader, str) and reader else _OWNER_LIST


@contextmanager
def _lists_locked(folder: Path) -> Iterator[None]:
    """Hold the lock every change of a reader's list takes (another process's, or thread's,
    change waits)."""
    with open(folder / _LOCK, "a", encoding="utf-8") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _prune(folder: Path, listing: Path, cap: int) -> None:
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
                pass  # erased
    _write_list(listing, kept)


def _write_list(listing: Path, ids: list[str]) -> None:
    tmp = listing.with_name(f"{listing.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_text("".join(i + "\n" for i in ids), encoding="utf-8")
    tmp.replace(listing)


def _adopt_unlisted(folder: Path) -> None:
    """Put every stored receipt that is on no list (saved before the lists, by an older atc)
    at the head of its reader's list, oldest first (its ``created``, else its file's time),
    so the cap reaches it; then mark the home done (one pass over the receipts, once)."""
    listed = set()
    for listing in folder.glob("*.kept"):
        listed.update(listing.read_text(encoding="utf-8").split())
    found: dict[str, list[tuple[str, float, str]]] = {}
    for path in folder.glob("*.json"):
        if path.stem in listed:
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            when = path.stat().st_mtime
        except (OSError, ValueError):
            continue  # removed meanwhile, or not a receipt: not this list's to prune
        if not isinstance(doc, dict) or doc.get("id") != path.stem:
            continue
        created = doc.get("created") if isinstance(doc.get("created"), str) else ""
        found.setdefault(_list_name(doc.get("reader")), []).append((created, when, path.stem))
    for name, entries in found.items():
        listing = folder / name
        ids = listing.read_text(encoding="utf-8").split() if listing.exists() else []
        _write_list(listing, [rid for _, _, rid in sorted(entries)] + ids)
    (folder / _ADOPTED).touch()
