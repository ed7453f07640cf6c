"""Where libswipl is, kept between processes so that pyswip need not run ``swipl`` to find it.

pyswip locates the library at its import by running ``swipl --dump-runtime-variables``: a
second process start (~0.05-0.1 s of wall) in every ``atc`` process, a prompt hook's included.
It skips that when ``LIBSWIPL_PATH`` and ``SWI_HOME_DIR`` name the library and SWI-Prolog's
home, so the first process writes what pyswip found to ``$ATC_CACHE/libswipl.json`` and later
ones load that library themselves, without importing pyswip (``capi.load_library``).

What is kept is trusted only while it still describes this machine: the ``swipl`` that PATH
finds (its real path, size, time and inode) and the library (size and time) must be as they
were when it was written, so an upgrade or another PATH looks again. The file names a library
the process loads, so it is read only from a folder private to this user, from a file of this
user's that no one else may write (:func:`~attention_cloud.paths.is_private`); anything else,
and a user's own ``LIBSWIPL_PATH`` or ``SWI_HOME_DIR``, leaves pyswip to look as it always did.

Contents:
    kept_place  -- the library and home kept for this machine's swipl, or None
    keep_place  -- write them for the next process (quietly, where the cache cannot be written)
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..paths import cache_dir, is_private

__all__ = ["kept_place", "keep_place"]

_FILE = "libswipl.json"


def _stamp(path: str | Path) -> list[int]:
    info = os.stat(path)
    return [info.st_dev, info.st_size, info.st_mtime_ns, info.st_ino]


def _swipl() -> tuple[str, list[int]] | None:
    """The ``swipl`` pyswip would run (PATH's), resolved, with its stamp; None where none."""
    found = shutil.which("swipl")
    if found is None:
        return None
    real = os.path.realpath(found)
    return real, _stamp(real)


def kept_place() -> tuple[str, str] | None:
    """(library, home) kept for the ``swipl`` PATH finds now, or None: nothing kept, the
    user set ``LIBSWIPL_PATH``/``SWI_HOME_DIR`` themselves, or what is kept is stale or not
    trustworthy (see module doc)."""
    if os.environ.get("LIBSWIPL_PATH") or os.environ.get("SWI_HOME_DIR"):
        return None
    try:
        folder = cache_dir()
        path = folder / _FILE
        info = path.stat()
        if not is_private(folder) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            return None
        kept: Any = json.loads(path.read_text(encoding="utf-8"))
        swipl = _swipl()
        if swipl is None or kept["swipl"] != [swipl[0], *swipl[1]]:
            return None
        library, home = kept["library"], kept["home"]
        if _stamp(library) != kept["library_stamp"] or not os.path.isdir(home):
            return None
        return str(library), str(home)
    except (OSError, ValueError, KeyError, TypeError, RuntimeError):
        return None


def keep_place(library: str | None, home: str | None) -> None:
    """Write ``library`` and ``home`` (what pyswip found) for the next process, keyed by the
    ``swipl`` PATH finds now; nothing where either is unknown or the cache is unusable."""
    if not library or not home or not os.path.isabs(library):
        return
    with contextlib.suppress(OSError, RuntimeError):
        swipl = _swipl()
        if swipl is None:
            return
        folder = cache_dir()
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not is_private(folder):
            return
        text = json.dumps({"swipl": [swipl[0], *swipl[1]], "library": library,
                           "library_stamp": _stamp(library), "home": home})
        handle, name = tempfile.mkstemp(dir=folder, prefix=".libswipl-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(name, folder / _FILE)   # mkstemp made it 0600
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(name)
