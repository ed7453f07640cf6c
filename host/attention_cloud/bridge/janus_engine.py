"""The janus-swi engine: SWI-Prolog's own Python interface (SWI-Prolog ≥ 9.1.12).

janus converts values by its own rules (Python text becomes a Prolog atom, atoms come back as
plain text, compounds do not come back at all), so values cross in a *wire* form that janus
carries without loss and that ``rules/janus_codec.pl`` turns into the exact term, and back; the
table is in that file. Arguments reach Prolog as data bindings: a payload object whose ``args``
Prolog reads with ``py_call/3`` — never goal text. Python callables are reached through
``atc_bridge:'$py_call'/3`` (``janus_codec.pl`` defines it once bridge.pl is loaded), which calls
:func:`dispatch` here.

Finding a usable janus without importing it matters: ``janus_swi`` initialises the SWI-Prolog its
extension links to, and that library aborts the whole process when it finds another version's
home (e.g. Debian's 9.0.4 through ``swipl`` on PATH). :func:`locate_janus` therefore asks the
dynamic loader (``ldd``) which ``libswipl`` the extension uses, derives that library's home and
version from its files, and :class:`JanusEngine` points ``SWI_HOME_DIR`` there while importing.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import BridgeError, PrologError, UsageError
from .terms import MAX_NESTING, Atom, Term, Var, to_plain

__all__ = ["JanusEngine", "JanusLocation", "janus_status", "locate_janus", "dispatch"]

MIN_VERSION = 90112  # janus-swi's own floor: 10000 * major + 100 * minor + patch

# -- finding janus-swi and its SWI-Prolog -------------------------------------------------------


@dataclass(frozen=True)
class JanusLocation:
    """Whether janus-swi is usable here, why, and the SWI-Prolog it links to."""

    usable: bool
    reason: str
    home: str | None = None  # SWI-Prolog home directory (boot.prc, library/) matching the library
    version: int | None = None  # 10000 * major + 100 * minor + patch
    library: str | None = None  # the libswipl the extension module resolves to


_location: JanusLocation | None = None
_location_lock = threading.Lock()


def janus_status() -> tuple[bool, str]:
    """``(True, reason)`` when janus-swi is installed and its SWI-Prolog is ≥ 9.1.12 and loadable.

    Decided without importing ``janus_swi`` (see the module docstring); the search is cached, but
    a SWI-Prolog that something else (pyswip) loaded into this process meanwhile is noticed.
    """
    location = locate_janus()
    if location.usable and location.library:
        other = _other_libswipl_loaded(location.library)
        if other:
            return False, f"another SWI-Prolog ({other}) is already loaded in this process"
    return location.usable, location.reason


def locate_janus() -> JanusLocation:
    """Find janus-swi's extension, the ``libswipl`` it links to, and that library's home."""
    global _location
    with _location_lock:
        if _location is None:
            _location = _locate()
        return _location


def _locate() -> JanusLocation:
    if "janus_swi" in sys.modules:  # already initialised in this process: it works or we'd be gone
        return JanusLocation(True, "janus-swi is already loaded in this process")
    try:
        spec = importlib.util.find_spec("janus_swi")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return JanusLocation(False, "janus-swi is not installed (scripts/setup --janus builds it)")
    package = Path(next(iter(spec.submodule_search_locations)))
    extensions = sorted(package.glob("_swipl*.so"))
    if not extensions:
        return JanusLocation(False, f"janus-swi at {package} has no compiled extension module")
    library, why = _linked_libswipl(extensions[0])
    if library is None:
        return JanusLocation(False, why)
    home = _home_of(library)
    if home is None:
        return JanusLocation(False, f"no SWI-Prolog home (boot.prc) found for {library}",
                             library=str(library))
    version = _home_version(home)
    if version is None:
        return JanusLocation(False, f"cannot tell the version of SWI-Prolog at {home}",
                             home=str(home), library=str(library))
    text = _version_text(version)
    if version < MIN_VERSION:
        return JanusLocation(False, f"janus-swi links to SWI-Prolog {text} ({library}); janus needs "
                             f"≥ {_version_text(MIN_VERSION)}", str(home), version, str(library))
    return JanusLocation(True, f"janus-swi on SWI-Prolog {text} ({home})", str(home), version,
                         str(library))


def _linked_libswipl(extension: Path) -> tuple[Path | None, str]:
    """The libswipl the dynamic loader would bind ``extension`` to, asked in a child process."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return None, "ldd is not available to find the libswipl janus-swi links to"
    try:
        out = subprocess.run([ldd, str(extension)], capture_output=True, text=True, timeout=30,
                             check=False).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"ldd failed on {extension}: {exc}"
    for line in out.splitlines():
        name, arrow, target = line.strip().partition(" => ")
        if arrow and name.startswith("libswipl"):
            path = target.split(" (", 1)[0].strip()
            if not path or path == "not found":
                return None, f"janus-swi links to {name}, which is not found"
            return Path(path).resolve(), ""
    return None, f"janus-swi's extension {extension.name} does not link to libswipl"


def _other_libswipl_loaded(library: str) -> str | None:
    """A libswipl other than ``library`` mapped into this process (Linux), else None.

    Two libswipl of one soname cannot live in one process: janus's extension would bind to the
    one already there.
    """
    try:
        maps = Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    ours = Path(library).resolve()
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)  # address perms offset device inode [path]
        if len(fields) == 6 and "libswipl" in Path(fields[5]).name \
                and Path(fields[5]).resolve() != ours:
            return fields[5]
    return None


def _home_of(library: Path) -> Path | None:
    """SWI-Prolog's home for ``library``: ``<home>/lib/<arch>/libswipl.so`` or a sibling home."""
    parent = library.parent
    for candidate in (parent.parent.parent, parent / "swipl", parent / "swi-prolog"):
        if (candidate / "boot.prc").is_file():
            return candidate
    return None


_PLVERSION = re.compile(r"^#define\s+PLVERSION\s+(\d+)\s*$", re.MULTILINE)


def _home_version(home: Path) -> int | None:
    """PLVERSION from the home's ``SWI-Prolog.h``, else by asking that home's ``swipl``."""
    header = home / "include" / "SWI-Prolog.h"
    if header.is_file():
        found = _PLVERSION.search(header.read_text(encoding="utf-8", errors="replace"))
        if found:
            return int(found.group(1))
    for exe in sorted((home / "bin").glob("*/swipl")) + [home.parent.parent / "bin" / "swipl"]:
        if exe.is_file():
            try:
                out = subprocess.run([str(exe), "--dump-runtime-variables"], capture_output=True,
                                     text=True, timeout=30, check=False,
                                     env={**os.environ, "SWI_HOME_DIR": str(home)}).stdout
            except (OSError, subprocess.SubprocessError):
                continue
            found = re.search(r'^PLVERSION="(\d+)";', out, re.MULTILINE)
            if found:
                return int(found.group(1))
    return None


def _version_text(version: int) -> str:
    return f"{version // 10000}.{version // 100 % 100}.{version % 100}"


def _import_janus(home: str | None) -> Any:
    """Import janus_swi with ``SWI_HOME_DIR`` pointing at its library's home.

    The variable is restored afterwards: SWI-Prolog reads it only while initialising, and child
    processes (a system ``swipl`` of another version) must not inherit it.
    """
    if "janus_swi" in sys.modules:
        return sys.modules["janus_swi"]
    saved = os.environ.get("SWI_HOME_DIR")
    if home:
        os.environ["SWI_HOME_DIR"] = home
    try:
        import janus_swi
    finally:
        if saved is None:
            os.environ.pop("SWI_HOME_DIR", None)
        else:
            os.environ["SWI_HOME_DIR"] = saved
    return janus_swi


# -- the wire form (see rules/janus_codec.pl) ----------------------------------------------------

_PLAIN = (str, int, float, bool)


def to_wire(value: Any, varmap: dict[int, int], depth: int = 0) -> Any:
    """The wire form of a Python value; ``varmap`` numbers the :class:`Var` objects it meets.

    A value nesting deeper than ``MAX_NESTING`` levels is a UsageError, as in the pyswip
    backend (converted recursively, it would run into Python's recursion limit)."""
    if depth > MAX_NESTING:
        raise UsageError(f"a value nests lists or terms more than {MAX_NESTING} levels "
                         "deep: too deep to pass to Prolog")
    kind = type(value)
    if kind in _PLAIN or value is None:  # janus passes these as they are (None as @(none))
        return value
    if kind is Atom:
        return ("a", value)
    deeper = depth + 1
    if kind is list or kind is tuple:
        return [to_wire(item, varmap, deeper) for item in value]
    if kind is Term:
        if not value.args:  # the pyswip backend makes an atom of a zero-argument Term, too
            return ("a", value.name)
        return ("t", value.name, [to_wire(arg, varmap, deeper) for arg in value.args])
    if kind is Var:
        index = varmap.get(id(value))
        if index is None:
            index = varmap[id(value)] = len(varmap)
        return ("v", index)
    if kind is dict:
        return ("d", [str(key) for key in value],
                [to_wire(v, varmap, deeper) for v in value.values()])
    return _subclass_to_wire(value, varmap, depth)


def _subclass_to_wire(value: Any, varmap: dict[int, int], depth: int) -> Any:
    # Subclasses (IntEnum, str enums, user lists) convert as their base type, as in pyswip's.
    if isinstance(value, Atom):
        return ("a", str(value))
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    deeper = depth + 1
    if isinstance(value, (list, tuple)):
        return [to_wire(item, varmap, deeper) for item in value]
    if isinstance(value, Term):
        return to_wire(Term(value.name, value.args), varmap, depth)
    if isinstance(value, dict):
        return ("d", [str(key) for key in value],
                [to_wire(v, varmap, deeper) for v in value.values()])
    raise TypeError(f"cannot pass {type(value).__name__} to Prolog")


def from_wire(wire: Any, depth: int = 0) -> Any:
    """The Python value (see ``terms``) of a wire that Prolog's ``encode/2`` produced.

    An answer nesting deeper than ``MAX_NESTING`` levels is a UsageError, as in the pyswip
    backend."""
    kind = type(wire)
    if kind is str or kind is int or kind is float:
        return wire
    if kind is list:
        _check_answer_depth(depth)
        return [from_wire(item, depth + 1) for item in wire]
    if kind is dict:  # tagged wires (see rules/janus_codec.pl)
        if len(wire) == 1:
            if "a" in wire:
                return Atom(_text(wire["a"]))
            if "v" in wire:
                return Var()
        if "s" in wire:
            return _text(wire)
        _check_answer_depth(depth)
        deeper = depth + 1
        if "t" in wire:
            return Term(_text(wire["t"]), [from_wire(arg, deeper) for arg in wire["a"]])
        if "d" in wire:
            return {str(_text(key)): from_wire(value, deeper)
                    for key, value in zip(wire["d"], wire["v"], strict=True)}
        if "p" in wire:  # a partial list, shaped as the pyswip backend returns it
            return Term("[|]", (from_wire(wire["p"], deeper), from_wire(wire["tail"], deeper)))
    raise BridgeError(f"unexpected value from the janus codec: {wire!r}")


def _check_answer_depth(depth: int) -> None:
    if depth >= MAX_NESTING:
        raise UsageError(f"an answer nests lists or terms more than {MAX_NESTING} levels "
                         "deep: too deep to return from Prolog")


def _text(wire: Any) -> Any:
    """Text from a wire: as it is, or from the code list of ``{"s": codes}``."""
    if type(wire) is dict:
        return "".join(map(chr, wire["s"]))
    return wire


def text_safe(wire: Any) -> Any:
    """``wire`` with each text janus cannot convert (it holds a lone surrogate) as ``("s", codes)``.

    Used only after janus failed on the plain wire, so common calls never pay for the walk.
    """
    kind = type(wire)
    if kind is str or isinstance(wire, str):
        if wire.isascii():
            return wire
        try:
            wire.encode("utf-8")
        except UnicodeEncodeError:
            return ("s", [ord(char) for char in wire])
        return wire
    if kind is list:
        return [text_safe(item) for item in wire]
    if kind is tuple:
        return tuple(text_safe(item) for item in wire)
    return wire


class _Payload:
    """Values in wire form, handed to Prolog as one Python object.

    Prolog reads ``args`` with py_call/3 (``text_safe_args()`` when janus cannot convert some
    text) and sets ``reply``.
    """

    __slots__ = ("args", "reply")

    def __init__(self, args: Any) -> None:
        self.args = args
        self.reply: Any = None

    def text_safe_args(self) -> Any:
        """``args`` with text that holds lone surrogates as code lists."""
        return text_safe(self.args)


# -- the engine ----------------------------------------------------------------------------------

_engine: "JanusEngine | None" = None


class JanusEngine:
    """One embedded SWI-Prolog driven through janus-swi, under one process-wide lock."""

    backend = "janus"

    def __init__(self) -> None:
        global _engine
        usable, why = janus_status()
        if not usable:
            raise BridgeError(f"the janus backend is unusable: {why}")
        location = locate_janus()
        self.home = location.home
        try:
            self.janus = _import_janus(location.home)
        except Exception as exc:  # an ImportError or janus's RuntimeError: one error type for users
            raise BridgeError(f"janus-swi failed to start SWI-Prolog from {self.home}: {exc}") \
                from exc
        self.lock = threading.RLock()
        self._local = threading.local()
        self._callables: dict[str, tuple[Callable[..., Any], bool]] = {}
        from ..paths import rules_dir

        codec = rules_dir() / "janus_codec.pl"
        with self.lock:
            self._attach()
            self._janus_call(lambda: self.janus.query_once(
                "load_files(File, [if(not_loaded)])", {"File": str(codec)}))
        _engine = self
        import atexit

        atexit.register(self._stop_gc_thread)

    def _stop_gc_thread(self) -> None:
        # Values cross to Prolog inside Python objects (janus blobs) that SWI-Prolog's garbage
        # collector thread releases when it collects atoms, calling into Python. Once Python
        # finalizes, such a release aborts the process ("PyThreadState_Get: ... the GIL is
        # released", exit -6, seen once in CI after `atc rules add` had done its work): stop
        # that thread before Python tears down (atexit runs handlers newest first, so before
        # anything janus registered when it was imported). Nothing runs Prolog after this.
        try:
            with self.lock:
                self._attach()
                self.janus.query_once("set_prolog_gc_thread(false)")
        except Exception:   # exiting anyway: a failure here must not hide the real exit status
            pass

    def load_bootstrap(self, path: str | os.PathLike[str]) -> None:
        """Load the bridge's own Prolog module (before its error formatting exists)."""
        self.once("user:load_files", str(path), [Term("if", [Atom("true")])])
        self.once("atc_janus_codec:install_dispatcher")

    @property
    def version(self) -> str:
        """SWI-Prolog's version as ``major.minor.patch``."""
        (v,) = self.once("user:current_prolog_flag", Atom("version"), Var())
        return _version_text(v)

    def _attach(self) -> None:
        # janus creates Prolog's engine in the importing thread; other threads attach their own.
        if not getattr(self._local, "attached", False):
            self.janus.attach_engine()
            self._local.attached = True

    # -- queries ----------------------------------------------------------------------------------
    def solutions(self, pred: str, *args: Any, limit: int | None = None) -> list[tuple]:
        """All solutions of ``pred(args...)``: per solution, the values of the ``Var`` arguments."""
        if limit is not None and limit <= 0:
            return []
        module, _, name = pred.rpartition(":")
        varmap: dict[int, int] = {}
        wires = [to_wire(arg, varmap) for arg in args]
        outs = [varmap[id(arg)] for arg in args if isinstance(arg, Var)]
        payload = _Payload(wires)
        with self.lock:
            self._attach()
            self._janus_call(lambda: self.janus.apply_once(
                "atc_janus_codec", "run", module or "user", name, payload, len(varmap), outs,
                limit or 0))
        reply = payload.reply
        if type(reply) is dict:  # py{error: Wire, message: Message}
            try:
                term = from_wire(reply["error"])
            except UsageError:  # too deep to carry; the message still says what happened
                term = None
            raise PrologError(_text(reply["message"]) or _fallback_message(term), term)
        return [tuple(from_wire(w) for w in solution) for solution in reply]

    def once(self, pred: str, *args: Any) -> tuple | None:
        """First solution of ``pred(args...)`` (values of the ``Var`` arguments), or None."""
        found = self.solutions(pred, *args, limit=1)
        return found[0] if found else None

    def _janus_call(self, call: Callable[[], Any]) -> Any:
        """Run a janus call, turning janus's own PrologError (outside the codec's catch) into ours."""
        try:
            return call()
        except self.janus.PrologError as exc:
            term: Any = None
            if exc.term is not None:
                try:
                    term = from_wire(self.janus.apply_once("atc_janus_codec", "encode", exc.term))
                except Exception:  # noqa: BLE001 - the message below still says what happened
                    term = None
            raise PrologError(str(exc) or _fallback_message(term), term) from None

    # -- Python predicates ------------------------------------------------------------------------
    def register_callable(self, key: str, fn: Callable[..., Any], nondet: bool) -> None:
        """Make ``fn`` reachable from Prolog as ``atc_bridge:'$py_call'(Key, Args, Result)``."""
        self._callables[key] = (fn, nondet)


def dispatch(key: str, wires: list[Any]) -> tuple:
    """Called by ``atc_bridge:'$py_call'/3`` (through janus): run the callable registered as ``key``.

    Returns ``("ok", Payload, NVars)`` with the result's wire in the payload's ``args``, or
    ``("error", Type, Message)``, which Prolog raises as ``error(python_error(Type, Message), _)``.
    """
    try:
        if _engine is None:
            raise BridgeError("the janus engine is not initialised")
        fn, nondet = _engine._callables[key]
        value = fn(*(from_wire(w) for w in wires))
        if nondet:
            value = list(value if isinstance(value, Iterable) else [value])
        varmap: dict[int, int] = {}
        wire = to_wire(value, varmap)
        return ("ok", _Payload(wire), len(varmap))
    except Exception as exc:  # noqa: BLE001 - every Python error becomes a Prolog error
        # The callable ran: this reply must convert the first time, so its text is made safe now.
        return ("error", type(exc).__name__, text_safe(str(exc) or type(exc).__name__))


def _fallback_message(term: Any) -> str:
    return f"Prolog error: {to_plain(term)}"
