"""``atc curate --reembed``: move a home to another embedder without a re-ingest, serving all along.

The new vectors are built beside the old ones, in ``HOME/vectors.next/``, while frames keep
using ``HOME/vectors/`` (readers take no lock) and the embedder that made them (config.json's
``embedder`` is changed only at the switch). Every curated record gets its vector exactly as
curation gives it: items' text (L0, after the speaker's name), their distillations (``#l2``)
when distillation vectors are on, and arcs' summary and distillation. Batches are flushed as
they go, so a killed run resumes where it stopped (``HOME/reembed.json`` names the target; a
run for another target starts the build again).

When every record has its new vector the two folders are exchanged in one step
(``renameat2(RENAME_EXCHANGE)`` where the kernel has it, else two renames), config.json names
the new embedder, and the old vectors are deleted. A kill during the switch is finished by the
next run: the state file says which embedder the folder ``vectors/`` must hold.

Without a target, ``--reembed`` resumes an unfinished move (the remedy the frames' note names)
unless config.json was edited since it began (it no longer names the embedder of the vectors
that serve): then the configured embedder is the target. Until a killed switch is finished,
:func:`switched_target` names the embedder ``vectors/`` already holds, so readers query it with
that one (not config.json's), and the next curate finishes the switch.

Contents:
    reembed, ReembedReport, switched_target, finish_switch, forget_in_next, NEXT_DIR, STATE_FILE, COMPLETE_FILE
"""
from __future__ import annotations

import ctypes
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bridge import Atom, Var
from .errors import UsageError
from .home import EMBEDDER_SCHEMES, EMBEDDER_SPECS, embedder_spec_is_whole, fsync_path, read_config, write_config
from .progress import ProgressCallback, report as report_progress

#: In the home: the vector store being built for the new embedder.
NEXT_DIR = "vectors.next"
#: In the home: the target of an unfinished move (``{"to": spec, "embedder_id": ..., "dim": ...}``).
STATE_FILE = "reembed.json"
#: In a finished new store: the move's token (says which folder is which after a kill).
COMPLETE_FILE = "reembed.complete"
#: Records embedded per flushed batch.
BATCH = 2000


@dataclass
class ReembedReport:
    """What one ``--reembed`` run did."""

    embedder: str = ""       # the spec the home now uses
    embedder_id: str = ""
    records: int = 0         # records (items, distillations, arcs) with a new vector
    embedded: int = 0        # of them embedded by this run (the rest were there: a resumed run)
    resumed: bool = False
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"embedder": self.embedder, "embedder_id": self.embedder_id,
                "records": self.records, "reembedded": self.embedded, "resumed": self.resumed,
                "seconds": round(self.seconds, 2)}


def reembed(mem: Any, spec: str | None = None, *,
            progress: ProgressCallback | None = None) -> ReembedReport:
    """Build vectors for every curated record with the embedder ``spec`` (default: the one
    config.json names) beside the current ones, then switch to them (see module doc).

    Raises:
        UsageError: the target is ``none``, or no embedder's spec (``hash:abc``), which
            config.json would then name and every command refuse.
        EmbeddingError: the target embedder cannot be loaded (nothing is changed).
    """
    from .embed import VectorStore, load_embedder
    from .jump import DISTILLATIONS_MARKER

    started = time.perf_counter()
    target = (spec or _default_target(mem) or "minilm").strip()
    if target.lower() == "none":
        raise UsageError("reembed needs an embedder: the target is none (no vectors)")
    if target.partition(":")[0].strip().lower() in EMBEDDER_SCHEMES \
            and not embedder_spec_is_whole(target):  # an unknown name: the loader says so
        raise UsageError(f"embedder must be {EMBEDDER_SPECS}, not {json.dumps(target)}")
    embedder = load_embedder(target)  # fails before anything is written
    mem.lock.acquire()
    home = mem.home
    report = ReembedReport(embedder=target, embedder_id=embedder.id)
    state = _read_state(home)
    wanted = {"to": target, "embedder_id": embedder.id, "dim": embedder.dim}
    if state and _matches(state, wanted) and _switched(home, state):
        _finish(mem, state)  # killed after the exchange: only config and cleanup were left
        report.resumed = True
        report.seconds = time.perf_counter() - started
        return report
    next_dir = home / NEXT_DIR
    if state and _matches(state, wanted) and next_dir.exists():
        report.resumed = True
    else:
        shutil.rmtree(next_dir, ignore_errors=True)
        state = {**wanted, "token": os.urandom(8).hex(),
                 "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        _write_state(home, state)
    distillations = bool(mem.config.get("distillation_vectors", True))
    store = VectorStore.open(next_dir, embedder_id=embedder.id, dim=embedder.dim)
    try:
        records = _records(mem, distillations)
        report.records = len(records)
        # a record forgotten (or re-curated away) since a killed run embedded it goes
        wanted_keys = {key for key, _, _ in records}
        stale = [key for key in store.keys() if key not in wanted_keys]
        if stale:
            store.remove(stale)
            store.flush()
        todo = [r for r in records if not store.has(r[0])]
        report_progress(progress, "re-embedding", 0, len(todo), "records")
        for start in range(0, len(todo), BATCH):
            batch = todo[start:start + BATCH]
            vectors = embedder.embed([text for _, text, _ in batch])
            store.add([key for key, _, _ in batch], vectors, [meta for _, _, meta in batch])
            store.flush()
            report.embedded += len(batch)
            report_progress(progress, "re-embedding", report.embedded, len(todo), "records")
        if distillations:
            (next_dir / DISTILLATIONS_MARKER).write_text('{"distillation_vectors": true}\n',
                                                         encoding="utf-8")
        store.flush()
    finally:
        store.close()
    marker = next_dir / COMPLETE_FILE
    marker.write_text(state["token"] + "\n", encoding="utf-8")
    fsync_path(next_dir)
    mem.jump.close()  # the old store is about to move: nothing of it stays open here
    _exchange(next_dir, home / "vectors")
    _finish(mem, state)
    report.seconds = time.perf_counter() - started
    return report


def _default_target(mem: Any) -> str | None:
    """The target of ``--reembed`` without ``--embedder``: an unfinished move's (its switch
    done, or config.json still naming the embedder of the vectors that serve, as when it
    began), else the configured embedder."""
    from .embed import load_embedder
    from .errors import AtcError

    configured = mem.config.get("embedder")
    state = _read_state(mem.home)
    if state is None or state["to"] == configured:
        return configured
    if _switched(mem.home, state):
        return state["to"]
    try:
        made = json.loads((mem.home / "vectors" / "manifest.json").read_text(encoding="utf-8"))
        serving = load_embedder(configured or "minilm").id
    except (OSError, ValueError, AtcError):
        return configured
    return state["to"] if made.get("embedder_id") == serving else configured


def switched_target(home: Path) -> str | None:
    """The embedder a move killed after its exchange left in ``vectors/`` (config.json still
    names the old one until the move is finished); None when no such switch is pending."""
    state = _read_state(home)
    return str(state["to"]) if state is not None and _switched(home, state) else None


def finish_switch(mem: Any) -> bool:
    """Finish a move killed after its exchange (config.json, the old vectors; see
    :func:`switched_target`), taking the write lock; False when none is pending."""
    state = _read_state(mem.home)
    if state is None or not _switched(mem.home, state):
        return False
    mem.lock.acquire()
    if mem._jump is not None:
        mem._jump.close()  # opened with the old embedder's name
    _finish(mem, state)
    return True


def forget_in_next(mem: Any, keys: list[str]) -> None:
    """Erasure's part in an unfinished move (the caller holds the write lock): the erased
    records' vectors (their distillations' too) leave ``vectors.next/``, bytes and keys, as
    they leave ``vectors/`` (left there, the switch brought them back). A move killed after
    its exchange is finished instead: ``vectors.next/`` then holds the old vectors, which go."""
    from .embed import VectorStore
    from .jump import distillation_key

    if finish_switch(mem):
        return
    state, next_dir = _read_state(mem.home), mem.home / NEXT_DIR
    if state is None or not next_dir.exists():
        return
    store = VectorStore.open(next_dir, embedder_id=state["embedder_id"], dim=int(state["dim"]))
    try:
        store.remove([*keys, *(distillation_key(k) for k in keys)])
        store.purge()
    finally:
        store.close()


def _records(mem: Any, distillations: bool) -> list[tuple[str, str, dict[str, Any]]]:
    """``(key, text, meta)`` of every record curation embeds, text and meta as curation gives
    them (see attention_cloud.curation)."""
    from .curation import (BATCH as CURATE_BATCH, _arc_meta, _arc_text, _distillation_entries,
                           _lookup_view, _segments, _speakers)
    from .ingest_index import item_meta
    from .jump import distillation_key
    from .vector_texts import indexed_text, item_vector_text, text_vector_meta, tool_output_head

    (handles,) = mem.pl.once("atc_ladder:ladder_curated_items", Var())
    items = [str(h) for h in handles]
    head = tool_output_head(mem.config)
    out: list[tuple[str, str, dict[str, Any]]] = []
    for start in range(0, len(items), CURATE_BATCH):
        chunk = items[start:start + CURATE_BATCH]
        views = [v for v in (_lookup_view(mem, h) for h in chunk) if v is not None and v.text]
        segments = _segments(mem, [v.handle for v in views])
        speakers = _speakers(mem, [v.handle for v in views])
        entries = _distillation_entries(mem, chunk) if distillations else []
        entries = [entry for entry in entries if entry[3].strip()]
        distilled = {h for h, _, _, _ in entries}
        out += [(v.handle,
                 item_vector_text(v.kind, indexed_text(v.text, speakers.get(v.handle)), head),
                 text_vector_meta(item_meta(v.kind, segments.get(v.handle, "default")), v.kind,
                                  not distillations or v.handle in distilled, head))
                for v in views]
        out += [(distillation_key(h), text,
                 {"record": "distillation", "level": "l2", "kind": kind, "segment": segment})
                for h, kind, segment, text in entries]
    for (arc,) in mem.pl.solutions("atc_ladder:arc", Var()):
        l1 = mem.pl.once("atc_ladder:rung", arc, Atom("l1"), Var())
        l2 = mem.pl.once("atc_ladder:rung", arc, Atom("l2"), Var())
        first = mem.pl.once("atc_ladder:arc_member", arc, Var())
        if l1 is None or l2 is None or first is None:
            continue
        member = str(first[0])
        segment = _segments(mem, [member]).get(member, "default")
        out.append((str(arc), _arc_text(l1[0], l2[0]), _arc_meta(segment)))
    return out


# -- the switch ---------------------------------------------------------------------------------
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> None:
    """Swap two paths in one step when the kernel can (``b`` may be missing: then a rename)."""
    if not b.exists():
        os.rename(a, b)
    else:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            rc = libc.renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b),
                                _RENAME_EXCHANGE)
        except (OSError, AttributeError):
            rc = -1
        if rc != 0:  # no renameat2 (or no exchange on this filesystem): two renames
            aside = b.with_name(b.name + ".old")
            shutil.rmtree(aside, ignore_errors=True)
            os.rename(b, aside)
            os.rename(a, b)
            os.rename(aside, a)
    fsync_path(a.parent)


def _switched(home: Path, state: dict[str, Any]) -> bool:
    """Whether ``vectors/`` already holds the vectors this move built (the exchange happened):
    it carries the move's token, written into the new store just before the exchange."""
    try:
        return (home / "vectors" / COMPLETE_FILE).read_text(encoding="utf-8").strip() \
            == state.get("token")
    except OSError:
        return False


def _finish(mem: Any, state: dict[str, Any]) -> None:
    """After the exchange: config.json names the new embedder, the old vectors go."""
    home = mem.home
    config = read_config(home)
    if config.get("embedder") != state["to"]:
        write_config(home, {**config, "embedder": state["to"]})
    mem.config = read_config(home)
    mem._jump = None  # the next use opens the new vectors with the new embedder
    shutil.rmtree(home / NEXT_DIR, ignore_errors=True)
    (home / STATE_FILE).unlink(missing_ok=True)
    (home / "vectors" / COMPLETE_FILE).unlink(missing_ok=True)
    fsync_path(home)


def _matches(state: dict[str, Any], wanted: dict[str, Any]) -> bool:
    return all(state.get(k) == v for k, v in wanted.items())


def _read_state(home: Path) -> dict[str, Any] | None:
    try:
        state = json.loads((home / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) and "to" in state else None


def _write_state(home: Path, state: dict[str, Any]) -> None:
    path = home / STATE_FILE
    tmp = path.with_suffix(".json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(state) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_path(home)
