"""The one Python module that talks to Prolog.

Two backends behind one interface: **janus** (SWI-Prolog's own janus-swi, needs SWI-Prolog ≥ 9.1.12)
and **pyswip** (pyswip locates ``libswipl``; every call then goes through the C API with ctypes,
which works on the SWI-Prolog 9.0.x that Debian 12 ships). :func:`get_prolog` chooses
automatically; ``ATC_PROLOG=janus|pyswip`` forces one. Either way values cross as terms, never as
goal text, and Prolog exceptions surface as :class:`~attention_cloud.errors.PrologError`.

Example::

    pl = get_prolog()
    (length,) = pl.once("lists:length", [1, 2, 3], Var())
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable, Iterable

from ..environment import choice, count
from ..errors import HomeError, PrologError
from .terms import Atom, Term, Var, pair, to_plain

__all__ = ["Prolog", "get_prolog", "choose_backend", "Atom", "Term", "Var", "pair", "to_plain",
           "PrologError"]

_lock = threading.Lock()
_instance: "Prolog | None" = None


def choose_backend() -> tuple[str, str]:
    """Return ``(backend, reason)`` for this process: forced by ``ATC_PROLOG`` or detected.
    UsageError for an ``ATC_PROLOG`` that names neither backend (empty included)."""
    forced = choice("ATC_PROLOG", {"janus": "janus", "pyswip": "pyswip"})
    if forced:
        return forced, f"forced by ATC_PROLOG={forced}"
    from .janus_engine import janus_status

    usable, why = janus_status()
    if usable:
        return "janus", why
    return "pyswip", f"janus unavailable ({why}); using pyswip with the C API"


class Prolog:
    """The embedded Prolog engine with the project's rules loaded.

    Use :func:`get_prolog` rather than constructing it: SWI-Prolog is initialised once per process.
    """

    def __init__(self, engine: Any, reason: str) -> None:
        self.engine = engine
        self.backend: str = engine.backend
        self.backend_reason = reason
        self._registered: set[str] = set()
        #: where rules/ came from: "cache", "compiled" (written to the cache) or "source"
        self.rules_origin = "source"
        self._stops = threading.local()   # per thread: see _raise_stop
        if hasattr(engine, "on_stop"):    # one the engine met outside register's wrapper
            engine.on_stop = self._keep_stop

    @property
    def version(self) -> str:
        """SWI-Prolog's version, e.g. ``9.0.4``."""
        return self.engine.version

    def once(self, pred: str, *args: Any) -> tuple | None:
        """Call ``module:pred(args...)`` once.

        Returns the values bound to the :class:`Var` arguments, in order (an empty tuple when
        there are none), or None when the goal fails. Raises PrologError on a Prolog exception.
        """
        found = self.solutions(pred, *args, limit=1)
        return found[0] if found else None

    def solutions(self, pred: str, *args: Any, limit: int | None = None) -> list[tuple]:
        """All (or the first ``limit``) solutions of ``module:pred(args...)``."""
        interrupted = getattr(self.engine, "take_interrupt", lambda: False)
        try:
            found = self.engine.solutions(pred, *args, limit=limit)
        except PrologError as exc:
            self._collect_garbage()
            self._raise_stop()
            self._raise_home_error(exc)
            if interrupted():  # Ctrl-C ended the call (bridge/interrupts.py)
                raise KeyboardInterrupt from None
            raise
        interrupted()  # one that reached a call it does not stop is Python's own to raise
        self._raise_stop()  # a Prolog catch-all may have swallowed it on the way
        return found

    def _collect_garbage(self) -> None:
        """Collect the global stack after a query that raised.

        What such a query put on the stacks stayed counted as used after it ended, until the
        next query that raised or a collection: 190 MB after an answer past its limit, so the
        next query met its 256 MB stack limit with a fraction of its own. A collection here
        takes milliseconds; after a query that succeeded or failed nothing stays."""
        try:
            self.engine.solutions("system:garbage_collect", limit=1)
        except PrologError:
            pass

    def _raise_stop(self) -> None:
        """Re-raise a KeyboardInterrupt or SystemExit a Python predicate met during the query.

        Neither backend can carry one through Prolog (pyswip's ctypes callback drops it and
        Prolog sees a garbage return value), so :meth:`register`'s wrapper keeps it here and
        hands Prolog an ordinary error; the query's caller gets the original back."""
        stop = getattr(self._stops, "stop", None)
        if stop is not None:
            self._stops.stop = None
            raise stop

    def _raise_home_error(self, exc: PrologError) -> None:
        """Re-raise the HomeError a Python predicate met when ``exc`` is it coming back
        (``error(python_error('HomeError', Message), _)``): a damaged or busy home is the
        caller's one line and exit 1, not "Python HomeError: ..." as an error of the goal."""
        kept = getattr(self._stops, "home", None)
        self._stops.home = None
        formal = getattr(exc.term, "args", None)
        formal = formal[0] if formal else None
        if (kept is not None and getattr(formal, "name", None) == "python_error"
                and str(formal.args[0]) == type(kept).__name__):
            raise kept

    def _keep_stop(self, stop: BaseException) -> None:
        """Keep ``stop`` for :meth:`_raise_stop` (the first one, when several arrive)."""
        if getattr(self._stops, "stop", None) is None:
            self._stops.stop = stop

    def succeeds(self, pred: str, *args: Any) -> bool:
        """True when ``module:pred(args...)`` has a solution."""
        return self.once(pred, *args) is not None

    def consult(self, path: str | Path) -> None:
        """Load a Prolog source file."""
        self.once("user:load_files", str(Path(path)), [Term("if", [Atom("true")])])

    def register(self, name: str, arity: int, fn: Callable[..., Any], *, module: str = "user",
                 nondet: bool = False) -> None:
        """Define ``module:name/arity`` as a call of ``fn``.

        ``fn`` receives the first ``arity - 1`` arguments (converted to Python) and returns the
        value for the last one; with ``nondet=True`` it returns an iterable and each element is
        one solution (a cut simply abandons the rest). A Python exception becomes the Prolog
        error ``error(python_error(Type, Message), _)`` that ``catch/3`` sees.
        """
        key = f"{module}:{name}/{arity}"

        def call(*args: Any) -> Any:
            try:
                value = fn(*args)
                if nondet:  # the iteration runs here, where an interrupt is still caught
                    value = list(value if isinstance(value, Iterable) else [value])
                return value
            except (KeyboardInterrupt, SystemExit) as stop:
                self._stops.stop = stop
                raise RuntimeError(f"{type(stop).__name__} in {key}") from None
            except HomeError as exc:  # crosses Prolog as python_error; the caller gets it back
                self._stops.home = exc
                raise

        self.engine.register_callable(key, call, nondet)
        self.once("atc_bridge:define_python_predicate", Atom(module), Atom(name), arity, Atom(key),
                  Atom("true" if nondet else "false"))
        self._registered.add(key)


def _load_rules(pl: Prolog) -> None:
    from ..paths import rules_dir

    rules = rules_dir()
    pl.engine.load_bootstrap(rules / "bridge.pl")
    api = rules / "api.pl"
    if api.exists():
        from ..paths import facts_dir
        from .rules_cache import load_rules

        # compiled once into the user's cache, then loaded from there (bridge/rules_cache.py)
        pl.rules_origin = load_rules(pl, api, [rules, facts_dir()])
        from ..curate.tokens import register_for_prolog
        from ..hydration import register_for_prolog as register_framing

        register_for_prolog(pl)  # the one token estimator, for rungs without a stored count
        register_framing(pl)  # what the frame's own lines cost, as the host writes them


def get_prolog() -> Prolog:
    """The process-wide Prolog engine with ``rules/`` loaded (created on first use)."""
    global _instance
    with _lock:
        if _instance is None:
            backend, reason = choose_backend()
            # rules/grants.pl reads it; checked here, where a typo can still be said
            count("ATC_READER_SET_LIMIT")
            if backend == "janus":
                from .janus_engine import JanusEngine

                engine: Any = JanusEngine()
            else:
                from .swi_engine import SwiEngine

                engine = SwiEngine()
            pl = Prolog(engine, reason)
            _load_rules(pl)
            from .interrupts import forward_interrupts

            forward_interrupts(pl)  # when the process asked for it (the CLI)
            _instance = pl
        return _instance
