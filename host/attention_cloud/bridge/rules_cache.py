"""The project's rules, compiled once into a QLF file that later processes load instead.

Loading ``rules/`` from source costs every ``atc`` process about 0.35 s of CPU (reading and
compiling ~17,000 lines); their compiled form (SWI-Prolog's ``qcompile/2``) loads in about a
third of that. The first process that finds no compiled form loads the sources as before and
writes it on the way (``atc_bridge:compile_rules/3``, in the same engine, so the file always
matches the SWI-Prolog that reads it, on either backend); later ones load the file.

The compiled rules hold none of SWI-Prolog's own libraries (``sandbox``, ``http/json``, ...):
loading those from source was most of what was left, about 0.15 s of the 0.2. A library can
be compiled only in a process that has not loaded it yet, so the first process writes beside
the compiled rules the list of the libraries they loaded (``.libraries``), in the order they
finished loading; the next process that loads the compiled rules first compiles that list
(``atc_bridge:compile_libraries/2``) into ``.libraries.qlf``, and later ones load that before
the rules. Where it is missing or fails to load, the libraries load from source, as before.

The file lives in ``$ATC_CACHE/rules/`` (:func:`~attention_cloud.paths.cache_dir`), under a
name holding a hash of everything it depends on (:func:`cache_key`): the content of every
``.pl`` file under ``rules/`` and ``facts/``, where they are, the backend, SWI-Prolog's
version, home and library folders. A change to any of them names another file, so a stale one
is never read. Beside each file, ``.source`` names the sources it was made from; once a new
file is written, files of the same checkout and SWI-Prolog under other hashes are removed, and
so are files of any checkout whose sources are gone. A user's walk rules (``HOME/rules/``) are never part of it: a memory home
loads them when it opens. A file is written under a private temporary name and renamed into
place, so two processes starting at once each load or write a whole file. Where the cache
cannot be written or is not private to this user (what it holds runs as code), or a cached file
fails to load, the rules load from source: slower, never wrong.

Contents:
    load_rules  -- load ``rules/api.pl``: from the cache, compiling into it, or from source
    cache_key   -- the hash naming the compiled file for given sources and Prolog
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..errors import PrologError
from ..paths import cache_dir, is_private
from .terms import Atom, Term, Var

if TYPE_CHECKING:
    from . import Prolog

__all__ = ["load_rules", "cache_key"]

#: Bumped whenever what compile_rules/3 writes, or how it is loaded, changes.
FORMAT = 1
#: Seconds after which a compile's temporary file (``.compile-*``, SWI-Prolog's own
#: ``..compile-*.qlf.PID``, ``.libraries-*``) is taken for one a killed process left behind: a
#: compile takes seconds, and nothing else would ever remove it (~300 KB each).
LEFT_BEHIND_SECONDS = 3600
#: Days after which a compiled file that names no sources (written before they were named)
#: is removed by the next compile: which checkout it served cannot be known.
UNNAMED_DAYS = 30


def load_rules(pl: "Prolog", source: Path, sources: Iterable[Path]) -> str:
    """Load ``source`` (``rules/api.pl``) into ``pl`` as ``load_files(source, [if(true)])``.

    ``sources`` are the folders whose ``.pl`` files it may load (``rules/``, ``facts/``).
    Returns where the rules came from: ``"cache"`` (the compiled file), ``"compiled"`` (from
    source, writing the compiled file) or ``"source"`` (the cache unusable).
    """
    place = _cache_place()
    if place is None:
        pl.consult(source)
        return "source"
    version, home = _prolog_identity(pl)
    key = cache_key(sorted({*map(Path, sources), source.parent}), pl.backend, version, home)
    prefix = f"rules-{_digest(str(source.resolve()))[:8]}-{pl.backend}-{version}-"
    target = place / f"{prefix}{key[:20]}.qlf"
    if _usable(target):
        _load_libraries(pl, target)
        try:
            pl.once("user:load_files", str(target), [Term("if", [Atom("true")])])
            return "cache"
        except PrologError:  # unreadable or from another build: load the sources over it
            with contextlib.suppress(OSError):
                target.unlink()
            pl.consult(source)
            return "source"
    return _compile(pl, source, place, target, prefix)


def cache_key(folders: Iterable[Path], backend: str, version: str, home: str) -> str:
    """A hash of what a compiled form of the rules depends on.

    The name and bytes of every ``.pl`` file under ``folders`` and where each folder is (the
    compiled file records its sources' paths); the bridge ``backend`` and SWI-Prolog's
    ``version`` and ``home``, with the times its boot file and library folders last changed
    (a package added to the library can change what the rules compile to: they test for
    ``library(porter_stem)`` and ``library(http/json)``).
    """
    h = hashlib.sha256(f"atc-rules {FORMAT}\0{backend}\0{version}\0{home}\0".encode())
    for stamp in _library_stamps(Path(home)):
        h.update(f"{stamp}\0".encode())
    for folder in folders:
        folder = Path(folder).resolve()
        h.update(f"{folder}\0".encode())
        for path in sorted(folder.rglob("*.pl")):
            data = path.read_bytes()
            h.update(f"{path.relative_to(folder)}\0{len(data)}\0".encode())
            h.update(data)
    return h.hexdigest()


def _library_stamps(home: Path) -> list[str]:
    stamps = []
    for path in [home / "boot.prc", home / "library"]:
        with contextlib.suppress(OSError):
            stamps.append(f"{path.name}:{path.stat().st_mtime_ns}")
    with contextlib.suppress(OSError):
        stamps += sorted(f"{entry.name}:{entry.stat().st_mtime_ns}"
                         for entry in os.scandir(home / "library") if entry.is_dir())
    return stamps


def _prolog_identity(pl: "Prolog") -> tuple[str, str]:
    """SWI-Prolog's version (``9.0.4``, with its git tag where it has one) and home folder."""
    (home,) = pl.once("user:current_prolog_flag", Atom("home"), Var())
    found = pl.once("user:current_prolog_flag", Atom("version_git"), Var())
    version = pl.version + (f"-{found[0]}" if found else "")
    return version, str(home)


def _cache_place() -> Path | None:
    """The private folder of compiled rules, made when missing; None when it cannot be used."""
    try:
        place = cache_dir() / "rules"
        if not place.is_absolute():  # no home folder to expand "~" in: not into the cwd
            return None
        place.mkdir(mode=0o700, parents=True, exist_ok=True)
        return place if is_private(place) and os.access(place, os.W_OK) else None
    except (OSError, RuntimeError):  # RuntimeError: Path.home() without a home
        return None


def _usable(path: Path) -> bool:
    """Whether ``path`` is a file of this user's that only this user can have written."""
    try:
        info = path.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and not info.st_mode & 0o022 and info.st_size > 0


def _compile(pl: "Prolog", source: Path, place: Path, target: Path, prefix: str) -> str:
    """Load ``source`` while compiling it into ``target`` (written atomically), and list
    beside it the libraries it loaded (:func:`_load_libraries` compiles them)."""
    try:
        wrapper, compiled = _new_wrapper(place)
    except OSError:
        pl.consult(source)
        return "source"
    try:
        try:
            (libraries,) = pl.once("atc_bridge:compile_rules", str(source), str(wrapper), Var())
        except PrologError:  # could not write the file: whatever loaded, load it all again
            pl.consult(source)
            return "source"
        try:
            _install(compiled, target)
        except OSError:
            return "source"
    finally:
        _remove(wrapper, compiled)
    _name_source(target, source)
    _list_libraries(target, libraries)
    _prune(place, prefix, keep=target)
    return "compiled"


def _load_libraries(pl: "Prolog", target: Path) -> None:
    """Before the compiled rules ``target`` load, load the SWI-Prolog libraries they use
    compiled (``.libraries.qlf``), or compile them from the list the compile wrote when this
    is the first process to load ``target``. Never fails: what is not loaded here loads from
    the library as the rules load."""
    compiled_libraries = _libraries_compiled(target)
    if _usable(compiled_libraries):
        try:
            pl.once("user:load_files", str(compiled_libraries), [Term("if", [Atom("true")])])
        except PrologError:  # unreadable: the rules load the rest from source; compiled again
            with contextlib.suppress(OSError):
                compiled_libraries.unlink()
        return
    listed = _libraries_list(target)
    if not _usable(listed):
        return
    try:
        files = listed.read_text(encoding="utf-8").splitlines()
        wrapper, compiled = _new_wrapper(target.parent)
    except (OSError, UnicodeDecodeError):
        return
    try:
        pl.once("atc_bridge:compile_libraries", files, str(wrapper))
        _install(compiled, compiled_libraries)
    except (OSError, PrologError):
        pass  # the rules load whatever it did not load from source
    finally:
        _remove(wrapper, compiled)


def _new_wrapper(place: Path) -> tuple[Path, Path]:
    """A new private file in ``place`` to write a wrapper to compile into, and the ``.qlf``
    that compiling it writes (the caller removes both: :func:`_remove`)."""
    handle, name = tempfile.mkstemp(dir=place, prefix=".compile-", suffix=".pl")
    os.close(handle)
    wrapper = Path(name)
    return wrapper, wrapper.with_suffix(".qlf")


def _remove(*paths: Path) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink()


def _install(compiled: Path, target: Path) -> None:
    """Make ``compiled`` private and rename it to ``target``."""
    os.chmod(compiled, 0o600)
    os.replace(compiled, target)


def _libraries_list(target: Path) -> Path:
    """Where the libraries compiled rules ``target`` loaded are listed."""
    return target.with_name(target.stem + ".libraries")


def _libraries_compiled(target: Path) -> Path:
    """Where those libraries are kept compiled."""
    return target.with_name(target.stem + ".libraries.qlf")


def _list_libraries(compiled: Path, libraries: list[str]) -> None:
    """Write beside ``compiled`` the SWI-Prolog libraries loading it loads, one a line, for
    the next process to compile (:func:`_load_libraries`); renamed into place whole, so a
    process starting meanwhile reads all of it or none."""
    with contextlib.suppress(OSError):
        handle, name = tempfile.mkstemp(dir=compiled.parent, prefix=".libraries-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write("".join(f"{library}\n" for library in libraries))
        try:
            os.replace(name, _libraries_list(compiled))
        finally:
            _remove(Path(name))


def _name_source(compiled: Path, source: Path) -> None:
    """Write beside ``compiled`` the sources it was made from (``rules/api.pl``), so that a
    later prune can tell a deleted checkout's file from a live one's (its name holds only a
    hash of that path)."""
    with contextlib.suppress(OSError):
        named = compiled.with_suffix(".source")
        named.write_text(str(source.resolve()), encoding="utf-8")
        os.chmod(named, 0o600)


def _prune(place: Path, prefix: str, keep: Path, *, now: float | None = None) -> None:
    """Remove compiled rules no checkout will load again: those this checkout and Prolog wrote
    for sources they no longer have, those whose sources (named beside them) are gone (a
    deleted checkout or worktree; ~260 KB each), and those of releases that named no sources,
    once unchanged for :data:`UNNAMED_DAYS` days (a live checkout compiles its own again);
    and the temporary files of compiles killed before they cleaned up, once older than
    :data:`LEFT_BEHIND_SECONDS`."""
    import time

    now = time.time() if now is None else now
    for path in place.glob("rules-*.qlf"):
        if path == keep or path.name.endswith(".libraries.qlf"):  # removed with their rules
            continue
        named = path.with_suffix(".source")
        try:
            if path.name.startswith(prefix):
                gone = True
            elif named.exists():
                gone = not Path(named.read_text(encoding="utf-8")).exists()
            else:
                gone = now - path.stat().st_mtime > UNNAMED_DAYS * 86400
        except (OSError, UnicodeDecodeError):
            continue
        if gone:
            for stale in (path, named, _libraries_list(path), _libraries_compiled(path)):
                with contextlib.suppress(OSError):
                    stale.unlink()
    for temporary in (*place.glob(".compile-*"), *place.glob("..compile-*"),
                      *place.glob(".libraries-*")):
        with contextlib.suppress(OSError):
            if now - temporary.stat().st_mtime > LEFT_BEHIND_SECONDS:
                temporary.unlink()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
