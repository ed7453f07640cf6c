"""SWI-Prolog's C API through ctypes, on the library that pyswip finds (once a machine) and loads.

pyswip's own query layer loses exceptions, strings and UTF-8 and forbids nested queries, so we use
it only to locate and load ``libswipl`` (and not at all once its place is kept:
:func:`load_library`) and make every call through the C API ourselves. All calls go
through one process-wide re-entrant lock: a Python callback running inside a Prolog query may itself
query Prolog (nesting), but two Python threads never drive the engine at once.
"""
from __future__ import annotations

import contextlib
import ctypes
import threading
from ctypes import (CFUNCTYPE, POINTER, byref, c_char_p, c_double, c_int, c_int64, c_size_t,
                    c_uint, c_void_p, string_at)

term_t = c_size_t
atom_t = c_size_t
functor_t = c_size_t
fid_t = c_size_t
qid_t = c_void_p
predicate_t = c_void_p
module_t = c_void_p
foreign_t = c_size_t
buf_mark_t = c_size_t  # uintptr_t in SWI-Prolog.h

PL_VARIABLE, PL_ATOM, PL_INTEGER, PL_RATIONAL, PL_FLOAT, PL_STRING, PL_TERM = 1, 2, 3, 4, 5, 6, 7
PL_NIL, PL_BLOB, PL_LIST_PAIR, PL_DICT = 8, 9, 10, 44
PL_FA_VARARGS = 0x08
PL_Q_NODEBUG, PL_Q_CATCH_EXCEPTION, PL_Q_EXT_STATUS = 0x04, 0x08, 0x40
PL_S_EXCEPTION, PL_S_FALSE, PL_S_TRUE, PL_S_LAST = -1, 0, 1, 2
CVT_ATOM, CVT_STRING, CVT_INTEGER, CVT_WRITEQ = 0x1, 0x2, 0x8, 0x200
CVT_RATIONAL = 0x10
REP_UTF8 = 0x00100000
BUF_DISCARDABLE = 0x00000000  # valid until the next such call: we copy at once
PL_CHARS_ATOM, PL_CHARS_STRING = PL_ATOM, PL_STRING

class Mpz(ctypes.Structure):
    """GMP's ``__mpz_struct``: limbs (64-bit, least significant first) and their signed count."""

    _fields_ = [("alloc", c_int), ("size", c_int), ("d", POINTER(ctypes.c_uint64))]


#: ``foreign_t f(term_t t0, int arity, void *context)`` for PL_FA_VARARGS predicates.
FOREIGN_VARARGS = CFUNCTYPE(foreign_t, term_t, c_int, c_void_p)


def load_library() -> tuple[ctypes.CDLL, str | None]:
    """Return libswipl and SWI-Prolog's home directory: loaded from where an earlier process
    found them (libswipl_place.py), or as pyswip locates and loads them.

    Importing pyswip does more than locate the library: its package initialises Prolog with
    its own arguments and declares ctypes signatures for hundreds of C functions, 0.01-0.04 s
    of CPU in every ``atc`` process that opens a home. With the place kept, the library
    is loaded directly and :class:`~attention_cloud.bridge.swi_engine.SwiEngine` initialises
    Prolog itself (every signature it calls is declared in :class:`CApi`)."""
    import atexit
    import os
    import sys

    from .libswipl_place import keep_place, kept_place

    fresh = "pyswip.core" not in sys.modules and not (
        os.environ.get("LIBSWIPL_PATH") or os.environ.get("SWI_HOME_DIR"))  # a user's own
    kept = kept_place() if fresh else None
    if kept is not None:
        with contextlib.suppress(OSError):    # the library moved since: pyswip looks again
            return ctypes.CDLL(kept[0], mode=ctypes.RTLD_GLOBAL), kept[1]
        kept = None
    # pyswip encodes sys.argv as UTF-8 when imported (for a PL_initialise we do not let it
    # make): a command-line byte that is not UTF-8 (decoded by Python as a lone surrogate)
    # raised UnicodeEncodeError there, a traceback for any `atc` command given one. Our own
    # PL_initialise builds its own argv, so pyswip may see a readable copy.
    argv = sys.argv
    sys.argv = [os.fsencode(a).decode("utf-8", "replace") if isinstance(a, str) else a
                for a in argv]
    try:
        from pyswip import core  # imported late: locating libswipl has side effects
    finally:
        sys.argv = argv
    if fresh and kept is None:             # pyswip ran swipl: the next process need not
        keep_place(getattr(core, "_path", None), core.SWI_HOME_DIR)

    # pyswip's exit hook runs PL_cleanup, which complains (and gives up) when Python threads
    # still hold Prolog engines. Everything durable is flushed and fsynced at each commit, so
    # the process may simply end.
    atexit.unregister(core.cleanupProlog)
    return core._lib, core.SWI_HOME_DIR


class CApi:
    """Typed handles on the C functions we use (signatures declared once)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        #: get_text's out-parameters, made once per thread (a text is read ~0.3 µs faster than
        #: with new ctypes objects each time; a frame reads hundreds)
        self._text_out = threading.local()
        sig = self._sig
        sig("PL_initialise", c_int, c_int, POINTER(c_char_p))
        sig("PL_is_initialised", c_int, POINTER(c_int), POINTER(POINTER(c_char_p)))
        sig("PL_thread_self", c_int)
        sig("PL_thread_raise", c_int, c_int, c_int)
        sig("PL_thread_attach_engine", c_int, c_void_p)
        sig("PL_new_term_ref", term_t)
        sig("PL_new_term_refs", term_t, c_int)
        sig("PL_copy_term_ref", term_t, term_t)
        sig("PL_new_atom_mbchars", atom_t, c_int, c_size_t, c_char_p)
        sig("PL_new_functor_sz", functor_t, atom_t, c_size_t)
        sig("PL_put_variable", c_int, term_t)
        sig("PL_put_atom", c_int, term_t, atom_t)
        sig("PL_put_chars", c_int, term_t, c_int, c_size_t, c_char_p)
        sig("PL_put_int64", c_int, term_t, c_int64)
        sig("PL_put_float", c_int, term_t, c_double)
        sig("PL_put_nil", c_int, term_t)
        sig("PL_put_term", c_int, term_t, term_t)
        sig("PL_cons_list", c_int, term_t, term_t, term_t)
        sig("PL_cons_functor_v", c_int, term_t, functor_t, term_t)
        sig("PL_put_dict", c_int, term_t, atom_t, c_size_t, POINTER(atom_t), term_t)
        sig("PL_put_term_from_chars", c_int, term_t, c_int, c_size_t, c_char_p)
        sig("PL_term_type", c_int, term_t)
        sig("PL_get_nchars", c_int, term_t, POINTER(c_size_t), POINTER(c_char_p), c_uint)
        sig("PL_get_int64", c_int, term_t, POINTER(c_int64))
        sig("PL_get_float", c_int, term_t, POINTER(c_double))
        sig("PL_get_name_arity_sz", c_int, term_t, POINTER(atom_t), POINTER(c_size_t))
        sig("PL_get_atom", c_int, term_t, POINTER(atom_t))
        sig("PL_register_atom", None, atom_t)
        sig("PL_get_arg_sz", c_int, c_size_t, term_t, term_t)
        sig("PL_get_list", c_int, term_t, term_t, term_t)
        sig("PL_atom_nchars", c_char_p, atom_t, POINTER(c_size_t))
        sig("PL_unify", c_int, term_t, term_t)
        sig("PL_open_foreign_frame", fid_t)
        sig("PL_discard_foreign_frame", None, fid_t)
        sig("PL_close_foreign_frame", None, fid_t)
        sig("PL_predicate", predicate_t, c_char_p, c_int, c_char_p)
        sig("PL_open_query", qid_t, module_t, c_int, predicate_t, term_t)
        sig("PL_next_solution", c_int, qid_t)
        sig("PL_cut_query", c_int, qid_t)
        sig("PL_close_query", c_int, qid_t)
        sig("PL_exception", term_t, qid_t)
        sig("PL_clear_exception", None)
        sig("PL_raise_exception", c_int, term_t)
        sig("PL_register_foreign_in_module", c_int, c_char_p, c_char_p, c_int, FOREIGN_VARARGS, c_int)
        sig("PL_mark_string_buffers", None, POINTER(buf_mark_t))
        sig("PL_release_string_buffers_from_mark", None, buf_mark_t)
        sig("PL_unregister_atom", None, atom_t)
        try:  # present when SWI-Prolog is built with GMP (Debian's is)
            sig("PL_unify_mpz", c_int, term_t, POINTER(Mpz))
        except AttributeError:
            self.PL_unify_mpz = None

    def _sig(self, name: str, restype, *argtypes) -> None:
        fn = getattr(self.lib, name)
        fn.restype = restype
        fn.argtypes = list(argtypes)
        setattr(self, name, fn)

    # -- text ------------------------------------------------------------------------------
    def get_text(self, t: int, flags: int) -> str | None:
        """Text of an atom/string/number term as UTF-8-decoded ``str``, or None if not textual.

        The conversion may take a buffer from SWI-Prolog's string-buffer stack (REP_UTF8 of a
        Latin-1 or wide text does, whatever the BUF_ flag); the text is copied at once and the
        stack released to where it was, the C API's PL_STRINGS_MARK()/PL_STRINGS_RELEASE().
        Without that every fetch leaks a buffer until SWI-Prolog aborts the process with
        "Too many stacked strings".
        """
        try:
            length, buf, mark, refs = self._text_out.refs
        except AttributeError:  # the first text read by this thread: its own out-parameters
            length, buf, mark = c_size_t(), c_char_p(), buf_mark_t()
            refs = (byref(length), byref(buf), byref(mark))
            self._text_out.refs = (length, buf, mark, refs)
        self.PL_mark_string_buffers(refs[2])
        try:
            if not self.PL_get_nchars(t, refs[0], refs[1], flags | REP_UTF8 | BUF_DISCARDABLE):
                return None
            return string_at(buf, length.value).decode("utf-8", "surrogatepass")
        finally:
            self.PL_release_string_buffers_from_mark(mark)

    def put_big_integer(self, t: int, value: int) -> int:
        """Put an integer beyond 64 bits into ``t``.

        Through GMP's limbs (PL_unify_mpz), not by reading its digits: SWI-Prolog 9.0's
        PL_put_term_from_chars keeps about 32 bytes per call, so a long-running process that
        passes big integers would grow without bound.
        """
        if self.PL_unify_mpz is None:
            data = str(value).encode()
            return self.PL_put_term_from_chars(t, REP_UTF8, len(data), data)
        magnitude, limbs = abs(value), []
        while magnitude:
            limbs.append(magnitude & 0xFFFF_FFFF_FFFF_FFFF)
            magnitude >>= 64
        digits = (ctypes.c_uint64 * len(limbs))(*limbs)
        z = Mpz(len(limbs), len(limbs) if value > 0 else -len(limbs), digits)
        self.PL_put_variable(t)
        return self.PL_unify_mpz(t, byref(z))

    def atom_text(self, a: int) -> str:
        length = c_size_t()
        ptr = self.PL_atom_nchars(a, byref(length))
        return (ptr or b"").decode("utf-8", "surrogatepass")
