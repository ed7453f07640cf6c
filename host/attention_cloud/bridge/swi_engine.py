"""The C-API engine: pyswip locates libswipl, every call goes through ``capi``.

Values cross as terms built with the C API (never as goal text), Prolog exceptions come back as
:class:`~attention_cloud.errors.PrologError` with the error term and SWI-Prolog's own message, and
Python callables become Prolog predicates through one varargs foreign predicate.
"""
from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any, Callable, Iterable

from ..errors import BridgeError, PrologError, UsageError
from . import capi as C
from .terms import MAX_NESTING, Atom, Term, Var

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_CACHE = 100_000  # atoms and functors kept registered for reuse
_NAME_KEPT = 128  # longest atom text kept by _atom_text


class SwiEngine:
    """One embedded SWI-Prolog, driven through its C API under one process-wide lock."""

    backend = "pyswip"

    def __init__(self) -> None:
        lib, home = C.load_library()
        self.home = home
        self.api = C.CApi(lib)
        self.lock = threading.RLock()
        self._atoms: dict[str, int] = {}
        self._names: dict[int, str] = {}  # atom handle -> its text, for atoms registered here
        self._functors: dict[tuple[str, int], int] = {}
        self._preds: dict[tuple[str, str, int], int] = {}
        self._callables: dict[str, tuple[Callable[..., Any], bool]] = {}
        # out-parameters of the C calls that read a term, made once: calls run under the lock,
        # and each value is taken before the next call (a ctypes object and its byref cost
        # about as much as the call itself, and a frame is ~1,000 of them)
        self._out_atom, self._out_int, self._out_float = C.atom_t(), ctypes.c_int64(), ctypes.c_double()
        self._out_size = ctypes.c_size_t()
        self._out_refs = (ctypes.byref(self._out_atom), ctypes.byref(self._out_int),
                          ctypes.byref(self._out_float), ctypes.byref(self._out_size))
        self._initialise(home)
        self._foreign = C.FOREIGN_VARARGS(self._dispatch)  # keep a reference: ctypes would free it
        self._calls = 0                 # Prolog calls running (nested ones through callbacks)
        self._call_thread = 0           # the Prolog thread id of the outermost one
        self._interrupted = False       # interrupt_call reached a running call
        #: told of a KeyboardInterrupt or SystemExit met in :meth:`_dispatch` (set by Prolog)
        self.on_stop: Callable[[BaseException], None] | None = None
        self._previous_hook: Any = None     # sys.unraisablehook outside calls (see _unraisable)

    # -- Ctrl-C (see bridge/interrupts.py) ---------------------------------------------------
    def interrupt_call(self, sig: int) -> None:
        """Have the running call, if any, handle signal ``sig`` (from another thread)."""
        if self._calls > 0:
            self._interrupted = True
            self.api.PL_thread_raise(self._call_thread, sig)

    def take_interrupt(self) -> bool:
        """Whether an interrupt reached a call since the last ask (and forget it)."""
        interrupted, self._interrupted = self._interrupted, False
        return interrupted

    # -- start-up ----------------------------------------------------------------------------
    def _initialise(self, home: str | None) -> None:
        api = self.api
        if api.PL_is_initialised(None, None):
            return
        argv = [b"attention-cloud", b"-q", b"--nosignals", b"--no-packs"]
        if home:
            argv.append(f"--home={home}".encode())
        arr = (ctypes.c_char_p * (len(argv) + 1))(*argv, None)
        if not api.PL_initialise(len(argv), arr):
            raise BridgeError("SWI-Prolog failed to initialise (PL_initialise returned false)")

    def load_bootstrap(self, path) -> None:
        """Load the bridge's own Prolog module, then add the Python dispatcher to it.

        The dispatcher is registered after loading: loading a module file abolishes foreign
        predicates the file does not define.
        """
        self.once("user:load_files", str(path), [Term("if", [Atom("true")])])
        if not self.api.PL_register_foreign_in_module(b"atc_bridge", b"$py_call", 3, self._foreign,
                                                      C.PL_FA_VARARGS):
            raise BridgeError("could not register the Python dispatcher predicate")

    def _attach(self) -> None:
        if self.api.PL_thread_self() == -1 and self.api.PL_thread_attach_engine(None) < 0:
            raise BridgeError("could not attach a Prolog engine to this thread")

    @property
    def version(self) -> str:
        """SWI-Prolog's version as ``major.minor.patch``."""
        (v,) = self.once("user:current_prolog_flag", Atom("version"), Var())
        return f"{v // 10000}.{v // 100 % 100}.{v % 100}"

    # -- atoms and functors ------------------------------------------------------------------
    # Atoms made here are registered (PL_new_atom holds a reference). Up to _CACHE of them are
    # kept for reuse, since names and keys repeat; any other is unregistered once the term that
    # uses it is built, so atom garbage collection can reclaim it when nothing refers to it.
    def _atom(self, name: str) -> tuple[int, bool]:
        """``(atom, cached)``; the caller unregisters an atom that is not cached after use."""
        a = self._atoms.get(name)
        if a is not None:
            return a, True
        data = name.encode("utf-8", "surrogatepass")
        a = self.api.PL_new_atom_mbchars(C.REP_UTF8, len(data), data)
        if len(self._atoms) < _CACHE:
            self._atoms[name] = a
            return a, True
        return a, False

    def _put_atom(self, t: int, name: str) -> int:
        a, cached = self._atom(name)
        ok = self.api.PL_put_atom(t, a)
        if not cached:
            self.api.PL_unregister_atom(a)
        return ok

    def _functor(self, name: str, arity: int) -> int:
        key = (name, arity)
        f = self._functors.get(key)
        if f is None:
            a, cached = self._atom(name)
            f = self.api.PL_new_functor_sz(a, arity)  # functors are permanent in SWI-Prolog
            if not cached:
                self.api.PL_unregister_atom(a)
            if len(self._functors) < _CACHE:
                self._functors[key] = f
        return f

    def _atom_text(self, a: int) -> str:
        """The text of atom handle ``a``. Up to _CACHE short atoms read are kept registered with
        their text (a registered atom is never collected, so its handle keeps naming the same
        text): a frame's dict keys, functor names and handles repeat, and a lookup here costs a
        fraction of fetching the text through the C API (~4 µs by ctypes). A long atom (a list
        of records joined into one text for the host) is read each time and never kept."""
        name = self._names.get(a)
        if name is None:
            t = self.api.PL_new_term_ref()
            self.api.PL_put_atom(t, a)
            name = self.api.get_text(t, C.CVT_ATOM) or ""
            if len(name) <= _NAME_KEPT and len(self._names) < _CACHE:
                self.api.PL_register_atom(a)
                self._names[a] = name
        return name

    # -- Python -> Prolog ------------------------------------------------------------------------
    def put(self, t: int, value: Any, varmap: dict[int, int], depth: int = 0) -> None:
        """Put ``value`` into term reference ``t`` (see ``terms`` for the mapping); a value
        nesting deeper than ``MAX_NESTING`` levels is a UsageError (converted recursively, it
        ran into Python's recursion limit)."""
        if depth > MAX_NESTING:
            raise UsageError(f"a value nests lists or terms more than {MAX_NESTING} levels "
                             "deep: too deep to pass to Prolog")
        api = self.api
        cls = type(value)
        deeper = depth + 1
        if cls is Term and value.args:  # the commonest compound first (pairs of host results)
            n = len(value.args)
            a0 = api.PL_new_term_refs(n)
            for i, arg in enumerate(value.args):
                self.put(a0 + i, arg, varmap, deeper)
            ok = api.PL_cons_functor_v(t, self._functor(value.name, n), a0)
        elif cls is float:
            ok = api.PL_put_float(t, value)
        elif isinstance(value, Atom):
            data = str.encode(value, "utf-8", "surrogatepass")
            ok = api.PL_put_chars(t, C.PL_ATOM | C.REP_UTF8, len(data), data)
        elif isinstance(value, str):
            data = value.encode("utf-8", "surrogatepass")
            ok = api.PL_put_chars(t, C.PL_STRING | C.REP_UTF8, len(data), data)
        elif isinstance(value, bool):
            ok = self._put_atom(t, "true" if value else "false")
        elif isinstance(value, int):
            if _INT64_MIN <= value <= _INT64_MAX:
                ok = api.PL_put_int64(t, value)
            else:
                ok = api.put_big_integer(t, value)
        elif isinstance(value, float):
            ok = api.PL_put_float(t, value)
        elif value is None:
            ok = self._put_atom(t, "null")
        elif isinstance(value, (list, tuple)):
            ok = api.PL_put_nil(t)
            head = api.PL_new_term_ref()
            for item in reversed(value):
                self.put(head, item, varmap, deeper)
                ok = ok and api.PL_cons_list(t, head, t)
        elif isinstance(value, Term):
            n = len(value.args)
            if n == 0:
                ok = self._put_atom(t, value.name)
            else:
                a0 = api.PL_new_term_refs(n)
                for i, arg in enumerate(value.args):
                    self.put(a0 + i, arg, varmap, deeper)
                ok = api.PL_cons_functor_v(t, self._functor(value.name, n), a0)
        elif isinstance(value, Var):
            bound = varmap.get(id(value))
            if bound is None:
                ok = api.PL_put_variable(t)
                varmap[id(value)] = api.PL_copy_term_ref(t)
            else:
                ok = api.PL_put_term(t, bound)
        elif isinstance(value, dict):
            n = len(value)
            made = [self._atom(str(k)) for k in value]
            keys = (C.atom_t * max(n, 1))(*(a for a, _ in made))
            vals = api.PL_new_term_refs(n) if n else 0
            for i, v in enumerate(value.values()):
                self.put(vals + i, v, varmap, deeper)
            ok = api.PL_put_dict(t, 0, n, keys, vals)
            for a, cached in made:
                if not cached:
                    api.PL_unregister_atom(a)
        else:
            raise TypeError(f"cannot pass {type(value).__name__} to Prolog")
        if not ok:
            raise BridgeError(f"could not build a Prolog term from {type(value).__name__}")

    # -- Prolog -> Python ------------------------------------------------------------------------
    def get(self, t: int, depth: int = 0) -> Any:
        """Convert the term at ``t`` to Python (see ``terms``); a term nesting deeper than
        ``MAX_NESTING`` levels is a UsageError, as in :meth:`put`."""
        api = self.api
        kind = api.PL_term_type(t)
        if kind == C.PL_ATOM:
            api.PL_get_atom(t, self._out_refs[0])
            return Atom(self._atom_text(self._out_atom.value))
        if kind == C.PL_STRING:
            return api.get_text(t, C.CVT_STRING) or ""
        if kind == C.PL_INTEGER:
            if api.PL_get_int64(t, self._out_refs[1]):
                return self._out_int.value
            return int(api.get_text(t, C.CVT_INTEGER) or "0")
        if kind == C.PL_FLOAT:
            api.PL_get_float(t, self._out_refs[2])
            return self._out_float.value
        if kind == C.PL_NIL:
            return []
        if kind == C.PL_VARIABLE:
            return Var()
        if kind in (C.PL_LIST_PAIR, C.PL_TERM, C.PL_DICT) and depth >= MAX_NESTING:
            raise UsageError(f"an answer nests lists or terms more than {MAX_NESTING} levels "
                             "deep: too deep to return from Prolog")
        if kind == C.PL_LIST_PAIR:
            return self._get_list(t, depth + 1)
        if kind in (C.PL_TERM, C.PL_DICT):
            return self._get_compound(t, kind == C.PL_DICT, depth + 1)
        return api.get_text(t, C.CVT_WRITEQ | C.CVT_RATIONAL) or ""

    def _get_list(self, t: int, depth: int) -> Any:
        api = self.api
        out = []
        rest = api.PL_copy_term_ref(t)
        head = api.PL_new_term_ref()
        while api.PL_get_list(rest, head, rest):
            out.append(self.get(head, depth))
        if api.PL_term_type(rest) != C.PL_NIL:  # partial list: keep the tail visible
            return Term("[|]", (out, self.get(rest, depth)))
        return out

    def _get_compound(self, t: int, is_dict: bool, depth: int) -> Any:
        api = self.api
        refs = self._out_refs
        api.PL_get_name_arity_sz(t, refs[0], refs[3])
        name, arity = self._out_atom.value, self._out_size.value  # before the arguments reuse them
        arg = api.PL_new_term_ref()
        get_arg, get = api.PL_get_arg_sz, self.get
        args = []
        for i in range(1, arity + 1):
            get_arg(i, t, arg)
            args.append(get(arg, depth))
        if is_dict:  # dict(Tag, V1, K1, V2, K2, ...)
            return {str(args[i + 1]): args[i] for i in range(1, len(args), 2)}
        return Term(self._atom_text(name), args)

    # -- queries ------------------------------------------------------------------------------
    def _pred(self, spec: str, arity: int) -> int:
        module, _, name = spec.rpartition(":")
        key = (module or "user", name, arity)
        p = self._preds.get(key)
        if p is None:
            p = self.api.PL_predicate(name.encode(), arity, (module or "user").encode())
            self._preds[key] = p
        return p

    def solutions(self, pred: str, *args: Any, limit: int | None = None) -> list[tuple]:
        """All solutions of ``pred(args...)``: per solution, the values of the ``Var`` arguments."""
        api = self.api
        with self.lock:
            self._attach()
            fid = api.PL_open_foreign_frame()
            try:
                varmap: dict[int, int] = {}
                t0 = api.PL_new_term_refs(len(args)) if args else api.PL_new_term_ref()
                for i, a in enumerate(args):
                    self.put(t0 + i, a, varmap)
                outs = [t0 + i for i, a in enumerate(args) if isinstance(a, Var)]
                flags = C.PL_Q_NODEBUG | C.PL_Q_CATCH_EXCEPTION | C.PL_Q_EXT_STATUS
                qid = api.PL_open_query(None, flags, self._pred(pred, len(args)), t0)
                try:  # at once: a Ctrl-C raised before it left the query open, and the
                    # next call aborted the process ("No foreign environment")
                    return self._next_solutions(qid, outs, limit)
                finally:
                    api.PL_cut_query(qid)
            finally:
                api.PL_discard_foreign_frame(fid)

    def _next_solutions(self, qid: int, outs: list[int], limit: int | None) -> list[tuple]:
        """The solutions of the open query ``qid``, counted as a call running (see
        :meth:`interrupt_call`, :meth:`_unraisable`)."""
        api = self.api
        results: list[tuple] = []
        if self._calls == 0:
            self._call_thread = api.PL_thread_self()
            self._previous_hook, sys.unraisablehook = sys.unraisablehook, self._unraisable
        self._calls += 1
        try:
            while limit is None or len(results) < limit:
                rc = api.PL_next_solution(qid)
                if rc == C.PL_S_EXCEPTION:
                    raise self._exception(api.PL_exception(qid))
                if rc == C.PL_S_FALSE:
                    break
                # term refs made while converting belong to a frame of their own,
                # so a query with many answers does not grow the local stack
                conv = api.PL_open_foreign_frame()
                try:
                    results.append(tuple(self.get(o) for o in outs))
                finally:
                    api.PL_close_foreign_frame(conv)
                if rc == C.PL_S_LAST:
                    break
        finally:
            self._calls -= 1
            if self._calls == 0:
                sys.unraisablehook = self._previous_hook
        return results

    def once(self, pred: str, *args: Any) -> tuple | None:
        """First solution of ``pred(args...)`` (values of the ``Var`` arguments), or None."""
        found = self.solutions(pred, *args, limit=1)
        return found[0] if found else None

    def _exception(self, ex: int) -> PrologError:
        try:
            term = self.get(ex)
        except UsageError:  # the culprit nests too deep (a Python value passed in whole)
            term = None
        message = None
        try:  # a nested query inside the failed one: SWI-Prolog's own wording of the error
            found = self._nested_message(ex)
            message = found
        except Exception:  # noqa: BLE001 - the message is a nicety; the term is the truth
            message = None
        return PrologError(message or _fallback_message(term), term)

    def _nested_message(self, ex: int) -> str | None:
        api = self.api
        t0 = api.PL_new_term_refs(2)
        api.PL_put_term(t0, ex)
        api.PL_put_variable(t0 + 1)
        qid = api.PL_open_query(None, C.PL_Q_NODEBUG | C.PL_Q_CATCH_EXCEPTION | C.PL_Q_EXT_STATUS,
                                self._pred("atc_bridge:error_message", 2), t0)
        try:
            rc = api.PL_next_solution(qid)
            return self.get(t0 + 1) if rc in (C.PL_S_TRUE, C.PL_S_LAST) else None
        finally:
            api.PL_cut_query(qid)

    # -- Python predicates ------------------------------------------------------------------------
    def register_callable(self, key: str, fn: Callable[..., Any], nondet: bool) -> None:
        """Make ``fn`` reachable from Prolog as ``atc_bridge:'$py_call'(Key, Args, Result)``."""
        self._callables[key] = (fn, nondet)

    def _unraisable(self, info: Any) -> None:
        """``sys.unraisablehook`` while a call runs. Python runs a signal's handler at the
        entry of the next Python function, and during a call that is this engine's
        :meth:`_dispatch`, before its ``try``: ctypes drops the KeyboardInterrupt (or a
        SIGTERM handler's SystemExit) raised there, and Prolog reads a garbage return value
        (the caller got a PrologError "foreign_return_value expected" instead of Ctrl-C). It
        is kept for the caller here (:attr:`on_stop`); anything else goes to the hook that
        was in place."""
        if (getattr(info, "object", None) == self._dispatch and self.on_stop is not None
                and isinstance(info.exc_value, (KeyboardInterrupt, SystemExit))):
            self.on_stop(info.exc_value)
            return
        (self._previous_hook or sys.__unraisablehook__)(info)

    def _dispatch(self, t0: int, arity: int, _context: int) -> int:
        api = self.api
        try:
            key = self.get(t0)
            args = self.get(t0 + 1)
            fn, nondet = self._callables[str(key)]
            value = fn(*args)
            if nondet:
                value = list(value if isinstance(value, Iterable) else [value])
            out = api.PL_new_term_ref()
            self.put(out, value, {})
            return api.PL_unify(t0 + 2, out)
        except (KeyboardInterrupt, SystemExit) as stop:
            # Ctrl-C lands here too, outside the predicate's own wrapper (Prolog.register):
            # while its arguments or its answer are converted. Let out of this callback, ctypes
            # dropped it and Prolog read a garbage return value, so the caller got a PrologError
            # ("foreign_return_value expected") instead of its KeyboardInterrupt.
            if self.on_stop is not None:
                self.on_stop(stop)
            err = api.PL_new_term_ref()
            self.put(err, Term("error", (Term("python_error", (Atom(type(stop).__name__), "stop")),
                                         Var())), {})
            return api.PL_raise_exception(err)
        except Exception as exc:  # noqa: BLE001 - every Python error becomes a Prolog error
            err = api.PL_new_term_ref()
            detail = str(exc) or type(exc).__name__
            self.put(err, Term("error", (Term("python_error", (Atom(type(exc).__name__), detail)),
                                         Var())), {})
            return api.PL_raise_exception(err)


def _fallback_message(term: Any) -> str:
    from .terms import to_plain

    return f"Prolog error: {to_plain(term)}"
