"""Deterministic entity extraction: file paths, error class names, error-looking output.

Everything here is a plain regular expression over a bounded piece of text, so extraction is
cheap, repeatable and linear in the input. Paths are recognised by a known file extension
(``src/app.py``, ``/repo/README.md``, ``tests/test_x.py::test_y`` gives ``tests/test_x.py``);
error classes by the Python/Java naming habit of a capitalised identifier ending in ``Error``,
``Exception``, ``Warning``, ``Timeout``, ``Interrupt`` or ``Exit`` (``ValueError``,
``requests.exceptions.ReadTimeout`` gives ``ReadTimeout``).
"""

from __future__ import annotations

import posixpath
import re

MAX_ENTITIES_PER_KIND = 8
"""At most this many paths and this many error classes are linked from one item."""

_PROBE_CHARS = 20_000

_EXTENSIONS = (
    "py pyi pyx ipynb js jsx mjs cjs ts tsx vue svelte json jsonl yaml yml toml ini cfg conf env "
    "md rst txt csv tsv sql sh bash zsh fish ps1 bat go rs java kt kts scala groovy gradle rb php "
    "c h cc cpp cxx hpp hh cs fs swift m mm pl pm lua r jl dart ex exs erl hrl hs ml mli clj "
    "html htm css scss sass less xml xsd proto graphql gql tf tfvars hcl lock log cmake mk "
    "dockerfile tex bib svg"
).split()


# Paths are found from their extension backwards: the scan looks for "." (a fast literal
# search) instead of trying a path pattern at every character.
def _extension_alternatives(extensions: list[str]) -> str:
    """``(?:p(?:yi|y|...)|j(?:s|...)|...)``: grouped by first letter, so a "." followed by a
    letter tries one group rather than every extension (sentences have many dots)."""
    groups: dict[str, list[str]] = {}
    for extension in extensions:
        groups.setdefault(extension[0], []).append(extension[1:])
    parts = []
    for first, rests in sorted(groups.items()):
        rests = sorted(set(rests), key=lambda rest: (-len(rest), rest))
        parts.append(first + "(?:" + "|".join(rests) + ")")
    return "(?:" + "|".join(parts) + ")"


_EXTENSION_AT = re.compile(
    r"\.(?=[a-z])" + _extension_alternatives(_EXTENSIONS) + r"(?![\w/-]|\.\w)"
)
# The characters of a path, matched backwards from the extension on the reversed text.
_PATH_RUN = re.compile(r"[A-Za-z0-9_.@+~/-]*")
_ERROR_SUFFIX = re.compile(r"(?:Error|Exception|Warning|Timeout|Interrupt|Exit)\b")
_NAME_RUN = re.compile(r"[A-Za-z0-9]*")

# Output that reports a failure: a Python traceback, "SomethingError: ..." or "Error: ..." at
# the start of a line, pytest/unittest failure summaries, non-zero exit statuses, shell and
# compiler failures. Anchored patterns keep ordinary prose ("no errors found") out. Each
# pattern runs only when a literal it needs is present: one regular expression with all of
# them as alternatives is tried at every character and costs ten times more.
_TRACEBACK = "Traceback (most recent call last)"
_ERROR_WORD = re.compile(r"(?:rror|RROR|xception|atal|ATAL)(?:\[\w+\])?(?::|\s*!)\s")
_ERROR_WORD_LINE_START = re.compile(r"[ \t]*[\w.]*")  # what may precede the word on its line
_GUARDED_FAILURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("FAIL", re.compile(r"^(?:FAILED|FAIL:)", re.MULTILINE)),
    ("ERROR", re.compile(r"^ERROR\b", re.MULTILINE)),
    (" failed", re.compile(r"\b[1-9]\d* failed\b")),
    (" error", re.compile(r"\b[1-9]\d* errors?\b(?=[ ,=]|$)", re.MULTILINE)),
    ("xit ", re.compile(r"\b[Ee]xit (?:code|status)[: ]\s*[1-9]")),
    ("exited with", re.compile(r"\bexited with (?:code|status) [1-9]")),
    ("npm ERR!", re.compile(r"^npm ERR!", re.MULTILINE)),
    # make's own failure line ("make: *** [all] Error 2", "make[1]: *** ... Error 1")
    ("*** ", re.compile(r"^\S*make(?:\[\d+\])?: \*\*\* ", re.MULTILINE)),
    # Maven's "[INFO] BUILD FAILURE", Gradle's and Ant's "BUILD FAILED"
    ("BUILD FAIL", re.compile(r"\bBUILD FAIL(?:ED|URE)\b")),
)
_FAILURE_PHRASES = ("non-zero exit", ": command not found", "panicked at", "Segmentation fault")


def probe(text: str) -> str:
    """A bounded view of ``text`` (head and tail) for pattern checks on huge outputs."""
    if len(text) <= 2 * _PROBE_CHARS:
        return text
    return text[:_PROBE_CHARS] + "\n" + text[-_PROBE_CHARS:]


def looks_like_error(text: str) -> bool:
    """True when tool output or a message reports a failure (see the patterns above)."""
    view = probe(text)
    if _TRACEBACK in view or any(phrase in view for phrase in _FAILURE_PHRASES):
        return True
    for match in _ERROR_WORD.finditer(view):
        line_start = view.rfind("\n", 0, match.start()) + 1
        # "ValueError: x", "  ERROR: y", "error[E0308]: z" -- the word starts its line.
        if (
            match.start() > line_start
            and view[match.start() - 1].isalpha()
            and _ERROR_WORD_LINE_START.fullmatch(view, line_start, match.start())
        ):
            return True
    return any(guard in view and pattern.search(view) for guard, pattern in _GUARDED_FAILURES)


def error_classes(text: str) -> list[str]:
    """Distinct error class names in ``text``, in order of first appearance (at most 8)."""
    view = probe(text)
    if not (
        "Error" in view
        or "Exception" in view
        or "Warning" in view
        or "Timeout" in view
        or "Interrupt" in view
        or "Exit" in view
    ):
        return []
    found: list[str] = []
    backwards = view[::-1]
    for match in _ERROR_SUFFIX.finditer(view):
        start = match.start() - _run_length(_NAME_RUN, backwards, len(view) - match.start())
        name = view[start : match.end()]
        if (
            len(name) > match.end() - match.start()
            and name[0].isupper()
            and (start == 0 or view[start - 1] != "_")
            and name not in found
        ):
            found.append(name)
            if len(found) == MAX_ENTITIES_PER_KIND:
                break
    return found


def file_paths(text: str, cwd: str = "") -> list[str]:
    """Distinct file paths mentioned in ``text`` (made relative to ``cwd`` when under it)."""
    view = probe(text)
    found: list[str] = []
    backwards = ""
    for match in _EXTENSION_AT.finditer(view):
        if not backwards:
            backwards = view[::-1]
        start = match.start() - _run_length(_PATH_RUN, backwards, len(view) - match.start())
        candidate = view[start : match.end()]
        # The file name must not start with "." (".py" alone; hidden files are skipped too).
        name_start = candidate.rfind("/") + 1
        if candidate[name_start] == ".":
            continue
        path = relative_path(candidate, cwd)
        if path not in found:
            found.append(path)
            if len(found) == MAX_ENTITIES_PER_KIND:
                break
    return found


def _run_length(run: re.Pattern[str], backwards: str, position: int) -> int:
    """Length of the run of ``run`` characters ending just before ``len - position`` in the
    original text, found by matching forwards in the reversed text ``backwards``."""
    found = run.match(backwards, position)
    return found.end() - position if found else 0


def relative_path(path: str, cwd: str = "") -> str:
    """``path`` relative to ``cwd`` when it lies under it, else ``path`` normalised.

    Tools log absolute paths (``/home/dev/repo/src/app.py``) while people write relative ones
    (``src/app.py``); relating both to the same entity needs one spelling.
    """
    path = path.strip()
    if cwd and path.startswith("/") and cwd.startswith("/"):
        base = cwd.rstrip("/") + "/"
        if path.startswith(base):
            path = path[len(base) :]
    if "/." in path or "//" in path or path.startswith("./"):
        path = posixpath.normpath(path)
    return path
