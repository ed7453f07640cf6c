"""How many receipts a home keeps: the newest ``receipts_kept`` of each reader (config.json).

Every frame stores its receipt (2-16 KB); unpruned, a grantee asking within their server
share, or an agent's hooks, grew ``receipts/`` by gigabytes a day. Each reader (the owner, and
each grantee) has a list of their receipt ids in ``receipts/<reader>.kept`` (the owner's is
``receipts/.owner.kept``: no principal's name starts with a dot), oldest first; when a save
makes it longer than the cap, the oldest receipts' files are deleted, so one reader's frames
never push out another's receipts. What a read was stays in the audit log (its line names the
receipt id); only the receipt file goes.

Saving, pruning and an erasure's redaction hold ``receipts/.lock`` in turn, so the lists stay
whole when several processes frame at once, and the id goes on the list before the file is
written, so a kill mid-save leaves nothing pruning cannot reach. The first save under this
version puts each receipt on no list (saved before lists existed) on its reader's list, by
its time, and leaves ``receipts/.kept.adopted`` to say it is done.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from pathlib import Path
from typing import Any, Iterator

#: Receipts kept per reader when config.json does not say (``receipts_kept``).
DEFAULT_KEPT = 1000

_OWNER_LIST = ".owner.kept"
#: Held while receipts change (:func:`receipts_locked`); not a receipt, not a list.
LOCK_FILE = ".lock"
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


@contextlib.contextmanager
def receipts_locked(home: Path) -> Iterator[None]:
    """Hold ``receipts/.lock`` (flock, exclusive) while the receipts change: a save (its list
    line, its file, the pruning) or an erasure's redaction of them. Two processes pruning at
    once rewrote one list, each dropping the ids the other had just added, and those receipts
    were never pruned; an erasure swept away a receipt half written by a live process (which
    then failed) or redacted the folder while a frame it had not seen was being stored."""
    folder = home / "receipts"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    except PermissionError as denied:
        try:  # another user's lock file: flock works on a file opened to read
            fd = os.open(folder / LOCK_FILE, os.O_RDONLY)
        except FileNotFoundError:
            # none, in a folder this user may not write: no receipt can be stored there, and
            # the caller is told so (the frame is still given its owner: hydration.py)
            raise denied from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing gives the lock back


#: (process, home) pairs whose leftovers this process has swept: once per process is enough
_swept: set[tuple[int, Path]] = set()


def sweep_leftovers(home: Path) -> None:
    """Delete the temporary files killed saves left in ``receipts/`` (a receipt half written
    may hold a goal or a breadcrumb's text; nothing prunes it). The caller holds
    :func:`receipts_locked`, which every save holds while its temporary file exists, so each
    one found is a dead process's. Done at a process's first save to a home."""
    key = (os.getpid(), home)
    if key in _swept:
        return
    _swept.add(key)
    for path in (home / "receipts").glob("*.tmp"):
        path.unlink(missing_ok=True)


def adopt_unlisted(home: Path) -> None:
    """Put every stored receipt that is on no list (saved before the lists, by an older atc)
    at the head of its reader's list, oldest first (its ``created``, else its file's time),
    so the cap reaches it; then mark the home done (one pass over the receipts, once). The
    caller holds :func:`receipts_locked`."""
    folder = home / "receipts"
    if (folder / _ADOPTED).exists():
        return
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


def enlist(home: Path, receipt: dict[str, Any]) -> None:
    """Add a receipt's id to its reader's list before its file is written (the caller holds
    :func:`receipts_locked`): a kill between the two leaves a listed id with no file, which
    pruning passes over, never a file that no list names and no pruning reaches."""
    with open(_listing(home, receipt), "a", encoding="utf-8") as out:
        out.write(str(receipt["id"]) + "\n")


def prune(home: Path, receipt: dict[str, Any]) -> None:
    """Delete the oldest receipts of ``receipt``'s reader past the cap and rewrite their list
    (the caller holds :func:`receipts_locked`)."""
    cap = kept_per_reader(home)
    if cap is None:
        return
    listing = _listing(home, receipt)
    ids = listing.read_text(encoding="utf-8").split()
    if len(ids) <= cap:
        return
    # newest last; a frame made again (the same id) counts once, at its latest place
    kept = list(dict.fromkeys(reversed(ids)))[:cap][::-1]
    keep = set(kept)
    for old in dict.fromkeys(ids):
        if old not in keep:
            try:
                (listing.parent / f"{old}.json").unlink()
            except FileNotFoundError:
                pass  # erased, or its saver was killed before it wrote the file
    _write_list(listing, kept)


def _write_list(listing: Path, ids: list[str]) -> None:
    tmp = listing.with_name(f"{listing.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    tmp.write_text("".join(i + "\n" for i in ids), encoding="utf-8")
    tmp.replace(listing)


def _listing(home: Path, receipt: dict[str, Any]) -> Path:
    return home / "receipts" / _list_name(receipt.get("reader"))


def _list_name(reader: Any) -> str:
    return f"{reader}.kept" if isinstance(reader, str) and reader else _OWNER_LIST


def newest_saved(home: Path, limit: int) -> list[tuple[str, dict[str, Any]]]:
    """The ``limit`` receipts saved last, newest first, as ``(id, receipt)``: ordered by their
    ``created`` time, and within one second by their place on their reader's list (the order
    the saves took the lock in); a file's time told them apart only to the kernel's tick, so
    two receipts saved within one came back in either order. A receipt on no list (saved by
    an atc older than the lists, in a home nothing has framed in since) comes after the
    listed ones of its second. Reads; writes nothing."""
    folder = home / "receipts"
    if not folder.is_dir():
        return []
    places: dict[str, int] = {}
    for listing in folder.glob("*.kept"):
        ids = listing.read_text(encoding="utf-8").split()
        for place, rid in enumerate(ids[-limit:] if limit > 0 else []):
            places[rid] = place     # a frame made again counts at its latest place
    adopted = (folder / _ADOPTED).exists()
    candidates = list(places) if adopted else [p.stem for p in folder.glob("r_*.json")]
    found = []
    for rid in candidates:
        try:
            doc = json.loads((folder / f"{rid}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue    # pruned or erased since it was listed, or not a receipt
        if isinstance(doc, dict):
            created = doc.get("created") if isinstance(doc.get("created"), str) else ""
            found.append((created, places.get(rid, -1), rid, doc))
    found.sort(key=lambda entry: entry[:3], reverse=True)
    return [(rid, doc) for _created, _place, rid, doc in found[:max(limit, 0)]]


def note_saved(home: Path, receipt: dict[str, Any]) -> None:
    """List a receipt whose file the caller has already written, and prune its reader's oldest
    past the cap, under :func:`receipts_locked` (the cap's step of a save, alone: what
    ``scripts/bench/grantee_leftovers.py --compare-cap`` times)."""
    with receipts_locked(home):
        adopt_unlisted(home)
        enlist(home, receipt)
        prune(home, receipt)
