"""One exception tree for the whole library.

Every error a user can cause derives from :class:`AtcError`; the CLI turns each into one line
on stderr and a non-zero exit. Prolog errors keep their original error term.
"""
from __future__ import annotations

import errno
import re
from typing import Any

#: Characters an error keeps on its one line (a message quoting a huge input stays readable).
ONE_LINE_CHARS = 600

#: A file system that refuses a write (full disk, quota, file-size limit, read-only, I/O
#: error): one line, as any error the user can cause, not a traceback.
STORAGE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})

# SWI-Prolog's words for a write the file system refused, as its stream reports it:
# "close/1: I/O error in write on stream <stream>(0x…) (File too large)".
_PROLOG_WRITE_REFUSED = re.compile(r"I/O error in write on stream \S+ \((?P<reason>[^()]+)\)")


# numpy's words for an array write (``tofile``, ``np.save`` to a file) that C's fwrite cut
# short, an OSError with no errno: "27847 requested and 4064 written".
_NUMPY_SHORT_WRITE = re.compile(r"\d+ requested and \d+ written$")


def write_refused(exc: BaseException) -> str:
    """Why the file system refused a write of the home, when ``exc`` is such a refusal (an
    OSError of :data:`STORAGE_ERRNOS`: "No space left on device: FILE"; numpy's array write cut
    short; Prolog's stream error:
    "writing to the memory home failed: File too large"), else "". The CLI and the watcher's
    log say it so, rather than a stream's address."""
    if isinstance(exc, OSError):
        if exc.errno is None and _NUMPY_SHORT_WRITE.match(str(exc)):
            return (f"a write of the memory home was cut short ({exc}): the disk is full, or a "
                    "quota or a file-size limit was met")
        if exc.errno not in STORAGE_ERRNOS:
            return ""
        return f"{exc.strerror or exc}{f': {exc.filename}' if exc.filename else ''}"
    found = _PROLOG_WRITE_REFUSED.search(str(exc)) if isinstance(exc, AtcError) else None
    return f"writing to the memory home failed: {found.group('reason')}" if found else ""


def one_line(exc: BaseException, reader: str | None = None) -> str:
    """The error on one line, as the CLI, the servers and the logs show it: its lines joined
    (a value the user gave with a newline in it, quoted in the message, would otherwise cut
    the message short before it says what is wrong), at most ``ONE_LINE_CHARS``; the
    exception's type name when it has no message. ``reader`` (``"cli"``, ``"mcp"``,
    ``"http"``: a client of ``atc serve``) picks
    the words an :class:`AtcError` has for that reader (see :meth:`AtcError.told`)."""
    said = getattr(exc, "readers", {}).get(reader) if reader else None
    return lines_joined(str(said or exc)) or type(exc).__name__


def lines_joined(text: str) -> str:
    """``text`` on one line, as :func:`one_line` puts an error: its non-blank lines stripped
    and joined by a space, at most ``ONE_LINE_CHARS``."""
    text = " ".join(line.strip() for line in text.splitlines() if line.strip())
    return text if len(text) <= ONE_LINE_CHARS else text[: ONE_LINE_CHARS - 1] + "…"


class AtcError(Exception):
    """Base class of every error Attention Cloud raises on purpose.

    Its message is an API caller's; where the way to put it right differs for a reader of
    another interface (a CLI user runs a command, an MCP agent calls a tool, an HTTP client
    of ``atc serve`` sends a request body), ``readers`` holds that reader's whole message,
    keyed ``"cli"``, ``"mcp"`` or ``"http"`` (see :meth:`told`)."""

    exit_code = 1
    readers: dict[str, str] = {}

    def told(self, **readers: str) -> "AtcError":
        """This error, with the message each named reader reads instead (``cli=...``,
        ``mcp=...``, ``http=...``); :func:`one_line` picks it. Returns the error, for ``raise``."""
        self.readers = {**self.readers, **readers}
        return self


class UsageError(AtcError):
    """Bad arguments or options (exit 2)."""

    exit_code = 2


class InputError(AtcError):
    """Input that cannot be ingested: malformed transcript, unreadable path, unknown format."""

    exit_code = 1


class BadArgument(InputError):
    """An argument that names nothing the home holds (a handle, receipt id, grant, principal,
    saved rule, cell) or is no value at all (an empty text to remember): bad usage, so exit 2
    on the command line as for a path that does not exist or an unknown ``--reader``; still an
    InputError for Python callers that catch one (``atc serve`` answers it 404)."""

    exit_code = 2


class HomeError(AtcError):
    """The memory home is missing, locked, corrupt or of an incompatible version."""


class WriterBusy(HomeError):
    """Another process holds the home's write lock (an ingest, a curate, a capture hook, a
    script's open Memory) and did not give it back within the wait.

    Attributes:
        holder: the pid that process wrote into the lock file, or None when unknown.
        who: the message's first part, which says who writes, without the advice to run the
            command again (what a process that waits by itself, such as ``atc watch``, logs).
    """

    def __init__(self, message: str, holder: int | None = None,
                 who: str | None = None) -> None:
        super().__init__(message)
        self.holder = holder
        self.who = message if who is None else who


class EmbeddingError(AtcError):
    """No embedder could be loaded, or vectors of a different embedder or dimension exist."""


class UnknownEmbedder(EmbeddingError):
    """An embedder spec (``--embedder``, config.json's ``embedder``) names no embedder: bad
    usage, as an unknown option value is."""

    exit_code = 2


#: Prolog errors that say a file of the home is damaged (rules/store.pl): exit 1, as any
#: other unusable home, not the 2 of a bad goal.
_DAMAGED_HOME = frozenset({"atc_journal_damaged", "atc_journal_batch_damaged"})


class PrologError(AtcError):
    """An exception raised by Prolog, carrying the original error term and its message.

    Attributes:
        term: the Prolog error term converted to Python (see ``attention_cloud.bridge.terms``).
    """

    exit_code = 2

    def __init__(self, message: str, term: Any = None) -> None:
        super().__init__(message)
        self.term = term
        if getattr(self._formal(), "name", None) in _DAMAGED_HOME:
            self.exit_code = 1            # the home's files, not the command line, are at fault

    def _formal(self) -> Any:
        """The formal term of ``error(Formal, Context)``, else None."""
        args = getattr(self.term, "args", None)
        return args[0] if args else None

    def existence(self) -> tuple[str, Any] | None:
        """``(Kind, Culprit)`` when the error is ``existence_error(Kind, Culprit)`` (a handle,
        grant or principal that is not there), else None: what a caller turns into its own
        plain "no such" line."""
        formal = self._formal()
        if getattr(formal, "name", None) == "existence_error" and len(formal.args) == 2:
            return str(formal.args[0]), formal.args[1]
        return None


class BridgeError(AtcError):
    """SWI-Prolog could not be found or loaded, or the chosen backend is unusable."""
