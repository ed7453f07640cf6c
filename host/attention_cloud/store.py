"""Open, commit and snapshot the Prolog store of a memory home (host side of rules/store.pl)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .bridge import Atom, Prolog, Var
from .errors import HomeError
from .home import WriteLock, create_home, fsync_path

#: Rebuild the snapshot on close once the journal has grown this much past it.
SNAPSHOT_AFTER_BYTES = 32 * 1024 * 1024

#: Facts in each part of a snapshot's lane (a snapshot has two lanes, by predicate, loaded at
#: once). Each part is compiled by a swipl process of its own, which holds the part's facts while
#: it compiles them (~340 bytes a fact): the bound on that process. Parts cost opening time:
#: each part's QLF has its own atom table, and a reopen looks every atom of a part up again (the
#: 1M home opened in 6.7 CPU s from one part, 9.7 from 4 parts, 13.6 from 19; BENCHMARKS.md), so
#: a lane of up to this many facts keeps one part.
SNAPSHOT_PART_FACTS = 10_000_000


@dataclass
class StoreInfo:
    """What opening a home found."""

    snapshot_facts: int
    replayed: int
    truncated_bytes: int


def open_store(pl: Prolog, home: Path, lock: WriteLock) -> StoreInfo:
    """Load ``home`` into Prolog; cut a torn journal tail (from a crash) when we may write."""
    create_home(home)
    (info,) = pl.once("atc_api:api_open", str(home), Var())
    committed, size = info["committed_bytes"], info["file_bytes"]
    truncated = 0
    if committed < size and not lock.held and lock.try_acquire():
        # Uncommitted bytes past the last commit marker: a batch that was never acknowledged.
        # Cut under the lock, then let it go: a reader must not keep writers out. Not when the
        # journal changed since it was read (a writer committed those bytes meanwhile, or an
        # erasure replaced the file): the next writer cuts a torn tail itself.
        try:
            journal = home / "journal.pl"
            if journal.stat().st_size != size or pl.once("atc_api:api_journal_replaced"):
                return StoreInfo(info["snapshot"], info["replayed"], 0)
            with open(journal, "r+b") as fh:
                fh.truncate(committed)
                fh.flush()
                os.fsync(fh.fileno())
            truncated = size - committed
        finally:
            lock.release()
        pl.once("atc_store:store_say_cut", str(journal), committed, truncated)
    return StoreInfo(info["snapshot"], info["replayed"], truncated)


def journal_path(home: Path) -> Path:
    return home / "journal.pl"


def sync_journal(home: Path) -> None:
    """fsync the journal: called after every committed batch, before acknowledging it."""
    path = journal_path(home)
    if path.exists():
        fsync_path(path)


def _swipl_binary(pl: Prolog) -> str:
    (home,) = pl.once("user:current_prolog_flag", Atom("home"), Var()) or ("",)
    for candidate in sorted(Path(str(home)).glob("bin/*/swipl")) if home else []:
        return str(candidate)
    found = shutil.which("swipl")
    if not found:
        raise HomeError("cannot find the swipl executable to compile a snapshot")
    return found


def snapshot_due(home: Path) -> bool:
    """True when the journal has grown enough past the snapshot to be worth a rebuild."""
    journal = journal_path(home)
    if not journal.exists():
        return False
    covered = _snapshot_offset(home)
    return journal.stat().st_size - covered >= SNAPSHOT_AFTER_BYTES


def _snapshot_offset(home: Path) -> int:
    """The journal offset ``snapshot.meta`` says the snapshot covers (0 when unknown).

    Only for deciding when a new snapshot is due: what a snapshot covers is checked against the
    snapshot's own record when it is loaded (rules/store.pl), never against this file.
    """
    meta = home / "snapshot.meta"
    try:
        text = meta.read_text(encoding="utf-8")
        return int(text.split(",")[2])
    except (OSError, IndexError, ValueError):
        return 0


def write_snapshot(pl: Prolog, home: Path, lock: WriteLock) -> int:
    """Dump every durable fact in parts, compile each part apart, and join them in ``snapshot.qlf``.

    Only the writer snapshots: ``lock`` is taken first, and Prolog brings its view up to the
    journal's last commit before dumping (a long-open process would otherwise write its stale
    view over another writer's acknowledged work). The snapshot carries the journal offset it
    covers and a digest of the bytes before it, so it is one unit replaced by one rename; the
    meta file (the SWI-Prolog version a .qlf needs, and the offset for :func:`snapshot_due`)
    may be old or new after a crash at any step without harm. Each part of at most
    :data:`SNAPSHOT_PART_FACTS` facts is compiled by its own swipl process, one after another,
    so no process of the build holds more than a part. The parts are in two lanes by
    predicate, which a reopen loads at once on two threads.
    Returns the number of facts written.
    """
    lock.acquire()
    with tempfile.TemporaryDirectory(dir=home, prefix=".snap-") as tmp:
        (info,) = pl.once("atc_store:store_dump", tmp, SNAPSHOT_PART_FACTS, Var())
        facts, offset = int(info["facts"]), int(info["offset"])
        parts = [Path(str(part)) for part in info["parts"]]
        lanes = [int(lane) for lane in info["lanes"]]
        sync_journal(home)
        (version,) = pl.once("user:current_prolog_flag", Atom("version"), Var())
        swipl = _swipl_binary(pl)
        compiled = []
        for part in parts:
            _qcompile(swipl, part)
            part.unlink()               # the source is no longer needed: keep the disk used low
            compiled.append(str(part.with_suffix(".qlf")))
        snapshot = Path(tmp) / "snapshot.qlf"
        pl.once("atc_store:store_assemble_snapshot", compiled, lanes, str(snapshot))
        fsync_path(snapshot)
        os.replace(snapshot, home / "snapshot.qlf")
        meta_tmp = Path(tmp) / "snapshot.meta"
        meta_tmp.write_text(f"snapshot(4,{int(version)},{offset},{facts}).\n", encoding="utf-8")
        fsync_path(meta_tmp)
        os.replace(meta_tmp, home / "snapshot.meta")
        fsync_path(home)
    return facts


def _qcompile(swipl: str, src: Path) -> None:
    # A separate process: compiling in ours would load the dump a second time.
    proc = subprocess.run(
        [swipl, "-q", "--no-packs", "-g",
         "getenv('ATC_SNAPSHOT_SRC', F), qcompile(F), halt", "-t", "halt(1)"],
        capture_output=True, text=True, timeout=3600,
        env={**os.environ, "ATC_SNAPSHOT_SRC": str(src)},
    )
    if proc.returncode != 0 or not src.with_suffix(".qlf").exists():
        raise HomeError(f"snapshot compilation failed: {proc.stderr.strip()[:300]}")
